/* Thread-Metric's RTOS-neutral services (its tm_api.h) on FreeRTOS: each
 * one the kernel's own call for it, nothing between (the peer asks for
 * functions, not macros). Thread-Metric's priorities run 1 (highest) to
 * 31; FreeRTOS's grow upwards, so a task gets 32 - priority. Calls that
 * fail at once rather than wait (the peer's ThreadX port passes
 * TX_NO_WAIT): queue send and receive, semaphore get. In an interrupt (the
 * two interrupt tests' handlers, called from the SVC trap) the FromISR
 * forms, with the switch they ask for left to PendSV. */
#include <stdint.h>
#include <stdio.h>

#include "FreeRTOS.h"
#include "board.h"
#include "queue.h"
#include "semphr.h"
#include "task.h"
#include "tm_api.h"
#include "tm_start.h"

#define TM_MAX_THREADS 10
#define TM_STACK_WORDS 1024 /* the report task's printf needs about 1 KB */
#define TM_QUEUE_LENGTH 16  /* as MSG-P-SND's channel */
#define TM_MESSAGE_BYTES 16
#define TM_BLOCK_BYTES 128

static TaskHandle_t threads[TM_MAX_THREADS];
static void (*entries[TM_MAX_THREADS])(void);
static QueueHandle_t queue;
static SemaphoreHandle_t semaphore;

/* The test's set-up runs in a task above all of the test's, once the
 * kernel runs (FreeRTOS's resume before the start would ask for a switch
 * with no task to switch from); nothing of the test runs before it ends. */
static void initialization_task(void *arg)
{
    tm_port_thread_started();
    ((void (*)(void))arg)();
    vTaskDelete(NULL);
}

void tm_initialize(void (*test_initialization_function)(void))
{
    if (xTaskCreate(initialization_task, "tm init", TM_STACK_WORDS,
                    (void *)test_initialization_function, configMAX_PRIORITIES - 1,
                    NULL) != pdPASS)
        board_fatal("cannot create the initialization task");
    vTaskStartScheduler();
    board_fatal("the scheduler returned");
}

static void thread_entry(void *arg)
{
    tm_port_thread_started();
    entries[(intptr_t)arg]();
    vTaskDelete(NULL); /* a test thread that gives up (an error it found) */
}

/* Created suspended: the peer resumes what it wants running. */
int tm_thread_create(int thread_id, int priority, void (*entry_function)(void))
{
    if (thread_id < 0 || thread_id >= TM_MAX_THREADS || priority < 1 || priority > 31)
        return TM_ERROR;
    entries[thread_id] = entry_function;
    if (xTaskCreate(thread_entry, "tm", TM_STACK_WORDS, (void *)(intptr_t)thread_id,
                    (UBaseType_t)(32 - priority), &threads[thread_id]) != pdPASS)
        return TM_ERROR;
    vTaskSuspend(threads[thread_id]);
    return TM_SUCCESS;
}

int tm_thread_resume(int thread_id)
{
    if (board_in_isr()) {
        BaseType_t yield = xTaskResumeFromISR(threads[thread_id]);
        portYIELD_FROM_ISR(yield);
    } else {
        vTaskResume(threads[thread_id]);
    }
    return TM_SUCCESS;
}

int tm_thread_suspend(int thread_id)
{
    vTaskSuspend(threads[thread_id]);
    return TM_SUCCESS;
}

void tm_thread_relinquish(void) { taskYIELD(); }

/* The report task's sleep, one interval: after the TM_PORT_INTERVALS-th
 * report (its print done, the next sleep asked for) the board ends. */
void tm_thread_sleep(int seconds)
{
    static int sleeps;
    if (TM_PORT_INTERVALS > 0 && ++sleeps > TM_PORT_INTERVALS) {
        fflush(stdout);
        board_exit(0);
    }
    vTaskDelay((TickType_t)seconds * configTICK_RATE_HZ);
}

int tm_queue_create(int queue_id)
{
    (void)queue_id;
    queue = xQueueCreate(TM_QUEUE_LENGTH, TM_MESSAGE_BYTES);
    return queue ? TM_SUCCESS : TM_ERROR;
}

int tm_queue_send(int queue_id, unsigned long *message_ptr)
{
    (void)queue_id;
    return xQueueSend(queue, message_ptr, 0) == pdPASS ? TM_SUCCESS : TM_ERROR;
}

int tm_queue_receive(int queue_id, unsigned long *message_ptr)
{
    (void)queue_id;
    return xQueueReceive(queue, message_ptr, 0) == pdPASS ? TM_SUCCESS : TM_ERROR;
}

/* A binary semaphore, created available (as the peer's ThreadX port's, at 1:
 * the interrupt test takes it before its first trap). */
int tm_semaphore_create(int semaphore_id)
{
    (void)semaphore_id;
    semaphore = xSemaphoreCreateBinary();
    if (!semaphore)
        return TM_ERROR;
    xSemaphoreGive(semaphore);
    return TM_SUCCESS;
}

int tm_semaphore_get(int semaphore_id)
{
    (void)semaphore_id;
    return xSemaphoreTake(semaphore, 0) == pdPASS ? TM_SUCCESS : TM_ERROR;
}

int tm_semaphore_put(int semaphore_id)
{
    (void)semaphore_id;
    if (board_in_isr()) {
        BaseType_t yield = pdFALSE;
        BaseType_t ok = xSemaphoreGiveFromISR(semaphore, &yield);
        portYIELD_FROM_ISR(yield);
        return ok == pdPASS ? TM_SUCCESS : TM_ERROR;
    }
    return xSemaphoreGive(semaphore) == pdPASS ? TM_SUCCESS : TM_ERROR;
}

/* FreeRTOS has no fixed-block pools: the pool is the kernel's heap
 * (heap_5), a 128-byte block pvPortMalloc's, as an application on
 * FreeRTOS would take one. */
int tm_memory_pool_create(int pool_id)
{
    (void)pool_id;
    return TM_SUCCESS;
}

int tm_memory_pool_allocate(int pool_id, unsigned char **memory_ptr)
{
    (void)pool_id;
    *memory_ptr = pvPortMalloc(TM_BLOCK_BYTES);
    return *memory_ptr ? TM_SUCCESS : TM_ERROR;
}

int tm_memory_pool_deallocate(int pool_id, unsigned char *memory_ptr)
{
    (void)pool_id;
    vPortFree(memory_ptr);
    return TM_SUCCESS;
}
