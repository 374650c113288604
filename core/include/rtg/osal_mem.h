/* OSAL topic: fresh pages and the process's memory locking (MEM). All
 * calls return 0 or an errno value. Locking itself is rtg_lock_memory /
 * rtg_unlock_memory in rtg/osal.h. */
#ifndef RTG_OSAL_MEM_H
#define RTG_OSAL_MEM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

size_t rtg_page_size(void);
/* Maps len bytes of fresh anonymous private memory, not populated (unless
 * MCL_FUTURE is in force). no_huge: 4 KiB pages only (no transparent huge
 * pages), so that one first touch is one page. */
int rtg_map_fresh(void **p, size_t len, bool no_huge);
int rtg_unmap(void *p, size_t len);
/* Bytes of this process locked in memory (VmLck); 0 when unknown. */
uint64_t rtg_locked_bytes(void);
/* Minor and major page faults of this process so far. */
int rtg_page_faults(uint64_t *minor, uint64_t *major);

#endif
