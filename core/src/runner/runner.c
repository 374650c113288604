/* One runner drives every test: check, save, set up, run isolated under
 * the watchdog, collect, restore. The policy is here (which tests, what
 * record, which exit code); the mechanism is the port's
 * (rtg/osal_isolate.h): a child process on POSIX, a thread on ISO C11.
 * Portable C: the runner calls only ISO C and the OSAL. */
#include "rtg_private/runner.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg/osal_isolate.h"
#include "rtg/osal_trace.h"
#include "rtg/stop.h"
#include "rtg_private/ctx.h"
#include "rtg_private/interval_record.h"
#include "rtg_private/registry.h"
#include "rtg_private/system_record.h"
#include "rtg_private/version.h"

static double bound_s(const struct rtg_ctx *ctx)
{
    if (ctx->desc->bound_s)
        return ctx->desc->bound_s(ctx);
    return 30.0 * (ctx->cfg->scale > 1 ? ctx->cfg->scale : 1);
}

struct run_state {
    const struct rtg_config *cfg;
    const struct rtg_privileges *priv;
    bool virtualized;
    bool emulated;
    FILE *out;
    bool out_failed;
};

/* ---- the isolated side: one test ---- */
struct test_job {
    const struct rtg_test_desc *d;
    const struct run_state *rs;
};

/* Exit statuses of the isolated side (what the port reports as EXITED). */
#define BODY_BAD_OPTIONS 2
#define BODY_BAD_RECORD 4

static int test_body(void *arg, struct rtg_isolate_channel *ch)
{
    const struct test_job *job = arg;
    const struct rtg_test_desc *d = job->d;
    const struct run_state *rs = job->rs;
    struct rtg_ctx ctx;
    char err[256];
    if (rtg_ctx_init(&ctx, d, rs->cfg, err, sizeof err))
        return BODY_BAD_OPTIONS;
    ctx.virtualized = rs->virtualized;
    if (rs->priv->sched_fifo) {
        /* pthread_setschedparam, not sched_setscheduler: musl refuses the
         * latter (its process-wide meaning does not exist on Linux). */
        ctx.rt_ok = rtg_thread_set_sched(rtg_thread_self(), RTG_SCHED_FIFO, rs->cfg->prio) == 0;
    }
    if (rs->priv->mlockall)
        ctx.mlock_ok = rtg_lock_memory() == 0;
    rtg_pin_self(rs->cfg->cpus[0]);
    if (!ctx.rt_ok)
        rtg_note(&ctx, "ran without SCHED_FIFO: %s",
                 rs->cfg->no_rt ? "--no-rt given" : rs->priv->sched_fifo_reason);
    if (!ctx.mlock_ok)
        rtg_note(&ctx, "ran without mlockall: %s", rs->priv->mlockall_reason);
    if (rs->emulated)
        rtg_note(&ctx, "emulated: timings are not meaningful; behaviour verdicts are valid");
    else if (rs->virtualized)
        rtg_note(&ctx, "ran in a virtual machine");
    double bound = bound_s(&ctx);
    /* a test with figures the recorder explains runs with it; one that says
     * why it cannot has the reason in its record */
    rtg_explain_start(&ctx.explain, rs->cfg,
                      d->release_latency != NULL || d->recorded || d->not_explained != NULL,
                      d->not_explained);

    /* a duration test writes interval records as it runs (interval_record.h) */
    struct rtg_interval_writer iw;
    ctx.interval_ns = rtg_interval_ns(&ctx);
    if (ctx.interval_ns && rtg_mutex_init(&ctx.metrics_lock, RTG_PROTO_NONE, 0) != 0)
        ctx.interval_ns = 0;
    bool lock_made = ctx.interval_ns != 0;

    ctx.start_ns = rtg_mono_ns();
    int iw_rc = rtg_interval_writer_start(&iw, &ctx, rs->out);
    if (iw_rc)
        rtg_note(&ctx, "no interval records: cannot start their writer: %s", strerror(iw_rc));
    int rc = d->run(&ctx);
    uint64_t end_ns = rtg_mono_ns() - ctx.start_ns;
    double ms = (double)end_ns / 1e6;
    rtg_explain_stop(&ctx.explain);
    rtg_interval_writer_finish(&iw, end_ns);

    int why = rtg_stop_reason();
    enum rtg_status st =
        rtg_ctx_status(&ctx, rc, why == RTG_STOP_INTERRUPTED, why == RTG_STOP_OVERRAN);
    char reason[600];
    if (ctx.forced != RTG_ST_OK)
        snprintf(reason, sizeof reason, "%s", ctx.reason);
    else if (why == RTG_STOP_OVERRAN)
        snprintf(reason, sizeof reason,
                 "watchdog: overran its bound of %.1f s; stopped, partial results kept", bound);
    else if (why == RTG_STOP_INTERRUPTED)
        snprintf(reason, sizeof reason, "interrupted by a signal; partial results kept");
    else if (st == RTG_ST_ERROR && rc != 0)
        snprintf(reason, sizeof reason, "the test reported an error");
    else if (st == RTG_ST_ERROR)
        snprintf(reason, sizeof reason, "behaviour test recorded no verdict");
    else
        reason[0] = '\0';
    struct rtg_json j;
    rtg_json_init(&j);
    rtg_ctx_emit(&ctx, st, reason, ms, &j);
    int status = 0;
    if (j.failed || j.depth != 0)
        status = BODY_BAD_RECORD;
    else {
        rtg_json_raw_value(&j, "\n", 1);
        rtg_json_shrink(&j);
        char *record = j.buf;
        size_t len = j.len;
        rtg_json_init(&j); /* the record is the channel's now */
        if (rtg_isolate_give(ch, record, len))
            status = BODY_BAD_RECORD;
    }
    rtg_json_free(&j);
    rtg_ctx_free(&ctx);
    if (lock_made)
        rtg_mutex_destroy(&ctx.metrics_lock);
    return status;
}

