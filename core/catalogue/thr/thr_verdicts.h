/* THR behaviour verdicts (core/catalogue/thr/thr_verdicts.c): pure
 * functions of the evidence the tests record (thr_behav.c), unit-tested in
 * core/unit/test_thr_verdicts.c with evidence that must pass and evidence
 * that must fail. */
#ifndef RTG_THR_VERDICTS_H
#define RTG_THR_VERDICTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- THR-B-NEW ----
 * Event log, one letter per event in the order they happened:
 * 'c' the creator calls create, 'r' create returned to the creator,
 * 'n' the new thread runs its first instruction, 'b' the creator blocks,
 * 'y' the creator calls yield, 'Y' yield returned to the creator. */
enum rtg_thr_new_check {
    RTG_THR_NEW_LOWER,      /* "crbn": lower priority runs only once the creator blocks */
    RTG_THR_NEW_SAME_TAIL,  /* "cry..": same priority does not run before the creator yields */
    RTG_THR_NEW_SAME_YIELD, /* "..ynY": once the creator yields, the new thread runs */
    RTG_THR_NEW_HIGHER,     /* "cnr": higher priority runs before create returns */
};
bool rtg_thr_new_ok(const char *log, enum rtg_thr_new_check check);

/* ---- THR-B-PRIO ----
 * Wake-up by a semaphore post: 'p' the running thread calls post, 'r' post
 * returned, 'w' the woken thread runs, 'b' the poster blocks. A higher
 * waiter must run inside the post ("pwr"); a lower one only once the
 * poster blocks ("prbw"). */
bool rtg_thr_wake_ok(const char *log, bool waiter_higher);

/* Lowering a running thread's priority to that of a ready thread X:
 * 'l' the lowering call, 'L' it returned to the lowered thread, 'x' X runs,
 * 'b' the lowered thread blocks. "lLbx": the lowered thread went to the
 * head of its new priority's queue (kept the CPU); "lxL": to the tail. */
enum rtg_thr_queue_pos { RTG_THR_POS_UNKNOWN, RTG_THR_POS_HEAD, RTG_THR_POS_TAIL };
enum rtg_thr_queue_pos rtg_thr_lowered_position(const char *log);
const char *rtg_thr_pos_name(enum rtg_thr_queue_pos p);
/* The verdict over n runs: every run landed at the promised position.
 * *observed: the position all runs agree on, or UNKNOWN when they differ
 * or any is unknown. */
bool rtg_thr_lowered_ok(const char *const *logs, size_t n, enum rtg_thr_queue_pos promised,
                        enum rtg_thr_queue_pos *observed);

/* ---- THR-B-RR ----
 * A stretch of time a thread ran without any other measured thread
 * running; times in ns from the start of the window. run_ns: the time it
 * actually ran in it (set by rtg_thr_rr_merge; gaps where nothing
 * measured ran, such as RT throttling, are not counted). */
struct rtg_thr_slice {
    int thread;
    uint64_t start_ns, end_ns;
    uint64_t run_ns;
};
#define RTG_THR_RR_MAX 16

/* Sorts segments by start and merges consecutive segments of the same
 * thread (a gap where no other measured thread ran is an interrupt or a
 * throttled period, not a new slice); run_ns of each result is the sum of
 * its segments' lengths (the input run_ns is ignored). Returns the number
 * of slices left in segs[0..n) (in place). */
size_t rtg_thr_rr_merge(struct rtg_thr_slice *segs, size_t n);

struct rtg_thr_rr_summary {
    int n_threads;
    uint64_t run_ns[RTG_THR_RR_MAX];         /* total run time per thread */
    uint64_t first_slice_ns[RTG_THR_RR_MAX]; /* each thread's first slice (0: never ran) */
    size_t n_full;                           /* slices neither first nor last */
    uint64_t median_slice_ns;                /* median run_ns of those; 0 when none */
    uint64_t min_slice_ns, max_slice_ns;
    double worst_share_dev_pct;              /* largest |run - mean| / mean, percent */
};
/* slices: merged, in time order. Threads are numbered 0..n_threads-1. */
void rtg_thr_rr_summarise(const struct rtg_thr_slice *slices, size_t n, int n_threads,
                          struct rtg_thr_rr_summary *s);
/* Every thread's run time within tol_pct of the mean (and every one ran). */
bool rtg_thr_rr_fair(const struct rtg_thr_rr_summary *s, double tol_pct);
/* The median full slice within tol_pct of the declared interval. */
bool rtg_thr_rr_slice_ok(const struct rtg_thr_rr_summary *s, uint64_t declared_ns, double tol_pct);

#endif
