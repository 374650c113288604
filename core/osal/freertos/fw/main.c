/* The firmware's entry: the board, the command line from semihosting, and
 * the probe's own runner (core/src/runner.c) in a task at the watchdog's
 * priority, above every test. Its stdout is UART0, every line framed
 * (board/newlib.c): BEGIN, PLAN with the selected ids in run order (the
 * host restarts the board with those left), the records, EXIT code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "FreeRTOS.h"
#include "board/board.h"
#include "fr_internal.h"
#include "rtg_private/config.h"
#include "rtg_private/registry.h"
#include "rtg_private/runner.h"
#include "task.h"

#define MAX_ARGS 64

static char cmdline[2048];
static char *args[MAX_ARGS];
static int n_args;
static struct rtg_config cfg;

/* Splits at spaces (the host passes ids, globs and ID.key=value: no
 * spaces inside an argument) and takes out the firmware's own option,
 * --fw-qemu tcg|icount:SHIFT: what the host started the board under. */
static int split_args(char *s, char **argv)
{
    int argc = 0;
    for (char *tok = strtok(s, " "); tok && argc < MAX_ARGS - 1; tok = strtok(NULL, " ")) {
        if (strcmp(tok, "--fw-qemu") == 0) {
            const char *v = strtok(NULL, " ");
            if (v && strncmp(v, "icount:", 7) == 0)
                rtg_fr_set_board_facts("icount", atoi(v + 7));
            else if (v)
                rtg_fr_set_board_facts("tcg", 0);
            continue;
        }
        argv[argc++] = tok;
    }
    argv[argc] = NULL;
    return argc;
}

static __attribute__((noreturn)) void finish(int code)
{
    printf("EXIT %d\n", code);
    fflush(stdout);
    board_exit(code);
}

static void usage_error(const char *msg)
{
    printf("ERROR %s\n", msg);
    finish(2);
}

static void runner_task(void *arg)
{
    (void)arg;
    rtg_fr_adopt_self(RTG_SCHED_FIFO, 99);
    finish(rtg_run(&cfg, n_args, args, stdout));
}

int main(void)
{
    board_uart_init();
    board_counter_init();
    if (board_cmdline(cmdline, sizeof cmdline) != 0)
        strcpy(cmdline, "rtgauge-fw");
    n_args = split_args(cmdline, args);
    printf("BEGIN\n");
    char err[512];
    if (n_args == 0)
        usage_error("empty command line");
    if (rtg_cli_parse(n_args, args, &cfg, err, sizeof err) ||
        rtg_cli_resolve(&cfg, err, sizeof err))
        usage_error(err);
    if (cfg.mode != RTG_MODE_RUN && cfg.mode != RTG_MODE_FACTS)
        usage_error("the firmware only runs tests or --facts (the catalogue: rtgauge list)");
    printf("PLAN ");
    for (size_t i = 0; i < cfg.n_selected; i++)
        printf("%s%s", i ? "," : "", rtg_registry[cfg.selected[i]]->id);
    printf("\n");
    fflush(stdout);
    if (xTaskCreate(runner_task, "runner", 16384 / sizeof(StackType_t), NULL,
                    RTG_FR_PRIO_WATCHDOG, NULL) != pdPASS)
        usage_error("cannot create the runner task");
    vTaskStartScheduler();
    finish(3); /* not reached: the scheduler does not return */
}
