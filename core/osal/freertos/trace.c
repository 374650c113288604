/* The flight recorder's port on FreeRTOS (rtg/osal_trace.h): the
 * kernel's own trace hooks record into a RAM ring (trace_hooks.c) stamped
 * with the board's measuring counter. When the recorder's policy keeps a
 * sample, the measuring task copies the ring's events of the window
 * [release - lookback, end] into the kept slot (memory taken at open: K
 * windows of max_events, no allocation while measuring) and recording goes
 * on. The copy reads the ring back from its newest event, working out each
 * event's time as it goes (the hooks store the counter raw); an event
 * overwritten while it was read is found after it (the ring's head moved
 * past it) and left out. One CPU. The ring and the windows are sized to the free heap,
 * and the record says when they were reduced (trace_size.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "FreeRTOS.h"
#include "board.h"
#include "board_isr.h"
#include "task.h"
#include "trace_internal.h"
#include "trace_size.h"

#define CONTEXT_SEARCH 64u /* events looked at before the window for the last switch */

struct rtg_trace_port {
    struct rtg_trace_config cfg;
    struct fr_sizes size;
    uint32_t *ring; /* RTG_FR_WORDS words an event */
    uint32_t xor;   /* the counter's raw value XOR this: board_clock_ticks' low half */
    struct fr_name *names;
    uint16_t idle;
    uint64_t opened_ticks;
    uint32_t lost_seen;   /* events overwritten, as of the last freeze */
    struct fr_kept *kept; /* size.slots slots */
    uint64_t lost_events; /* counted at each freeze */
};

static struct rtg_trace_port *open_one; /* one at a time: the hooks feed one ring */

/* The names of the tasks there are now, and the idle task's number. */
static int read_tasks(struct rtg_trace_port *t, UBaseType_t *cur_prio)
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

static void release(struct rtg_trace_port *t)
{
    if (t->kept)
        for (unsigned i = 0; i < t->size.slots; i++)
            free(t->kept[i].ev);
    free(t->kept);
    free(t->ring);
    free(t->names);
    free(t);
}

/* What one event costs its writer: CALIBRATE events through the interrupt
 * hook (a call, the raw count, the stores; the kernel's wake-up and switch
 * write as many words, inline), timed with interrupts masked, then taken
 * back out of the ring. */
#define CALIBRATE 16u
static uint64_t event_cost(void)
{
    uint32_t m = fr_mask();
    uint32_t head = rtg_fr_w.head;
    uint64_t t0 = board_clock_ticks();
    for (unsigned i = 0; i < CALIBRATE; i++)
        board_isr_traced(BOARD_ISR_TICK, true);
    uint64_t t1 = board_clock_ticks();
    rtg_fr_w.head = head;
    fr_unmask(m);
    return (board_clock_ticks_ns(t1) - board_clock_ticks_ns(t0)) / CALIBRATE;
}

static int open_fr(struct rtg_trace_port **out, const struct rtg_trace_config *cfg,
                   struct rtg_trace_about *about, char *why, size_t n)
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
    struct rtg_trace_port *t = calloc(1, sizeof *t);
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
    t->ring = malloc(t->size.entries * RTG_FR_WORDS * sizeof *t->ring);
    t->names = calloc(FR_NAMES, sizeof *t->names);
    t->kept = calloc(t->size.slots, sizeof *t->kept);
    bool ok = t->ring && t->names && t->kept;
    for (unsigned i = 0; ok && i < t->size.slots; i++)
        ok = (t->kept[i].ev = malloc((t->size.max_events + 1u) * sizeof(struct fr_tev))) != NULL;
    UBaseType_t cur_prio = 0;
    if (!ok || read_tasks(t, &cur_prio)) {
        release(t);
        snprintf(why, n, "out of memory");
        return ENOMEM;
    }
    memset(about, 0, sizeof *about);
    snprintf(about->source, sizeof about->source, "FreeRTOS trace hooks");
    snprintf(about->clock, sizeof about->clock, "%s", board_clock_name());
    snprintf(about->prio_scale, sizeof about->prio_scale, "rtos");
    about->buffer_kb = t->size.buffer_kb;
    about->max_events = t->size.max_events;
    about->slots = t->size.slots;
    snprintf(about->reduced, sizeof about->reduced, "%s", t->size.reduced);
    TaskStatus_t me;
    vTaskGetInfo(NULL, &me, pdFALSE, eRunning);
    (void)board_clock_raw(&t->xor);
    t->opened_ticks = board_clock_ticks();
    rtg_fr_ring_start(t->ring, t->size.entries, t->names, RTG_FR_TASK(me.xTaskNumber, cur_prio));
    about->event_ns = event_cost();
    open_one = t;
    *out = t;
    return 0;
}

