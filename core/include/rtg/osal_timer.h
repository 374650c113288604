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

/* Where an armed timer's expiries actually fall, on rtg_mono_ns's clock:
 * the k-th (0: the first) at first_ns + k * period_ns. armed_ns: the
 * instant from which the arming no longer matters; an expiry before it
 * (a set-up slower than the lead it was given) would hold the arming in
 * its figure. POSIX: the absolute time the kernel was given, and the
 * clock read after timer_settime returned. An RTOS: the board's timer
 * counts from one store, and the measuring clock is read next to it
 * (interrupts masked): the first expiry is that read plus the first count
 * in whole ticks, the period the whole ticks it runs, and armed_ns the
 * store; the ns arithmetic of the arming comes before it, not inside. */
struct rtg_timer_plan {
    uint64_t first_ns, period_ns, armed_ns;
};
/* rtg_timer_arm, and *plan (periodic only: period_ns > 0). */
int rtg_timer_arm_plan(struct rtg_timer *t, uint64_t first_abs_ns, uint64_t period_ns,
                       struct rtg_timer_plan *plan);
/* A HANDLER's clock read: the clock of the plan, raw and cheap, so that
 * nothing of a conversion runs in the handler (it would delay what the
 * handler wakes); rtg_timer_stamp_ns says it in rtg_mono_ns's ns, later.
 * POSIX: CLOCK_MONOTONIC ns already; an RTOS: the measuring clock's count. */
uint64_t rtg_timer_stamp(void);
/* In a HANDLER: the instant its interrupt entered, as rtg_timer_stamp says
 * it. An RTOS reads the clock as the first act of the timer's interrupt,
 * before any hook of a tracer, so that no hook is inside the service
 * figure; POSIX: now (the signal handler's own read). */
uint64_t rtg_timer_entry_stamp(void);
uint64_t rtg_timer_stamp_ns(uint64_t stamp);
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
