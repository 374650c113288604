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

#include "rtg/clock.h"
#include "rtg/metric.h"
#include "rtg/osal.h"
#include "rtg_private/recorder_policy.h"

struct kept {
    uint64_t d, release_ns, end_ns;
    int cpu;
    int32_t tid;
    bool operation;
    char metric[RTG_TRACE_METRIC_MAX];
};

/* A figure (metric) seen, and the slot of its worst sample (-1: none). */
struct figure {
    char name[RTG_TRACE_METRIC_MAX];
    int slot;
    uint64_t d;
};

/* What an offer may change, copied so that a failed freeze leaves it as
 * it was: the K worst (slots, worst first) and each figure's worst. */
struct kept_set {
    unsigned order[RTG_TRACE_KEEP_MAX];
    unsigned n;
    bool used[RTG_TRACE_SLOTS_MAX];
    int fig_slot[RTG_TRACE_SLOTS_MAX];
    uint64_t fig_d[RTG_TRACE_SLOTS_MAX];
    uint64_t d_of_slot[RTG_TRACE_SLOTS_MAX];
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
    struct kept *slots; /* cfg.slots: the port's slots, as they are filled */
    struct kept_set set;
    /* Under the lock, the offer's working copies (not on the measuring
     * thread's stack: a microcontroller's task stacks are a few KB). */
    struct kept_set trial;
    size_t taken_by[RTG_TRACE_SLOTS_MAX]; /* slot -> sample, SIZE_MAX: not in this call */
    struct rtg_trace_cut cuts[RTG_TRACE_KEEP_MAX];
    struct figure *figs; /* the figures seen, at most cfg.slots - cfg.keep */
    unsigned n_figs;
    uint64_t freezes, uncaptured, uncaptured_max_ns, figures_untracked;
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

static void set_fast(struct rtg_recorder *r)
{
    uint64_t d[RTG_TRACE_KEEP_MAX];
    for (unsigned i = 0; i < r->set.n; i++)
        d[i] = r->set.d_of_slot[r->set.order[i]];
    uint64_t th = rtg_recorder_threshold(d, r->set.n, r->cfg.keep, r->cfg.floor_ns);
    atomic_store_explicit(&r->fast, th > ULONG_MAX ? ULONG_MAX : (unsigned long)th,
                          memory_order_relaxed);
}

int rtg_recorder_open(struct rtg_recorder **out, const struct rtg_trace_ops *port,
                      const struct rtg_trace_config *cfg, char *why, size_t n)
{
    *out = NULL;
    if (cfg->keep == 0 || cfg->keep > RTG_TRACE_KEEP_MAX || cfg->max_events == 0 ||
        cfg->slots > RTG_TRACE_SLOTS_MAX) {
        snprintf(why, n, "K outside 1..%d, more than %d windows, or no event to keep",
                 RTG_TRACE_KEEP_MAX, RTG_TRACE_SLOTS_MAX);
        return EINVAL;
    }
    struct rtg_recorder *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(why, n, "out of memory");
        return ENOMEM;
    }
    r->port = port;
    r->cfg = *cfg;
    if (r->cfg.slots < r->cfg.keep)
        r->cfg.slots = r->cfg.keep;
    int e = port->open(&r->p, &r->cfg, &r->about, why, n);
    if (e) {
        free(r);
        return e;
    }
    if (r->about.slots >= r->cfg.keep && r->about.slots < r->cfg.slots)
        r->cfg.slots = r->about.slots; /* the port holds fewer (a board's heap) */
    r->slots = calloc(r->cfg.slots, sizeof *r->slots);
    r->figs = calloc(r->cfg.slots - r->cfg.keep + 1u, sizeof *r->figs);
    /* priority inheritance where the OS has it (not ISO C11's threads) */
    int locked = r->slots && r->figs ? rtg_mutex_init(&r->lock, RTG_PROTO_INHERIT, 0) : ENOMEM;
    if (locked == ENOTSUP)
        locked = rtg_mutex_init(&r->lock, RTG_PROTO_NONE, 0);
    if (locked != 0) {
        port->close(r->p);
        free(r->slots);
        free(r->figs);
        free(r);
        snprintf(why, n, "out of memory");
        return ENOMEM;
    }
    for (unsigned i = 0; i < RTG_TRACE_SLOTS_MAX; i++)
        r->set.fig_slot[i] = -1;
    atomic_init(&r->offered, 0);
    atomic_init(&r->fast, 0);
    set_fast(r);
    *out = r;
    return 0;
}

void rtg_recorder_hold(struct rtg_recorder *r, uint64_t from_ns)
{
    if (r && r->port->hold)
        r->port->hold(r->p, from_ns);
}

