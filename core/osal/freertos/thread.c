/* Tasks as threads. Priorities: one FreeRTOS level per catalogue level
 * (0 idle, 1 SCHED_OTHER, 2..100 for FIFO/RR 1..99). FreeRTOS's own time
 * slicing is off (FreeRTOSConfig.h); a task created RTG_SCHED_RR is
 * rotated by the tick hook below after RTG_FR_RR_TICKS of running, which
 * is what time slicing does, but per task, so FIFO tasks keep FIFO. */
#include <errno.h>
#include <stdlib.h>

#include "fr_internal.h"
#include "semphr.h"

struct rtg_fr_thread {
    TaskHandle_t task;
    rtg_thread_fn fn;
    void *arg;
    void *result;
    SemaphoreHandle_t done;
    enum rtg_policy policy;
    int prio;
    size_t stack_bytes;
    volatile uint32_t ran_ticks; /* in the current slice (RR) */
    struct rtg_fr_thread *next;   /* the live list */
    bool adopted;
};

static struct rtg_fr_thread *live;

UBaseType_t rtg_fr_priority(enum rtg_policy policy, int prio)
{
    if (policy == RTG_SCHED_OTHER)
        return RTG_FR_PRIO_OTHER;
    return (UBaseType_t)prio + 1u;
}

static void link_live(struct rtg_fr_thread *t)
{
    taskENTER_CRITICAL();
    t->next = live;
    live = t;
    taskEXIT_CRITICAL();
}

static void unlink_live(struct rtg_fr_thread *t)
{
    taskENTER_CRITICAL();
    for (struct rtg_fr_thread **p = &live; *p; p = &(*p)->next)
        if (*p == t) {
            *p = t->next;
            break;
        }
    taskEXIT_CRITICAL();
}

unsigned rtg_fr_live_threads(void)
{
    unsigned n = 0;
    taskENTER_CRITICAL();
    for (struct rtg_fr_thread *t = live; t; t = t->next)
        n += !t->adopted;
    taskEXIT_CRITICAL();
    return n;
}

unsigned rtg_fr_delete_all_threads(void)
{
    unsigned n = 0;
    TaskHandle_t me = xTaskGetCurrentTaskHandle();
    vTaskSuspendAll();
    for (struct rtg_fr_thread *t = live; t; t = t->next)
        if (!t->adopted && t->task != me) {
            rtg_fr_stacks_task_ended(t->task, t->stack_bytes);
            vTaskDelete(t->task);
            n++;
        }
    (void)xTaskResumeAll();
    return n;
}

bool rtg_fr_is_test_task(void)
{
    struct rtg_fr_thread *t = pvTaskGetThreadLocalStoragePointer(NULL, 0);
    return t && !t->adopted;
}

void rtg_fr_abort_delays(void)
{
    vTaskSuspendAll();
    for (struct rtg_fr_thread *t = live; t; t = t->next)
        if (!t->adopted)
            (void)xTaskAbortDelay(t->task);
    (void)xTaskResumeAll();
}

static void trampoline(void *p)
{
    struct rtg_fr_thread *t = p;
    vTaskSetThreadLocalStoragePointer(NULL, 0, t);
    t->result = t->fn(t->arg);
    xSemaphoreGive(t->done);
    /* The joiner deletes the task (that frees its stack at once; a task
     * deleting itself would wait for the idle task). */
    vTaskSuspend(NULL);
}

static int create(rtg_thread_t *out, const struct rtg_thread_attr *a, rtg_thread_fn fn, void *arg,
                  bool capped)
{
    if (a->policy != RTG_SCHED_OTHER && (a->prio < 1 || a->prio > RTG_FR_FIFO_MAX))
        return EINVAL;
    if (a->cpu > 0)
        return EINVAL; /* one CPU */
    struct rtg_fr_thread *t = calloc(1, sizeof *t);
    if (!t)
        return ENOMEM;
    t->fn = fn;
    t->arg = arg;
    t->policy = a->policy;
    t->prio = a->policy == RTG_SCHED_OTHER ? 0 : a->prio;
    t->done = xSemaphoreCreateBinary();
    if (!t->done) {
        free(t);
        return EAGAIN;
    }
    size_t stack = a->stack_size ? a->stack_size : RTG_FR_STACK_DEFAULT;
    if (capped && stack > RTG_FR_STACK_MAX)
        stack = RTG_FR_STACK_MAX;
    t->stack_bytes = stack;
    link_live(t);
    /* Created with its final priority: a higher one runs before this returns. */
    if (xTaskCreate(trampoline, "rtg", (configSTACK_DEPTH_TYPE)(stack / sizeof(StackType_t)), t,
                    rtg_fr_priority(a->policy, a->prio), &t->task) != pdPASS) {
        unlink_live(t);
        vSemaphoreDelete(t->done);
        free(t);
        return EAGAIN;
    }
    *out = t;
    return 0;
}

