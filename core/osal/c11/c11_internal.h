/* Shared by the c11 port's files: <threads.h> result codes as errno values. */
#ifndef RTG_C11_INTERNAL_H
#define RTG_C11_INTERNAL_H
#include <errno.h>
#include <threads.h>

static inline int rtg_c11_errno(int thrd_rc)
{
    switch (thrd_rc) {
    case thrd_success: return 0;
    case thrd_nomem: return ENOMEM;
    case thrd_busy: return EBUSY;
    case thrd_timedout: return ETIMEDOUT;
    default: return EAGAIN; /* thrd_error: the library gives no reason */
    }
}

#endif
