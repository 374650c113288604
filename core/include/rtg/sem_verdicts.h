/* SEM behaviour verdicts: pure functions of the evidence the tests record
 * (core/tests/sem_verdicts.c), unit-tested in core/unit/test_sem_verdicts.c. */
#ifndef RTG_SEM_VERDICTS_H
#define RTG_SEM_VERDICTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* P on a free semaphore: returned at once (rc 0) and took one unit. */
bool rtg_sem_p_free_ok(int rc, int value_before, int value_after);
/* P on a zero count blocks: it returned only by timing out, no earlier
 * than its timeout. */
bool rtg_sem_p_zero_blocks(bool timed_out, uint64_t waited_ns, uint64_t timeout_ns);
/* V with no waiter adds one to the count. */
bool rtg_sem_v_increments(int value_before, int value_after);

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
