/* The flight recorder's policy (core/src/runner/recorder_policy.c) against a
 * mock port: which samples are kept and which displaced, when the port is
 * asked to freeze, and when a window is complete. Each decision is also
 * checked where it must say no. Times in ns on the mock's trace clock. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg_private/recorder_policy.h"
#include "unit.h"

/* ---- the mock port: it records what it is asked, and answers as told ---- */

struct rtg_trace_port {
    int open_error;      /* what open returns */
    bool busy;           /* freeze answers EBUSY */
    size_t freeze_calls; /* freezes asked, and the cuts of the last one */
    struct rtg_trace_cut last[RTG_TRACE_KEEP_MAX];
    size_t n_last;
    bool cut[RTG_TRACE_SLOTS_MAX]; /* a slot holds a window */
    struct rtg_trace_cut slot_cut[RTG_TRACE_SLOTS_MAX];
    struct rtg_trace_cover cover; /* every window's */
    uint64_t capped_start;        /* non-zero: windows capped, their events from here */
    int self_cpu;
    int32_t self_tid;
    uint64_t lost;
    bool stopped, closed;
};
static struct rtg_trace_port mock;

static int m_open(struct rtg_trace_port **out, const struct rtg_trace_config *cfg,
                  struct rtg_trace_about *about, char *why, size_t n)
{
    (void)cfg;
    if (mock.open_error) {
        snprintf(why, n, "mock: no tracer");
        return mock.open_error;
    }
    memset(about, 0, sizeof *about);
    snprintf(about->source, sizeof about->source, "mock");
    *out = &mock;
    return 0;
}

static void m_self(struct rtg_trace_port *p, int *cpu, int32_t *tid)
{
    *cpu = p->self_cpu;
    *tid = p->self_tid;
}

static int m_freeze(struct rtg_trace_port *p, const struct rtg_trace_cut *cuts, size_t n)
{
    if (p->busy)
        return EBUSY;
    p->freeze_calls++;
    p->n_last = n;
    for (size_t i = 0; i < n; i++) {
        p->last[i] = cuts[i];
        p->cut[cuts[i].slot] = true;
        p->slot_cut[cuts[i].slot] = cuts[i];
    }
    return 0;
}

static void m_stop(struct rtg_trace_port *p, uint64_t *lost)
{
    p->stopped = true;
    *lost = p->lost;
}

static int m_window(struct rtg_trace_port *p, unsigned slot, struct rtg_trace_window *w,
                    struct rtg_trace_cover *cover)
{
    if (!p->cut[slot])
        return ENOENT;
    w->events = calloc(1, sizeof *w->events);
    w->n_events = 1;
    w->start_ns = p->capped_start ? p->capped_start : p->slot_cut[slot].from_ns;
    w->capped = p->capped_start != 0;
    *cover = p->cover;
    cover->cpu = -1;
    return 0;
}

static void m_close(struct rtg_trace_port *p) { p->closed = true; }
static void m_janitor(void) {}

static const struct rtg_trace_ops mock_ops = {m_open,   m_self,    m_freeze, m_stop,
                                              m_window, m_close,   m_janitor, NULL};

enum { LOOKBACK = 1000 };

/* K worst and room for the worst of (slots - keep) figures. */
static struct rtg_recorder *open_slots(unsigned keep, unsigned slots, uint64_t floor_ns)
{
    memset(&mock, 0, sizeof mock);
    mock.self_cpu = 3;
    mock.self_tid = 77;
    struct rtg_trace_config cfg = {.keep = keep,
                                   .slots = slots,
                                   .floor_ns = floor_ns,
                                   .lookback_ns = LOOKBACK,
                                   .max_events = 100};
    struct rtg_recorder *r = NULL;
    char why[64];
    CHECK(rtg_recorder_open(&r, &mock_ops, &cfg, why, sizeof why) == 0);
    return r;
}

static struct rtg_recorder *open_k(unsigned keep, uint64_t floor_ns)
{
    return open_slots(keep, 0, floor_ns);
}

/* A sample of d ns released at release. */
static void offer(struct rtg_recorder *r, const char *metric, uint64_t release, uint64_t d)
{
    rtg_recorder_offer(r, metric, release, release + d, false);
}