/* ---- the runner's side ---- */
static void emit_line(struct run_state *rs, const char *buf, size_t len)
{
    if (rs->out_failed)
        return;
    if (fwrite(buf, 1, len, rs->out) != len || fflush(rs->out) != 0) {
        rs->out_failed = true;
        fprintf(stderr, "rtgauge-probe: error: writing results: %s\n", strerror(errno));
    }
}

/* A record the runner writes for a test that produced none of its own. */
static void emit_parent_record(struct run_state *rs, const struct rtg_test_desc *d,
                               enum rtg_status st, const char *reason, double ms)
{
    struct rtg_ctx ctx;
    char err[256];
    if (rtg_ctx_init(&ctx, d, rs->cfg, err, sizeof err))
        return;
    ctx.rt_ok = rs->priv->sched_fifo;
    ctx.mlock_ok = rs->priv->mlockall;
    ctx.virtualized = rs->virtualized;
    struct rtg_json j;
    rtg_json_init(&j);
    rtg_ctx_emit(&ctx, st, reason, ms, &j);
    rtg_json_raw_value(&j, "\n", 1);
    emit_line(rs, j.buf, j.len);
    rtg_json_free(&j);
    rtg_ctx_free(&ctx);
}

/* The status the test wrote: the first "status" key of the record is the
 * top-level one (id, title and kind precede it; strings are escaped). */
static enum rtg_status status_of_line(const char *line)
{
    for (int st = RTG_ST_OK; st <= RTG_ST_INTERRUPTED; st++) {
        char want[48];
        snprintf(want, sizeof want, "\"status\":\"%s\"", rtg_status_name((enum rtg_status)st));
        const char *first = strstr(line, "\"status\":");
        if (first && strncmp(first, want, strlen(want)) == 0)
            return (enum rtg_status)st;
    }
    return RTG_ST_ERROR;
}

/* Runs one test isolated; *abandoned: the port could not end an overrun
 * test, so the run must end after this record. */
static enum rtg_status run_one(struct run_state *rs, const struct rtg_test_desc *d,
                               bool *abandoned)
{
    struct rtg_ctx probe_ctx;
    char err[256];
    if (rtg_ctx_init(&probe_ctx, d, rs->cfg, err, sizeof err))
        return RTG_ST_ERROR;
    double bound = bound_s(&probe_ctx);
    rtg_ctx_free(&probe_ctx);

    fflush(rs->out); /* a forked context must not inherit unwritten output */
    uint64_t t0 = rtg_mono_ns();
    struct test_job job = {.d = d, .rs = rs};
    struct rtg_isolated_test t = {.id = d->id, .body = test_body, .arg = &job};
    struct rtg_isolated_outcome o;
    rtg_isolate_run(&t, bound, &o);
    double ms = (double)(rtg_mono_ns() - t0) / 1e6;

    if (o.end == RTG_ISO_NOT_STARTED) {
        free(o.record);
        emit_parent_record(rs, d, RTG_ST_ERROR, o.fault, 0);
        return RTG_ST_ERROR;
    }
    bool complete = o.len > 0 && o.record[o.len - 1] == '\n';
    if ((d->release_latency || d->recorded) && !rs->cfg->explain.off &&
        o.end != RTG_ISO_COMPLETED)
        rtg_trace_port.janitor(); /* what a killed test's recorder left */
    if (complete && o.end == RTG_ISO_COMPLETED) {
        emit_line(rs, o.record, o.len);
        enum rtg_status st = status_of_line(o.record);
        free(o.record);
        return st;
    }
    free(o.record);
    char reason[256];
    switch (o.end) {
    case RTG_ISO_OVERRAN:
        snprintf(reason, sizeof reason,
                 "watchdog: overran its bound of %.1f s and did not stop; killed", bound);
        break;
    case RTG_ISO_ABANDONED:
        snprintf(reason, sizeof reason,
                 "watchdog: overran its bound of %.1f s and did not stop; this port cannot end "
                 "it, so the run ends here",
                 bound);
        *abandoned = true;
        break;
    case RTG_ISO_CRASHED:
        snprintf(reason, sizeof reason, "crashed (%s)", o.fault);
        break;
    case RTG_ISO_EXITED:
        snprintf(reason, sizeof reason, "test process exited with status %d", o.status);
        break;
    default:
        snprintf(reason, sizeof reason, "test process ended without a complete result");
        break;
    }
    bool forced = o.end == RTG_ISO_OVERRAN || o.end == RTG_ISO_ABANDONED;
    enum rtg_status st = o.interrupted && !forced ? RTG_ST_INTERRUPTED : RTG_ST_ERROR;
    emit_parent_record(rs, d, st, reason, ms);
    return st;
}

