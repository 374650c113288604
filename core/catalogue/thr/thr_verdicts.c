/* THR behaviour verdicts (see thr_verdicts.h): pure functions. */
#include <stdlib.h>
#include <string.h>

#include "thr_verdicts.h"

#include "common/catalogue.h"

/* Index of the first occurrence of c in log, or -1. */
static int at(const char *log, char c)
{
    const char *p = log ? strchr(log, c) : NULL;
    return p && c ? (int)(p - log) : -1;
}

static bool before(const char *log, char a, char b)
{
    int ia = at(log, a), ib = at(log, b);
    return ia >= 0 && ib >= 0 && ia < ib;
}

bool rtg_thr_new_ok(const char *log, enum rtg_thr_new_check check)
{
    switch (check) {
    case RTG_THR_NEW_LOWER:
        return before(log, 'c', 'r') && before(log, 'r', 'b') && before(log, 'b', 'n');
    case RTG_THR_NEW_SAME_TAIL:
        return before(log, 'c', 'r') && before(log, 'r', 'y') && before(log, 'y', 'n');
    case RTG_THR_NEW_SAME_YIELD:
        return before(log, 'y', 'n') && before(log, 'n', 'Y');
    case RTG_THR_NEW_HIGHER:
        return before(log, 'c', 'n') && before(log, 'n', 'r');
    }
    return false;
}

bool rtg_thr_wake_ok(const char *log, bool waiter_higher)
{
    if (waiter_higher)
        return before(log, 'p', 'w') && before(log, 'w', 'r');
    return before(log, 'p', 'r') && before(log, 'r', 'b') && before(log, 'b', 'w');
}

enum rtg_thr_queue_pos rtg_thr_lowered_position(const char *log)
{
    if (!before(log, 'l', 'L') || at(log, 'x') < 0 || !before(log, 'l', 'x'))
        return RTG_THR_POS_UNKNOWN;
    if (before(log, 'x', 'L'))
        return RTG_THR_POS_TAIL;
    /* Kept the CPU: X may run only once the lowered thread blocks. */
    return before(log, 'b', 'x') ? RTG_THR_POS_HEAD : RTG_THR_POS_UNKNOWN;
}

const char *rtg_thr_pos_name(enum rtg_thr_queue_pos p)
{
    switch (p) {
    case RTG_THR_POS_HEAD: return "head";
    case RTG_THR_POS_TAIL: return "tail";
    default: return "unknown";
    }
}

bool rtg_thr_lowered_ok(const char *const *logs, size_t n, enum rtg_thr_queue_pos promised,
                        enum rtg_thr_queue_pos *observed)
{
    enum rtg_thr_queue_pos first = n ? rtg_thr_lowered_position(logs[0]) : RTG_THR_POS_UNKNOWN;
    for (size_t i = 1; i < n; i++)
        if (rtg_thr_lowered_position(logs[i]) != first)
            first = RTG_THR_POS_UNKNOWN;
    if (observed)
        *observed = first;
    return first != RTG_THR_POS_UNKNOWN && first == promised;
}

