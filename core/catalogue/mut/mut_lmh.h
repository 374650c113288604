/* The L/M/H loop of MUT-P-ARC and MUT-P-PIR: the MUT-B-ARC set-up run in
 * a loop with three persistent threads on one CPU, L < M < H (SCHED_FIFO):
 *   L locks, wakes M; M wakes H; H asks for the mutex and blocks.
 *   With inheritance L (boosted above M) runs next, finishes its critical
 *   section and unlocks; H runs, unlocks, blocks for the next round; M
 *   then runs its short bounded busy phase and blocks; L loops.
 *   Without (protocol=none) M's busy phase passes before L can go on. */
#ifndef RTG_MUT_LMH_H
#define RTG_MUT_LMH_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "rtg/osal.h"
#include "rtg/test.h"

struct lmh {
    struct rtg_ctx *ctx;
    rtg_mutex_t m;
    rtg_sem_t wake_m, wake_h;
    int64_t loops;
    uint64_t cs_ticks_ns, m_busy_ns;
    atomic_bool quit;
    atomic_bool h_asked;
    uint64_t t_req; /* ticks, written by H */
    /* Written by L before its unlock, read by H once it holds the mutex:
     * L's stamp before the unlock, and whether H had asked in time (a
     * round where it had not measures nothing). */
    uint64_t t_unlock;
    bool round_counts;
    /* Each recorded at once by the thread it measures: acq by L (H's
     * request to L running), rel and wait by H (its wake-up, its lock). */
    struct rtg_metric *acq, *rel, *wait;
    int64_t skipped; /* rounds where H had not asked when L resumed */
    int timeouts;
    int error;
};

/* Runs x->loops rounds with that protocol and records into x's metrics;
 * 0, or -1 after rtg_fail_error. */
int rtg_mut_lmh_run(struct rtg_ctx *ctx, struct lmh *x, enum rtg_mutex_protocol proto);
/* The "protocol" option: inherit or none. */
enum rtg_mutex_protocol rtg_mut_proto_opt(const struct rtg_ctx *ctx);
/* 0 when the set-up can run (SCHED_FIFO, --prio >= 4), else -1 after rtg_skip. */
int rtg_mut_lmh_check(struct rtg_ctx *ctx);

#endif
