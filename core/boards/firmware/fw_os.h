/* What the firmware's entry (main.c) needs of the OS layer: its heap ready
 * before the first allocation, and the runner started in a task above
 * every test (core/osal/freertos/start.c). */
#ifndef RTG_FW_OS_H
#define RTG_FW_OS_H

/* The OS's heap over the RAM the board left free (board_heap_start). */
void rtg_fw_os_init(void);
/* Runs body in the runner's task at the watchdog's level; does not return. */
__attribute__((noreturn)) void rtg_fw_os_start(void (*body)(void));
/* The board's qemu mode as the host gave it (--fw-qemu): NULL, "tcg" or
 * "icount" and its shift; for the system record. */
void rtg_fr_set_board_facts(const char *qemu, int icount_shift);

#endif
