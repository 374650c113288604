/* FreeRTOS port: tasks, semaphores and mutexes of the FreeRTOS kernel,
 * behind opaque handles so that the tests never see the kernel's API. */
#ifndef RTG_OSAL_TYPES_H
#define RTG_OSAL_TYPES_H

typedef struct rtg_fr_thread *rtg_thread_t;
typedef struct {
    void *handle; /* SemaphoreHandle_t: a counting semaphore */
} rtg_sem_t;
typedef struct {
    void *handle; /* SemaphoreHandle_t: a FreeRTOS mutex, or a binary semaphore */
    int proto;
} rtg_mutex_t;

#define RTG_OSAL_NAME "freertos"

#endif