int rtg_run(struct rtg_config *cfg, int argc, char **argv, FILE *out)
{
    uint64_t t_start = rtg_mono_ns();

    rtg_clock_init(cfg->posix_clock);
    struct rtg_privileges priv;
    rtg_privileges_probe(cfg, &priv);
    if (!cfg->explain.off && priv.euid == 0)
        rtg_trace_port.janitor(); /* instances an earlier probe killed with SIGKILL left */
    struct rtg_isolate_run iso;
    rtg_isolate_begin(&iso, out, priv.sched_fifo);
    priv.cpu_dma_latency = iso.cpu_dma_latency;
    struct run_state rs = {.cfg = cfg, .priv = &priv, .virtualized = rtg_sys_virtualized(),
                           .emulated = rtg_sys_emulated(), .out = out};

    struct rtg_json j;
    rtg_json_init(&j);
    rtg_system_record_emit(&j, argc, argv, cfg, &priv);
    rtg_json_raw_value(&j, "\n", 1);
    emit_line(&rs, j.buf, j.len);

    int counts[RTG_ST_INTERRUPTED + 1] = {0};
    size_t ran = 0;
    bool abandoned = false;
    for (size_t i = 0;
         i < cfg->n_selected && !rtg_isolate_interrupted() && !rs.out_failed && !abandoned; i++) {
        const struct rtg_test_desc *d = rtg_registry[cfg->selected[i]];
        enum rtg_status st;
        const char *why_not = rtg_test_unavailable(d);
        if (why_not) {
            st = RTG_ST_SKIPPED;
            emit_parent_record(&rs, d, st, why_not, 0);
        } else {
            st = run_one(&rs, d, &abandoned);
        }
        counts[st]++;
        ran++;
    }
    if (cfg->mode == RTG_MODE_FACTS && !rtg_isolate_interrupted())
        rtg_sleep_ns((uint64_t)RTG_FACTS_WINDOW_MS * 1000000u); /* the window: see config.h */
    struct rtg_sys_extra end_facts = {0};
    rtg_sys_end_facts(cfg->cpus, cfg->n_cpus, &end_facts);
    rtg_isolate_end(&iso);

    /* A test the port had to abandon ends the run early: the tests after it
     * never ran, so the run is not complete. */
    bool interrupted = rtg_isolate_interrupted() || counts[RTG_ST_INTERRUPTED] > 0 || abandoned;
    int code = 0;
    if (counts[RTG_ST_FAIL])
        code = 1;
    if (counts[RTG_ST_ERROR] || interrupted || rs.out_failed)
        code = 3;
    rtg_json_reset(&j);
    rtg_json_obj_begin(&j);
    rtg_json_kstr(&j, "record", "end");
    rtg_json_kint(&j, "schema_version", RTG_SCHEMA_VERSION);
    rtg_json_kstr(&j, "status", interrupted ? "interrupted" : "complete");
    rtg_json_kint(&j, "tests", (int64_t)ran);
    rtg_json_kint(&j, "passed", counts[RTG_ST_PASS] + counts[RTG_ST_OK]);
    rtg_json_kint(&j, "failed", counts[RTG_ST_FAIL]);
    rtg_json_kint(&j, "errors", counts[RTG_ST_ERROR]);
    rtg_json_kint(&j, "skipped", counts[RTG_ST_SKIPPED]);
    rtg_json_kint(&j, "interrupted", counts[RTG_ST_INTERRUPTED]);
    rtg_json_kint(&j, "exit_code", code);
    rtg_json_knum(&j, "elapsed_ms", (double)((rtg_mono_ns() - t_start) / 1000000u));
    rtg_end_facts_write(&j, &end_facts);
    rtg_sys_extra_free(&end_facts);
    rtg_isolate_end_record(&j);
    rtg_json_obj_end(&j);
    rtg_json_raw_value(&j, "\n", 1);
    emit_line(&rs, j.buf, j.len);
    rtg_json_free(&j);
    return code;
}
