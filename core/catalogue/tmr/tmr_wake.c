/* The periodic wake-up loop of TMR-P-LAT and TMR-P-LOAD (tmr_wake.h). */
#include "tmr_wake.h"

#include <errno.h>
#include <string.h>

#include "rtg/osal.h"
#include "rtg/osal_timer.h"
#include "rtg/test.h"
#include "common/catalogue.h"
#include "common/tick_period.h"

static const char *const names[RTG_WAKE_VARIANTS] = {"clock_nanosleep", "nanosleep", "posix_timer",
                                                     "timerfd",         "select",    "poll"};

const char *rtg_wake_name(enum rtg_wake_variant v)
{
    return (unsigned)v < RTG_WAKE_VARIANTS ? names[v] : "?";
}

int rtg_wake_parse(const char *name)
{
    for (int i = 0; i < RTG_WAKE_VARIANTS; i++)
        if (name && strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

static bool done(const struct rtg_waker *w, uint64_t i, uint64_t next)
{
    return i >= w->loops || next >= w->end_ns || rtg_stop_requested() || (w->quit && *w->quit);
}

/* Sleeps until next by the relative variants; returns an errno or 0. */
static int rel_sleep(enum rtg_wake_variant v, uint64_t next)
{
    uint64_t now = rtg_mono_ns();
    uint64_t d = rtg_past(next, now);
    switch (v) {
    case RTG_WAKE_NANOSLEEP: return rtg_nanosleep_rel(d);
    case RTG_WAKE_SELECT: return rtg_select_rel(d);
    case RTG_WAKE_POLL: return rtg_ppoll_rel(d);
    default: return rtg_sleep_until_intr(next);
    }
}

static void *timer_loop(struct rtg_waker *w)
{
    struct rtg_timer *t = NULL;
    enum rtg_timer_mode mode = w->variant == RTG_WAKE_TIMERFD ? RTG_TIMER_FD : RTG_TIMER_SIGWAIT;
    int rc = rtg_timer_create(&t, mode, NULL, NULL);
    if (!rc)
        rc = rtg_timer_arm(t, w->start_ns, w->period_ns);
    if (rc) {
        w->error = rc;
        w->failed_call = mode == RTG_TIMER_FD ? "timerfd_create/settime" : "timer_create/settime";
        rtg_timer_delete(t);
        return NULL;
    }
    uint64_t next = w->start_ns; /* the expiry the next wait accounts for first */
    for (uint64_t i = 0; !done(w, i, next); i++) {
        uint64_t n = 0;
        rc = rtg_timer_wait(t, &n);
        if (rc == EINTR)
            continue;
        if (rc) {
            w->error = rc;
            w->failed_call = mode == RTG_TIMER_FD ? "read(timerfd)" : "sigwaitinfo";
            break;
        }
        uint64_t now = rtg_mono_ns();
        if (n == 0)
            continue;
        /* n expiries since the last wait: the first of them (next) waited
         * longest and is what the latency is measured from; the n - 1 others
         * are periods missed. Measured from the latest one, a stall would
         * show as its size modulo one period. */
        w->missed += n - 1;
        w->sample(w->arg, next, now);
        w->samples++;
        next += n * w->period_ns;
    }
    rtg_timer_delete(t);
    return NULL;
}

void *rtg_wake_loop(void *arg)
{
    struct rtg_waker *w = arg;
    if (w->variant == RTG_WAKE_POSIX_TIMER || w->variant == RTG_WAKE_TIMERFD)
        return timer_loop(w);
    /* On a tick the sleeps end on one: the deadlines are put there. */
    uint64_t next = rtg_tick_deadline(w->start_ns);
    for (uint64_t i = 0; !done(w, i, next); i++) {
        int rc = rel_sleep(w->variant, next);
        if (rc == EINTR)
            continue; /* a stop request: the loop condition ends it */
        if (rc) {
            w->error = rc;
            w->failed_call = rtg_wake_name(w->variant);
            break;
        }
        uint64_t now = rtg_mono_ns();
        w->sample(w->arg, next, now); /* an early wake-up is a negative interval */
        w->samples++;
        next = rtg_tick_deadline(next + w->period_ns);
        while (next <= now) { /* the schedule stays absolute: periods overrun are missed */
            next = rtg_tick_deadline(next + w->period_ns);
            w->missed++;
        }
    }
    return NULL;
}
