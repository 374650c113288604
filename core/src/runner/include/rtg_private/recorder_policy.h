/* The flight recorder's policy, the same on every port: which offered
 * samples are kept, when the port freezes, and when a kept window is
 * complete. The port (rtg/osal_trace.h, struct rtg_trace_ops) supplies
 * only its events and its clock; it never calls up into this.
 *
 * Kept: the K worst samples above the floor, worst first, and the worst
 * sample of each figure (metric) that is not among them, as long as the
 * port has slots for the figures (cfg.slots - K; the figures after that
 * are counted untracked). A sample enters the K worst when fewer than K
 * are kept, or when it is worse than the least bad of them (a tie does
 * not enter), which then falls out (of equals, the one kept last); it
 * enters as its figure's worst when it is worse than that figure's kept
 * one. A slot is freed when its sample is neither. A sample that enters
 * is cut at once into a free slot; when the port cannot cut now, the kept
 * set is left as it was and the sample is counted uncaptured (with the
 * largest).
 *
 * Complete, the one meaning on every port: a window is complete when it
 * holds every event of its CPU from the sample's release to its end. Its
 * start is where that begins: the look-back's start, or later where the
 * port's recording began, just after the oldest event the buffer still
 * held when it had lost older ones, or at the first event kept when the
 * window was capped. The window is complete when that start is at or
 * before the release. */
#ifndef RTG_RECORDER_POLICY_H
#define RTG_RECORDER_POLICY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtg/metric.h"
#include "rtg/osal_trace.h"

/* The windows kept, as the record writes them. */
struct rtg_trace_result {
    struct rtg_trace_about about;
    size_t n_windows;
    struct rtg_trace_window windows[RTG_TRACE_SLOTS_MAX]; /* worst first */
    uint64_t offered; /* samples above the floor offered */
    uint64_t freezes; /* windows frozen (kept or displaced by worse ones) */
    /* Samples that would have been kept but could not be frozen (every
     * buffer busy): how many, and the largest. */
    uint64_t uncaptured, uncaptured_max_ns;
    /* Figure maxima offered when every figure slot was taken: not kept. */
    uint64_t figures_untracked;
    /* The figures whose worst the recorder tracked, in the order first seen. */
    size_t n_figures;
    char figures[RTG_TRACE_SLOTS_MAX][RTG_TRACE_METRIC_MAX];
    uint64_t lost_events; /* over the run, every buffer and CPU */
};
void rtg_trace_result_free(struct rtg_trace_result *r);

/* A sample offered: release to end on the trace clock, by the thread tid on
 * cpu (cpu -1: the calling thread, as the port says). figure_max: the
 * caller's hint that it is its figure's worst so far (a sample without it
 * is judged only against the K worst). */
struct rtg_sample {
    const char *metric;
    uint64_t release_ns, end_ns;
    int cpu;
    int32_t tid;
    bool figure_max;
    bool operation; /* the thread's own call (else a release latency) */
};

struct rtg_recorder;
/* Starts port's recorder for cfg (keep 1..RTG_TRACE_KEEP_MAX); 0, or an
 * errno with why filled (the port's own reason where it has one). */
int rtg_recorder_open(struct rtg_recorder **out, const struct rtg_trace_ops *port,
                      const struct rtg_trace_config *cfg, char *why, size_t n);
/* A sample from the thread whose wake-up it measures, right after it ran.
 * Cheap unless it enters the kept set. */
void rtg_recorder_offer(struct rtg_recorder *r, const char *metric, uint64_t release_ns,
                        uint64_t end_ns, bool figure_max);
/* A sample as a metric tells it (rtg/metric.h): on the trace clock, ending
 * now, or on the measuring clock; placed on the trace clock only when it
 * may be kept. */
/* Keep every event from from_ns on where the port can (rtg_trace_ops.hold). */
void rtg_recorder_hold(struct rtg_recorder *r, uint64_t from_ns);
/* The calling thread as the port names it in windows (0 without a recorder). */
int32_t rtg_recorder_self_tid(struct rtg_recorder *r);
void rtg_recorder_offer_span(struct rtg_recorder *r, const char *metric, bool operation,
                             const struct rtg_span *s, bool figure_max);
/* Several samples at once (ending together on several CPUs): each judged
 * in turn, those that enter frozen by one freeze. */
void rtg_recorder_offer_samples(struct rtg_recorder *r, const struct rtg_sample *s, size_t n);
/* Stops the port and hands over the windows kept, judged (out NULL: drops
 * them); r is freed. */
void rtg_recorder_close(struct rtg_recorder *r, struct rtg_trace_result *out);

/* ---- the decisions, pure (the unit tests call them) ---- */

/* Where a sample of d ns enters the kept set of n durations (worst first,
 * at most keep): its position, or -1 when it is not kept. */
int rtg_recorder_place(const uint64_t *kept, size_t n, unsigned keep, uint64_t floor_ns,
                       uint64_t d);
/* What an offered sample must exceed to enter: the floor, or the least bad
 * kept once keep are kept. */
uint64_t rtg_recorder_threshold(const uint64_t *kept, size_t n, unsigned keep,
                                uint64_t floor_ns);
/* The window's start (*start_ns: where its events begin as the port cut
 * it, moved to where it holds every event from, at the latest end_ns) and
 * whether it is complete: that start at or before release_ns. */
bool rtg_recorder_complete(const struct rtg_trace_cover *c, uint64_t release_ns,
                           uint64_t end_ns, uint64_t *start_ns);

#endif
