/* The periodic wake-up loop shared by TMR-P-LAT and TMR-P-LOAD, with the
 * wake-up mechanism as a variant. Runs in its own (SCHED_FIFO) thread. */
#ifndef RTG_TMR_WAKE_H
#define RTG_TMR_WAKE_H
#include <stdbool.h>
#include <stdint.h>

enum rtg_wake_variant {
    RTG_WAKE_CLOCK_NANOSLEEP, /* clock_nanosleep(TIMER_ABSTIME) */
    RTG_WAKE_NANOSLEEP,       /* nanosleep(next - now), relative */
    RTG_WAKE_POSIX_TIMER,     /* periodic POSIX timer, signal waited for */
    RTG_WAKE_TIMERFD,         /* periodic timerfd, read */
    RTG_WAKE_SELECT,          /* select() timeout (next - now), µs */
    RTG_WAKE_POLL,            /* ppoll() timeout (next - now), ns */
    RTG_WAKE_VARIANTS
};
#define RTG_WAKE_CHOICES "clock_nanosleep,nanosleep,posix_timer,timerfd,select,poll"

const char *rtg_wake_name(enum rtg_wake_variant v);
/* -1 when unknown. */
int rtg_wake_parse(const char *name);

struct rtg_waker {
    enum rtg_wake_variant variant;
    uint64_t period_ns;
    uint64_t start_ns;  /* first programmed wake-up (CLOCK_MONOTONIC) */
    uint64_t loops;     /* at most this many wake-ups */
    uint64_t end_ns;    /* and none programmed at or after this time */
    volatile int *quit; /* optional: set non-zero to end the loop */
    /* Called with each wake-up: the first programmed expiry it serves (the
     * latency is wake_ns - expiry_ns, negative for an early wake-up) and
     * the wake time. */
    void (*sample)(void *arg, uint64_t expiry_ns, uint64_t wake_ns);
    void *arg;
    /* out */
    uint64_t samples;
    uint64_t missed; /* periods skipped (late wake-up, overrun) */
    int error;       /* errno of a failed call */
    const char *failed_call;
};

/* The thread function: arg is a struct rtg_waker. */
void *rtg_wake_loop(void *arg);

#endif
