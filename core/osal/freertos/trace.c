/* The flight recorder on FreeRTOS (rtg/osal_trace.h): the kernel's own
 * trace hooks record into a RAM ring (trace_hooks.c) stamped with the
 * board's measuring counter. When a sample beats the K-th worst kept, the
 * measuring task copies the ring's events of the window [release -
 * lookback, end] into a kept window (memory taken at open: K windows of
 * max_events, no allocation while measuring) and recording goes on. The
 * copy is a binary search and a memcpy; a copy an event overwrote while
 * it was read is found after it (the ring's head moved past it) and left
 * out. One CPU. The ring and the windows are sized to the free heap, and
 * the record says when they were reduced (trace_size.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "FreeRTOS.h"
#include "board.h"
#include "task.h"
#include "trace_internal.h"
#include "trace_size.h"

#define CONTEXT_SEARCH 64u /* events looked at before the window for the last switch */

struct rtg_trace {
    struct rtg_trace_config cfg;
    struct fr_sizes size;
    struct fr_tev *ring;
    struct fr_name *names;
    uint16_t idle;
    uint64_t opened_ticks;
    uint32_t lost_seen;   /* events overwritten, as of the last freeze */
    struct fr_kept *kept; /* cfg.keep of them */
    unsigned order[RTG_TRACE_KEEP_MAX]; /* kept, worst first */
    unsigned n_kept;
    /* the result's counts (not the result itself: its 16 window slots are
     * kB a small board lacks) */
    uint64_t offered, freezes, lost_events, uncaptured, uncaptured_max_ns;
    bool freezing; /* a task is in the freeze: another's sample is uncaptured */
};

static struct rtg_trace *open_one; /* one at a time: the hooks feed one ring */

/* The names of the tasks there are now, and the idle task's number. */
static int read_tasks(struct rtg_trace *t, UBaseType_t *cur_prio)
{
    UBaseType_t n = uxTaskGetNumberOfTasks() + 4u;
    TaskStatus_t *st = calloc(n, sizeof *st);
    if (!st)
        return ENOMEM;
    n = uxTaskGetSystemState(st, n, NULL);
    TaskHandle_t idle = xTaskGetIdleTaskHandle(), me = xTaskGetCurrentTaskHandle();
    for (UBaseType_t i = 0; i < n; i++) {
        struct fr_name *k = &t->names[st[i].xTaskNumber % FR_NAMES];
        k->number = (uint16_t)st[i].xTaskNumber;
        snprintf(k->name, sizeof k->name, "%s", st[i].pcTaskName);
        if (st[i].xHandle == idle)
            t->idle = (uint16_t)st[i].xTaskNumber;
        if (st[i].xHandle == me)
            *cur_prio = st[i].uxCurrentPriority;
    }
    free(st);
    return 0;
}

static void release(struct rtg_trace *t)
{
    if (t->kept)
        for (unsigned i = 0; i < t->cfg.keep; i++)
            free(t->kept[i].ev);
    free(t->kept);
    free(t->ring);
    free(t->names);
    free(t);
}

int rtg_trace_open(struct rtg_trace **out, const struct rtg_trace_config *cfg, char *why,
                   size_t n)
{
    *out = NULL;
    if (cfg->keep == 0 || cfg->keep > RTG_TRACE_KEEP_MAX || cfg->max_events == 0) {
        snprintf(why, n, "K outside 1..%d, or no event to keep", RTG_TRACE_KEEP_MAX);
        return EINVAL;
    }
    if (open_one) {
        snprintf(why, n, "another flight recorder is open");
        return EBUSY;
    }
    struct rtg_trace *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(why, n, "out of memory");
        return ENOMEM;
    }
    t->cfg = *cfg;
    t->cfg.cpus = NULL; /* one CPU: the caller's list is not kept */
    int e = rtg_fr_trace_size(cfg, &t->size, why, n);
    if (e) {
        free(t);
        return e;
    }
    t->ring = malloc(t->size.entries * sizeof *t->ring);
    t->names = calloc(FR_NAMES, sizeof *t->names);
    t->kept = calloc(cfg->keep, sizeof *t->kept);
    bool ok = t->ring && t->names && t->kept;
    for (unsigned i = 0; ok && i < cfg->keep; i++)
        ok = (t->kept[i].ev = malloc((t->size.max_events + 1u) * sizeof(struct fr_tev))) != NULL;
    UBaseType_t cur_prio = 0;
    if (!ok || read_tasks(t, &cur_prio)) {
        release(t);
        snprintf(why, n, "out of memory");
        return ENOMEM;
    }
    TaskStatus_t me;
    vTaskGetInfo(NULL, &me, pdFALSE, eRunning);
    t->opened_ticks = board_clock_ticks();
    rtg_fr_ring_start(t->ring, t->size.entries, t->names, (uint16_t)me.xTaskNumber,
                      (uint8_t)cur_prio);
    open_one = t;
    *out = t;
    return 0;
}

