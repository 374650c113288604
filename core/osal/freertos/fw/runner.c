/* The firmware's runner: the system record, each selected test isolated
 * (fw/isolate.c), its record framed on UART0 as soon as it ends, the end
 * record, the exit code through semihosting. After a test that had to be
 * stopped or killed, or a fault, the board is not trusted to go on: it
 * says RESTART and ends, and the host boots it again with the tests left
 * (it knows them from the PLAN line). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board/board.h"
#include "fr_internal.h"
#include "fw_isolate.h"
#include "fw_runner.h"
#include "rtg/ctx.h"
#include "rtg/registry.h"

void fw_emit_line(const char *body, size_t len)
{
    board_uart_write(FW_FRAME, sizeof FW_FRAME - 1);
    board_uart_write(body, len);
    board_uart_write("\n", 1);
}

void fw_emit_json(struct rtg_json *j)
{
    if (!j->failed && j->depth == 0)
        fw_emit_line(j->buf, j->len);
}

/* PLAN id,id,...: the selected tests in run order (ids are [A-Z0-9-]). */
static void emit_plan(const struct rtg_config *cfg)
{
    static char line[RTG_MAX_SELECTED * 16 + 8];
    size_t n = (size_t)snprintf(line, sizeof line, "PLAN ");
    for (size_t i = 0; i < cfg->n_selected && n < sizeof line; i++)
        n += (size_t)snprintf(line + n, sizeof line - n, "%s%s", i ? "," : "",
                              rtg_registry[cfg->selected[i]]->id);
    fw_emit_line(line, n < sizeof line ? n : sizeof line - 1);
}

static void base_ctx(struct rtg_ctx *ctx, const struct fw_run *run)
{
    ctx->rt_ok = true;
    ctx->mlock_ok = true;
    ctx->virtualized = run->board.qemu != NULL;
}

/* A record the runner writes itself: skipped, or a test that never ended. */
static void emit_own_record(const struct rtg_test_desc *d, const struct fw_run *run,
                            enum rtg_status st, const char *reason, double ms)
{
    struct rtg_ctx ctx;
    char err[128];
    if (rtg_ctx_init(&ctx, d, &run->cfg, err, sizeof err))
        return;
    base_ctx(&ctx, run);
    struct rtg_json j;
    rtg_json_init(&j);
    rtg_ctx_emit(&ctx, st, reason, ms, &j);
    fw_emit_json(&j);
    rtg_json_free(&j);
    rtg_ctx_free(&ctx);
}

static double bound_s(const struct rtg_ctx *ctx)
{
    if (ctx->desc->bound_s)
        return ctx->desc->bound_s(ctx);
    return 30.0 * (ctx->cfg->scale > 1 ? ctx->cfg->scale : 1);
}