int rtg_thread_create(rtg_thread_t *out, const struct rtg_thread_attr *a, rtg_thread_fn fn,
                      void *arg)
{
    return create(out, a, fn, arg, true);
}

/* Its stack as created, the kernel's task and the semaphore it ends on,
 * ours; each allocation with its headers. */
size_t rtg_thread_mem_bytes(size_t stack_size)
{
    size_t stack = stack_size ? stack_size : RTG_FR_STACK_DEFAULT;
    if (stack > RTG_FR_STACK_MAX)
        stack = RTG_FR_STACK_MAX;
    return stack + sizeof(StaticTask_t) + sizeof(StaticSemaphore_t) +
           sizeof(struct rtg_fr_thread) + 4u * 16u;
}

int rtg_fr_thread_create_exact(rtg_thread_t *out, const struct rtg_thread_attr *a,
                               rtg_thread_fn fn, void *arg)
{
    return create(out, a, fn, arg, false);
}

int rtg_thread_join(rtg_thread_t t, void **result)
{
    if (t == rtg_thread_self())
        return EDEADLK;
    xSemaphoreTake(t->done, portMAX_DELAY);
    rtg_fr_stacks_task_ended(t->task, t->stack_bytes);
    vTaskDelete(t->task);
    unlink_live(t);
    vSemaphoreDelete(t->done);
    if (result)
        *result = t->result;
    free(t);
    return 0;
}

void rtg_fr_adopt_self(enum rtg_policy policy, int prio)
{
    struct rtg_fr_thread *t = calloc(1, sizeof *t);
    if (!t)
        return;
    t->task = xTaskGetCurrentTaskHandle();
    t->policy = policy;
    t->prio = prio;
    t->adopted = true;
    vTaskSetThreadLocalStoragePointer(NULL, 0, t);
    link_live(t);
}

TaskHandle_t rtg_fr_thread_task(rtg_thread_t t) { return t->task; }

rtg_thread_t rtg_thread_self(void)
{
    return pvTaskGetThreadLocalStoragePointer(NULL, 0);
}

int rtg_thread_set_sched(rtg_thread_t t, enum rtg_policy policy, int prio)
{
    if (!t)
        return ESRCH;
    if (policy != RTG_SCHED_OTHER && (prio < 1 || prio > RTG_FR_FIFO_MAX))
        return EINVAL;
    t->policy = policy;
    t->prio = policy == RTG_SCHED_OTHER ? 0 : prio;
    t->ran_ticks = 0;
    vTaskPrioritySet(t->task, rtg_fr_priority(policy, prio));
    return 0;
}

int rtg_thread_set_prio(rtg_thread_t t, int prio)
{
    /* FreeRTOS has one call for both: vTaskPrioritySet. */
    return t ? rtg_thread_set_sched(t, t->policy, prio) : ESRCH;
}

int rtg_thread_get_sched(rtg_thread_t t, enum rtg_policy *policy, int *prio)
{
    if (!t)
        return ESRCH;
    *policy = t->policy;
    *prio = t->prio;
    return 0;
}

void rtg_thread_yield(void) { taskYIELD(); }

int rtg_pin_self(int cpu) { return cpu == 0 || cpu == -1 ? 0 : EINVAL; }

int rtg_prio_min(enum rtg_policy policy) { return policy == RTG_SCHED_OTHER ? 0 : 1; }
int rtg_prio_max(enum rtg_policy policy)
{
    return policy == RTG_SCHED_OTHER ? 0 : RTG_FR_FIFO_MAX;
}

int rtg_rr_interval_ns(uint64_t *ns)
{
    *ns = (uint64_t)RTG_FR_RR_TICKS * (1000000000ull / configTICK_RATE_HZ);
    return 0;
}

int rtg_cpu_count_configured(void) { return 1; }
bool rtg_cpu_usable(int cpu) { return cpu == 0; }

/* Every tick, in the tick interrupt: an RR task that used its slice goes
 * to the tail of its priority's ready list. A context switch request does
 * that: FreeRTOS then picks the next ready task of the same priority. */
void vApplicationTickHook(void)
{
    struct rtg_fr_thread *t = pvTaskGetThreadLocalStoragePointer(NULL, 0);
    if (!t || t->policy != RTG_SCHED_RR)
        return;
    if (++t->ran_ticks >= RTG_FR_RR_TICKS) {
        t->ran_ticks = 0;
        portYIELD_FROM_ISR(pdTRUE);
    }
}