int32_t rtg_recorder_self_tid(struct rtg_recorder *r)
{
    if (!r)
        return 0;
    int cpu = 0;
    int32_t tid = 0;
    r->port->self(r->p, &cpu, &tid);
    return tid;
}

void rtg_recorder_offer(struct rtg_recorder *r, const char *metric, uint64_t release_ns,
                        uint64_t end_ns, bool figure_max)
{
    struct rtg_sample s = {metric, release_ns, end_ns, -1, 0, figure_max, false};
    rtg_recorder_offer_samples(r, &s, 1);
}

void rtg_recorder_offer_span(struct rtg_recorder *r, const char *metric, bool operation,
                             const struct rtg_span *sp, bool figure_max)
{
    if (!r)
        return;
    uint64_t d = sp->d, release = sp->a, end = sp->b;
    if (sp->clock != RTG_SPAN_MONO) {
        /* placed on the trace clock only on the slow path */
        if (d <= r->cfg.floor_ns ||
            (d <= atomic_load_explicit(&r->fast, memory_order_relaxed) && !figure_max)) {
            if (d > r->cfg.floor_ns)
                atomic_fetch_add_explicit(&r->offered, 1u, memory_order_relaxed);
            return;
        }
        uint64_t ticks = rtg_clock_ticks(), now = rtg_mono_ns();
        end = sp->clock == RTG_SPAN_NOW ? now : now - rtg_clock_delta_ns(sp->b, ticks);
        release = end > d ? end - d : 0;
    }
    /* cpu -1: the caller's; the thread, the span's own when it names one */
    struct rtg_sample s = {metric, release, end, -1, sp->tid, figure_max, operation};
    rtg_recorder_offer_samples(r, &s, 1);
}

/* The figure called name, added when there is room; -1 when there is none. */
static int figure_of(struct rtg_recorder *r, const char *name)
{
    for (unsigned i = 0; i < r->n_figs; i++)
        if (!strcmp(r->figs[i].name, name))
            return (int)i;
    if (r->n_figs >= r->cfg.slots - r->cfg.keep)
        return -1;
    struct figure *f = &r->figs[r->n_figs];
    snprintf(f->name, sizeof f->name, "%s", name);
    return (int)r->n_figs++;
}

static bool is_figure_max(const struct kept_set *k, unsigned nf, unsigned slot)
{
    for (unsigned i = 0; i < nf; i++)
        if (k->fig_slot[i] == (int)slot)
            return true;
    return false;
}

static bool is_worst(const struct kept_set *k, unsigned slot)
{
    for (unsigned i = 0; i < k->n; i++)
        if (k->order[i] == slot)
            return true;
    return false;
}

static int free_slot(const struct kept_set *k, unsigned slots)
{
    for (unsigned i = 0; i < slots; i++)
        if (!k->used[i])
            return (int)i;
    return -1;
}

/* Judges sample d of figure fig (-1: not tracked) against the set k: the
 * slot it takes (the slots it displaces freed), or -1 when it is not kept. */
