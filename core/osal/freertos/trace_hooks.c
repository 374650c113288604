/* The flight recorder's writer on FreeRTOS: the kernel's trace macros
 * (FreeRTOSConfig.h: a switch, a task made ready, a task created) and the
 * board's interrupt hooks (board_isr.h: the tick, IRQ-P-LAT's timer) call
 * in here. While no recorder is open each costs its caller a test of a
 * flag. While one is, an event is a few stores into the RAM ring with
 * interrupts masked (PRIMASK: every priority, so a nested interrupt
 * cannot tear it), stamped with the board's measuring counter: the clock
 * the samples are read from, so events and samples share one time line.
 * The ring overwrites its oldest events: a flight recorder keeps the newest. */
#include <string.h>

#include "board.h"
#include "board_isr.h"
#include "trace_internal.h"

volatile uint8_t rtg_fr_tr_on;
volatile unsigned char board_isr_tracing;
struct fr_ring rtg_fr_ring;

static void put(uint8_t kind, uint16_t a, uint16_t b, uint8_t pa, uint8_t pb, uint8_t x)
{
    struct fr_ring *r = &rtg_fr_ring;
    uint32_t m = fr_mask();
    if (r->ev) {
        struct fr_tev *e = &r->ev[r->head & r->mask];
        e->ticks = board_clock_ticks();
        e->a = a;
        e->b = b;
        e->kind = kind;
        e->pa = pa;
        e->pb = pb;
        e->x = x;
        r->head++; /* after the stores: a reader sees only whole events */
    }
    fr_unmask(m);
}

/* Called inside vTaskSwitchContext, which runs with the kernel's
 * interrupts masked: the two halves of a switch are not interleaved. */
void rtg_fr_tr_switched_out(uint32_t number, uint32_t prio, int still_ready)
{
    struct fr_ring *r = &rtg_fr_ring;
    r->out = (uint16_t)number;
    r->out_prio = (uint8_t)prio;
    r->out_state = still_ready ? 0 : 1;
    r->out_pending = true;
}

void rtg_fr_tr_switched_in(uint32_t number, uint32_t prio)
{
    struct fr_ring *r = &rtg_fr_ring;
    uint16_t in = (uint16_t)number;
    if (r->out_pending && r->out != in)
        put(RTG_TEV_SWITCH, r->out, in, r->out_prio, (uint8_t)prio, r->out_state);
    r->out_pending = false;
    r->cur = in;
    r->cur_prio = (uint8_t)prio;
}

void rtg_fr_tr_ready(uint32_t number, uint32_t prio)
{
    struct fr_ring *r = &rtg_fr_ring;
    put(RTG_TEV_WAKEUP, (uint16_t)number, r->cur, (uint8_t)prio, r->cur_prio, 0);
}

void rtg_fr_tr_created(uint32_t number, const char *name)
{
    struct fr_ring *r = &rtg_fr_ring;
    uint32_t m = fr_mask();
    if (r->names) {
        struct fr_name *n = &r->names[number % FR_NAMES];
        n->number = (uint16_t)number;
        strncpy(n->name, name, sizeof n->name - 1);
        n->name[sizeof n->name - 1] = '\0';
    }
    fr_unmask(m);
}

void board_isr_traced(enum board_isr which, bool entry)
{
    struct fr_ring *r = &rtg_fr_ring;
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    put(entry ? RTG_TEV_VEC_ENTRY : RTG_TEV_VEC_EXIT, r->cur, (uint16_t)(ipsr & 0x1FFu),
        r->cur_prio, 0, (uint8_t)which);
}

void rtg_fr_ring_start(struct fr_tev *ev, uint32_t entries, struct fr_name *names, uint16_t cur,
                       uint8_t cur_prio)
{
    struct fr_ring *r = &rtg_fr_ring;
    uint32_t m = fr_mask();
    r->mask = entries - 1u;
    r->head = 0;
    r->names = names;
    r->cur = cur;
    r->cur_prio = cur_prio;
    r->out_pending = false;
    r->ev = ev;
    rtg_fr_tr_on = 1;
    board_isr_tracing = 1;
    fr_unmask(m);
}

void rtg_fr_ring_stop(void)
{
    struct fr_ring *r = &rtg_fr_ring;
    uint32_t m = fr_mask();
    rtg_fr_tr_on = 0;
    board_isr_tracing = 0;
    r->ev = NULL;
    r->names = NULL;
    fr_unmask(m);
}
