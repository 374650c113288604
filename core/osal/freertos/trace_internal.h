/* The flight recorder's port on FreeRTOS (rtg/osal_trace.h), its parts:
 * trace_hooks.c writes the kernel's and the board's events into a RAM
 * ring; trace.c opens it and cuts the windows the recorder's policy keeps
 * out of it; trace_window.c turns a kept window into the common
 * vocabulary. */
#ifndef RTG_FR_TRACE_INTERNAL_H
#define RTG_FR_TRACE_INTERNAL_H
#include <stdbool.h>
#include <stdint.h>

#include "FreeRTOS.h"
#include "rtg/osal_trace.h"
#include "rtg_fr_trace.h"

/* One event as a kept window holds it: 16 bytes, its time worked out (the
 * ring holds the counter as read raw: rtg_fr_trace.h). Task numbers are
 * the kernel's (uxTCBNumber) modulo 65536. */
struct fr_tev {
    uint64_t ticks; /* the board's measuring counter (board_clock_ticks) */
    uint16_t a, b;  /* SWITCH: the task out, the task in; WAKEUP: the task
                     * made ready, the task running; VEC: the task running,
                     * the exception number (IPSR) */
    uint8_t kind;   /* enum rtg_tev_kind */
    uint8_t pa, pb; /* the priorities of a and b */
    uint8_t x;      /* SWITCH: 0 the task out is still ready, 1 it blocked;
                     * VEC: which of the board's interrupts (enum board_isr) */
};

#define FR_NAMES 16 /* task names kept, by number modulo this */
struct fr_name {
    uint16_t number;
    char name[configMAX_TASK_NAME_LEN];
};

/* The names as the creation hook writes them (trace_hooks.c). */
extern struct fr_name *volatile rtg_fr_names;

/* Interrupts masked (PRIMASK: every priority), for a few instructions. */
static inline uint32_t fr_mask(void)
{
    uint32_t m;
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(m)::"memory");
    return m;
}
static inline void fr_unmask(uint32_t m) { __asm__ volatile("msr primask, %0" ::"r"(m) : "memory"); }

/* trace_hooks.c: recording into ev (entries of RTG_FR_WORDS words, a power
 * of two) from now on, the running task cur (RTG_FR_TASK); and stopped
 * (the hooks see it before this returns). */
void rtg_fr_ring_start(uint32_t *ev, uint32_t entries, struct fr_name *names, uint32_t cur);
void rtg_fr_ring_stop(void);

/* trace_window.c: a window kept in the ring's own form, and what it
 * becomes in the record. */
struct fr_kept {
    uint64_t start_ns;
    int64_t first_event_ns; /* the oldest event the ring held (-1: none) */
    uint64_t lost_events;   /* since the previous freeze, as the record says it */
    uint64_t since_ns, lost_since; /* the cover: recording since, and lost since then */
    uint16_t tid;           /* the task whose sample it is (its number) */
    bool used, capped;
    uint32_t n;         /* events in ev: the switch before the window, then the window */
    struct fr_tev *ev;  /* room for max_events + 1 */
};
/* k in the common vocabulary: its events (the idle task as pid 0 wherever
 * a task is named: a switch's two, a wake-up's and every event's cur;
 * names from the table), where they begin, the tasks seen; 0 or ENOMEM (w
 * then holds nothing). The policy fills in the sample's own fields. */
int rtg_fr_window_expand(const struct fr_kept *k, const struct fr_name *names, uint16_t idle,
                         struct rtg_trace_window *w);

#endif
