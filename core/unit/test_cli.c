/* Command-line parsing and option resolution: every bad input is a
 * one-line message and code 2, before anything runs. */
#include <stdlib.h>

#include "rtg_private/config.h"
#include "rtg_private/ctx.h"
#include "rtg/osal.h"
#include "rtg_private/registry.h"
#include "unit.h"

static struct rtg_config cfg;
static char err[512];

static int parse(const char *a1, const char *a2, const char *a3)
{
    char *argv[] = {"rtgauge-probe", (char *)a1, (char *)a2, (char *)a3, NULL};
    int argc = 1 + (a1 != NULL) + (a2 != NULL) + (a3 != NULL);
    err[0] = '\0';
    int rc = rtg_cli_parse(argc, argv, &cfg, err, sizeof err);
    if (!rc)
        rc = rtg_cli_resolve(&cfg, err, sizeof err);
    return rc;
}

int main(void)
{
    CHECK_EQ_U(parse(NULL, NULL, NULL), 0);
    CHECK_EQ_U(cfg.mode, RTG_MODE_RUN);
    CHECK_EQ_U(cfg.prio, 95);
    CHECK_EQ_U(cfg.n_selected, rtg_registry_len);
    CHECK(cfg.n_cpus >= 1);

    /* --facts: no test, and no test's option accepted. */
    CHECK_EQ_U(parse("--facts", "--cpus", "0"), 0);
    CHECK_EQ_U(cfg.mode, RTG_MODE_FACTS);
    CHECK_EQ_U(cfg.n_selected, 0);
    CHECK_EQ_U(cfg.n_cpus, 1);
    CHECK_EQ_U(parse("--facts", "--tests", "TMR-P-LAT"), 2);
    CHECK(strstr(err, "--facts runs no test") != NULL);
    CHECK_EQ_U(parse("--facts", "--quick", NULL), 2);
    CHECK_EQ_U(parse("--facts=1", NULL, NULL), 2);

    CHECK_EQ_U(parse("--tests", "TMR-*", NULL), 0);
    CHECK(cfg.n_selected >= 1);
    for (size_t i = 0; i < cfg.n_selected; i++)
        CHECK(strncmp(rtg_registry[cfg.selected[i]]->id, "TMR-", 4) == 0);
    CHECK_EQ_U(parse("--tests", "TMR-P-LAT", NULL), 0);
    CHECK_EQ_U(cfg.n_selected, 1);
    CHECK_STR(rtg_registry[cfg.selected[0]]->id, "TMR-P-LAT");
    /* Order follows the registry, duplicates collapse. */
    CHECK_EQ_U(parse("--tests=TMR-P-LAT,CLK-P-RES,TMR-P-LAT", NULL, NULL), 0);
    CHECK_EQ_U(cfg.n_selected, 2);
    CHECK_STR(rtg_registry[cfg.selected[0]]->id, "CLK-P-RES");

    /* Patterns as fnmatch() reads them: '?', sets, ranges, negated sets. */
    CHECK_EQ_U(parse("--tests", "THR-[BP]-NE?", NULL), 0);
    CHECK_EQ_U(cfg.n_selected, 2);
    CHECK_STR(rtg_registry[cfg.selected[0]]->id, "THR-B-NEW");
    CHECK_STR(rtg_registry[cfg.selected[1]]->id, "THR-P-NEW");
    CHECK_EQ_U(parse("--tests", "MUT-[!B]-A[R-S]C", NULL), 0);
    CHECK_EQ_U(cfg.n_selected, 1);
    CHECK_STR(rtg_registry[cfg.selected[0]]->id, "MUT-P-ARC");
    CHECK_EQ_U(parse("--tests", "*-LA?", NULL), 0);
    for (size_t i = 0; i < cfg.n_selected; i++)
        CHECK(strstr(rtg_registry[cfg.selected[i]]->id, "-LAT") != NULL);
    CHECK_EQ_U(parse("--tests", "CLK-P-RE", NULL), 2);
    CHECK_EQ_U(parse("--tests", "CLK-P-RES?", NULL), 2);

    CHECK_EQ_U(parse("--tests", "NOPE-*", NULL), 2);
    CHECK(strstr(err, "no test matches 'NOPE-*'") != NULL);
    CHECK_EQ_U(parse("--tests", NULL, NULL), 2);
    CHECK(strstr(err, "needs a value") != NULL);
    CHECK_EQ_U(parse("--cpus", "0-", NULL), 2);
    CHECK_EQ_U(parse("--cpus", "100000", NULL), 2);
    CHECK(strstr(err, "does not exist") != NULL);
    CHECK_EQ_U(parse("--cpus", "0", NULL), 0);
    CHECK_EQ_U(cfg.n_cpus, 1);
    CHECK_EQ_U(parse("--prio", "99", NULL), 2);
    CHECK_EQ_U(parse("--prio", "0", NULL), 2);
    CHECK_EQ_U(parse("--prio", "12abc", NULL), 2);
    if (rtg_prio_max(RTG_SCHED_FIFO) > 50) {
        CHECK_EQ_U(parse("--prio=50", NULL, NULL), 0);
        CHECK_EQ_U(cfg.prio, 50);
    } else { /* an OSAL without real-time priorities refuses any --prio */
        CHECK_EQ_U(parse("--prio=50", NULL, NULL), 2);
        CHECK(strstr(err, "no real-time priorities") != NULL);
    }
    CHECK_EQ_U(parse("--duration-scale", "nan", NULL), 2);
    CHECK_EQ_U(parse("--duration-scale", "1000", NULL), 2);
    CHECK_EQ_U(parse("--quick", "--duration-scale", "0.5"), 0);
    CHECK(cfg.quick);
    CHECK_EQ_U(parse("--whatever", NULL, NULL), 2);
    CHECK_EQ_U(parse("--x\nforged line\r", NULL, NULL), 2); /* echoed input stays one line */
    CHECK(strchr(err, '\n') == NULL && strchr(err, '\r') == NULL);
    CHECK_EQ_U(parse("--quick=1", NULL, NULL), 2);
    CHECK_EQ_U(parse("--opt", "no-dot", NULL), 2);
    CHECK_EQ_U(parse("--opt", "TMR-P-LAT.period_us=", NULL), 2);
    CHECK_EQ_U(parse("--opt", "XXX-P-NO.k=1", NULL), 2);
    CHECK(strstr(err, "unknown test 'XXX-P-NO'") != NULL);
    CHECK_EQ_U(parse("--opt", "TMR-P-LAT.nope=1", NULL), 2);
    CHECK(strstr(err, "has no option 'nope'") != NULL);

    /* Values: range, type, enum, defaults, --quick and scaling. */
    const struct rtg_test_desc *lat = rtg_registry_find("TMR-P-LAT");
    struct rtg_ctx ctx;
    /* ...refused when resolving, before anything runs */
    CHECK_EQ_U(parse("--opt", "TMR-P-LAT.period_us=10", NULL), 2);
    CHECK(strstr(err, "outside 50..") != NULL);
    CHECK_EQ_U(parse("--opt", "TMR-P-LAT.period_us=1.5", NULL), 2);
    CHECK(strstr(err, "is not an integer") != NULL);
    CHECK_EQ_U(parse("--opt", "TMR-P-LAT.variant=foo", NULL), 2);
    CHECK(strstr(err, "is not one of clock_nanosleep") != NULL);

    CHECK_EQ_U(parse("--opt", "TMR-P-LAT.period_us=200", NULL), 0);
    CHECK_EQ_U(rtg_ctx_init(&ctx, lat, &cfg, err, sizeof err), 0);
    CHECK_EQ_U(rtg_opt_int(&ctx, "period_us"), 200);
    CHECK_EQ_U(rtg_opt_int(&ctx, "duration_ms"), 10000);
    CHECK_STR(rtg_opt_enum(&ctx, "variant"), "clock_nanosleep");
    rtg_ctx_free(&ctx);

    CHECK_EQ_U(parse("--quick", "--duration-scale=2", NULL), 0);
    CHECK_EQ_U(rtg_ctx_init(&ctx, lat, &cfg, err, sizeof err), 0);
    CHECK_EQ_U(rtg_opt_int(&ctx, "duration_ms"), 2000); /* quick 1000, scaled x2 */
    CHECK_EQ_U(rtg_opt_int(&ctx, "period_us"), 1000);   /* not a scaled option */
    rtg_ctx_free(&ctx);

    /* Status from verdicts: a behaviour test with a failed verdict fails;
     * without any verdict it is an error; interruption wins over ok. */
    struct rtg_test_desc b = *lat;
    b.kind = 'B';
    CHECK_EQ_U(parse(NULL, NULL, NULL), 0);
    CHECK_EQ_U(rtg_ctx_init(&ctx, &b, &cfg, err, sizeof err), 0);
    CHECK_EQ_U(rtg_ctx_status(&ctx, 0, false, false), RTG_ST_ERROR);
    static const struct rtg_standard std = {"POSIX", "a clause"};
    rtg_verdict(&ctx, &std, "v1", true, "x", "x", NULL);
    CHECK_EQ_U(rtg_ctx_status(&ctx, 0, false, false), RTG_ST_PASS);
    rtg_verdict_seen(&ctx, &std, "v2", false, "tail", "x", "y", NULL);
    CHECK_EQ_U(rtg_ctx_status(&ctx, 0, false, false), RTG_ST_FAIL);
    CHECK_EQ_U(rtg_ctx_status(&ctx, 0, true, false), RTG_ST_INTERRUPTED);
    CHECK_EQ_U(rtg_ctx_status(&ctx, 0, false, true), RTG_ST_ERROR);
    rtg_skip(&ctx, "no %s here", "SCHED_RR");
    CHECK_EQ_U(rtg_ctx_status(&ctx, -1, false, false), RTG_ST_SKIPPED);
    CHECK_STR(ctx.reason, "no SCHED_RR here");
    struct rtg_json out;
    rtg_json_init(&out);
    rtg_ctx_emit(&ctx, RTG_ST_FAIL, "r", 1.0, &out);
    CHECK(out.depth == 0 && !out.failed);
    CHECK(strstr(out.buf, "\"verdicts\":[{\"name\":\"v1\",\"pass\":true,\"standard\":"
                          "{\"name\":\"POSIX\",\"clause\":\"a clause\"},\"seen\":null,") != NULL);
    CHECK(strstr(out.buf, "\"name\":\"v2\",\"pass\":false,\"standard\":{\"name\":\"POSIX\","
                          "\"clause\":\"a clause\"},\"seen\":\"tail\",") != NULL);
    CHECK(strstr(out.buf, "\"status\":\"fail\",\"reason\":\"r\"") != NULL);
    rtg_json_free(&out);
    rtg_ctx_free(&ctx);
    return unit_report("cli");
}
