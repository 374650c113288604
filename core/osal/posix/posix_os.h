/* What the POSIX port needs beyond POSIX. core/osal/linux/ provides it on
 * Linux, core/osal/posix/not_linux/ on any other POSIX system (where each
 * extra is absent, and says so). */
#ifndef RTG_POSIX_OS_H
#define RTG_POSIX_OS_H
#include <stdint.h>
#include <time.h>

/* Holds /dev/cpu_dma_latency at 0 for the run: the descriptor to close at
 * the end, or -1 when the OS has no such control. */
int rtg_px_hold_dma_latency(void);
/* The calling process is killed when its parent ends (no-op where the OS
 * cannot do it: the parent's watchdog then reaps what it can). */
void rtg_px_die_with_parent(void);
/* A descriptor that becomes readable when process pid ends, or -1. */
int rtg_px_pid_fd(long pid);
/* proc.c's child body, for the lightest process creation (clone). */
int rtg_px_child_body(void *arg);
/* Whether the OS has a deadline scheduler (osal_deadline.h). */
int rtg_px_has_deadline(void);
/* An absolute CLOCK_MONOTONIC deadline (ns) as a CLOCK_REALTIME timespec,
 * for calls that take only the wall clock (timed.c). */
struct timespec rtg_px_realtime_deadline(uint64_t deadline_ns);

#endif
