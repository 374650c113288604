/* The firmware's entry, the same on every board. It speaks with the host
 * over the record UART, every line framed "@RTG@ " (cortex_m/newlib_io.c):
 *   board: BEGIN, then READY about every second until the host answers
 *   host:  ARGS arguments separated by single spaces, then a newline
 *   board: PLAN the selected ids in run order (the host restarts the board
 *          with those left), the records, EXIT code; or ERROR message and
 *          EXIT 2 for arguments it refuses.
 * The arguments come over the console on silicon and under QEMU alike: a
 * board flashed through a debug probe has no semihosting once the probe
 * is gone. The measuring clock starts again when they are in, so what
 * follows is the same instruction stream, and under QEMU's instruction
 * counting the same times, however long the host took to answer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "fw_os.h"
#include "rtg_private/config.h"
#include "rtg_private/registry.h"
#include "rtg_private/runner.h"

#define MAX_ARGS 64
#define READY_EVERY_NS 1000000000ull

static char cmdline[1024];
static char *args[MAX_ARGS];
static int n_args;
static struct rtg_config cfg;

static __attribute__((noreturn)) void finish(int code)
{
    printf("EXIT %d\n", code);
    fflush(stdout);
    board_exit(code);
}

static __attribute__((noreturn)) void usage_error(const char *msg)
{
    printf("ERROR %s\n", msg);
    finish(2);
}

/* Reads lines until one is "ARGS ...", saying READY while none comes; its
 * arguments are left in cmdline. A line too long is refused whole. */
static void read_args(void)
{
    static const char prefix[] = "ARGS ";
    size_t len = 0;
    bool too_long = false;
    uint64_t next_ready = 0;
    for (;;) {
        if (len == 0 && board_clock_ns() >= next_ready) {
            printf("READY\n");
            fflush(stdout);
            next_ready = board_clock_ns() + READY_EVERY_NS;
        }
        int c = board_uart_getc();
        if (c < 0)
            continue;
        if (c == '\r')
            continue;
        if (c != '\n') {
            if (len + 1 < sizeof cmdline)
                cmdline[len++] = (char)c;
            else
                too_long = true;
            continue;
        }
        cmdline[len] = '\0';
        if (strncmp(cmdline, prefix, sizeof prefix - 1) == 0) {
            if (too_long)
                usage_error("the command line is longer than the firmware takes (1023 bytes)");
            memmove(cmdline, cmdline + sizeof prefix - 1, len - (sizeof prefix - 1) + 1);
            return;
        }
        len = 0; /* not for us: noise on the line */
        too_long = false;
    }
}

/* Splits at spaces (the host sends ids, globs and ID.key=value: no spaces
 * inside an argument) and takes out the firmware's own option,
 * --fw-qemu tcg|icount:SHIFT: the host started the board under QEMU, so
 * it may end through semihosting and says so in the system record. */
static int split_args(char *s, char **argv)
{
    int argc = 0;
    argv[argc++] = "rtgauge-fw";
    for (char *tok = strtok(s, " "); tok && argc < MAX_ARGS - 1; tok = strtok(NULL, " ")) {
        if (strcmp(tok, "--fw-qemu") == 0) {
            const char *v = strtok(NULL, " ");
            if (v && strncmp(v, "icount:", 7) == 0)
                rtg_fr_set_board_facts("icount", atoi(v + 7));
            else if (v)
                rtg_fr_set_board_facts("tcg", 0);
            board_use_semihosting(v != NULL);
            continue;
        }
        argv[argc++] = tok;
    }
    argv[argc] = NULL;
    return argc;
}

static void runner_body(void)
{
    finish(rtg_run(&cfg, n_args, args, stdout));
}

int main(void)
{
    rtg_fw_os_init();
    printf("BEGIN\n");
    fflush(stdout);
    read_args();
    board_clock_start();
    n_args = split_args(cmdline, args);
    char err[256];
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
    rtg_fw_os_start(runner_body);
}
