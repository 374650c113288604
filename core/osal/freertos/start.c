/* The firmware's runner in a task of its own at the watchdog's level,
 * above every test (fw_os.h), and the scheduler started. */
#include "FreeRTOS.h"
#include "board.h"
#include "fr_internal.h"
#include "fw_os.h"
#include "task.h"

static void (*runner_body)(void);

static void runner_task(void *arg)
{
    (void)arg;
    rtg_fr_adopt_self(RTG_SCHED_FIFO, RTG_FR_FIFO_MAX);
    rtg_fr_stacks_adopt_runner(xTaskGetCurrentTaskHandle());
    runner_body();
    board_exit(3); /* the body ends the board itself */
}

void rtg_fw_os_start(void (*body)(void))
{
    runner_body = body;
    if (xTaskCreate(runner_task, "runner", RTG_FR_RUNNER_STACK / sizeof(StackType_t), NULL,
                    RTG_FR_PRIO_WATCHDOG, NULL) != pdPASS)
        board_fatal("cannot create the runner task");
    vTaskStartScheduler();
    board_fatal("the scheduler returned");
}
