/* The system record from the facts a port hands over: an unknown fact is
 * null (or "unknown" for the strings every record has), named facts land
 * in their group, nested as their paths say, and a fact the record cannot
 * show is counted in a warning, never lost silently. */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "rtg/json.h"
#include "rtg/osal_sys.h"
#include "rtg_private/config.h"
#include "rtg_private/system_record.h"
#include "unit.h"

static struct rtg_sys_facts facts;
static struct rtg_config cfg;

/* Whether the record holds want, as written (compact JSON). */
static bool has(const char *record, const char *want)
{
    bool found = strstr(record, want) != NULL;
    if (!found)
        fprintf(stderr, "not in the record: %s\n", want);
    return found;
}

int main(void)
{
    char *argv[] = {"rtgauge-probe", "--tests", "CLK-P-RES", NULL};
    char err[256];
    CHECK_EQ_U(rtg_cli_parse(3, argv, &cfg, err, sizeof err), 0);
    CHECK_EQ_U(rtg_cli_resolve(&cfg, err, sizeof err), 0);
    struct rtg_privileges priv = {.euid = 0, .sched_fifo = true, .mlockall = true};

    rtg_sys_text_set(&facts.host.hostname, "board");
    rtg_sys_text_set(&facts.host.machine, "m");
    facts.kernel.realtime = (struct rtg_sys_bool){.known = true, .v = true};
    facts.kernel.hz_config = (struct rtg_sys_int){.known = true, .v = 250};
    rtg_sys_text_set(&facts.kernel.isolcpus, ""); /* known and empty: not null */
    facts.cpu.online = facts.cpu.configured = 2;
    struct rtg_sys_extra *x = &facts.extra;
    rtg_sys_extra_text(x, "rtos.name", "An RTOS");
    rtg_sys_extra_int(x, "rtos.config.a", 1);
    rtg_sys_extra_uint(x, "rtos.config.b", 2);
    rtg_sys_extra_bool(x, "rtos.c", false);
    rtg_sys_extra_num(x, "clock.resolution_ns", 40.0);
    rtg_sys_extra_add(x, "kernel.audit.thp", RTG_FACT_NULL);
    rtg_sys_extra_int(x, "solo", 7);
    rtg_sys_extra_int(x, "probe.version", 1); /* the probe's own object: left out */
    rtg_sys_extra_int(x, "cpu", 1);           /* a group itself, no key: left out */
    rtg_sys_warning(&facts.warnings, "a port's warning");

    struct rtg_json j;
    rtg_json_init(&j);
    rtg_system_record_write(&j, 3, argv, &cfg, &priv, &facts);
    CHECK(!j.failed && j.depth == 0);
    const char *r = j.buf ? j.buf : "";
    CHECK(has(r, "\"host\":{\"hostname\":\"board\",\"os\":\"unknown\",\"os_pretty_name\":null,"
                 "\"release\":\"unknown\",\"version\":\"unknown\",\"machine\":\"m\"}"));
    CHECK(has(r, "\"kernel\":{\"preempt_model\":null,\"preempt_dynamic\":null,"
                 "\"preempt_source\":null,\"realtime\":true,\"hz_config\":250,"
                 "\"hz_measured\":null,\"cmdline\":null,\"isolcpus\":\"\",\"nohz_full\":null,"
                 "\"rt_runtime_us\":null,\"rt_period_us\":null,\"audit\":{\"thp\":null}},"
                 "\"rtos\":{\"name\":\"An RTOS\",\"config\":{\"a\":1,\"b\":2},\"c\":false},"
                 "\"solo\":7,\"cpu\":{\"model\":null,\"online\":2,\"configured\":2,"
                 "\"governor\":null,\"selected\":["));
    CHECK(has(r, "\"kernel_clocksource\":null,\"resolution_ns\":40,\"freq_hz\":"));
    CHECK(has(r, "\"a port's warning\",\"2 system facts of the port are not in this record\"]"));

    /* The end record carries the end's facts under "audit", and only those. */
    struct rtg_sys_extra end = {0};
    rtg_sys_extra_uint(&end, "audit.irqs.24.count", 12);
    rtg_sys_extra_uint(&end, "audit.irqs.25.count", 0);
    rtg_sys_extra_int(&end, "audit.steal.ticks", 3);
    rtg_sys_extra_int(&end, "status.x", 1); /* not the audit's: left out */
    rtg_json_reset(&j);
    rtg_json_obj_begin(&j);
    rtg_json_kstr(&j, "record", "end");
    rtg_end_facts_write(&j, &end);
    rtg_json_obj_end(&j);
    CHECK(!j.failed && j.depth == 0);
    CHECK(has(j.buf, "{\"record\":\"end\",\"audit\":{\"irqs\":{\"24\":{\"count\":12},"
                     "\"25\":{\"count\":0}},\"steal\":{\"ticks\":3}}}"));
    rtg_sys_extra_free(&end);
    CHECK(end.n == 0 && end.facts == NULL);

    /* A path is copied (a port builds it in a buffer it reuses). */
    rtg_sys_extra_free(x);
    char built[32];
    snprintf(built, sizeof built, "audit.irqs.%d.count", 7);
    rtg_sys_extra_uint(x, built, 1);
    snprintf(built, sizeof built, "audit.irqs.%d.count", 8);
    CHECK(strcmp(x->facts[0].path, "audit.irqs.7.count") == 0);

    /* A full list, or a path too long to hold, counts what it could not hold. */
    rtg_sys_extra_free(x);
    for (int i = 0; i < RTG_SYS_EXTRA_MAX; i++)
        CHECK_EQ_U(rtg_sys_extra_add(x, "rtos.n", RTG_FACT_NULL) != NULL, 1);
    CHECK(rtg_sys_extra_add(x, "rtos.n", RTG_FACT_NULL) == NULL);
    CHECK_EQ_U(x->dropped, 1);
    rtg_sys_extra_free(x);
    char too_long[RTG_SYS_FACT_PATH_MAX + 1];
    memset(too_long, 'a', sizeof too_long - 1);
    too_long[sizeof too_long - 1] = '\0';
    CHECK(rtg_sys_extra_add(x, too_long, RTG_FACT_NULL) == NULL);
    CHECK_EQ_U(x->dropped, 1);
    rtg_sys_extra_free(x);
    rtg_json_free(&j);

    /* The run's start in UTC, as gmtime and strftime write it: the epoch,
     * leap days, the ends of months and years, before 1970 and far on. */
    char utc[32];
    CHECK(rtg_utc_format(0, utc, sizeof utc));
    CHECK_STR(utc, "1970-01-01T00:00:00Z");
    CHECK(rtg_utc_format(1795383156, utc, sizeof utc));
    CHECK_STR(utc, "2026-11-22T21:32:36Z");
    CHECK(rtg_utc_format(951782400, utc, sizeof utc)); /* a leap day of a year /400 */
    CHECK_STR(utc, "2000-02-29T00:00:00Z");
    CHECK(rtg_utc_format(-1, utc, sizeof utc));
    CHECK_STR(utc, "1969-12-31T23:59:59Z");
    CHECK(!rtg_utc_format(0, utc, 20)); /* no room for the terminating zero */
    CHECK(!rtg_utc_format(INT64_MAX, utc, sizeof utc)); /* a year beyond an int */
    /* From 1670 to 2570, 109 days, an hour and a second apart: some 3,000
     * dates in every month, hour and season of leap years and centuries. */
    for (int64_t t = -86400LL * 365 * 300; t < 86400LL * 365 * 600; t += 86400LL * 109 + 3601) {
        time_t tt = (time_t)t;
        if ((int64_t)tt != t)
            continue; /* a 32-bit time_t */
        char want[32];
        const struct tm *tm = gmtime(&tt);
        if (!tm || !strftime(want, sizeof want, "%Y-%m-%dT%H:%M:%SZ", tm))
            continue;
        CHECK(rtg_utc_format(t, utc, sizeof utc));
        if (strcmp(utc, want) != 0) {
            CHECK_STR(utc, want);
            break;
        }
    }
    return unit_report("test_system_record");
}
