/* The flight recorder's hooks in the kernel: what FreeRTOSConfig.h's trace
 * macros call (core/osal/freertos/trace_hooks.c). While no recorder is
 * open a macro costs a test of rtg_fr_tr_on; while one is, a few stores
 * into the recorder's RAM ring. Included by FreeRTOSConfig.h, so by the
 * kernel's own sources: plain C, nothing of the kernel's types. */
#ifndef RTG_FR_TRACE_H
#define RTG_FR_TRACE_H
#include <stdint.h>

extern volatile uint8_t rtg_fr_tr_on;

/* vTaskSwitchContext: the running task before the kernel picks the next
 * (still_ready: it was preempted or yielded, not blocked), then the one
 * it picked; a switch is recorded when the two differ. */
void rtg_fr_tr_switched_out(uint32_t number, uint32_t prio, int still_ready);
void rtg_fr_tr_switched_in(uint32_t number, uint32_t prio);
/* A task put on a ready list: woken (a delay expired, an object given),
 * created, or moved by a priority change. */
void rtg_fr_tr_ready(uint32_t number, uint32_t prio);
/* A task created: its name, for the windows' events. */
void rtg_fr_tr_created(uint32_t number, const char *name);

#endif