/* ---- the freeze ---- */

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

/* The ring read backwards from its newest event, each event's 64-bit time
 * worked out from the one after it: the raw counts of two events in a row
 * differ by less than a wrap of 32 bits (the tick writes two every
 * millisecond; a wrap takes 25 s at 168 MHz). */
struct walk {
    const uint32_t *ring;
    uint32_t mask, xor;
    uint32_t i;   /* the index of the event last read (head: none yet) */
    uint64_t t;   /* its time */
    uint32_t low; /* its count's low half */
};

static const uint32_t *at(const struct walk *w, uint32_t i)
{
    return &w->ring[(i & w->mask) * RTG_FR_WORDS];
}

/* Steps to event i - 1. */
static void back(struct walk *w)
{
    w->i--;
    uint32_t low = at(w, w->i)[0] ^ w->xor;
    w->t -= (uint32_t)(w->low - low);
    w->low = low;
}

static void unpack(const struct walk *w, struct fr_tev *e)
{
    const uint32_t *p = at(w, w->i);
    e->ticks = w->t;
    e->a = (uint16_t)p[1];
    e->pa = (uint8_t)(p[1] >> 16);
    e->kind = (uint8_t)(p[1] >> 24);
    e->b = (uint16_t)p[2];
    e->pb = (uint8_t)(p[2] >> 16);
    e->x = (uint8_t)(p[2] >> 24);
}

/* Copies the window of cut c into k: the last switch before it (who ran
 * at its start), then its events, the newest max_events. All of it after
 * the sample ended: the hooks only stored. */
static void cut_out(struct rtg_trace_port *t, struct fr_kept *k, const struct rtg_trace_cut *c)
{
    const struct rtg_fr_w *r = &rtg_fr_w;
    uint32_t size = t->size.entries, max = t->size.max_events;
    uint32_t head = r->head; /* the events before it are whole, and older than now */
    uint64_t now = board_clock_ticks();
    uint32_t lo = head > size ? head - size : 0u;
    uint64_t start_ns = c->from_ns;
    uint64_t start = ticks_at(start_ns), end = ticks_at(c->to_ns + 1u);
    struct walk w = {t->ring, size - 1u, t->xor, head, now, (uint32_t)now}, nx;
    /* after the window: passed over */
    while (w.i > lo && (nx = w, back(&nx), nx.t >= end))
        w = nx;
    uint32_t to = w.i, n = 0;
    /* the window, newest first, into the end of the slot's room */
    bool more = false;
    while (w.i > lo && (nx = w, back(&nx), nx.t >= start)) {
        if (n == max) {
            more = true;
            break;
        }
        w = nx;
        unpack(&w, &k->ev[max - n]);
        n++;
    }
    k->capped = more;
    uint32_t from = w.i;
    /* the last switch before it, within CONTEXT_SEARCH events */
    struct fr_tev before = {0};
    uint32_t ctx = from;
    for (unsigned seen = 0; w.i > lo && seen < CONTEXT_SEARCH; seen++) {
        back(&w);
        if (at(&w, w.i)[1] >> 24 == RTG_TEV_SWITCH) {
            ctx = w.i;
            unpack(&w, &before);
            break;
        }
    }
    /* the oldest event held: from the open's count while the ring has not
     * wrapped, else read back to it */
    uint64_t oldest = 0;
    if (head > 0 && lo == 0) {
        uint32_t low0 = t->ring[0] ^ t->xor;
        oldest = t->opened_ticks + (uint32_t)(low0 - (uint32_t)t->opened_ticks);
    } else if (head > 0) {
        while (w.i > lo)
            back(&w);
        oldest = w.t;
    }
    bool have_oldest = head > 0;
    /* What the hooks overwrote while it was read is not what was there: the
     * oldest events, those the head has now gone past by a ring's length. */
    uint32_t now_head = r->head;
    uint32_t valid = now_head > size ? now_head - size : 0u;
    uint32_t torn = from < valid ? (valid < to ? valid : to) - from : 0u;
    uint32_t kept = n - torn;
    bool have_ctx = ctx < from && ctx >= valid;
    /* the oldest held moved on while it was read: the oldest window event
     * still held stands for it (later: a window is then judged as held
     * from no earlier than that) */
    if (valid > lo) {
        have_oldest = kept > 0;
        oldest = kept ? k->ev[1 + max - kept].ticks : 0;
    }
    k->first_event_ns = have_oldest ? (int64_t)board_clock_ticks_ns(oldest) : -1;
    if (have_ctx)
        k->ev[0] = before;
    memmove(k->ev + (have_ctx ? 1 : 0), k->ev + 1 + max - kept, kept * sizeof *k->ev);
    k->n = kept + (have_ctx ? 1u : 0u);
    /* lost: the events the ring had no room for since the last freeze, and
     * those overwritten while this one was read */
    k->lost_events = (uint64_t)(valid - t->lost_seen) + torn;
    t->lost_seen = valid;
    t->lost_events += k->lost_events;
    k->start_ns = k->capped && kept ? board_clock_ticks_ns(k->ev[have_ctx ? 1 : 0].ticks) : start_ns;
    /* The cover: recording since the open, and every event the ring lost
     * since (its oldest first: overwritten, or torn while copied). */
    k->since_ns = board_clock_ticks_ns(t->opened_ticks);
    k->lost_since = (uint64_t)valid + torn;
    k->tid = c->tid;
    k->used = true;
}

