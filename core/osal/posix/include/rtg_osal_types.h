/* POSIX port: the OSAL's object types are the POSIX ones, wrapped so the
 * tests cannot touch them directly. */
#ifndef RTG_OSAL_TYPES_H
#define RTG_OSAL_TYPES_H
#include <pthread.h>
#include <semaphore.h>

typedef pthread_t rtg_thread_t;
typedef struct {
    sem_t sem;
} rtg_sem_t;
typedef struct {
    pthread_mutex_t mutex;
} rtg_mutex_t;

#define RTG_OSAL_NAME "posix"

#endif
