/* OSAL topic: timers and timed waits (TMR, IRQ). Times are absolute
 * CLOCK_MONOTONIC ns unless the name says relative. Calls return 0 or an
 * errno value; ENOTSUP when the OS does not offer the mechanism. */
#ifndef RTG_OSAL_TIMER_H
#define RTG_OSAL_TIMER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rtg_timer_mode {
    /* A POSIX timer whose signal the owning thread waits for (sigwaitinfo). */
    RTG_TIMER_SIGWAIT,
    /* A timer whose expiry runs fn(arg) as a handler: on POSIX the signal
     * handler of a POSIX timer, on the owning thread; on an RTOS the timer
     * interrupt's handler itself (rtg_timer_handler_context says which).
     * fn must be async-signal-safe and interrupt-safe (read the clock,
     * rtg_sem_post). The owning thread waits with rtg_sleep_until_intr. */
    RTG_TIMER_HANDLER,
    /* A timerfd the owning thread reads. */
    RTG_TIMER_FD,
};

struct rtg_timer;

/* A timer whose expiries go to the calling thread (its owner). */
int rtg_timer_create(struct rtg_timer **t, enum rtg_timer_mode mode, void (*fn)(void *arg),
                     void *arg);
/* First expiry at first_abs_ns, then every period_ns (0: one shot). */
int rtg_timer_arm(struct rtg_timer *t, uint64_t first_abs_ns, uint64_t period_ns);
/* SIGWAIT and FD: blocks until the next expiry of the armed timer (so at
 * most one period for a periodic timer) or a signal (EINTR). *expirations
 * is the number of expiries it accounts for: 1 + overruns. */
int rtg_timer_wait(struct rtg_timer *t, uint64_t *expirations);
/* Where a HANDLER timer's fn runs, as metric names say it: "signal_handler"
 * (POSIX), "isr" (in the interrupt), "none" (no such timer). */
const char *rtg_timer_handler_context(void);
/* HANDLER: overruns of the expiry being handled (async-signal-safe). */
int rtg_timer_overrun(struct rtg_timer *t);
/* Disarms and frees; call from the owning thread. */
void rtg_timer_delete(struct rtg_timer *t);

/* Relative waits through other calls, each returning EINTR on a signal. */
int rtg_nanosleep_rel(uint64_t ns); /* nanosleep() */
int rtg_select_rel(uint64_t ns);    /* select() with no descriptors, µs rounded up */
int rtg_ppoll_rel(uint64_t ns);     /* ppoll() with no descriptors, ns */

/* Whether the kernel's timerlat tracer is available (tracefs mounted or
 * mountable, "timerlat" in available_tracers). why: what was found. A
 * tracefs mounted here is unmounted before returning. */
bool rtg_timerlat_available(char *why, size_t n);

#endif