/* The same, as its figure's worst so far (the metric's hint). */
static void offer_fig(struct rtg_recorder *r, const char *metric, uint64_t release, uint64_t d)
{
    rtg_recorder_offer(r, metric, release, release + d, true);
}

static void check_kept(const struct rtg_trace_result *res, const char *const *metrics, size_t n)
{
    CHECK_EQ_U(res->n_windows, n);
    for (size_t i = 0; i < n && i < res->n_windows; i++)
        CHECK_STR(res->windows[i].metric, metrics[i]);
}

/* ---- keep-K: the pure decision ---- */

static void test_place(void)
{
    uint64_t kept[] = {50, 40, 40, 10};
    CHECK(rtg_recorder_place(kept, 0, 3, 0, 1) == 0); /* the first above the floor */
    CHECK(rtg_recorder_place(kept, 4, 4, 0, 60) == 0);
    CHECK(rtg_recorder_place(kept, 4, 4, 0, 45) == 1);
    CHECK(rtg_recorder_place(kept, 4, 4, 0, 40) == 3); /* after its equals */
    CHECK(rtg_recorder_place(kept, 4, 4, 0, 11) == 3);
    CHECK(rtg_recorder_place(kept, 3, 4, 0, 40) == 3); /* not full: a tie enters, last */
    /* must not be kept: a tie with the least bad of a full set, a smaller
     * one, one at or below the floor, and anything when K is 0 */
    CHECK(rtg_recorder_place(kept, 4, 4, 0, 10) == -1);
    CHECK(rtg_recorder_place(kept, 4, 4, 0, 9) == -1);
    CHECK(rtg_recorder_place(kept, 0, 3, 100, 100) == -1);
    CHECK(rtg_recorder_place(kept, 0, 0, 0, 100) == -1);

    CHECK_EQ_U(rtg_recorder_threshold(kept, 3, 4, 7), 7); /* not full: the floor */
    CHECK_EQ_U(rtg_recorder_threshold(kept, 4, 4, 7), 10);
    CHECK_EQ_U(rtg_recorder_threshold(kept, 4, 4, 20), 20); /* never below the floor */
}

/* A burst of new worst samples: each is frozen, the K worst stay. */
static void test_burst(void)
{
    struct rtg_recorder *r = open_k(3, 0);
    const char *names[] = {"a", "b", "c", "d", "e", "f"};
    for (unsigned i = 0; i < 6; i++)
        offer(r, names[i], 10000u * (i + 1u), 100u * (i + 1u));
    CHECK_EQ_U(mock.freeze_calls, 6);
    /* the fourth displaced the first, and so on: slots reused in turn */
    CHECK_EQ_U(mock.last[0].slot, 2);
    struct rtg_trace_result res;
    rtg_recorder_close(r, &res);
    const char *worst[] = {"f", "e", "d"};
    check_kept(&res, worst, 3);
    CHECK_EQ_U(res.freezes, 6);
    CHECK_EQ_U(res.offered, 6);
    CHECK_EQ_U(res.uncaptured, 0);
    CHECK_EQ_U(res.windows[0].end_ns - res.windows[0].release_ns, 600);
    CHECK_EQ_U(res.windows[0].cpu, 3);
    CHECK_EQ_U(res.windows[0].tid, 77);
    CHECK(mock.stopped && mock.closed);
    rtg_trace_result_free(&res);
}

/* Ties: one equal to the least bad of a full set is not kept, nor frozen. */
static void test_ties(void)
{
    struct rtg_recorder *r = open_k(2, 0);
    offer(r, "first", 1000, 500);
    offer(r, "second", 2000, 500); /* not full yet: kept, after its equal */
    offer(r, "third", 3000, 500);  /* full: a tie does not displace */
    CHECK_EQ_U(mock.freeze_calls, 2);
    struct rtg_trace_result res;
    rtg_recorder_close(r, &res);
    const char *kept[] = {"first", "second"};
    check_kept(&res, kept, 2);
    CHECK_EQ_U(res.offered, 3);
    rtg_trace_result_free(&res);
}