/* ---- the freeze ---- */

/* The first index in [lo, hi) whose event is at or after ticks (hi: none);
 * the ring's events are in time order. */
static uint32_t first_at(const struct fr_tev *ring, uint32_t mask, uint32_t lo, uint32_t hi,
                         uint64_t ticks)
{
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        if (ring[mid & mask].ticks < ticks)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return lo;
}

/* The smallest count whose time in ns is at or after ns. */
static uint64_t ticks_at(uint64_t ns)
{
    uint64_t hz = board_clock_hz();
    uint64_t t = ns / 1000000000u * hz + ns % 1000000000u * hz / 1000000000u;
    while (t > 0 && board_clock_ticks_ns(t - 1u) >= ns)
        t--;
    while (board_clock_ticks_ns(t) < ns)
        t++;
    return t;
}

static void copy_out(struct fr_tev *dst, const struct fr_tev *ring, uint32_t mask, uint32_t from,
                     uint32_t n)
{
    uint32_t at = from & mask, room = mask + 1u - at;
    uint32_t first = n < room ? n : room;
    memcpy(dst, &ring[at], first * sizeof *dst);
    memcpy(dst + first, &ring[0], (n - first) * sizeof *dst);
}

/* Copies the window around the sample into k: the last switch before it
 * (who ran at its start), then its events, the newest max_events. */
static void freeze(struct rtg_trace *t, struct fr_kept *k, uint64_t release_ns, uint64_t end_ns)
{
    const struct fr_ring *r = &rtg_fr_ring;
    uint32_t mask = t->size.entries - 1u, size = t->size.entries;
    uint32_t head = r->head; /* the events before it are whole */
    uint32_t lo = head > size ? head - size : 0u;
    uint64_t start_ns = release_ns > t->cfg.lookback_ns ? release_ns - t->cfg.lookback_ns : 0u;
    uint64_t start = ticks_at(start_ns);
    uint32_t to = first_at(t->ring, mask, lo, head, ticks_at(end_ns + 1u));
    uint32_t from = first_at(t->ring, mask, lo, to, start);
    k->capped = to - from > t->size.max_events;
    if (k->capped)
        from = to - t->size.max_events;
    uint32_t ctx = from;
    for (uint32_t i = from; i > lo && from - i < CONTEXT_SEARCH; i--)
        if (t->ring[(i - 1u) & mask].kind == RTG_TEV_SWITCH) {
            ctx = i - 1u;
            break;
        }
    struct fr_tev before = t->ring[ctx & mask];
    copy_out(k->ev + 1, t->ring, mask, from, to - from);
    /* What the hooks overwrote while it was read is not what was there: the
     * oldest events, those the head has now gone past by a ring's length. */
    uint32_t m = fr_mask();
    uint32_t now_head = r->head;
    uint32_t valid = now_head > size ? now_head - size : 0u;
    k->first_event_ns = now_head ? (int64_t)t->ring[valid & mask].ticks : -1;
    fr_unmask(m);
    if (k->first_event_ns >= 0)
        k->first_event_ns = (int64_t)board_clock_ticks_ns((uint64_t)k->first_event_ns);
    uint32_t torn = from < valid ? (valid < to ? valid : to) - from : 0u;
    uint32_t n = to - from - torn;
    bool have_ctx = ctx < from && ctx >= valid;
    if (have_ctx)
        k->ev[0] = before;
    memmove(k->ev + (have_ctx ? 1 : 0), k->ev + 1 + torn, n * sizeof *k->ev);
    k->n = n + (have_ctx ? 1u : 0u);
    /* lost: the events the ring had no room for since the last freeze, and
     * those overwritten while this one was read */
    k->lost_events = (uint64_t)(valid - t->lost_seen) + torn;
    t->lost_seen = valid;
    k->release_ns = release_ns;
    k->end_ns = end_ns;
    k->start_ns = k->capped && n ? board_clock_ticks_ns(k->ev[have_ctx ? 1 : 0].ticks) : start_ns;
    /* Complete: the ring reaches back past the window's start, an event
     * before it was found there (still held after the copy), or it never
     * overwrote one and recording began before the start. */
    bool reaches_back = from > lo ? from - 1u >= valid : head <= size && t->opened_ticks <= start;
    k->complete = torn == 0 && reaches_back;
    k->tid = r->cur; /* the task offering: the one whose wake-up was measured */
}

