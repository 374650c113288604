/* Counting semaphores and mutexes of the FreeRTOS kernel. A mutex with
 * priority inheritance is a FreeRTOS mutex (it has inheritance built in);
 * "none" is a binary semaphore, which has none, so the negative control of
 * MUT-B-ARC shows the inversion; a ceiling protocol is not offered. */
#include <errno.h>

#include "board.h"
#include "fr_internal.h"
#include "semphr.h"

#define SEM_MAX 0x7fffffffu

int rtg_sem_init(rtg_sem_t *s, unsigned value)
{
    if (value > SEM_MAX)
        return EINVAL;
    s->handle = xSemaphoreCreateCounting(SEM_MAX, value);
    return s->handle ? 0 : ENOMEM;
}

int rtg_sem_destroy(rtg_sem_t *s)
{
    vSemaphoreDelete((SemaphoreHandle_t)s->handle);
    s->handle = NULL;
    return 0;
}

int rtg_sem_wait(rtg_sem_t *s)
{
    return xSemaphoreTake((SemaphoreHandle_t)s->handle, portMAX_DELAY) == pdTRUE ? 0 : EINTR;
}

int rtg_sem_trywait(rtg_sem_t *s)
{
    return xSemaphoreTake((SemaphoreHandle_t)s->handle, 0) == pdTRUE ? 0 : EAGAIN;
}

/* A unit already there is taken without reading a clock (the count is a
 * hint read, no kernel call); only a wait that blocks works out its ticks
 * (rtg_fr_ticks_until: one clock read and a division: rtg_timed_port_adds
 * says so), and UINT64_MAX waits without a bound. */
int rtg_fr_take_until(void *handle, uint64_t deadline_ns)
{
    SemaphoreHandle_t h = (SemaphoreHandle_t)handle;
    if (uxSemaphoreGetCountFromISR(h) > 0 && xSemaphoreTake(h, 0) == pdTRUE)
        return 0;
    if (deadline_ns == UINT64_MAX)
        return xSemaphoreTake(h, portMAX_DELAY) == pdTRUE ? 0 : EINTR;
    for (;;) {
        TickType_t ticks = rtg_fr_ticks_until(deadline_ns);
        if (ticks == 0)
            return ETIMEDOUT;
        if (xSemaphoreTake(h, ticks) == pdTRUE)
            return 0;
    }
}

int rtg_sem_wait_until(rtg_sem_t *s, uint64_t deadline_ns)
{
    return rtg_fr_take_until(s->handle, deadline_ns);
}

/* Also from an interrupt handler (a timer's, timer.c): the waiter, if
 * higher than the interrupted task, runs as soon as the interrupt ends. */
int rtg_sem_post(rtg_sem_t *s)
{
    if (board_in_isr()) {
        BaseType_t woken = pdFALSE;
        BaseType_t ok = xSemaphoreGiveFromISR((SemaphoreHandle_t)s->handle, &woken);
        portYIELD_FROM_ISR(woken);
        return ok == pdTRUE ? 0 : EOVERFLOW;
    }
    return xSemaphoreGive((SemaphoreHandle_t)s->handle) == pdTRUE ? 0 : EOVERFLOW;
}

int rtg_sem_value(rtg_sem_t *s, int *value)
{
    *value = (int)uxSemaphoreGetCount((SemaphoreHandle_t)s->handle);
    return 0;
}

int rtg_mutex_init(rtg_mutex_t *m, enum rtg_mutex_protocol proto, int ceiling)
{
    (void)ceiling;
    m->proto = (int)proto;
    switch (proto) {
    case RTG_PROTO_INHERIT:
        m->handle = xSemaphoreCreateMutex();
        break;
    case RTG_PROTO_NONE:
        m->handle = xSemaphoreCreateBinary();
        if (m->handle)
            xSemaphoreGive((SemaphoreHandle_t)m->handle);
        break;
    default:
        return ENOTSUP; /* FreeRTOS has no priority ceiling protocol */
    }
    return m->handle ? 0 : ENOMEM;
}

int rtg_mutex_destroy(rtg_mutex_t *m)
{
    vSemaphoreDelete((SemaphoreHandle_t)m->handle);
    m->handle = NULL;
    return 0;
}

int rtg_mutex_lock(rtg_mutex_t *m)
{
    return xSemaphoreTake((SemaphoreHandle_t)m->handle, portMAX_DELAY) == pdTRUE ? 0 : EINTR;
}

int rtg_mutex_unlock(rtg_mutex_t *m)
{
    return xSemaphoreGive((SemaphoreHandle_t)m->handle) == pdTRUE ? 0 : EPERM;
}

const char *rtg_mutex_protocol_name(enum rtg_mutex_protocol proto)
{
    switch (proto) {
    case RTG_PROTO_INHERIT: return "priority inheritance (FreeRTOS mutex)";
    case RTG_PROTO_PROTECT: return "priority ceiling";
    default: return "binary semaphore (no protocol)";
    }
}