static int by_start(const void *a, const void *b)
{
    const struct rtg_thr_slice *x = a, *y = b;
    return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

size_t rtg_thr_rr_merge(struct rtg_thr_slice *segs, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        segs[i].run_ns = rtg_past(segs[i].end_ns, segs[i].start_ns);
    qsort(segs, n, sizeof *segs, by_start);
    size_t k = 0;
    for (size_t i = 1; i < n; i++) {
        if (segs[i].thread == segs[k].thread) {
            if (segs[i].end_ns > segs[k].end_ns)
                segs[k].end_ns = segs[i].end_ns;
            segs[k].run_ns += segs[i].run_ns;
        } else {
            segs[++k] = segs[i];
        }
    }
    return k + 1;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

void rtg_thr_rr_summarise(const struct rtg_thr_slice *sl, size_t n, int n_threads,
                          struct rtg_thr_rr_summary *s)
{
    memset(s, 0, sizeof *s);
    if (n_threads > RTG_THR_RR_MAX)
        n_threads = RTG_THR_RR_MAX;
    s->n_threads = n_threads;
    bool seen[RTG_THR_RR_MAX] = {false};
    uint64_t *full = n ? malloc(n * sizeof *full) : NULL;
    for (size_t i = 0; i < n; i++) {
        int t = sl[i].thread;
        if (t < 0 || t >= n_threads)
            continue;
        uint64_t len = sl[i].run_ns;
        s->run_ns[t] += len;
        if (!seen[t]) {
            seen[t] = true;
            s->first_slice_ns[t] = len;
        } else if (i + 1 < n && full) {
            full[s->n_full++] = len; /* the last slice is cut by the window's end */
        }
    }
    if (s->n_full) {
        qsort(full, s->n_full, sizeof *full, cmp_u64);
        s->median_slice_ns = full[s->n_full / 2];
        s->min_slice_ns = full[0];
        s->max_slice_ns = full[s->n_full - 1];
    }
    free(full);
    /* Shares over the same number of whole slices per thread: the window's
     * end cuts the last slice, and a slice a tick or a preemption longer
     * leaves that cut one short by as much again, which is the window's
     * doing, not the scheduler's. Without a whole slice each, the window's. */
    uint64_t whole[RTG_THR_RR_MAX] = {0};
    size_t count[RTG_THR_RR_MAX] = {0};
    size_t k = SIZE_MAX;
    for (size_t i = 0; i + 1 < n; i++)
        if (sl[i].thread >= 0 && sl[i].thread < n_threads)
            count[sl[i].thread]++;
    for (int t = 0; t < n_threads; t++)
        k = count[t] < k ? count[t] : k;
    const uint64_t *share = s->run_ns;
    if (k != SIZE_MAX && k > 0) {
        size_t used[RTG_THR_RR_MAX] = {0};
        for (size_t i = 0; i + 1 < n; i++) {
            int t = sl[i].thread;
            if (t >= 0 && t < n_threads && used[t] < k) {
                whole[t] += sl[i].run_ns;
                used[t]++;
            }
        }
        share = whole;
    }
    double mean = 0;
    for (int t = 0; t < n_threads; t++)
        mean += (double)share[t];
    mean = n_threads ? mean / n_threads : 0;
    double worst = mean > 0 ? 0 : 100.0;
    for (int t = 0; t < n_threads && mean > 0; t++) {
        double d = ((double)share[t] - mean) / mean * 100.0;
        if (d < 0)
            d = -d;
        if (d > worst)
            worst = d;
    }
    /* The cut slice may not hide a thread kept too long: past the longest
     * whole slice, its excess counts as a deviation. */
    uint64_t longest = 0;
    for (size_t i = 0; i + 1 < n; i++)
        longest = sl[i].run_ns > longest ? sl[i].run_ns : longest;
    if (longest && sl[n - 1].run_ns > longest) {
        double d = ((double)sl[n - 1].run_ns - (double)longest) / (double)longest * 100.0;
        if (d > worst)
            worst = d;
    }
    s->worst_share_dev_pct = worst;
}

bool rtg_thr_rr_fair(const struct rtg_thr_rr_summary *s, double tol_pct)
{
    if (s->n_threads < 2)
        return false;
    for (int t = 0; t < s->n_threads; t++)
        if (s->run_ns[t] == 0)
            return false;
    return s->worst_share_dev_pct <= tol_pct;
}

bool rtg_thr_rr_slice_ok(const struct rtg_thr_rr_summary *s, uint64_t declared_ns, double tol_pct)
{
    if (!declared_ns || !s->n_full)
        return false;
    double d = ((double)s->median_slice_ns - (double)declared_ns) / (double)declared_ns * 100.0;
    if (d < 0)
        d = -d;
    return d <= tol_pct;
}
