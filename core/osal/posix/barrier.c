/* Barriers: pthread_barrier. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "rtg/osal_barrier.h"

struct rtg_barrier {
    pthread_barrier_t barrier;
};

int rtg_barrier_create(struct rtg_barrier **out, unsigned count)
{
    struct rtg_barrier *b = malloc(sizeof *b);
    if (!b)
        return ENOMEM;
    int rc = pthread_barrier_init(&b->barrier, NULL, count);
    if (rc) {
        free(b);
        return rc;
    }
    *out = b;
    return 0;
}

void rtg_barrier_delete(struct rtg_barrier *b)
{
    if (!b)
        return;
    pthread_barrier_destroy(&b->barrier);
    free(b);
}

int rtg_barrier_wait(struct rtg_barrier *b, bool *serial)
{
    int rc = pthread_barrier_wait(&b->barrier);
    if (serial)
        *serial = rc == PTHREAD_BARRIER_SERIAL_THREAD;
    return rc == PTHREAD_BARRIER_SERIAL_THREAD ? 0 : rc;
}
