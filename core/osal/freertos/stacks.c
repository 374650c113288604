/* What the firmware's stacks came to, written into the end record as
 * "board": {"stacks": ...} (rtg_isolate_end_record): each task's stack, its
 * size and the most of it ever used (FreeRTOS's high-water mark, read
 * before the task is deleted): the runner, the idle task, the interrupt
 * stack (MSP, painted at reset), and per test its body's task and the
 * deepest of the threads it created. (The heap's lowest and its free bytes
 * at the end are the end record's audit facts, sysinfo.c.) */
#include <string.h>

#include "FreeRTOS.h"
#include "board.h"
#include "fr_internal.h"
#include "rtg/json.h"
#include "task.h"

#define MAX_TESTS 64

struct stack_use {
    uint32_t stack_bytes, used_bytes;
};

struct test_stack {
    const char *id;
    TaskHandle_t body;
    struct stack_use body_use;
    unsigned threads;
    struct stack_use deepest; /* of its threads */
};

static struct test_stack tests[MAX_TESTS];
static unsigned n_tests, tests_left_out;
static struct test_stack *current;
static TaskHandle_t runner;

void rtg_fr_stacks_adopt_runner(TaskHandle_t task) { runner = task; }

void rtg_fr_stacks_test_begin(const char *id)
{
    current = NULL;
    if (n_tests == MAX_TESTS) {
        tests_left_out++;
        return;
    }
    current = &tests[n_tests++];
    *current = (struct test_stack){.id = id};
}

void rtg_fr_stacks_test_body(TaskHandle_t task)
{
    if (current)
        current->body = task;
}

void rtg_fr_stacks_task_ended(TaskHandle_t task, size_t stack_bytes)
{
    if (!current)
        return;
    size_t unused = (size_t)uxTaskGetStackHighWaterMark(task) * sizeof(StackType_t);
    struct stack_use use = {(uint32_t)stack_bytes,
                            (uint32_t)(stack_bytes > unused ? stack_bytes - unused : 0)};
    if (task == current->body) {
        current->body_use = use;
        return;
    }
    current->threads++;
    if (use.used_bytes >= current->deepest.used_bytes)
        current->deepest = use;
}

static void stack_entry(struct rtg_json *j, const char *name, size_t size, size_t unused)
{
    rtg_json_key(j, name);
    rtg_json_obj_begin(j);
    rtg_json_kuint(j, "stack_bytes", size);
    rtg_json_kuint(j, "used_bytes", size > unused ? size - unused : 0);
    rtg_json_obj_end(j);
}

static void task_entry(struct rtg_json *j, const char *name, TaskHandle_t task, size_t size)
{
    if (task)
        stack_entry(j, name, size, (size_t)uxTaskGetStackHighWaterMark(task) * sizeof(StackType_t));
}

void rtg_fr_stacks_write(struct rtg_json *j)
{
    rtg_json_key(j, "board");
    rtg_json_obj_begin(j);
    rtg_json_key(j, "stacks");
    rtg_json_obj_begin(j);
    task_entry(j, "runner", runner, RTG_FR_RUNNER_STACK);
    task_entry(j, "idle", xTaskGetIdleTaskHandle(),
               configMINIMAL_STACK_SIZE * sizeof(StackType_t));
    stack_entry(j, "interrupts", board_msp_stack_bytes(), board_msp_stack_unused());
    rtg_json_key(j, "tests");
    rtg_json_obj_begin(j);
    for (unsigned i = 0; i < n_tests; i++) {
        const struct test_stack *t = &tests[i];
        if (!t->body_use.stack_bytes && !t->threads)
            continue;
        rtg_json_key(j, t->id);
        rtg_json_obj_begin(j);
        stack_entry(j, "body", t->body_use.stack_bytes,
                    t->body_use.stack_bytes - t->body_use.used_bytes);
        rtg_json_kuint(j, "threads", t->threads);
        if (t->threads)
            stack_entry(j, "deepest_thread", t->deepest.stack_bytes,
                        t->deepest.stack_bytes - t->deepest.used_bytes);
        rtg_json_obj_end(j);
    }
    rtg_json_obj_end(j);
    if (tests_left_out)
        rtg_json_kuint(j, "tests_left_out", tests_left_out);
    rtg_json_obj_end(j);
    rtg_json_obj_end(j);
}
