/* Shared inside the FreeRTOS port. */
#ifndef RTG_FR_INTERNAL_H
#define RTG_FR_INTERNAL_H
#include <stdbool.h>
#include <stdint.h>

#include "FreeRTOS.h"
#include "rtg/osal.h"
#include "task.h"

/* Round robin: a slice of this many ticks (1 ms each). */
#define RTG_FR_RR_TICKS 10u
/* Stacks are capped: FreeRTOS's heap has 3 MB, the catalogue asks 64 KiB. */
#define RTG_FR_STACK_MAX (12u * 1024u)
#define RTG_FR_STACK_DEFAULT (8u * 1024u)
/* The catalogue's levels on FreeRTOS's (FreeRTOSConfig.h). */
#define RTG_FR_PRIO_OTHER 1u
#define RTG_FR_PRIO_WATCHDOG (configMAX_PRIORITIES - 1u)

UBaseType_t rtg_fr_priority(enum rtg_policy policy, int prio);
/* Ticks to wait until the absolute rtg_mono_ns deadline, rounded up. */
TickType_t rtg_fr_ticks_until(uint64_t deadline_ns);
/* Tasks that the OSAL created and nobody joined yet (the runner's check). */
unsigned rtg_fr_live_threads(void);
/* Makes the calling task (created outside the OSAL) known to it. */
void rtg_fr_adopt_self(enum rtg_policy policy, int prio);
/* Whether the running task is one the OSAL created (a test's). */
bool rtg_fr_is_test_task(void);
/* Wakes every OSAL task from its delay (a stop request was made). */
void rtg_fr_abort_delays(void);
/* What the host said it started the board under (fw/main.c, sysinfo.c):
 * qemu NULL (not said), "tcg" or "icount" with its shift. */
void rtg_fr_set_board_facts(const char *qemu, int icount_shift);
/* Deletes every OSAL task but the caller's (the watchdog's last resort). */
unsigned rtg_fr_delete_all_threads(void);

#endif
