/* ISO C11 port: threads, mutexes and condition variables from <threads.h>,
 * nothing from POSIX. It exists to prove that the tests reach the OS only
 * through the OSAL (see docs/porting.md); it offers no priorities, no
 * affinity, no processes, queues, signals or timers, and the tests that
 * need those are skipped with that reason. */
#ifndef RTG_OSAL_TYPES_H
#define RTG_OSAL_TYPES_H
#include <threads.h>

/* A handle, not thrd_t: joining must hand back the thread's void * result. */
typedef struct rtg_c11_thread *rtg_thread_t;
typedef struct {
    mtx_t lock;
    cnd_t nonzero;
    unsigned count;
} rtg_sem_t;
typedef struct {
    mtx_t mutex;
} rtg_mutex_t;

#define RTG_OSAL_NAME "c11"

#endif
