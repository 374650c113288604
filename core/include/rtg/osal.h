/* The operating-system abstraction layer. Tests reach the OS only through
 * these calls, so a port to another OS is one new directory under
 * core/osal/ (see docs/porting.md). The port's own types come from
 * rtg_osal_types.h in that directory. All calls return 0 or an errno. */
#ifndef RTG_OSAL_H
#define RTG_OSAL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtg_osal_types.h"

enum rtg_policy { RTG_SCHED_OTHER, RTG_SCHED_FIFO, RTG_SCHED_RR };

/* ---- what the port offers beyond threads, semaphores, mutexes and time ----
 * A test declares in its descriptor's .needs what it cannot run without;
 * the runner skips it, with the reason, on a port that lacks any of it. */
enum rtg_offer {
    RTG_OFFERS_PROCESSES = 1u << 0,   /* fork/spawn, and load generator processes */
    RTG_OFFERS_MSG_QUEUES = 1u << 1,  /* message channels (osal_msg.h) */
    RTG_OFFERS_SIGNALS = 1u << 2,     /* queued signals (osal_sig.h) */
    RTG_OFFERS_TIMERS = 1u << 3,      /* timers with expiry notification (osal_timer.h) */
    RTG_OFFERS_FRESH_PAGES = 1u << 4, /* mapping fresh pages, page fault counts (osal_mem.h) */
    RTG_OFFERS_RWLOCKS = 1u << 5,     /* reader-writer locks (osal_rwlock.h) */
    RTG_OFFERS_BARRIERS = 1u << 6,    /* barriers (osal_barrier.h) */
    RTG_OFFERS_DEADLINE = 1u << 7,    /* a deadline scheduler (osal_deadline.h) */
    RTG_OFFERS_AFFINITY_SETS = 1u << 8, /* a thread on a set of CPUs (osal_deadline.h) */
};
#define RTG_OFFERS_ALL ((RTG_OFFERS_AFFINITY_SETS << 1) - 1u) /* every bit above */
unsigned rtg_osal_offers(void);

/* ---- threads ---- */
struct rtg_thread_attr {
    enum rtg_policy policy;
    int prio;          /* ignored for RTG_SCHED_OTHER */
    int cpu;           /* pin to this CPU; -1 leaves affinity alone */
    size_t stack_size; /* 0: the port's default */
};
typedef void *(*rtg_thread_fn)(void *arg);

/* Creates the thread with its policy, priority and affinity already set
 * (no window where it runs with the creator's). */
int rtg_thread_create(rtg_thread_t *t, const struct rtg_thread_attr *attr, rtg_thread_fn fn,
                      void *arg);
int rtg_thread_join(rtg_thread_t t, void **result);
rtg_thread_t rtg_thread_self(void);
int rtg_thread_set_sched(rtg_thread_t t, enum rtg_policy policy, int prio);
/* Changes only the priority, the policy kept: POSIX's pthread_setschedprio,
 * whose rule for the thread's place in its new priority's list is not
 * pthread_setschedparam's (a lowered thread goes to the head, not the tail). */
int rtg_thread_set_prio(rtg_thread_t t, int prio);
int rtg_thread_get_sched(rtg_thread_t t, enum rtg_policy *policy, int *prio);
void rtg_thread_yield(void);
int rtg_pin_self(int cpu);
int rtg_prio_min(enum rtg_policy policy);
int rtg_prio_max(enum rtg_policy policy);
/* Round-robin slice length in ns, or an errno. */
int rtg_rr_interval_ns(uint64_t *ns);
const char *rtg_policy_name(enum rtg_policy policy);

/* ---- counting semaphores ---- */
int rtg_sem_init(rtg_sem_t *s, unsigned value);
int rtg_sem_destroy(rtg_sem_t *s);
int rtg_sem_wait(rtg_sem_t *s);
int rtg_sem_trywait(rtg_sem_t *s); /* EAGAIN when the count is zero */
/* Waits until CLOCK_MONOTONIC-based deadline (absolute ns); ETIMEDOUT. */
int rtg_sem_wait_until(rtg_sem_t *s, uint64_t deadline_ns);
int rtg_sem_post(rtg_sem_t *s);
int rtg_sem_value(rtg_sem_t *s, int *value);

/* ---- mutexes ---- */
enum rtg_mutex_protocol { RTG_PROTO_NONE, RTG_PROTO_INHERIT, RTG_PROTO_PROTECT };
/* ceiling is used by RTG_PROTO_PROTECT only. ENOTSUP when not offered. */
int rtg_mutex_init(rtg_mutex_t *m, enum rtg_mutex_protocol proto, int ceiling);
int rtg_mutex_destroy(rtg_mutex_t *m);
int rtg_mutex_lock(rtg_mutex_t *m);
int rtg_mutex_unlock(rtg_mutex_t *m);
const char *rtg_mutex_protocol_name(enum rtg_mutex_protocol proto);

/* ---- time ---- */
uint64_t rtg_mono_ns(void); /* CLOCK_MONOTONIC */
int rtg_sleep_until(uint64_t abs_mono_ns); /* absolute, EINTR retried */
/* Absolute sleep that returns EINTR when a signal (a stop request) comes. */
int rtg_sleep_until_intr(uint64_t abs_mono_ns);
int rtg_sleep_ns(uint64_t ns);              /* relative */
/* The tick the port's sleeps and timed waits are served on: its rate in
 * Hz, or 0 where they are high resolution (Linux's hrtimers). On a tick,
 * a wait ends on the first tick at or after its deadline: a period that
 * is not a whole number of ticks cannot be kept (common/tick_period.h). */
uint32_t rtg_wait_tick_hz(void);
/* The tick instant (CLOCK_MONOTONIC ns) nearest to t where the waits are
 * served on a tick, so that a deadline falls on one; t itself otherwise. */
uint64_t rtg_wait_tick_nearest(uint64_t t);
enum rtg_clock_id { RTG_CLK_MONOTONIC, RTG_CLK_MONOTONIC_RAW, RTG_CLK_REALTIME, RTG_CLK_BOOTTIME };
/* One read of a system clock in ns; ENOTSUP when the OS lacks it. */
int rtg_clock_read_ns(enum rtg_clock_id id, uint64_t *ns);
int rtg_clock_resolution_ns(enum rtg_clock_id id, uint64_t *ns);

/* ---- memory and the process ---- */
int rtg_lock_memory(void); /* all current and future pages */
int rtg_unlock_memory(void);
/* Where the tests share one bounded heap (an RTOS board): 0, with the bytes
 * free now and the largest block of them. ENOTSUP where memory is not so
 * bounded (virtual memory): a test keeps its default sizes there. */
int rtg_mem_available(size_t *free_bytes, size_t *largest_block);
/* What one more thread asked with this stack size takes of that heap (its
 * stack as the port sizes it, the kernel's and the OSAL's own). */
size_t rtg_thread_mem_bytes(size_t stack_size);
int rtg_cpu_count_configured(void);
/* Whether this process may run on cpu: in its affinity, or one it may move
 * to (an isolated CPU, outside the affinity a process inherits). */
bool rtg_cpu_usable(int cpu);

#endif
