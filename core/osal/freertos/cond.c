/* Condition variables on FreeRTOS, which has none: a counting semaphore
 * and a waiter count, over an rtg_mutex_t. A timed wait ends on the first
 * 1 ms tick at or after its deadline (rtg_fr_ticks_until), never before. */
#include <errno.h>
#include <stdlib.h>

#include "fr_internal.h"
#include "rtg/osal_cond.h"
#include "semphr.h"

struct rtg_cond {
    SemaphoreHandle_t wake;
    volatile unsigned waiters;
};

int rtg_cond_create(struct rtg_cond **out)
{
    struct rtg_cond *c = calloc(1, sizeof *c);
    if (!c || !(c->wake = xSemaphoreCreateCounting(0x7fffffffu, 0))) {
        free(c);
        return ENOMEM;
    }
    *out = c;
    return 0;
}

void rtg_cond_delete(struct rtg_cond *c)
{
    if (!c)
        return;
    vSemaphoreDelete(c->wake);
    free(c);
}

int rtg_cond_wait_until(struct rtg_cond *c, rtg_mutex_t *m, uint64_t deadline_ns)
{
    taskENTER_CRITICAL();
    c->waiters++;
    taskEXIT_CRITICAL();
    rtg_mutex_unlock(m);
    /* A count of ticks can end a wait before its deadline (the first tick
     * comes less than one after the call): wait again until it passed. */
    bool bounded = deadline_ns != UINT64_MAX;
    TickType_t ticks = bounded ? rtg_fr_ticks_until(deadline_ns) : portMAX_DELAY;
    bool woken = xSemaphoreTake(c->wake, ticks) == pdTRUE;
    while (!woken && bounded && (ticks = rtg_fr_ticks_until(deadline_ns)) != 0)
        woken = xSemaphoreTake(c->wake, ticks) == pdTRUE;
    taskENTER_CRITICAL();
    if (!woken && c->waiters > 0)
        c->waiters--; /* nobody signalled us: we are no longer waiting */
    taskEXIT_CRITICAL();
    rtg_mutex_lock(m);
    return woken ? 0 : ETIMEDOUT;
}

int rtg_cond_wait(struct rtg_cond *c, rtg_mutex_t *m) { return rtg_cond_wait_until(c, m, UINT64_MAX); }

int rtg_cond_signal(struct rtg_cond *c)
{
    taskENTER_CRITICAL();
    bool any = c->waiters > 0;
    if (any)
        c->waiters--;
    taskEXIT_CRITICAL();
    if (any)
        xSemaphoreGive(c->wake);
    return 0;
}

int rtg_cond_broadcast(struct rtg_cond *c)
{
    taskENTER_CRITICAL();
    unsigned n = c->waiters;
    c->waiters = 0;
    taskEXIT_CRITICAL();
    while (n--)
        xSemaphoreGive(c->wake);
    return 0;
}
