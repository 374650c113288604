/* The trace ring buffer's pages and event formats, on hand-made bytes:
 * every kind of entry, lost-event flags, and a sched_switch decoded by the
 * names its format gives; the list of the development switch. */
#include <stdint.h>
#include <string.h>

#include "trace_events.h"
#include "trace_ring.h"
#include "unit.h"

static const char header_page[] =
    "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
    "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
    "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
    "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char switch_format[] =
    "name: sched_switch\nID: 372\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
    "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
    "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
    "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
    "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
    "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n";

static const char irq_format[] =
    "name: irq_handler_entry\nID: 225\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
    "\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n";

struct seen {
    int n;
    uint64_t ts[8];
    size_t len[8];
    uint8_t first[8];
};

static void record(void *arg, const struct rtg_ring_event *e)
{
    struct seen *s = arg;
    if (s->n < 8) {
        s->ts[s->n] = e->ts;
        s->len[s->n] = e->len;
        s->first[s->n] = e->data[0];
    }
    s->n++;
}

static size_t put32(uint8_t *p, size_t at, uint32_t v)
{
    memcpy(p + at, &v, 4);
    return at + 4;
}

static void header(uint8_t *page, uint64_t ts, uint64_t commit)
{
    memcpy(page, &ts, 8);
    memcpy(page + 8, &commit, 8);
}

static void test_layout(void)
{
    struct rtg_ring_layout l;
    CHECK(rtg_ring_layout_parse(header_page, &l) == 0);
    CHECK_EQ_U(l.commit_off, 8);
    CHECK_EQ_U(l.commit_size, 8);
    CHECK_EQ_U(l.data_off, 16);
    CHECK(rtg_ring_layout_parse("nothing here", &l) != 0);
}

static void test_page_entries(void)
{
    struct rtg_ring_layout l;
    rtg_ring_layout_parse(header_page, &l);
    uint8_t page[4096] = {0};
    uint8_t *d = page + 16;
    size_t i = 0;
    /* a small event: type_len 2 (8 bytes of data), delta 10 */
    i = put32(d, i, 2u | (10u << 5));
    d[i] = 0xA1;
    i += 8;
    /* a time extend of 2^27 + 5 */
    i = put32(d, i, 30u | (5u << 5));
    i = put32(d, i, 1u);
    /* a long event: type_len 0, length word 4 + 40 bytes, delta 3 */
    i = put32(d, i, 0u | (3u << 5));
    i = put32(d, i, 44u);
    d[i] = 0xB2;
    i += 40;
    /* a discarded event (padding with a delta): skipped, its time kept */
    i = put32(d, i, 29u | (7u << 5));
    i = put32(d, i, 8u);
    i += 4;
    /* a small event after it, delta 1 */
    i = put32(d, i, 1u | (1u << 5));
    d[i] = 0xC3;
    i += 4;
    header(page, 1000, i);
    struct seen s = {0};
    uint64_t missed = 99;
    CHECK(rtg_ring_page_walk(&l, page, sizeof page, record, &s, &missed) == 0);
    CHECK_EQ_U(missed, 0);
    CHECK_EQ_U(s.n, 3);
    CHECK_EQ_U(s.ts[0], 1010);
    CHECK_EQ_U(s.len[0], 8);
    CHECK_EQ_U(s.first[0], 0xA1);
    CHECK_EQ_U(s.ts[1], 1010 + 5 + (1u << 27) + 3);
    CHECK_EQ_U(s.len[1], 40);
    CHECK_EQ_U(s.first[1], 0xB2);
    CHECK_EQ_U(s.ts[2], s.ts[1] + 7 + 1);
    CHECK_EQ_U(s.first[2], 0xC3);
}

static void test_missed_and_malformed(void)
{
    struct rtg_ring_layout l;
    rtg_ring_layout_parse(header_page, &l);
    uint8_t page[4096] = {0};
    size_t i = put32(page + 16, 0, 1u | (4u << 5));
    i += 4;
    uint64_t lost = 17;
    memcpy(page + 16 + i, &lost, 8);
    header(page, 50, i | (1ull << 31) | (1ull << 30));
    struct seen s = {0};
    uint64_t missed = 0;
    CHECK(rtg_ring_page_walk(&l, page, sizeof page, record, &s, &missed) == 0);
    CHECK_EQ_U(missed, 17);
    CHECK_EQ_U(s.n, 1);
    /* the flag without a stored count: some lost, how many unknown */
    header(page, 50, i | (1ull << 31));
    CHECK(rtg_ring_page_walk(&l, page, sizeof page, record, &s, &missed) == 0);
    CHECK(missed == UINT64_MAX);
    /* an event that runs past the committed data */
    put32(page + 16, 0, 20u);
    header(page, 50, 8);
    CHECK(rtg_ring_page_walk(&l, page, sizeof page, record, &s, &missed) != 0);
    /* a committed length beyond the page */
    header(page, 50, 5000);
    CHECK(rtg_ring_page_walk(&l, page, sizeof page, record, &s, &missed) != 0);
}

