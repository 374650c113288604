/* SEM behaviour verdicts: pure functions of the evidence the tests record
 * (core/catalogue/sem/sem_verdicts.c), unit-tested in
 * core/unit/test_sem_verdicts.c. */
#ifndef RTG_SEM_VERDICTS_H
#define RTG_SEM_VERDICTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One timed P as it was observed: whether it acquired, how long the call
 * took (ns). */
struct rtg_sem_p_obs {
    bool acquired;
    uint64_t took_ns;
};
/* A P that did not block (the verdict on a P on a positive count): it
 * acquired in under half the time a P that did block (blocked_ns, timed
 * out on a zero count) took in the same run. With no blocking P observed
 * (blocked_ns 0) nothing can be decided: false. */
bool rtg_sem_p_did_not_block(struct rtg_sem_p_obs p, uint64_t blocked_ns);
/* P on a zero count blocks: it returned only by timing out, no earlier
 * than its timeout. */
bool rtg_sem_p_zero_blocks(bool timed_out, uint64_t waited_ns, uint64_t timeout_ns);
/* Two V on a zero count with no waiter, then three timed P: each V added
 * exactly one when the first two P acquire without blocking and the
 * third does not acquire (it times out). */
bool rtg_sem_v_increments(const struct rtg_sem_p_obs after_two_v[3], uint64_t blocked_ns);

/* The event log of a V on zero with one waiter, one letter per event in
 * the order they happened: 'b' the waiter is about to block in P, 'p' the
 * poster calls V, 'r' V returned to the poster, 'w' the waiter returned
 * from P (woken), 't' the waiter timed out. A higher-priority waiter must
 * run inside V ("bpwr"); a lower-priority one after it ("bprw"). */
bool rtg_sem_wake_order_ok(const char *log, bool waiter_higher);

/* SEM-B-REL: priorities in the order the waiters blocked and in the order
 * each V released them. */
enum rtg_sem_rel_result {
    RTG_SEM_REL_OK,            /* released by decreasing priority, all of them */
    RTG_SEM_REL_NOT_SCRAMBLED, /* blocking order already sorted: proves nothing */
    RTG_SEM_REL_MISSING,       /* fewer releases than waiters (a waiter timed out) */
    RTG_SEM_REL_WRONG_ORDER,   /* a release did not take the highest waiter */
};
/* *first_bad: index of the first wrong release (WRONG_ORDER), else n. */
enum rtg_sem_rel_result rtg_sem_rel_check(const int *block_prio, size_t n_block,
                                          const int *release_prio, size_t n_release,
                                          size_t *first_bad);
const char *rtg_sem_rel_result_name(enum rtg_sem_rel_result r);

#endif