/* Runs one test; returns its status, *restart when the board must restart. */
static enum rtg_status run_one(const struct rtg_test_desc *d, const struct fw_run *run,
                               bool *restart)
{
    struct rtg_ctx ctx;
    char err[256];
    if (rtg_ctx_init(&ctx, d, &run->cfg, err, sizeof err)) {
        emit_own_record(d, run, RTG_ST_ERROR, err, 0);
        return RTG_ST_ERROR;
    }
    base_ctx(&ctx, run);
    if (run->board.qemu && strcmp(run->board.qemu, "icount") == 0)
        rtg_note(&ctx, "emulated with instruction counting (QEMU -icount shift=%d): timings are "
                       "virtual time, a reproducible cost in instructions, not a real CPU's",
                 run->board.icount_shift);
    else if (run->board.qemu)
        rtg_note(&ctx, "emulated: timings are not meaningful; behaviour verdicts are");
    double bound = bound_s(&ctx);
    struct fw_outcome o;
    if (fw_isolate_run(&ctx, bound, &o) != 0) {
        rtg_ctx_free(&ctx);
        emit_own_record(d, run, RTG_ST_ERROR, "cannot create the test's task", 0);
        return RTG_ST_ERROR;
    }
    if (o.state == FW_KILLED || o.state == FW_CRASHED) {
        /* Its context may be half-written by a deleted task: not used. */
        char reason[160];
        if (o.state == FW_CRASHED)
            snprintf(reason, sizeof reason, "crashed (%s)", o.fault);
        else
            snprintf(reason, sizeof reason,
                     "watchdog: overran its bound of %.1f s and did not stop; killed (tasks "
                     "deleted: %u)",
                     bound, o.tasks_left);
        emit_own_record(d, run, RTG_ST_ERROR, reason, o.duration_ms);
        *restart = true;
        return RTG_ST_ERROR;
    }
    if (o.tasks_left)
        rtg_note(&ctx, "%u tasks the test left running were deleted after it", o.tasks_left);
    bool overran = o.state == FW_STOPPED;
    enum rtg_status st = rtg_ctx_status(&ctx, o.rc, false, overran);
    char reason[600];
    if (ctx.forced != RTG_ST_OK)
        snprintf(reason, sizeof reason, "%s", ctx.reason);
    else if (overran)
        snprintf(reason, sizeof reason,
                 "watchdog: overran its bound of %.1f s; stopped, partial results kept", bound);
    else if (st == RTG_ST_ERROR && o.rc != 0)
        snprintf(reason, sizeof reason, "the test reported an error");
    else if (st == RTG_ST_ERROR)
        snprintf(reason, sizeof reason, "behaviour test recorded no verdict");
    else
        reason[0] = '\0';
    struct rtg_json j;
    rtg_json_init(&j);
    rtg_ctx_emit(&ctx, st, reason, o.duration_ms, &j);
    fw_emit_json(&j);
    rtg_json_free(&j);
    rtg_ctx_free(&ctx);
    *restart = overran || o.tasks_left > 0;
    return st;
}

void fw_runner_task(void *arg)
{
    struct fw_run *run = arg;
    const struct rtg_config *cfg = &run->cfg;
    rtg_fr_adopt_self(RTG_SCHED_FIFO, 99);
    uint64_t t_start = rtg_mono_ns();
    fw_emit_line("BEGIN", 5);
    emit_plan(cfg);
    struct rtg_json j;
    rtg_json_init(&j);
    fw_sysinfo_emit(&j, run->argc, run->argv, cfg, &run->board);
    fw_emit_json(&j);

    int counts[RTG_ST_INTERRUPTED + 1] = {0};
    size_t ran = 0;
    for (size_t i = 0; i < cfg->n_selected; i++) {
        const struct rtg_test_desc *d = rtg_registry[cfg->selected[i]];
        const char *why_not = rtg_test_unavailable(d);
        enum rtg_status st;
        bool restart = false;
        if (why_not) {
            st = RTG_ST_SKIPPED;
            emit_own_record(d, run, st, why_not, 0);
        } else {
            st = run_one(d, run, &restart);
        }
        counts[st]++;
        ran++;
        if (restart && i + 1 < cfg->n_selected) {
            fw_emit_line("RESTART", 7);
            board_exit(3);
        }
    }
    int code = counts[RTG_ST_ERROR] ? 3 : counts[RTG_ST_FAIL] ? 1 : 0;
    rtg_json_reset(&j);
    rtg_json_obj_begin(&j);
    rtg_json_kstr(&j, "record", "end");
    rtg_json_kint(&j, "schema_version", 1);
    rtg_json_kstr(&j, "status", "complete");
    rtg_json_kint(&j, "tests", (int64_t)ran);
    rtg_json_kint(&j, "passed", counts[RTG_ST_PASS] + counts[RTG_ST_OK]);
    rtg_json_kint(&j, "failed", counts[RTG_ST_FAIL]);
    rtg_json_kint(&j, "errors", counts[RTG_ST_ERROR]);
    rtg_json_kint(&j, "skipped", counts[RTG_ST_SKIPPED]);
    rtg_json_kint(&j, "interrupted", counts[RTG_ST_INTERRUPTED]);
    rtg_json_kint(&j, "exit_code", code);
    rtg_json_knum(&j, "elapsed_ms", (double)((rtg_mono_ns() - t_start) / 1000000u));
    rtg_json_obj_end(&j);
    fw_emit_json(&j);
    rtg_json_free(&j);
    char line[16];
    int n = snprintf(line, sizeof line, "EXIT %d", code);
    fw_emit_line(line, (size_t)n);
    board_exit(code);
}