static uint16_t number_of_pid(const struct rtg_trace_port *t, int32_t pid)
{
    return pid == 0 ? t->idle : (uint16_t)pid;
}

static void self_fr(struct rtg_trace_port *t, int *cpu, int32_t *tid)
{
    *cpu = 0;
    uint16_t cur = (uint16_t)rtg_fr_w.cur; /* the task offering: whose wake-up was measured */
    *tid = cur == t->idle ? 0 : cur;
}

/* The policy calls one freeze at a time; the hooks never stop. */
static int freeze_fr(struct rtg_trace_port *t, const struct rtg_trace_cut *cuts, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (cuts[i].slot >= t->size.slots || cuts[i].cpu != 0)
            return EINVAL;
    for (size_t i = 0; i < n; i++) {
        struct rtg_trace_cut c = cuts[i];
        c.tid = (int32_t)number_of_pid(t, c.tid);
        cut_out(t, &t->kept[c.slot], &c);
    }
    return 0;
}

/* ---- the end ---- */

/* The ring's memory first: the windows grow as they are expanded. */
static void stop_fr(struct rtg_trace_port *t, uint64_t *lost)
{
    if (t->ring) {
        rtg_fr_ring_stop();
        open_one = NULL;
        free(t->ring);
        t->ring = NULL;
    }
    *lost = t->lost_events;
}

static int window_fr(struct rtg_trace_port *t, unsigned slot, struct rtg_trace_window *w,
                     struct rtg_trace_cover *cover)
{
    struct fr_kept *k = slot < t->size.slots ? &t->kept[slot] : NULL;
    if (!k || !k->used || !k->ev)
        return ENOENT;
    int e = rtg_fr_window_expand(k, t->names, t->idle, w);
    *cover = (struct rtg_trace_cover){
        .since_ns = k->since_ns, .lost = k->lost_since, .oldest_ns = k->first_event_ns, .cpu = -1};
    free(k->ev); /* its events are the window's now: room for the next one */
    k->ev = NULL;
    return e ? ENOENT : 0;
}

static void close_fr(struct rtg_trace_port *t)
{
    uint64_t lost;
    stop_fr(t, &lost);
    release(t);
}

/* A test the watchdog ended left its recorder open: the hooks stop. Its
 * memory stays lost with the rest of that test's (the board restarts
 * before the next test). */
static void janitor_fr(void)
{
    if (!open_one)
        return;
    rtg_fr_ring_stop();
    open_one = NULL;
}

const struct rtg_trace_ops rtg_trace_port = {
    .open = open_fr,
    .self = self_fr,
    .freeze = freeze_fr,
    .stop = stop_fr,
    .window = window_fr,
    .close = close_fr,
    .janitor = janitor_fr,
};