static void test_switch_decoded(void)
{
    struct rtg_tp_decoder d = {.kind = RTG_TEV_SWITCH};
    CHECK(rtg_fmt_parse(switch_format, &d.fmt) == 0);
    CHECK_EQ_U(d.fmt.id, 372);
    const struct rtg_fmt_field *f = rtg_fmt_field(&d.fmt, "next_comm");
    CHECK(f && f->offset == 40 && f->size == 16);
    uint8_t rec[64] = {0};
    uint16_t type = 372;
    memcpy(rec, &type, 2);
    int32_t v = 1234;
    memcpy(rec + 4, &v, 4); /* common_pid */
    memcpy(rec + 8, "hog", 3);
    memcpy(rec + 24, &v, 4);
    v = 0;
    memcpy(rec + 28, &v, 4);
    int64_t state = 1;
    memcpy(rec + 32, &state, 8);
    memcpy(rec + 40, "rtgauge-probe", 13);
    v = 500;
    memcpy(rec + 56, &v, 4);
    v = 4;
    memcpy(rec + 60, &v, 4);
    CHECK_EQ_U(rtg_tp_type(rec, sizeof rec), 372);
    struct rtg_tev e;
    rtg_tp_decode(&d, rec, sizeof rec, 777, 1, &e);
    CHECK_EQ_U(e.t_ns, 777);
    CHECK_EQ_U(e.kind, RTG_TEV_SWITCH);
    CHECK_EQ_U(e.cur, 1234);
    CHECK_EQ_U(e.pid, 1234);
    CHECK_EQ_U(e.prio, 0);
    CHECK_EQ_U(e.state, 1);
    CHECK(!strcmp(e.name, "hog"));
    CHECK_EQ_U(e.pid2, 500);
    CHECK_EQ_U(e.prio2, 4);
    CHECK(!strcmp(e.name2, "rtgauge-probe"));
}

static void test_irq_name_from_data_loc(void)
{
    struct rtg_tp_decoder d = {.kind = RTG_TEV_IRQ_ENTRY};
    CHECK(rtg_fmt_parse(irq_format, &d.fmt) == 0);
    const struct rtg_fmt_field *f = rtg_fmt_field(&d.fmt, "name");
    CHECK(f && f->data_loc);
    uint8_t rec[40] = {0};
    uint16_t type = 225;
    memcpy(rec, &type, 2);
    int32_t irq = 24;
    memcpy(rec + 8, &irq, 4);
    uint32_t loc = (8u << 16) | 16u; /* "virtio0\0" at offset 16 */
    memcpy(rec + 12, &loc, 4);
    memcpy(rec + 16, "virtio0", 8);
    struct rtg_tev e;
    rtg_tp_decode(&d, rec, sizeof rec, 5, 0, &e);
    CHECK_EQ_U(e.num, 24);
    CHECK(!strcmp(e.name, "virtio0"));
    /* a location outside the record reads as no name, never past it */
    loc = (8u << 16) | 36u;
    memcpy(rec + 12, &loc, 4);
    rtg_tp_decode(&d, rec, sizeof rec, 5, 0, &e);
    CHECK(e.name[0] == '\0');
}

/* The development switch's list: events, systems and system/event pairs. */
static void test_listed(void)
{
    CHECK(!rtg_tp_listed(NULL, "sched", "sched_waking"));
    CHECK(!rtg_tp_listed("", "sched", "sched_waking"));
    CHECK(rtg_tp_listed("sched_waking", "sched", "sched_waking"));
    CHECK(!rtg_tp_listed("sched_waking", "sched", "sched_wakeup"));
    CHECK(!rtg_tp_listed("sched_wak", "sched", "sched_waking"));
    CHECK(rtg_tp_listed("irq,timer", "timer", "hrtimer_expire_exit"));
    CHECK(rtg_tp_listed("x,irq_vectors/local_timer_entry", "irq_vectors", "local_timer_entry"));
    CHECK(!rtg_tp_listed("irq_vectors/local_timer_entry", "irq_vectors", "local_timer_exit"));
    CHECK(!rtg_tp_listed("timer/sched_switch", "sched", "sched_switch"));
    CHECK(rtg_tp_listed("ipi,", "ipi", "ipi_entry"));
}

/* On by default: the events the explanation reads; off: those it never
 * does (docs/recorder.md, "Left off"). */
static void test_default_events(void)
{
    int off = 0;
    for (size_t i = 0; i < rtg_tp_n_wanted; i++) {
        const struct rtg_tp *w = &rtg_tp_wanted[i];
        bool unread = w->kind == RTG_TEV_WAKING || w->kind == RTG_TEV_SOFTIRQ_RAISE ||
                      w->kind == RTG_TEV_IPI_SEND;
        CHECK(w->on == !unread);
        off += !w->on;
    }
    CHECK_EQ_U(off, 5);
}

int main(void)
{
    test_listed();
    test_default_events();
    test_layout();
    test_page_entries();
    test_missed_and_malformed();
    test_switch_decoded();
    test_irq_name_from_data_loc();
    return unit_report("trace_ring");
}
