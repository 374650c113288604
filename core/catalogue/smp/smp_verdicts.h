/* SMP behaviour verdicts: pure functions of the evidence SMP-B-MIG records
 * (core/catalogue/smp/smp_verdicts.c), unit-tested with evidence that must
 * pass and evidence that must fail (core/unit/test_smp_verdicts.c). */
#ifndef RTG_SMP_VERDICTS_H
#define RTG_SMP_VERDICTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A stretch of time a thread was seen running (ns, any common origin). */
struct rtg_smp_span {
    uint64_t start, end;
};

/* One thread in one round: woken at wake_ns, runnable until its last span
 * ends, running during its spans (sorted, disjoint). rank 0 is the highest
 * priority. */
struct rtg_smp_thread {
    int rank;
    uint64_t wake_ns;
    const struct rtg_smp_span *spans;
    size_t n_spans;
};

/* Global fixed-priority scheduling on `cpus` CPUs: at every instant, a
 * runnable thread that is not running has `cpus` threads of higher
 * priority running. Returns the longest stretch (ns) in which some thread
 * waited without that being so (0: the claim held at every instant), and
 * the waiting thread's rank in *who (-1 when none). */
uint64_t rtg_smp_worst_wait(const struct rtg_smp_thread *th, size_t n, int cpus, int *who);
/* The verdict of one round: no such stretch longer than tolerance_ns (the
 * time a wake-up and a migration may take). */
bool rtg_smp_round_ok(uint64_t worst_wait_ns, uint64_t tolerance_ns);

#endif
