/* The measured CPUs' trace buffers read as they fill (trace_recorder.h):
 * each read of per_cpu/cpuN/trace_pipe_raw hands over one page, full or
 * not, and consumes it, so the kernel's buffer never wraps while the
 * reader keeps up. The pages go into the CPU's ring in user space, the
 * oldest evicted first; a window is cut from there later, parsing only
 * the pages it needs. Only the reader thread calls these. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_recorder.h"

static void evict_oldest(struct cpu_ring *r)
{
    r->head = (r->head + 1) % r->cap;
    r->n--;
    /* the next page's events are held from its time stamp on */
    if (r->n)
        r->held_since_ns = r->ts[r->head];
}

/* A held ring grows to at most this many times its first size. */
#define HOLD_GROWTH_MAX 16u

/* Doubles r's room, its pages kept in order (oldest first); false when it
 * may not grow further or there is no memory: then it evicts as before. */
static bool grow(struct rtg_trace_port *t, struct cpu_ring *r)
{
    if (!r->first_cap)
        r->first_cap = r->cap;
    size_t cap = r->cap * 2;
    if (cap > r->first_cap * HOLD_GROWTH_MAX)
        return false;
    uint8_t *pages = malloc(cap * t->page_size);
    uint32_t *len = calloc(cap, sizeof *len);
    uint64_t *ts = calloc(cap, sizeof *ts), *missed = calloc(cap, sizeof *missed);
    if (!pages || !len || !ts || !missed) {
        free(pages), free(len), free(ts), free(missed);
        return false;
    }
    for (size_t i = 0; i < r->n; i++) {
        size_t s = (r->head + i) % r->cap;
        memcpy(pages + i * t->page_size, r->pages + s * t->page_size, t->page_size);
        len[i] = r->len[s];
        ts[i] = r->ts[s];
        missed[i] = r->missed[s];
    }
    free(r->pages), free(r->len), free(r->ts), free(r->missed);
    r->pages = pages, r->len = len, r->ts = ts, r->missed = missed;
    r->cap = cap;
    r->head = 0;
    return true;
}

static uint64_t add_missed(uint64_t total, uint64_t m)
{
    if (m == UINT64_MAX)
        return total + 1; /* the page says only that some were lost: count one */
    return total + m;
}

static void drain_cpu(struct rtg_trace_port *t, struct cpu_ring *r, uint64_t until_ns)
{
    if (r->fd < 0)
        return;
    uint64_t began = rtg_tr_mono_ns();
    for (bool past = false; !past;) {
        /* read aside first: a full ring gives up its oldest page only for a new one */
        ssize_t got = read(r->fd, t->page, t->page_size);
        if (got <= 0) {
            r->read_to_ns = began; /* EAGAIN: all written before the drain began is read */
            break;
        }
        if (r->n == r->cap) {
            /* a held page (rtg_trace_ops.hold) makes room instead, while it may */
            uint64_t hold = atomic_load(&t->hold_from_ns);
            if (!(hold && r->ts[r->head] >= hold && grow(t, r)))
                evict_oldest(r);
        }
        size_t slot = (r->head + r->n) % r->cap;
        uint8_t *page = r->pages + slot * t->page_size;
        memcpy(page, t->page, (size_t)got);
        uint64_t missed = rtg_ring_page_missed(&t->layout, page, (size_t)got);
        r->len[slot] = (uint32_t)got;
        r->ts[slot] = rtg_ring_page_ts(page);
        r->missed[slot] = missed;
        r->n++;
        t->pages_read++;
        if (r->ts[slot] > until_ns) { /* every event before this page is read */
            past = true;
            r->read_to_ns = r->ts[slot] > r->read_to_ns ? r->ts[slot] : r->read_to_ns;
        }
        /* A page that reaches the drain's start: the reader has caught up.
         * Reading on would hand over the writer's new events a few at a
         * time, a page each, and fill the ring with nearly empty pages. */
        if (!past && rtg_ring_page_last_ts(&t->layout, page, (size_t)got) >= began) {
            past = true;
            r->read_to_ns = began;
        }
        if (missed)
            t->lost_events = add_missed(t->lost_events, missed);
    }
}

void rtg_tr_drain_all(struct rtg_trace_port *t, uint64_t until_ns)
{
    for (size_t i = 0; i < t->n_rings; i++)
        drain_cpu(t, &t->rings[i], until_ns);
    t->drains++;
}

size_t rtg_tr_ring_first(const struct cpu_ring *r, uint64_t from_ns)
{
    size_t first = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (r->ts[(r->head + i) % r->cap] > from_ns)
            break;
        first = i; /* the last page that began at or before from */
    }
    return r->n ? first : r->n;
}

const uint8_t *rtg_tr_ring_page(const struct rtg_trace_port *t, const struct cpu_ring *r,
                                size_t i, uint32_t *len, uint64_t *missed)
{
    size_t slot = (r->head + i) % r->cap;
    *len = r->len[slot];
    *missed = r->missed[slot];
    return r->pages + slot * t->page_size;
}

void rtg_tr_rings_free(struct rtg_trace_port *t)
{
    for (size_t i = 0; i < t->n_rings; i++) {
        free(t->rings[i].pages);
        free(t->rings[i].len);
        free(t->rings[i].ts);
        free(t->rings[i].missed);
    }
    free(t->rings);
    t->rings = NULL;
    t->n_rings = 0;
}
