/* Named counting semaphores (POSIX sem_open) for SEM-P-NEW. A named
 * semaphore outlives a crashed process, so names are unique per process
 * ("/rtg-<pid>-<tag>-<n>") and a sweep removes what this process, or a
 * probe process that no longer exists, left behind. The handle is an
 * rtg_sem_t, so rtg_sem_wait/post/value work on it. All calls return 0 or
 * an errno (ENOTSUP where the OS has no named semaphores). */
#ifndef RTG_OSAL_NAMED_H
#define RTG_OSAL_NAMED_H
#include <stddef.h>

#include "rtg/osal.h"

#define RTG_NAMED_SEM_NAME_MAX 64

/* Writes a fresh name for tag (letters, digits, '_') into buf; creates nothing. */
int rtg_named_sem_name(char *buf, size_t len, const char *tag);
/* Creates the named semaphore, exclusively (it must not exist), mode 0600. */
int rtg_named_sem_create(rtg_sem_t **s, const char *name, unsigned value);
/* Closes this process's handle; the name stays until unlinked. */
int rtg_named_sem_close(rtg_sem_t *s);
/* Removes the name (open handles keep working). */
int rtg_named_sem_unlink(const char *name);
/* Unlinks every name made by rtg_named_sem_name in this process, and those
 * of probe processes that no longer exist; *removed counts them (may be NULL). */
int rtg_named_sem_sweep(int *removed);

#endif
