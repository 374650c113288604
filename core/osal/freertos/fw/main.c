/* The firmware's entry: the board, the command line from semihosting, then
 * the runner task, which is also the watchdog (the highest priority). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "FreeRTOS.h"
#include "board/board.h"
#include "fw.h"
#include "fw_runner.h"
#include "rtg/clock.h"
#include "task.h"

#define MAX_ARGS 64

static char cmdline[2048];
static char *argv_buf[MAX_ARGS];
static struct fw_run run;

/* Splits at spaces (the host passes ids, globs and ID.key=value: no
 * spaces inside an argument) and takes out the firmware's own options. */
static int split_args(char *s, char **argv, struct fw_board_facts *b)
{
    int argc = 0;
    for (char *tok = strtok(s, " "); tok && argc < MAX_ARGS - 1; tok = strtok(NULL, " ")) {
        if (strcmp(tok, "--fw-qemu") == 0) {
            char *v = strtok(NULL, " ");
            if (v && strncmp(v, "icount:", 7) == 0) {
                b->qemu = "icount";
                b->icount_shift = atoi(v + 7);
            } else if (v) {
                b->qemu = "tcg";
            }
            continue;
        }
        argv[argc++] = tok;
    }
    argv[argc] = NULL;
    return argc;
}

static void usage_error(const char *msg)
{
    char line[600];
    int n = snprintf(line, sizeof line, "ERROR %s", msg);
    fw_emit_line(line, (size_t)n);
    fw_emit_line("EXIT 2", 6);
    board_exit(2);
}

int main(void)
{
    board_uart_init();
    board_counter_init();
    rtg_clock_init(0);
    if (board_cmdline(cmdline, sizeof cmdline) != 0)
        strcpy(cmdline, "rtgauge-fw");
    run.argc = split_args(cmdline, argv_buf, &run.board);
    run.argv = argv_buf;
    if (run.argc == 0)
        usage_error("empty command line");
    char err[512];
    if (rtg_cli_parse(run.argc, run.argv, &run.cfg, err, sizeof err) ||
        rtg_cli_resolve(&run.cfg, err, sizeof err))
        usage_error(err);
    if (run.cfg.mode != RTG_MODE_RUN)
        usage_error("the firmware only runs tests (--list is the host's: rtgauge list)");
    if (xTaskCreate(fw_runner_task, "runner", 16384 / sizeof(StackType_t), &run,
                    configMAX_PRIORITIES - 1, NULL) != pdPASS)
        usage_error("cannot create the runner task");
    vTaskStartScheduler();
    board_exit(3); /* not reached: the scheduler does not return */
}