/* The least bad falls out, and of equals the one kept last; its slot is
 * the one the port cuts the new window into. */
static void test_displacement(void)
{
    struct rtg_recorder *r = open_k(3, 0);
    offer(r, "s30", 1000, 30);
    offer(r, "s20a", 2000, 20);
    offer(r, "s20b", 3000, 20);
    offer(r, "s25", 4000, 25);
    CHECK_EQ_U(mock.freeze_calls, 4);
    CHECK_EQ_U(mock.last[0].slot, 2); /* s20b's */
    offer(r, "s5", 5000, 5);          /* must not displace anything */
    offer(r, "s20c", 6000, 20);       /* nor a tie with the least bad */
    CHECK_EQ_U(mock.freeze_calls, 4);
    struct rtg_trace_result res;
    rtg_recorder_close(r, &res);
    const char *kept[] = {"s30", "s25", "s20a"};
    check_kept(&res, kept, 3);
    rtg_trace_result_free(&res);
}

/* ---- when to freeze ---- */

static void test_freeze_decisions(void)
{
    struct rtg_recorder *r = open_k(2, 100);
    offer(r, "floor", 1000, 100); /* at the floor: not even offered */
    rtg_recorder_offer(r, "backwards", 2000, 1000, true);
    CHECK_EQ_U(mock.freeze_calls, 0);
    offer(r, "a", 3000, 300);
    CHECK_EQ_U(mock.freeze_calls, 1);
    CHECK_EQ_U(mock.last[0].from_ns, 3000 - LOOKBACK);
    CHECK_EQ_U(mock.last[0].to_ns, 3300);
    CHECK_EQ_U(mock.last[0].cpu, 3); /* the caller's, as the port says */
    /* the port busy: nothing changes but the count of the uncaptured */
    mock.busy = true;
    offer(r, "lost1", 4000, 900);
    offer(r, "lost2", 5000, 700);
    CHECK_EQ_U(mock.freeze_calls, 1);
    mock.busy = false;
    offer(r, "b", 6000, 200);
    offer(r, "c", 7000, 250); /* displaces b */
    offer(r, "d", 8000, 250); /* a tie: must not freeze */
    CHECK_EQ_U(mock.freeze_calls, 3);
    offer(r, "early", 50, 400); /* a release before the look-back: the cut starts at 0 */
    CHECK_EQ_U(mock.last[0].from_ns, 0);
    struct rtg_trace_result res;
    rtg_recorder_close(r, &res);
    const char *kept[] = {"early", "a"};
    check_kept(&res, kept, 2);
    CHECK_EQ_U(res.uncaptured, 2);
    CHECK_EQ_U(res.uncaptured_max_ns, 900);
    CHECK_EQ_U(res.freezes, 4);
    CHECK_EQ_U(res.offered, 7);
    rtg_trace_result_free(&res);
}

/* Several samples at once (several CPUs): one freeze, a cut each; one
 * displaced within the call is not cut at all. */
static void test_samples_at_once(void)
{
    struct rtg_recorder *r = open_k(2, 0);
    struct rtg_sample s[] = {{"cpu1", 1000, 1400, 1, 11, false, false},
                             {"cpu2", 1000, 1300, 2, 12, false, false},
                             {"self", 1000, 1200, -1, 0, false, false}};
    rtg_recorder_offer_samples(r, s, 3);
    CHECK_EQ_U(mock.freeze_calls, 1);
    CHECK_EQ_U(mock.n_last, 2); /* "self" was not among the two worst */
    bool cpu1 = false, cpu2 = false;
    for (size_t i = 0; i < mock.n_last; i++) {
        cpu1 |= mock.last[i].cpu == 1 && mock.last[i].tid == 11;
        cpu2 |= mock.last[i].cpu == 2 && mock.last[i].tid == 12;
    }
    CHECK(cpu1 && cpu2);
    struct rtg_sample t[] = {{"x", 2000, 2500, -1, 0, false, false},
                             {"y", 2000, 2600, 5, 55, false, false}};
    rtg_recorder_offer_samples(r, t, 2);
    CHECK_EQ_U(mock.freeze_calls, 2);
    CHECK_EQ_U(mock.n_last, 2);
    struct rtg_trace_result res;
    rtg_recorder_close(r, &res);
    const char *kept[] = {"y", "x"};
    check_kept(&res, kept, 2);
    CHECK_EQ_U(res.windows[1].cpu, 3); /* "x": the caller's CPU */
    CHECK_EQ_U(res.windows[1].tid, 77);
    rtg_trace_result_free(&res);

    r = open_k(1, 0);
    struct rtg_sample u[] = {{"small", 1000, 1100, 0, 1, false, false},
                             {"big", 1000, 1900, 0, 2, false, false}};
    rtg_recorder_offer_samples(r, u, 2);
    CHECK_EQ_U(mock.freeze_calls, 1);
    CHECK_EQ_U(mock.n_last, 1); /* "small" was displaced before anything was cut */
    CHECK_EQ_U(mock.last[0].to_ns, 1900);
    rtg_recorder_close(r, NULL);
}

