/* The flight recorder's policy (rtg_private/recorder_policy.h): the K
 * worst samples, the freeze, and what complete means, once for every
 * port. The port is reached through its rtg_trace_ops only.
 *
 * A sample at or below the threshold (the floor, or the least bad kept)
 * costs its thread one relaxed atomic load and one increment; only one
 * above it takes the lock (priority inheritance: a measuring thread may
 * wait on another's freeze, never on a lower priority's preemption). */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/osal.h"
#include "rtg_private/recorder_policy.h"

struct kept {
    uint64_t d, release_ns, end_ns;
    int cpu;
    int32_t tid;
    char metric[RTG_TRACE_METRIC_MAX];
};

struct rtg_recorder {
    const struct rtg_trace_ops *port;
    struct rtg_trace_port *p;
    struct rtg_trace_config cfg;
    struct rtg_trace_about about;
    rtg_mutex_t lock;
    /* The threshold where a thread reads it without the lock: at most
     * ULONG_MAX (32 bits on a microcontroller), so never above the real
     * one; the lock's side decides again. */
    atomic_ulong fast;
    char apart[64]; /* the count's increments stay off the threshold's cache line */
    atomic_ulong offered;
    struct kept *slots;                 /* cfg.keep: the port's slots, as they are filled */
    unsigned order[RTG_TRACE_KEEP_MAX]; /* the slots kept, worst first */
    unsigned n;
    uint64_t freezes, uncaptured, uncaptured_max_ns;
};

/* ---- the decisions ---- */

int rtg_recorder_place(const uint64_t *kept, size_t n, unsigned keep, uint64_t floor_ns,
                       uint64_t d)
{
    if (d <= floor_ns || keep == 0)
        return -1;
    size_t pos = n;
    while (pos > 0 && kept[pos - 1] < d) /* after its equals: a tie does not displace */
        pos--;
    return pos < keep ? (int)pos : -1;
}

uint64_t rtg_recorder_threshold(const uint64_t *kept, size_t n, unsigned keep,
                                uint64_t floor_ns)
{
    if (n < keep || n == 0)
        return floor_ns;
    return kept[n - 1] > floor_ns ? kept[n - 1] : floor_ns;
}

bool rtg_recorder_complete(const struct rtg_trace_cover *c, uint64_t release_ns,
                           uint64_t end_ns, uint64_t *start_ns)
{
    /* From when the buffer held every event: where recording began when it
     * lost none; else just after the oldest it still held (it loses its
     * oldest first, and one lost may share that one's instant). */
    uint64_t held = end_ns;
    if (c->lost == 0)
        held = c->since_ns;
    else if (c->oldest_ns >= 0)
        held = (uint64_t)c->oldest_ns + 1u;
    if (held > end_ns)
        held = end_ns;
    if (held > *start_ns)
        *start_ns = held;
    return *start_ns <= release_ns;
}

/* ---- the recorder ---- */

static void kept_durations(const unsigned *order, unsigned n, const uint64_t *d_of_slot,
                           uint64_t *out)
{
    for (unsigned i = 0; i < n; i++)
        out[i] = d_of_slot[order[i]];
}

static void set_fast(struct rtg_recorder *r)
{
    uint64_t d[RTG_TRACE_KEEP_MAX];
    for (unsigned i = 0; i < r->n; i++)
        d[i] = r->slots[r->order[i]].d;
    uint64_t th = rtg_recorder_threshold(d, r->n, r->cfg.keep, r->cfg.floor_ns);
    atomic_store_explicit(&r->fast, th > ULONG_MAX ? ULONG_MAX : (unsigned long)th,
                          memory_order_relaxed);
}

int rtg_recorder_open(struct rtg_recorder **out, const struct rtg_trace_ops *port,
                      const struct rtg_trace_config *cfg, char *why, size_t n)
{
    *out = NULL;
    if (cfg->keep == 0 || cfg->keep > RTG_TRACE_KEEP_MAX || cfg->max_events == 0) {
        snprintf(why, n, "K outside 1..%d, or no event to keep", RTG_TRACE_KEEP_MAX);
        return EINVAL;
    }
    struct rtg_recorder *r = calloc(1, sizeof *r);
    if (r)
        r->slots = calloc(cfg->keep, sizeof *r->slots);
    /* priority inheritance where the OS has it (not ISO C11's threads) */
    int locked = r && r->slots ? rtg_mutex_init(&r->lock, RTG_PROTO_INHERIT, 0) : ENOMEM;
    if (locked == ENOTSUP)
        locked = rtg_mutex_init(&r->lock, RTG_PROTO_NONE, 0);
    if (locked != 0) {
        if (r)
            free(r->slots);
        free(r);
        snprintf(why, n, "out of memory");
        return ENOMEM;
    }
    r->port = port;
    r->cfg = *cfg;
    atomic_init(&r->offered, 0);
    atomic_init(&r->fast, 0);
    set_fast(r);
    int e = port->open(&r->p, cfg, &r->about, why, n);
    if (e) {
        rtg_mutex_destroy(&r->lock);
        free(r->slots);
        free(r);
        return e;
    }
    *out = r;
    return 0;
}

void rtg_recorder_offer(struct rtg_recorder *r, const char *metric, uint64_t release_ns,
                        uint64_t end_ns)
{
    struct rtg_sample s = {metric, release_ns, end_ns, -1, 0};
    rtg_recorder_offer_samples(r, &s, 1);
}

