/* The FreeRTOS flight recorder's memory, taken at open from the one heap
 * the tests use too (heap.c): the ring (16 bytes an event) and the kept
 * windows (the K worst and the figures' worst) of max_events + 1 events. It takes at most a sixteenth of the
 * free heap, so an explained test keeps the rest: on the 16 MB board what
 * --explain-buffer-kb and --explain-events ask (512 KB, 1000) fits; on a
 * microcontroller with a few tens of KB free it does not, and half of the
 * sixteenth goes to the ring, the rest to the windows, and the record says
 * what was reduced. THR-P-WKL on the 128 KB board leaves 7 KB free at its
 * lowest without the recorder: a quarter of the heap (17 KB) was too much
 * there. A window of the default 1 ms look-back holds some ten to twenty
 * events (each tick is two, a wake-up and a switch one each), and a ring
 * of 128 events reaches some 10 ms back. */
#include "trace_size.h"

#include <errno.h>
#include <stdio.h>

#include "rtg/osal.h"
#include "trace_internal.h"

#define EV sizeof(struct fr_tev) /* a ring event (RTG_FR_WORDS words) and a kept one */
_Static_assert(sizeof(struct fr_tev) == RTG_FR_WORDS * sizeof(uint32_t), "16 bytes each");
#define RING_MIN 64u   /* events: some 30 ms of ticks on an idle board */
#define EVENTS_MIN 16u /* the command line's own minimum */
#define TEXT_PER_EVENT 140u /* a kept event as the record writes it (JSON, some 130 bytes) */

static uint32_t pow2_floor(size_t v)
{
    uint32_t p = 1;
    while ((size_t)p * 2u <= v && p < (1u << 30))
        p *= 2u;
    return p;
}

int rtg_fr_trace_size(const struct rtg_trace_config *cfg, struct fr_sizes *s, char *why,
                      size_t n)
{
    size_t free_b = 0, largest = 0;
    rtg_mem_available(&free_b, &largest);
    size_t budget = free_b / 16u;
    uint32_t want_ring = pow2_floor((size_t)cfg->buffer_kb * 1024u / EV);
    unsigned want_slots = cfg->slots > cfg->keep ? cfg->slots : cfg->keep;
    s->entries = want_ring;
    s->max_events = cfg->max_events;
    s->slots = want_slots;
    s->reduced[0] = '\0';
    size_t window_b = (size_t)(cfg->max_events + 1u) * EV;
    /* the figures' windows give way first: the K worst are what was asked */
    while (s->slots > cfg->keep && (size_t)want_ring * EV + s->slots * window_b > budget)
        s->slots--;
    size_t per_window = (size_t)s->slots * EV;
    size_t need = (size_t)want_ring * EV + per_window * (cfg->max_events + 1u);
    if (need > budget || (size_t)want_ring * EV > largest / 2u) {
        size_t ring_room = budget / 2u < largest / 2u ? budget / 2u : largest / 2u;
        uint32_t ring = pow2_floor(ring_room / EV);
        s->entries = ring < want_ring ? ring : want_ring;
        size_t left = budget - (size_t)s->entries * EV;
        size_t events = left / per_window;
        events = events > 0 ? events - 1u : 0u;
        if (events < s->max_events)
            s->max_events = (unsigned)events;
    }
    /* The kept windows are written as text after the test, from the same
     * heap: some TEXT_PER_EVENT bytes an event. A fifth of the free heap
     * for the K worst windows' text keeps the last of them from being left
     * out (on the 128 KB board a THR-P-PRE record of three 47-event
     * windows did not fit); on the 16 MB board it binds nothing. */
    size_t text_events = free_b / 5u / ((size_t)cfg->keep * TEXT_PER_EVENT);
    text_events = text_events > 0 ? text_events - 1u : 0u;
    if (text_events < s->max_events)
        s->max_events = (unsigned)text_events;
    if (s->entries < RING_MIN || s->max_events < EVENTS_MIN) {
        snprintf(why, n, "the heap leaves no room for the flight recorder (%zu KB free)",
                 free_b / 1024u);
        return ENOMEM;
    }
    s->buffer_kb = (unsigned)((size_t)s->entries * EV / 1024u);
    if (s->entries < want_ring || s->max_events < cfg->max_events)
        snprintf(s->reduced, sizeof s->reduced,
                 "buffer_kb %u reduced to %u, max_events %u reduced to %u, figures %u to %u: "
                 "%zu KB of heap free",
                 cfg->buffer_kb, s->buffer_kb, cfg->max_events, s->max_events,
                 want_slots - cfg->keep, s->slots - cfg->keep, free_b / 1024u);
    else if (s->slots < want_slots)
        snprintf(s->reduced, sizeof s->reduced, "figures %u reduced to %u: %zu KB of heap free",
                 want_slots - cfg->keep, s->slots - cfg->keep, free_b / 1024u);
    return 0;
}