/* ---- each figure's worst, besides the K worst ---- */

/* A figure's worst is kept though it is not among the K worst; a worse one
 * of the same figure takes its place; the K worst that falls out stays
 * while it is its figure's worst. */
static void test_figure_maxima(void)
{
    struct rtg_recorder *r = open_slots(1, 3, 0);
    offer_fig(r, "a", 1000, 500); /* the worst, and a's worst: one slot */
    offer_fig(r, "b", 2000, 100); /* b's worst only */
    CHECK_EQ_U(mock.freeze_calls, 2);
    offer_fig(r, "b", 3000, 200); /* b's new worst: cut again */
    CHECK_EQ_U(mock.freeze_calls, 3);
    offer(r, "b", 4000, 150); /* must not be kept: no hint, under the threshold */
    offer_fig(r, "b", 4500, 150); /* must not be kept: b's kept worst is worse */
    CHECK_EQ_U(mock.freeze_calls, 3);
    offer_fig(r, "c", 5000, 50); /* must not be kept: the two figure entries are a's and b's */
    CHECK_EQ_U(mock.freeze_calls, 3);
    offer_fig(r, "b", 6000, 900); /* the worst now; a stays as a's worst */
    CHECK_EQ_U(mock.freeze_calls, 4);
    struct rtg_trace_result res;
    rtg_recorder_close(r, &res);
    const char *kept[] = {"b", "a"};
    check_kept(&res, kept, 2);
    CHECK_EQ_U(res.windows[0].end_ns - res.windows[0].release_ns, 900);
    CHECK(res.windows[0].worst && res.windows[0].figure_max);
    CHECK(!res.windows[1].worst && res.windows[1].figure_max);
    CHECK_EQ_U(res.figures_untracked, 1);
    rtg_trace_result_free(&res);
}

/* The slots a displaced window held are reused: never more windows than
 * slots, whatever the order of the samples. */
static void test_figure_slots_reused(void)
{
    struct rtg_recorder *r = open_slots(2, 5, 0);
    const char *names[] = {"p", "q", "r"};
    uint64_t most[3] = {0, 0, 0};
    for (unsigned i = 0; i < 60; i++) {
        uint64_t d = 10u + (i * 37u) % 101u;
        bool worst_so_far = d > most[i % 3];
        most[i % 3] = worst_so_far ? d : most[i % 3];
        rtg_recorder_offer(r, names[i % 3], 1000u * (i + 1u), 1000u * (i + 1u) + d, worst_so_far);
        for (size_t c = 0; c < mock.n_last; c++)
            CHECK(mock.last[c].slot < 5);
    }
    struct rtg_trace_result res;
    rtg_recorder_close(r, &res);
    CHECK(res.n_windows >= 3 && res.n_windows <= 5);
    unsigned worst = 0, figs = 0;
    for (size_t i = 0; i < res.n_windows; i++) {
        worst += res.windows[i].worst;
        figs += res.windows[i].figure_max;
        if (i > 0) /* worst first */
            CHECK(res.windows[i - 1].end_ns - res.windows[i - 1].release_ns >=
                  res.windows[i].end_ns - res.windows[i].release_ns);
    }
    CHECK_EQ_U(worst, 2);
    CHECK_EQ_U(figs, 3);
    for (unsigned f = 0; f < 3; f++) { /* each figure's very worst is there */
        bool found = false;
        for (size_t i = 0; i < res.n_windows; i++)
            found |= !strcmp(res.windows[i].metric, names[f]) && res.windows[i].figure_max &&
                     res.windows[i].end_ns - res.windows[i].release_ns == most[f];
        CHECK(found);
    }
    rtg_trace_result_free(&res);
}

