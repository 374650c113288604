/* Helpers shared by the catalogue's families, written once: time
 * constants, the test threads' stack size and attributes, a metric's one
 * parameter, an event log with time stamps, bounded busy waits. Only OSAL
 * and public calls. */
#ifndef RTG_CATALOGUE_COMMON_H
#define RTG_CATALOGUE_COMMON_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "rtg/json.h"
#include "rtg/metric.h"
#include "rtg/osal.h"
#include "rtg/test.h"

#define NS_PER_US 1000ull
#define NS_PER_MS 1000000ull
#define NS_PER_S 1000000000ull

/* How far `to` is past `from`, 0 when it is not: for what is no sample (a
 * sleep still to go, how late a wake-up is when counting misses, a
 * counter's growth, room left). A timed sample goes through
 * rtg_metric_interval, which counts a negative interval instead of
 * folding it to 0; the catalogue folds no difference to 0 by hand
 * (tests/unit/test_catalogue_intervals.py). */
static inline uint64_t rtg_past(uint64_t to, uint64_t from)
{
    if (to <= from)
        return 0;
    return to - from;
}

/* Stacks of the threads a test creates. The test locks its memory
 * (mlockall, MCL_FUTURE), so every byte of every stack is resident: stack
 * size x threads is what a test's threads cost. The size follows what the
 * thread does and how many there are:
 * - RTG_TEST_STACK, 64 KiB: a thread that records (metrics, notes, their
 *   formatting, the flight recorder's trigger) or calls deeper into the C
 *   library, and every thread of a test that has at most 17 (a MiB).
 * - RTG_TEST_STACK_LEAF, 16 KiB: a thread that only stamps the clock,
 *   waits, posts, yields or spins, in a test whose thread count reaches 64
 *   or more, by an option (THR-P-SLS, SEM-P-ARC, SEM-B-REL) or with the
 *   CPUs (BAR-P-LAT, THR-P-WKL). Its own frames take under 200 bytes; with
 *   the C library's calls, a lazily bound symbol and a signal handled on
 *   it (the stop request), such a thread touches 7.9 KiB of a 16 KiB
 *   stack (glibc, x86-64, AVX-512 signal frames), the thread's descriptor
 *   and TLS at its top included; core/osal/posix/unit/test_leaf_stack.c
 *   checks that a quarter stays untouched. 16 KiB is also the least glibc
 *   accepts there.
 * The port raises a size to the platform's least (128 KiB on aarch64
 * glibc); FreeRTOS caps a test thread's stack at 3 KiB. A test that gives
 * threads the leaf size records it in its info (stack_bytes, or
 * waiter_stack_bytes, busy_stack_bytes beside threads of the other size). */
#define RTG_TEST_STACK (64 * 1024)
#define RTG_TEST_STACK_LEAF (16 * 1024)

/* A test thread on the test's first CPU (--cpus) with that policy and
 * priority (0 for RTG_SCHED_OTHER). */
struct rtg_thread_attr rtg_attr_at(const struct rtg_ctx *ctx, enum rtg_policy pol, int prio);
/* SCHED_FIFO when the test obtained it, SCHED_OTHER otherwise (the
 * test's notes say so). */
enum rtg_policy rtg_rt_policy(const struct rtg_ctx *ctx);

/* The test's hooks-only "fault" option (RTG_OPT_HOOKS) equals name; always
 * false in the shipped probe, where the option keeps its default "none". */
bool rtg_fault_is(const struct rtg_ctx *ctx, const char *name);

/* A metric's params: {key: v} (a figure set's one varying parameter). */
void rtg_metric_params_int(struct rtg_metric *m, const char *key, int64_t v);

/* Sizes that fit a board's one heap. Where memory is bounded
 * (rtg_mem_available), how many of want units fit in seven eighths of
 * the heap free now less reserve (what the test needs beside them,
 * RTG_FIT_RESERVE and its own); want elsewhere. When fewer fit, the record says so:
 * "<what> = <want> reduced to <n>: <free> KB of heap". rtg_fit_count takes
 * units allocated one by one (threads: unit from rtg_thread_mem_bytes),
 * rtg_fit_array one block of them (it must fit the largest free block).
 * The result may be 0: the test says what it cannot run. */
#define RTG_FIT_RESERVE (12u * 1024u) /* the record, its notes, the test's own */
/* What one figure set takes at most (its histogram, its blocks of maxima). */
#define RTG_METRIC_BYTES (sizeof(struct rtg_metric) + sizeof(struct rtg_blocks) + 64u)
int64_t rtg_fit_count(struct rtg_ctx *ctx, const char *what, int64_t want, size_t unit,
                      size_t reserve);
int64_t rtg_fit_array(struct rtg_ctx *ctx, const char *what, int64_t want, size_t unit,
                      size_t reserve);
/* The note of a size a test reduced itself to fit the heap (same words). */
void rtg_fit_note(struct rtg_ctx *ctx, const char *what, int64_t want, int64_t got);

/* Who ran when: one letter per event, its clock ticks beside it. */
#define RTG_EV_MAX 15
struct rtg_evlog {
    char ev[RTG_EV_MAX + 1]; /* NUL-terminated */
    uint64_t t[RTG_EV_MAX];
    atomic_int n;
};
void rtg_ev_reset(struct rtg_evlog *l);
/* Thread-safe; events past RTG_EV_MAX are counted, not kept. */
void rtg_ev_add(struct rtg_evlog *l, char c);
/* {"events": "crbn", "t_ns": [0, ...]}, times relative to the first event. */
void rtg_ev_json(struct rtg_json *j, const struct rtg_evlog *l);

/* Busy until rtg_mono_ns() reaches the deadline / for ns nanoseconds, or
 * until the test is asked to stop (a spinning thread stays bounded). */
void rtg_spin_until(uint64_t mono_deadline_ns);
void rtg_spin_ns(uint64_t ns);

/* RT throttling (sched_rt_runtime_us) would cut a 50 ms hole into a long
 * SCHED_FIFO busy phase: a busy loop calls rtg_breathe() between two
 * measurements and pauses 20 ms after every 200 ms. every > 1 reads the
 * clock only every that many calls (cheap in tight loops). */
struct rtg_breather {
    unsigned every;
    unsigned calls;
    uint64_t since;
};
void rtg_breathe(struct rtg_breather *b);

#endif