static uint64_t dur(const struct fr_kept *k) { return k->end_ns - k->release_ns; }

void rtg_trace_offer(struct rtg_trace *t, const char *metric, uint64_t release_ns,
                     uint64_t end_ns)
{
    if (!t || end_ns <= release_ns)
        return;
    uint64_t d = end_ns - release_ns;
    if (d <= t->cfg.floor_ns)
        return;
    /* Two tasks may offer: one freezes at a time, and a sample that would
     * be kept while another task freezes is counted as uncaptured. */
    uint32_t m = fr_mask();
    t->offered++;
    bool keep = t->n_kept < t->cfg.keep || d > dur(&t->kept[t->order[t->n_kept - 1u]]);
    bool busy = keep && t->freezing;
    if (busy) {
        t->uncaptured++;
        if (d > t->uncaptured_max_ns)
            t->uncaptured_max_ns = d;
    }
    if (keep && !busy)
        t->freezing = true;
    fr_unmask(m);
    if (!keep || busy)
        return;
    unsigned slot = t->n_kept;
    if (t->n_kept == t->cfg.keep)
        slot = t->order[--t->n_kept]; /* the least bad kept makes room */
    struct fr_kept *k = &t->kept[slot];
    freeze(t, k, release_ns, end_ns);
    snprintf(k->metric, sizeof k->metric, "%s", metric);
    t->freezes++;
    t->lost_events += k->lost_events;
    unsigned pos = t->n_kept;
    while (pos > 0 && dur(&t->kept[t->order[pos - 1u]]) < d) {
        t->order[pos] = t->order[pos - 1u];
        pos--;
    }
    t->order[pos] = slot;
    t->n_kept++;
    t->freezing = false;
}

/* ---- the end ---- */

void rtg_trace_close(struct rtg_trace *t, struct rtg_trace_result *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!t)
        return;
    rtg_fr_ring_stop();
    open_one = NULL;
    free(t->ring); /* its memory first: the windows grow as they are expanded */
    t->ring = NULL;
    if (out) {
        snprintf(out->source, sizeof out->source, "FreeRTOS trace hooks");
        snprintf(out->clock, sizeof out->clock, "%s", board_clock_name());
        snprintf(out->prio_scale, sizeof out->prio_scale, "rtos");
        out->buffer_kb = t->size.buffer_kb;
        out->max_events = t->size.max_events;
        snprintf(out->reduced, sizeof out->reduced, "%s", t->size.reduced);
        out->offered = t->offered;
        out->freezes = t->freezes;
        out->lost_events = t->lost_events;
        out->uncaptured = t->uncaptured;
        out->uncaptured_max_ns = t->uncaptured_max_ns;
        for (unsigned i = 0; i < t->n_kept; i++) {
            struct fr_kept *k = &t->kept[t->order[i]];
            if (rtg_fr_window_expand(k, t->names, t->idle, &out->windows[out->n_windows]) == 0)
                out->n_windows++;
            free(k->ev);
            k->ev = NULL;
        }
    }
    release(t);
}

/* A test the watchdog ended left its recorder open: the hooks stop. Its
 * memory stays lost with the rest of that test's (the board restarts
 * before the next test). */
void rtg_trace_janitor(void)
{
    if (!open_one)
        return;
    rtg_fr_ring_stop();
    open_one = NULL;
}