/* A span on another clock is placed on the trace clock when it may be kept:
 * it ends between the readings around the offer (now) or before it (ticks),
 * lasts exactly its length, and carries what its interval is. */
static void test_spans(void)
{
    struct rtg_recorder *r = open_k(2, 0);
    uint64_t before = rtg_mono_ns();
    struct rtg_span now = {RTG_SPAN_NOW, 0, 0, 700, 0};
    rtg_recorder_offer_span(r, "now", true, &now, true);
    uint64_t t1 = rtg_clock_ticks();
    struct rtg_span ticks = {RTG_SPAN_TICKS, t1, t1, 900, 0};
    rtg_recorder_offer_span(r, "ticks", false, &ticks, true);
    uint64_t after = rtg_mono_ns();
    struct rtg_span small = {RTG_SPAN_TICKS, t1, t1, 10, 0}; /* must not be kept: no hint, small */
    rtg_recorder_offer_span(r, "small", false, &small, false);
    CHECK_EQ_U(mock.freeze_calls, 2);
    struct rtg_trace_result res;
    rtg_recorder_close(r, &res);
    const char *kept[] = {"ticks", "now"};
    check_kept(&res, kept, 2);
    CHECK_EQ_U(res.offered, 3);
    for (size_t i = 0; i < res.n_windows; i++) {
        const struct rtg_trace_window *w = &res.windows[i];
        /* ticks pass through the counter's calibration: 1 µs of slack below */
        CHECK(w->end_ns + 1000u >= before && w->end_ns <= after);
        CHECK_EQ_U(w->end_ns - w->release_ns, i == 0 ? 900 : 700);
    }
    CHECK(!res.windows[0].operation && res.windows[1].operation);
    rtg_trace_result_free(&res);
}

/* A wait recorded later by another thread is cut for the thread it names,
 * on the recording thread's CPU (the port finds where that thread ran). */
static void test_span_of_another_thread(void)
{
    struct rtg_recorder *r = open_k(2, 0);
    CHECK_EQ_U(rtg_recorder_self_tid(r), 77);
    struct rtg_span of = {RTG_SPAN_MONO, 1000, 5000, 4000, 4321};
    rtg_recorder_offer_span(r, "of", false, &of, true);
    struct rtg_span mine = {RTG_SPAN_MONO, 1000, 3000, 2000, 0};
    rtg_recorder_offer_span(r, "mine", false, &mine, true);
    struct rtg_trace_result res;
    rtg_recorder_close(r, &res);
    CHECK_EQ_U(res.n_windows, 2);
    CHECK_EQ_U(res.windows[0].tid, 4321); /* worst first */
    CHECK_EQ_U(res.windows[0].cpu, 3);
    CHECK_EQ_U(res.windows[1].tid, 77);
    rtg_trace_result_free(&res);
    CHECK_EQ_U(rtg_recorder_self_tid(NULL), 0);
}

/* ---- complete: every event of the CPU from the release to the end ---- */

enum { START = 1000000, RELEASE = 2000000, END = 2500000 };

static bool judge(uint64_t since, uint64_t lost, int64_t oldest, uint64_t *start)
{
    struct rtg_trace_cover c = {since, lost, oldest, -1};
    *start = START;
    return rtg_recorder_complete(&c, RELEASE, END, start);
}

