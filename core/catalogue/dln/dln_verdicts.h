/* DLN behaviour verdicts: pure functions of the evidence DLN-B-ADM records
 * (core/catalogue/dln/dln_verdicts.c), unit-tested with evidence that must
 * pass and evidence that must fail (core/unit/test_dln_verdicts.c). */
#ifndef RTG_DLN_VERDICTS_H
#define RTG_DLN_VERDICTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/steal_watch.h"

/* One task asked for, in the order asked, and what the OS answered
 * (rc 0: admitted, otherwise the refusal's errno). */
struct rtg_dln_ask {
    uint64_t runtime_ns, period_ns;
    int rc;
};

/* Total runtime/period of the admitted tasks. */
double rtg_dln_admitted_util(const struct rtg_dln_ask *a, size_t n);
double rtg_dln_asked_util(const struct rtg_dln_ask *a, size_t n);
/* An over-subscribed set (asked utilisation above cpus) is refused: some
 * task was refused and what was admitted fits the CPUs (<= cpus). */
bool rtg_dln_oversubscribed_refused(const struct rtg_dln_ask *a, size_t n, int cpus);
/* A set below capacity (asked utilisation <= capacity) is admitted whole. */
bool rtg_dln_below_admitted(const struct rtg_dln_ask *a, size_t n, double capacity);
/* Each admitted task got its runtime every period: the fewest periods run
 * is the periods asked of each, and no deadline was missed except in
 * periods the machine's pauses account for (periods: every task's, with
 * their steal readings; rtg_steal_watch_tolerable). */
bool rtg_dln_run_ok(uint64_t periods_run, uint64_t periods_asked,
                    const struct rtg_steal_watch *periods);

#endif
