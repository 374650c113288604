/* The flight recorder's writer in the kernel: what FreeRTOSConfig.h's
 * trace macros expand to (core/osal/freertos/trace_hooks.c has the rest).
 * While no recorder is open a macro costs a test of rtg_fr_w.ev; while
 * one is, an event is the measuring counter read raw and three word stores
 * into the recorder's RAM ring, with interrupts masked (PRIMASK) for those
 * few instructions: no clock conversion, no call, nothing but the stores.
 * The 64-bit time and the fields are worked out when a window is cut,
 * after the sample it explains ended (docs/recorder.md, "Its cost").
 * Included by FreeRTOSConfig.h, so by the kernel's own sources: plain C,
 * nothing of the kernel's types. */
#ifndef RTG_FR_TRACE_H
#define RTG_FR_TRACE_H
#include <stdint.h>

/* The event kinds the ring holds (rtg/osal_trace.h's, checked in
 * trace_hooks.c). */
#define RTG_FR_K_VEC_ENTRY 2u
#define RTG_FR_K_VEC_EXIT 3u
#define RTG_FR_K_WAKEUP 10u
#define RTG_FR_K_SWITCH 11u

/* An event, four words (the fourth unused): the counter as read raw
 * (board_clock_raw), then a | pa << 16 | kind << 24 and b | pb << 16 |
 * x << 24 (trace_internal.h says what a, b, pa, pb and x are by kind). */
#define RTG_FR_WORDS 4u

struct rtg_fr_w {
    volatile uint32_t *ev;            /* NULL: not recording */
    uint32_t mask;                    /* entries - 1, a power of two */
    volatile uint32_t head;           /* events written since it started */
    const volatile uint32_t *counter; /* the measuring counter's register */
    uint32_t cur;                     /* the running task: number | priority << 16 */
    const void *out;                  /* vTaskSwitchContext's task out (its TCB) */
};
extern struct rtg_fr_w rtg_fr_w;

/* One event, whole before head moves: a reader sees only whole events.
 * Where no traced interrupt can come (the kernel's BASEPRI masks the tick
 * and IRQ-P-LAT's timer, both at or below configMAX_SYSCALL_INTERRUPT_PRIORITY). */
static inline __attribute__((always_inline)) void rtg_fr_store(uint32_t w1, uint32_t w2)
{
    struct rtg_fr_w *r = &rtg_fr_w;
    uint32_t h = r->head;
    volatile uint32_t *e = r->ev + (h & r->mask) * RTG_FR_WORDS;
    e[0] = *r->counter;
    e[1] = w1;
    e[2] = w2;
    r->head = h + 1u;
}

/* The same anywhere: interrupts masked (PRIMASK) for those instructions. */
static inline __attribute__((always_inline)) void rtg_fr_put(uint32_t w1, uint32_t w2)
{
    uint32_t m;
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(m)::"memory");
    rtg_fr_store(w1, w2);
    __asm__ volatile("msr primask, %0" ::"r"(m) : "memory");
}

/* A task's word: its number (the kernel's uxTCBNumber, modulo 65536) and
 * its priority (below configMAX_PRIORITIES, 101: a byte). */
#define RTG_FR_TASK(number, prio) (((uint32_t)(number) & 0xFFFFu) | (uint32_t)(prio) << 16)

/* A task put on a ready list: woken (a delay expired, an object given),
 * created, or moved by a priority change; b is the task running. */
static inline __attribute__((always_inline)) void rtg_fr_ready(uint32_t number, uint32_t prio)
{
    rtg_fr_put(RTG_FR_TASK(number, prio) | RTG_FR_K_WAKEUP << 24, rtg_fr_w.cur);
}

/* vTaskSwitchContext picked task in; out (rtg_fr_w.out) was running, and
 * still_ready says whether it is still on its ready list (preempted or
 * yielded, x 0) or not (blocked, x 1). A switch is recorded when they
 * differ. The kernel calls it with BASEPRI raised (PendSV). */
static inline __attribute__((always_inline)) void rtg_fr_switched(uint32_t out, int still_ready,
                                                                  uint32_t in)
{
    rtg_fr_w.cur = in;
    rtg_fr_store(out | RTG_FR_K_SWITCH << 24, in | (still_ready ? 0u : 1u << 24));
}

/* A task created: its name, for the windows' events (trace_hooks.c). */
void rtg_fr_tr_created(uint32_t number, const char *name);

#endif
