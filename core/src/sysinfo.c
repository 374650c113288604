/* The system record. The probe's own facts (version, build, run, clock
 * calibration) are written here; the target's (host, kernel, CPU,
 * virtualisation, privileges) come from the port (rtg/osal_sys.h). Every
 * field the probe cannot read is null: never a guess. Portable C. */
#include "rtg_private/sysinfo.h"

#include <stdint.h>
#include <string.h>
#include <time.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg_private/registry.h"
#include "rtg_private/version.h"

void rtg_privileges_probe(const struct rtg_config *cfg, struct rtg_privileges *p)
{
    rtg_sys_privileges(cfg->prio, cfg->no_rt, cfg->cpus[0], p);
}

static void emit_probe(struct rtg_json *j, int argc, char **argv)
{
    rtg_json_key(j, "probe");
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "version", RTG_VERSION);
    rtg_json_key(j, "argv");
    rtg_json_arr_begin(j);
    for (int i = 0; i < argc; i++)
        rtg_json_str(j, argv[i]);
    rtg_json_arr_end(j);
    rtg_json_key(j, "build");
    rtg_json_obj_begin(j);
#if defined(__clang__)
    rtg_json_kstr(j, "compiler", "clang " __clang_version__);
#elif defined(__GNUC__)
    rtg_json_kstr(j, "compiler", "gcc " __VERSION__);
#else
    rtg_json_kstr(j, "compiler", "unknown");
#endif
#if defined(__GLIBC__)
    rtg_json_kstr(j, "libc", "glibc");
#elif defined(_NEWLIB_VERSION)
    rtg_json_kstr(j, "libc", "newlib " _NEWLIB_VERSION);
#else
    rtg_json_kstr(j, "libc", "musl or other");
#endif
    rtg_json_kbool(j, "static", RTG_STATIC_BUILD);
    rtg_json_kstr(j, "arch", RTG_ARCH);
    rtg_json_kbool(j, "test_hooks", RTG_TEST_HOOKS);
    rtg_json_kstr(j, "osal", RTG_OSAL_NAME);
    rtg_json_obj_end(j);
    rtg_json_obj_end(j);
}

static void emit_cpu(struct rtg_json *j, const struct rtg_config *cfg)
{
    rtg_json_key(j, "cpu");
    rtg_json_obj_begin(j);
    rtg_sys_emit_cpu_facts(j);
    rtg_json_key(j, "selected");
    rtg_json_arr_begin(j);
    for (size_t i = 0; i < cfg->n_cpus; i++)
        rtg_json_int(j, cfg->cpus[i]);
    rtg_json_arr_end(j);
    rtg_json_obj_end(j);
}

/* The cost of two back-to-back reads of the measuring clock. */
static void floor_stats(struct rtg_json *j)
{
    uint64_t mn = UINT64_MAX, mx = 0;
    double sum = 0;
    const int n = 20000;
    for (int i = 0; i < n; i++) {
        uint64_t a = rtg_clock_ticks();
        uint64_t b = rtg_clock_ticks();
        uint64_t d = rtg_clock_delta_ns(a, b);
        if (d < mn)
            mn = d;
        if (d > mx)
            mx = d;
        sum += (double)d;
    }
    rtg_json_key(j, "floor_ns");
    rtg_json_obj_begin(j);
    rtg_json_kint(j, "count", n);
    rtg_json_kuint(j, "min", mn);
    rtg_json_knum(j, "mean", sum / n);
    rtg_json_kuint(j, "max", mx);
    rtg_json_obj_end(j);
}

static void emit_clock(struct rtg_json *j)
{
    rtg_json_key(j, "clock");
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "source", rtg_clock_source_name());
    rtg_sys_emit_clock_facts(j);
    rtg_json_knum(j, "freq_hz", rtg_clock_g.freq_hz);
    rtg_json_knum(j, "calibration_error_ppm", rtg_clock_g.calibration_error_ppm);
    floor_stats(j);
    rtg_json_obj_end(j);
}

