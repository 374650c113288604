/* The flight recorder's writer on FreeRTOS: the kernel's trace macros
 * (FreeRTOSConfig.h: a switch, a task made ready, expanded in place from
 * rtg_fr_trace.h; a task created, here) and the board's interrupt hooks
 * (board_isr.h: the tick, IRQ-P-LAT's timer, here) write into the RAM
 * ring. While no recorder is open each costs its caller a test of a flag.
 * While one is, an event is the measuring counter read raw (the clock the
 * samples are read from, so events and samples share one time line) and
 * three word stores, with interrupts masked (PRIMASK: every priority, so a
 * nested interrupt cannot tear it). The ring overwrites its oldest events:
 * a flight recorder keeps the newest. */
#include <string.h>

#include "board.h"
#include "board_isr.h"
#include "trace_internal.h"

_Static_assert(RTG_FR_K_SWITCH == RTG_TEV_SWITCH && RTG_FR_K_WAKEUP == RTG_TEV_WAKEUP &&
                   RTG_FR_K_VEC_ENTRY == RTG_TEV_VEC_ENTRY &&
                   RTG_FR_K_VEC_EXIT == RTG_TEV_VEC_EXIT,
               "the ring's kinds are rtg/osal_trace.h's");

volatile unsigned char board_isr_tracing;
struct rtg_fr_w rtg_fr_w;
struct fr_name *volatile rtg_fr_names;

/* The copy is of the whole array: the TCB's name is that long. */
void rtg_fr_tr_created(uint32_t number, const char *name)
{
    uint32_t m = fr_mask();
    struct fr_name *names = rtg_fr_names;
    if (names) {
        struct fr_name *n = &names[number % FR_NAMES];
        n->number = (uint16_t)number;
        memcpy(n->name, name, sizeof n->name);
        n->name[sizeof n->name - 1] = '\0';
    }
    fr_unmask(m);
}

/* a: the task running; b: the exception number (IPSR), x: which. */
void board_isr_traced(enum board_isr which, bool entry)
{
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    uint32_t kind = entry ? RTG_FR_K_VEC_ENTRY : RTG_FR_K_VEC_EXIT;
    rtg_fr_put(rtg_fr_w.cur | kind << 24, ipsr | (uint32_t)which << 24);
}

void rtg_fr_ring_start(uint32_t *ev, uint32_t entries, struct fr_name *names, uint32_t cur)
{
    struct rtg_fr_w *r = &rtg_fr_w;
    uint32_t m = fr_mask();
    uint32_t xor;
    r->counter = board_clock_raw(&xor);
    r->mask = entries - 1u;
    r->head = 0;
    r->cur = cur;
    r->out = NULL;
    rtg_fr_names = names;
    r->ev = ev;
    board_isr_tracing = 1;
    fr_unmask(m);
}

void rtg_fr_ring_stop(void)
{
    struct rtg_fr_w *r = &rtg_fr_w;
    uint32_t m = fr_mask();
    board_isr_tracing = 0;
    r->ev = NULL;
    rtg_fr_names = NULL;
    fr_unmask(m);
}