void rtg_recorder_offer_samples(struct rtg_recorder *r, const struct rtg_sample *s, size_t n)
{
    if (!r)
        return;
    unsigned long fast = atomic_load_explicit(&r->fast, memory_order_relaxed);
    bool any = false, self = false;
    for (size_t i = 0; i < n; i++) {
        if (s[i].end_ns <= s[i].release_ns || s[i].end_ns - s[i].release_ns <= r->cfg.floor_ns)
            continue;
        atomic_fetch_add_explicit(&r->offered, 1u, memory_order_relaxed);
        if (s[i].end_ns - s[i].release_ns > fast) {
            any = true;
            self |= s[i].cpu < 0;
        }
    }
    if (!any)
        return;
    int my_cpu = 0;
    int32_t my_tid = 0;
    if (self)
        r->port->self(r->p, &my_cpu, &my_tid);

    rtg_mutex_lock(&r->lock);
    /* Each sample judged in turn against the set as the earlier ones left
     * it; a slot taken twice in one call keeps the later sample. */
    unsigned order[RTG_TRACE_KEEP_MAX], kn = r->n;
    memcpy(order, r->order, sizeof order);
    uint64_t d_of_slot[RTG_TRACE_KEEP_MAX];
    for (unsigned i = 0; i < r->cfg.keep; i++)
        d_of_slot[i] = r->slots[i].d;
    size_t taken_by[RTG_TRACE_KEEP_MAX]; /* slot -> sample, SIZE_MAX: not in this call */
    for (unsigned i = 0; i < RTG_TRACE_KEEP_MAX; i++)
        taken_by[i] = SIZE_MAX;
    size_t entered = 0;
    uint64_t largest = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i].end_ns <= s[i].release_ns)
            continue;
        uint64_t d = s[i].end_ns - s[i].release_ns, kd[RTG_TRACE_KEEP_MAX];
        kept_durations(order, kn, d_of_slot, kd);
        int pos = rtg_recorder_place(kd, kn, r->cfg.keep, r->cfg.floor_ns, d);
        if (pos < 0)
            continue;
        unsigned slot = kn < r->cfg.keep ? kn : order[--kn]; /* the least bad makes room */
        memmove(&order[pos + 1], &order[pos], (kn - (unsigned)pos) * sizeof order[0]);
        order[pos] = slot;
        kn++;
        d_of_slot[slot] = d;
        taken_by[slot] = i;
        entered++;
        largest = d > largest ? d : largest;
    }
    struct rtg_trace_cut cuts[RTG_TRACE_KEEP_MAX];
    size_t nc = 0;
    for (unsigned slot = 0; slot < r->cfg.keep; slot++) {
        if (taken_by[slot] == SIZE_MAX)
            continue;
        const struct rtg_sample *x = &s[taken_by[slot]];
        uint64_t lb = r->cfg.lookback_ns;
        cuts[nc++] = (struct rtg_trace_cut){.slot = slot,
                                            .cpu = x->cpu < 0 ? my_cpu : x->cpu,
                                            .tid = x->cpu < 0 ? my_tid : x->tid,
                                            .from_ns = x->release_ns > lb ? x->release_ns - lb : 0,
                                            .to_ns = x->end_ns};
    }
    if (nc && r->port->freeze(r->p, cuts, nc) == 0) {
        for (size_t c = 0; c < nc; c++) {
            const struct rtg_sample *x = &s[taken_by[cuts[c].slot]];
            struct kept *k = &r->slots[cuts[c].slot];
            k->d = x->end_ns - x->release_ns;
            k->release_ns = x->release_ns;
            k->end_ns = x->end_ns;
            k->cpu = cuts[c].cpu;
            k->tid = cuts[c].tid;
            snprintf(k->metric, sizeof k->metric, "%s", x->metric ? x->metric : "");
        }
        memcpy(r->order, order, sizeof order);
        r->n = kn;
        r->freezes += nc;
        set_fast(r);
    } else if (entered) {
        r->uncaptured += entered;
        if (largest > r->uncaptured_max_ns)
            r->uncaptured_max_ns = largest;
    }
    rtg_mutex_unlock(&r->lock);
}

void rtg_recorder_close(struct rtg_recorder *r, struct rtg_trace_result *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!r)
        return;
    uint64_t lost = 0;
    r->port->stop(r->p, &lost);
    if (out) {
        out->about = r->about;
        out->offered = atomic_load(&r->offered);
        out->freezes = r->freezes;
        out->uncaptured = r->uncaptured;
        out->uncaptured_max_ns = r->uncaptured_max_ns;
        out->lost_events = lost;
        for (unsigned i = 0; i < r->n; i++) {
            const struct kept *k = &r->slots[r->order[i]];
            struct rtg_trace_window *w = &out->windows[out->n_windows];
            struct rtg_trace_cover cover;
            memset(w, 0, sizeof *w);
            if (r->port->window(r->p, r->order[i], w, &cover) != 0)
                continue;
            snprintf(w->metric, sizeof w->metric, "%s", k->metric);
            w->release_ns = k->release_ns;
            w->end_ns = k->end_ns;
            w->cpu = k->cpu;
            w->tid = k->tid;
            w->complete = rtg_recorder_complete(&cover, k->release_ns, k->end_ns, &w->start_ns);
            out->n_windows++;
        }
    }
    r->port->close(r->p);
    rtg_mutex_destroy(&r->lock);
    free(r->slots);
    free(r);
}

void rtg_trace_result_free(struct rtg_trace_result *r)
{
    for (size_t i = 0; i < r->n_windows; i++) {
        free(r->windows[i].events);
        free(r->windows[i].tasks);
        r->windows[i].events = NULL;
        r->windows[i].tasks = NULL;
    }
    r->n_windows = 0;
}