static void test_complete_recording_began(void)
{
    uint64_t start;
    CHECK(judge(START - 1, 0, 5, &start)); /* before the look-back: all of it */
    CHECK_EQ_U(start, START);
    CHECK(judge(RELEASE - 300000, 0, 5, &start)); /* inside it: from there */
    CHECK_EQ_U(start, RELEASE - 300000);
    CHECK(judge(RELEASE, 0, 5, &start));
    /* must fail: recording began after the release */
    CHECK(!judge(RELEASE + 1, 0, 5, &start));
    CHECK_EQ_U(start, RELEASE + 1);
    CHECK(!judge(END + 50, 0, -1, &start)); /* after the end: nothing of it */
    CHECK_EQ_U(start, END);
}

static void test_complete_events_lost(void)
{
    uint64_t start;
    CHECK(judge(0, 12, START - 1, &start)); /* lost, but before the window */
    CHECK_EQ_U(start, START);
    CHECK(judge(0, 12, RELEASE - 10, &start)); /* lost inside the look-back only */
    CHECK_EQ_U(start, RELEASE - 9);
    /* must fail: the oldest held at the release (one lost may share its
     * instant), after it, or nothing held at all */
    CHECK(!judge(0, 12, RELEASE, &start));
    CHECK(!judge(0, 1, RELEASE + 400, &start));
    CHECK_EQ_U(start, RELEASE + 401);
    CHECK(!judge(0, 1, -1, &start));
    CHECK_EQ_U(start, END);
}

static void test_complete_capped(void)
{
    uint64_t start = RELEASE - 10; /* the port kept the newest events, from here */
    struct rtg_trace_cover c = {0, 0, 0, -1};
    CHECK(rtg_recorder_complete(&c, RELEASE, END, &start));
    start = RELEASE + 10; /* must fail: the kept events begin after the release */
    CHECK(!rtg_recorder_complete(&c, RELEASE, END, &start));
    CHECK_EQ_U(start, RELEASE + 10);
}

/* The verdict reaches the record's windows, each judged by its cover. */
static void test_windows_judged(void)
{
    struct rtg_recorder *r = open_k(2, 0);
    offer(r, "a", RELEASE, 500);
    struct rtg_trace_result res;
    mock.cover = (struct rtg_trace_cover){.since_ns = RELEASE - 100, .lost = 0, .oldest_ns = 0};
    mock.lost = 42;
    rtg_recorder_close(r, &res);
    CHECK_EQ_U(res.n_windows, 1);
    CHECK(res.windows[0].complete);
    CHECK_EQ_U(res.windows[0].start_ns, RELEASE - 100);
    CHECK_EQ_U(res.lost_events, 42);
    CHECK_STR(res.about.source, "mock");
    rtg_trace_result_free(&res);

    r = open_k(2, 0);
    offer(r, "b", RELEASE, 500);
    mock.capped_start = RELEASE + 5; /* must fail: capped after the release */
    rtg_recorder_close(r, &res);
    CHECK_EQ_U(res.n_windows, 1);
    CHECK(!res.windows[0].complete);
    rtg_trace_result_free(&res);
}

static void test_open(void)
{
    memset(&mock, 0, sizeof mock);
    mock.open_error = ENOTSUP;
    struct rtg_trace_config cfg = {.keep = 3, .max_events = 10};
    struct rtg_recorder *r = (struct rtg_recorder *)&mock;
    char why[64] = "";
    CHECK(rtg_recorder_open(&r, &mock_ops, &cfg, why, sizeof why) == ENOTSUP);
    CHECK(r == NULL);
    CHECK_STR(why, "mock: no tracer");
    cfg.keep = RTG_TRACE_KEEP_MAX + 1; /* must not open */
    mock.open_error = 0;
    CHECK(rtg_recorder_open(&r, &mock_ops, &cfg, why, sizeof why) == EINVAL);
    rtg_recorder_offer(NULL, "x", 0, 10, true); /* no recorder: nothing happens */
}

int main(void)
{
    test_place();
    test_burst();
    test_ties();
    test_displacement();
    test_freeze_decisions();
    test_samples_at_once();
    test_figure_maxima();
    test_figure_slots_reused();
    test_spans();
    test_span_of_another_thread();
    test_complete_recording_began();
    test_complete_events_lost();
    test_complete_capped();
    test_windows_judged();
    test_open();
    return unit_report("recorder_policy");
}