static void emit_privileges(struct rtg_json *j, const struct rtg_config *cfg,
                            const struct rtg_privileges *p)
{
    rtg_json_key(j, "privileges");
    rtg_json_obj_begin(j);
    rtg_json_kint(j, "euid", (int64_t)p->euid);
    rtg_json_kbool(j, "sched_fifo", p->sched_fifo);
    rtg_json_kstr(j, "sched_fifo_reason", p->sched_fifo ? NULL : p->sched_fifo_reason);
    rtg_json_kbool(j, "mlockall", p->mlockall);
    rtg_json_kstr(j, "mlockall_reason", p->mlockall ? NULL : p->mlockall_reason);
    rtg_json_kbool(j, "affinity", p->affinity);
    rtg_json_kbool(j, "cpu_dma_latency", p->cpu_dma_latency);
    rtg_json_kint(j, "prio", p->sched_fifo ? cfg->prio : 0);
    rtg_json_obj_end(j);
}

static void emit_warnings(struct rtg_json *j, const struct rtg_privileges *p, bool virt)
{
    rtg_json_key(j, "warnings");
    rtg_json_arr_begin(j);
    if (!p->sched_fifo)
        rtg_json_str(j, "not SCHED_FIFO: threads ran SCHED_OTHER, figures are not real-time");
    if (!p->mlockall)
        rtg_json_str(j, "no mlockall: page faults may appear in the figures");
    if (rtg_sys_emulated())
        rtg_json_str(j, "emulated CPU (QEMU TCG): timings are not meaningful; behaviour verdicts are");
    else if (virt)
        rtg_json_str(j, "virtual machine: the hypervisor can steal time from any measurement");
    if (rtg_clock_g.source == RTG_CLOCK_POSIX)
        rtg_json_str(j, "no invariant hardware counter: timed with clock_gettime");
    rtg_sys_emit_warnings(j);
    rtg_json_arr_end(j);
}

void rtg_sysinfo_emit(struct rtg_json *j, int argc, char **argv, const struct rtg_config *cfg,
                      const struct rtg_privileges *p)
{
    char buf[512];
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "record", "system");
    rtg_json_kint(j, "schema_version", RTG_SCHEMA_VERSION);
    emit_probe(j, argc, argv);
    time_t now = time(NULL); /* (time_t)-1 on a board without a clock of the day */
    const struct tm *tm = now == (time_t)-1 ? NULL : gmtime(&now); /* single-threaded here */
    if (!tm || !strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", tm))
        buf[0] = '\0';
    rtg_json_kstr(j, "started_at", buf);
    rtg_sys_emit_host(j);
    rtg_sys_emit_kernel(j, cfg->cpus[0]);
    emit_cpu(j, cfg);
    emit_clock(j);
    bool virt = rtg_sys_virtualized();
    rtg_json_key(j, "virtualization");
    rtg_json_obj_begin(j);
    rtg_json_kbool(j, "hypervisor", virt);
    rtg_sys_hypervisor_vendor(buf, sizeof buf);
    rtg_json_kstr(j, "vendor", buf[0] ? buf : NULL);
    rtg_json_kbool(j, "emulated", rtg_sys_emulated());
    rtg_json_obj_end(j);
    emit_privileges(j, cfg, p);
    rtg_json_key(j, "run");
    rtg_json_obj_begin(j);
    rtg_json_kbool(j, "quick", cfg->quick);
    rtg_json_knum(j, "duration_scale", cfg->scale);
    rtg_json_key(j, "tests");
    rtg_json_arr_begin(j);
    for (size_t i = 0; i < cfg->n_selected; i++)
        rtg_json_str(j, rtg_registry[cfg->selected[i]]->id);
    rtg_json_arr_end(j);
    rtg_json_obj_end(j);
    emit_warnings(j, p, virt);
    rtg_json_obj_end(j);
}