static int enter(struct rtg_recorder *r, struct kept_set *k, int fig, uint64_t d)
{
    uint64_t kd[RTG_TRACE_KEEP_MAX];
    for (unsigned i = 0; i < k->n; i++)
        kd[i] = k->d_of_slot[k->order[i]];
    int pos = rtg_recorder_place(kd, k->n, r->cfg.keep, r->cfg.floor_ns, d);
    bool fig_max = fig >= 0 && d > r->cfg.floor_ns &&
                   (k->fig_slot[fig] < 0 || d > k->fig_d[fig]);
    if (pos < 0 && !fig_max)
        return -1;
    if (pos >= 0 && k->n == r->cfg.keep) { /* the least bad of the K falls out */
        unsigned out = k->order[--k->n];
        if (!is_figure_max(k, r->n_figs, out))
            k->used[out] = false;
    }
    if (fig_max && k->fig_slot[fig] >= 0) { /* the figure's old worst is no longer it */
        unsigned old = (unsigned)k->fig_slot[fig];
        k->fig_slot[fig] = -1;
        if (!is_worst(k, old) && !is_figure_max(k, r->n_figs, old))
            k->used[old] = false;
    }
    int slot = free_slot(k, r->cfg.slots); /* K + figures: there is always one */
    if (slot < 0)
        return -1;
    k->used[slot] = true;
    k->d_of_slot[slot] = d;
    if (pos >= 0) {
        memmove(&k->order[pos + 1], &k->order[pos], (k->n - (unsigned)pos) * sizeof k->order[0]);
        k->order[pos] = (unsigned)slot;
        k->n++;
    }
    if (fig_max) {
        k->fig_slot[fig] = slot;
        k->fig_d[fig] = d;
    }
    return slot;
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
        if (s[i].end_ns - s[i].release_ns > fast || s[i].figure_max) {
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
    struct kept_set *k = &r->trial;
    *k = r->set;
    size_t *taken_by = r->taken_by;
    for (unsigned i = 0; i < RTG_TRACE_SLOTS_MAX; i++)
        taken_by[i] = SIZE_MAX;
    size_t entered = 0;
    uint64_t largest = 0, untracked = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i].end_ns <= s[i].release_ns)
            continue;
        uint64_t d = s[i].end_ns - s[i].release_ns;
        int fig = s[i].metric && (s[i].figure_max || d > fast) ? figure_of(r, s[i].metric) : -1;
        untracked += fig < 0 && s[i].figure_max && s[i].metric;
        int slot = enter(r, k, fig, d);
        if (slot < 0)
            continue;
        taken_by[slot] = i;
        entered++;
        largest = d > largest ? d : largest;
    }
    r->figures_untracked += untracked;
    struct rtg_trace_cut *cuts = r->cuts;
    size_t nc = 0;
    for (unsigned slot = 0; slot < r->cfg.slots && nc < RTG_TRACE_KEEP_MAX; slot++) {
        if (taken_by[slot] == SIZE_MAX || !k->used[slot])
            continue; /* not taken in this call, or taken and displaced again in it */
        const struct rtg_sample *x = &s[taken_by[slot]];
        uint64_t lb = r->cfg.lookback_ns;
        cuts[nc++] = (struct rtg_trace_cut){.slot = slot,
                                            .cpu = x->cpu < 0 ? my_cpu : x->cpu,
                                            .tid = x->cpu < 0 && x->tid <= 0 ? my_tid : x->tid,
                                            .from_ns = x->release_ns > lb ? x->release_ns - lb : 0,
                                            .to_ns = x->end_ns,
                                            .operation = x->operation,
                                            .release_ns = x->release_ns};
    }
    if (nc && r->port->freeze(r->p, cuts, nc) == 0) {
        for (size_t c = 0; c < nc; c++) {
            const struct rtg_sample *x = &s[taken_by[cuts[c].slot]];
            struct kept *kp = &r->slots[cuts[c].slot];
            kp->d = x->end_ns - x->release_ns;
            kp->release_ns = x->release_ns;
            kp->end_ns = x->end_ns;
            kp->cpu = cuts[c].cpu;
            kp->tid = cuts[c].tid;
            kp->operation = x->operation;
            snprintf(kp->metric, sizeof kp->metric, "%s", x->metric ? x->metric : "");
        }
        r->set = *k;
        r->freezes += nc;
        set_fast(r);
    } else if (entered) {
        r->uncaptured += entered;
        if (largest > r->uncaptured_max_ns)
            r->uncaptured_max_ns = largest;
    }
    rtg_mutex_unlock(&r->lock);
}

/* The slots kept, worst first (of equals, the lower slot first). */
static unsigned kept_worst_first(const struct rtg_recorder *r, unsigned *out)
{
    unsigned n = 0;
    for (unsigned i = 0; i < r->cfg.slots; i++) {
        if (!r->set.used[i])
            continue;
        unsigned pos = n;
        while (pos > 0 && r->set.d_of_slot[out[pos - 1]] < r->set.d_of_slot[i]) {
            out[pos] = out[pos - 1];
            pos--;
        }
        out[pos] = i;
        n++;
    }
    return n;
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
        out->figures_untracked = r->figures_untracked;
        for (unsigned i = 0; i < r->n_figs && i < RTG_TRACE_SLOTS_MAX; i++)
            snprintf(out->figures[out->n_figures++], RTG_TRACE_METRIC_MAX, "%s", r->figs[i].name);
        out->lost_events = lost;
        unsigned order[RTG_TRACE_SLOTS_MAX];
        unsigned nk = kept_worst_first(r, order);
        for (unsigned i = 0; i < nk; i++) {
            const struct kept *k = &r->slots[order[i]];
            struct rtg_trace_window *w = &out->windows[out->n_windows];
            struct rtg_trace_cover cover = {.cpu = -1};
            memset(w, 0, sizeof *w);
            if (r->port->window(r->p, order[i], w, &cover) != 0)
                continue;
            snprintf(w->metric, sizeof w->metric, "%s", k->metric);
            w->release_ns = k->release_ns;
            w->end_ns = k->end_ns;
            w->cpu = cover.cpu >= 0 ? cover.cpu : k->cpu;
            w->tid = k->tid;
            w->operation = k->operation;
            w->worst = is_worst(&r->set, order[i]);
            w->figure_max = is_figure_max(&r->set, r->n_figs, order[i]);
            w->complete = rtg_recorder_complete(&cover, k->release_ns, k->end_ns, &w->start_ns);
            out->n_windows++;
        }
    }
    r->port->close(r->p);
    rtg_mutex_destroy(&r->lock);
    free(r->slots);
    free(r->figs);
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
