/* Whether a process is gone, for the janitors that remove what a killed
 * probe left (IPC objects, tracefs instances). */
#ifndef RTG_PROCESS_STATE_H
#define RTG_PROCESS_STATE_H
#include <stdbool.h>

/* The process no longer runs: it does not exist, or it is a zombie nobody
 * reaped yet (an orphan's parent may take its time). */
bool rtg_linux_pid_gone(long pid);

#endif
