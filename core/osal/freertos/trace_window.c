/* A kept window of the FreeRTOS flight recorder in the common vocabulary
 * (rtg/osal_trace.h), when the recorder closes: times in ns on the board's
 * measuring clock, the idle task as pid 0, task names from the table the
 * recorder keeps, the tick and IRQ-P-LAT's timer as vectors by name. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "board_isr.h"
#include "fr_internal.h"
#include "trace_internal.h"

#define POLICY "FreeRTOS" /* fixed priorities, a higher number first */
#define TASKS_MAX 32

static int32_t pid_of(uint16_t number, uint16_t idle) { return number == idle ? 0 : number; }

static void name_of(const struct fr_name *names, uint16_t number, uint16_t idle, char *out,
                    size_t n)
{
    const struct fr_name *k = &names[number % FR_NAMES];
    if (k->number == number && k->name[0])
        snprintf(out, n, "%s", k->name);
    else
        snprintf(out, n, "%s", number == idle ? configIDLE_TASK_NAME : "");
}

static const char *isr_name(uint8_t which)
{
    return which == BOARD_ISR_TICK ? RTG_FR_TICK_NAME : board_irq_timer_name;
}

static void expand(const struct fr_tev *e, const struct fr_name *names, uint16_t idle,
                   struct rtg_tev *o)
{
    memset(o, 0, sizeof *o);
    o->t_ns = (int64_t)board_clock_ticks_ns(e->ticks);
    o->kind = e->kind;
    o->cpu = 0;
    o->num = -1;
    switch (e->kind) {
    case RTG_TEV_SWITCH:
        o->cur = o->pid = pid_of(e->a, idle);
        o->prio = e->pa;
        o->state = e->x;
        name_of(names, e->a, idle, o->name, sizeof o->name);
        o->pid2 = pid_of(e->b, idle);
        o->prio2 = e->pb;
        name_of(names, e->b, idle, o->name2, sizeof o->name2);
        break;
    case RTG_TEV_WAKEUP:
        o->pid = pid_of(e->a, idle);
        o->prio = e->pa;
        name_of(names, e->a, idle, o->name, sizeof o->name);
        o->cur = pid_of(e->b, idle);
        o->num = 0; /* its CPU: the one there is */
        break;
    default: /* the board's interrupts */
        o->cur = pid_of(e->a, idle);
        o->num = e->b;
        snprintf(o->name, sizeof o->name, "%s", isr_name(e->x));
        break;
    }
}

static void add_task(struct rtg_trace_window *w, size_t cap, int32_t pid)
{
    if (pid <= 0 || w->n_tasks >= cap)
        return;
    for (size_t i = 0; i < w->n_tasks; i++)
        if (w->tasks[i].pid == pid)
            return;
    w->tasks[w->n_tasks].pid = pid;
    snprintf(w->tasks[w->n_tasks].policy, sizeof w->tasks[0].policy, "%s", POLICY);
    w->n_tasks++;
}

int rtg_fr_window_expand(const struct fr_kept *k, const struct fr_name *names, uint16_t idle,
                         struct rtg_trace_window *w)
{
    memset(w, 0, sizeof *w);
    /* short of memory, the newest events that fit (the window then starts later) */
    size_t n = k->n, skip = 0;
    while (n > 0 && !(w->events = malloc(n * sizeof *w->events))) {
        n /= 2;
        skip = k->n - n;
    }
    size_t cap = 2 * n + 1 < TASKS_MAX ? 2 * n + 1 : TASKS_MAX; /* two an event, the thread */
    w->tasks = calloc(cap, sizeof *w->tasks);
    if ((k->n && !w->events) || !w->tasks) {
        free(w->events);
        free(w->tasks);
        memset(w, 0, sizeof *w);
        return ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        expand(&k->ev[skip + i], names, idle, &w->events[i]);
    w->n_events = n;
    w->start_ns = skip && n ? (uint64_t)w->events[0].t_ns : k->start_ns;
    if (w->start_ns < k->start_ns)
        w->start_ns = k->start_ns; /* the switch before the window says who ran, no more */
    w->cpu = 0;
    w->capped = k->capped || skip > 0;
    w->lost_events = k->lost_events;
    w->first_event_ns = k->first_event_ns;
    for (size_t i = 0; i < n; i++) {
        add_task(w, cap, w->events[i].cur);
        add_task(w, cap, w->events[i].pid);
        if (w->events[i].kind == RTG_TEV_SWITCH)
            add_task(w, cap, w->events[i].pid2);
    }
    add_task(w, cap, pid_of(k->tid, idle));
    return 0;
}
