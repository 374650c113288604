/* System facts on Linux (rtg/osal_sys.h): /proc, /sys, cpuid,
 * /proc/config.gz, the measured HZ. A fact the probe cannot read stays
 * unknown (null in the record): never a guess. */
#define _GNU_SOURCE
#include "rtg/osal_sys.h"

#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "audit_facts.h"
#include "sys_read.h"
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

/* A text fact from the first line of a file; unknown if unreadable. */
static void text_file(struct rtg_sys_text *t, const char *path)
{
    t->known = rtg_lx_read_line(path, t->v, sizeof t->v);
}

/* An integer fact from the first line of a file; unknown if unreadable or
 * not a number. */
static void int_file(struct rtg_sys_int *v, const char *path)
{
    char buf[64], *end;
    if (rtg_lx_read_line(path, buf, sizeof buf)) {
        long long x = strtoll(buf, &end, 10);
        if (end != buf)
            *v = (struct rtg_sys_int){.known = true, .v = x};
    }
}

bool rtg_sys_cpu_flag(const char *flag)
{
    char flags[4096];
    if (!rtg_lx_find_field("/proc/cpuinfo", "flags", flags, sizeof flags))
        return false;
    size_t fl = strlen(flag);
    for (const char *p = strstr(flags, flag); p; p = strstr(p + 1, flag))
        if ((p == flags || p[-1] == ' ') && (p[fl] == ' ' || p[fl] == '\0'))
            return true;
    return false;
}

static bool os_pretty_name(char *out, size_t n)
{
    if (!rtg_lx_find_field("/etc/os-release", "PRETTY_NAME", out, n)) {
        FILE *f = fopen("/etc/os-release", "r");
        char line[512];
        bool ok = false;
        if (!f)
            return false;
        while (!ok && fgets(line, sizeof line, f)) {
            if (strncmp(line, "PRETTY_NAME=", 12) == 0) {
                char *v = line + 12;
                if (*v == '"')
                    v++;
                size_t l = strlen(v);
                while (l && (v[l - 1] == '\n' || v[l - 1] == '"'))
                    v[--l] = '\0';
                snprintf(out, n, "%s", v);
                ok = true;
            }
        }
        fclose(f);
        return ok;
    }
    return true;
}

/* CONFIG_<key>'s value from the kernel's build configuration. */
static bool kconfig(const char *release, const char *key, char *out, size_t n)
{
    char value[1][RTG_LX_KCONFIG_VALUE_MAX];
    const char *keys[] = {key};
    if (!rtg_lx_kconfig(release, keys, 1, value) || strcmp(value[0], "n") == 0)
        return false;
    snprintf(out, n, "%s", value[0]);
    return true;
}

static const char *const preempt_names[] = {"none", "voluntary", "full", "lazy"};

/* Whether uname -v names PREEMPT_RT: "PREEMPT_RT", or a combined form such
 * as "PREEMPT_{RT,LAZY}". */
static bool uname_says_rt(const char *version)
{
    return rtg_lx_has_word(version, "PREEMPT_RT") || strstr(version, "PREEMPT_{RT") != NULL;
}

/* Preemption model. PREEMPT_RT first, by any of its three marks:
 * /sys/kernel/realtime (the out-of-tree patch; gone since RT is mainline,
 * 6.12), uname -v, CONFIG_PREEMPT_RT. Then debugfs (the current model is
 * the one in parentheses), preempt= on the command line, the kernel
 * configuration; null when none of them tells. */
static void preempt_model(struct rtg_sys_kernel *k, const struct utsname *u)
{
    char buf[4096];
    const char *model = NULL, *source = NULL;
    bool dynamic = rtg_lx_has_word(u->version, "PREEMPT_DYNAMIC");
    if (rtg_lx_read_line("/sys/kernel/realtime", buf, sizeof buf) && strcmp(buf, "1") == 0) {
        model = "rt";
        source = "/sys/kernel/realtime";
    } else if (uname_says_rt(u->version)) {
        model = "rt";
        source = "uname -v";
    } else if (kconfig(u->release, "PREEMPT_RT", buf, sizeof buf) && strcmp(buf, "y") == 0) {
        model = "rt";
        source = "kernel config (CONFIG_PREEMPT_RT)";
    } else if (rtg_lx_read_line("/sys/kernel/debug/sched/preempt", buf, sizeof buf)) {
        for (size_t i = 0; i < 4; i++) {
            char want[32];
            snprintf(want, sizeof want, "(%s)", preempt_names[i]);
            if (strstr(buf, want)) {
                model = preempt_names[i];
                source = "/sys/kernel/debug/sched/preempt";
            }
        }
    }
    if (!model && dynamic && rtg_lx_read_line("/proc/cmdline", buf, sizeof buf)) {
        for (size_t i = 0; i < 4; i++) {
            char want[32];
            snprintf(want, sizeof want, "preempt=%s", preempt_names[i]);
            if (rtg_lx_has_word(buf, want)) {
                model = preempt_names[i];
                source = "preempt= on /proc/cmdline";
            }
        }
    }
    if (!model) {
        static const char *const keys[] = {"PREEMPT_NONE", "PREEMPT_VOLUNTARY", "PREEMPT", "PREEMPT_LAZY"};
        for (size_t i = 0; i < 4 && !model; i++)
            if (kconfig(u->release, keys[i], buf, sizeof buf) && strcmp(buf, "y") == 0) {
                model = preempt_names[i];
                source = dynamic ? "kernel config (PREEMPT_DYNAMIC default)" : "kernel config";
            }
    }
    if (!model && !dynamic && rtg_lx_has_word(u->version, "PREEMPT")) {
        model = "full";
        source = "uname -v";
    }
    if (model)
        rtg_sys_text_set(&k->preempt_model, model);
    k->preempt_dynamic = (struct rtg_sys_bool){.known = true, .v = dynamic};
    if (source)
        rtg_sys_text_set(&k->preempt_source, source);
    bool realtime = model && strcmp(model, "rt") == 0;
    if (rtg_lx_read_line("/sys/kernel/realtime", buf, sizeof buf))
        realtime = strcmp(buf, "1") == 0;
    k->realtime = (struct rtg_sys_bool){.known = true, .v = realtime};
    if (kconfig(u->release, "HZ", buf, sizeof buf))
        k->hz_config = (struct rtg_sys_int){.known = true, .v = atoi(buf)};
}

/* Ticks per second on a busy CPU, from the local timer interrupt count
 * in /proc/interrupts (x86 "LOC", Arm "arch_timer"), over 200 ms. */
static long long timer_irqs(int cpu)
{
    FILE *f = fopen("/proc/interrupts", "r");
    if (!f)
        return -1;
    char line[8192];
    long long result = -1;
    while (fgets(line, sizeof line, f)) {
        char *p = line;
        while (*p == ' ')
            p++;
        bool loc = strncmp(p, "LOC:", 4) == 0;
        bool arch = strstr(line, "arch_timer") != NULL;
        if (!loc && !arch)
            continue;
        p = strchr(p, ':') + 1;
        long long v = -1;
        for (int c = 0; c <= cpu; c++) {
            char *end;
            v = strtoll(p, &end, 10);
            if (end == p) {
                v = -1;
                break;
            }
            p = end;
        }
        result = v;
        if (loc)
            break;
    }
    fclose(f);
    return result;
}

static double measure_hz(int cpu)
{
    cpu_set_t old, one;
    if (sched_getaffinity(0, sizeof old, &old))
        return -1;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one))
        return -1;
    long long a = timer_irqs(cpu);
    uint64_t t0 = rtg_mono_ns(), t1;
    volatile uint64_t spin = 0;
    while ((t1 = rtg_mono_ns()) - t0 < 200000000u) /* busy: keeps the tick on */
        spin++;
    long long b = timer_irqs(cpu);
    sched_setaffinity(0, sizeof old, &old);
    if (a < 0 || b < a)
        return -1;
    return (double)(b - a) * 1e9 / (double)(t1 - t0);
}

double rtg_sys_tick_hz(int cpu, const char **source)
{
    struct utsname u;
    char buf[64];
    if (uname(&u) == 0 && kconfig(u.release, "HZ", buf, sizeof buf) && atoi(buf) > 0) {
        *source = "CONFIG_HZ";
        return atoi(buf);
    }
    double hz = measure_hz(cpu);
    *source = hz > 0 ? "measured" : "unknown";
    return hz > 0 ? hz : 0;
}

static void cpu_model(char *out, size_t n)
{
    if (rtg_lx_find_field("/proc/cpuinfo", "model name", out, n))
        return;
    if (rtg_lx_find_field("/proc/cpuinfo", "Model", out, n))
        return;
    if (rtg_lx_find_field("/proc/cpuinfo", "CPU part", out, n))
        return;
    out[0] = '\0';
}

bool rtg_sys_virtualized(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (__get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 31)))
        return true;
#endif
    char buf[64];
    return rtg_lx_read_line("/sys/hypervisor/type", buf, sizeof buf) && buf[0];
}

bool rtg_sys_steal_ns(uint64_t *ns)
{
    uint64_t ticks;
    long hz = sysconf(_SC_CLK_TCK);
    if (hz <= 0 || !rtg_lx_steal_ticks(NULL, 0, &ticks))
        return false;
    *ns = ticks * (1000000000u / (uint64_t)hz);
    return true;
}

bool rtg_sys_emulated(void)
{
    char vendor[32];
    rtg_sys_hypervisor_vendor(vendor, sizeof vendor);
    return strncmp(vendor, "TCGTCGTCGTCG", 12) == 0;
}

void rtg_sys_hypervisor_vendor(char *out, size_t n)
{
    out[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (__get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 31))) {
        __cpuid(0x40000000, a, b, c, d);
        char sig[13];
        memcpy(sig, &b, 4);
        memcpy(sig + 4, &c, 4);
        memcpy(sig + 8, &d, 4);
        sig[12] = '\0';
        for (int i = 0; i < 12; i++)
            if (!isprint((unsigned char)sig[i]))
                sig[i] = '\0';
        snprintf(out, n, "%s", sig);
        return;
    }
#endif
    rtg_lx_read_line("/sys/hypervisor/type", out, n);
}

void rtg_sys_privileges(int prio, bool no_rt, int cpu, struct rtg_privileges *p)
{
    memset(p, 0, sizeof *p);
    p->euid = (long)geteuid();
    if (no_rt) {
        snprintf(p->sched_fifo_reason, sizeof p->sched_fifo_reason, "--no-rt given");
    } else {
        enum rtg_policy old_policy;
        int old_prio, rc;
        rtg_thread_get_sched(rtg_thread_self(), &old_policy, &old_prio);
        if ((rc = rtg_thread_set_sched(rtg_thread_self(), RTG_SCHED_FIFO, prio)) == 0) {
            p->sched_fifo = true;
            rtg_thread_set_sched(rtg_thread_self(), old_policy, old_prio);
        } else {
            snprintf(p->sched_fifo_reason, sizeof p->sched_fifo_reason,
                     "pthread_setschedparam(SCHED_FIFO, %d): %s", prio, strerror(rc));
        }
    }
    struct rlimit ml;
    bool small_limit = geteuid() != 0 && getrlimit(RLIMIT_MEMLOCK, &ml) == 0 &&
                       ml.rlim_cur != RLIM_INFINITY && ml.rlim_cur < (64u << 20);
    if (small_limit) {
        /* Locking future pages under a small limit makes thread stacks and
         * buffers fail to map (EAGAIN): running unlocked loses less. */
        snprintf(p->mlockall_reason, sizeof p->mlockall_reason,
                 "RLIMIT_MEMLOCK is %llu KiB, too small to lock the tests' threads and buffers",
                 (unsigned long long)ml.rlim_cur / 1024);
    } else {
        /* Through the OSAL, as the runner will lock: the record says what tests get. */
        int rc = rtg_lock_memory();
        p->mlockall = rc == 0;
        if (p->mlockall)
            rtg_unlock_memory();
        else
            snprintf(p->mlockall_reason, sizeof p->mlockall_reason, "mlockall: %s", strerror(rc));
    }
    /* Affinity is tried and given back: the parent itself stays unpinned. */
    cpu_set_t old;
    bool saved = sched_getaffinity(0, sizeof old, &old) == 0;
    p->affinity = rtg_pin_self(cpu) == 0;
    if (saved)
        sched_setaffinity(0, sizeof old, &old);
}

static void host_facts(struct rtg_sys_host *h, const struct utsname *u)
{
    rtg_sys_text_set(&h->hostname, u->nodename);
    rtg_sys_text_set(&h->os, u->sysname);
    h->os_pretty_name.known = os_pretty_name(h->os_pretty_name.v, sizeof h->os_pretty_name.v);
    rtg_sys_text_set(&h->release, u->release);
    rtg_sys_text_set(&h->version, u->version);
    rtg_sys_text_set(&h->machine, u->machine);
}

static void kernel_facts(struct rtg_sys_kernel *k, const struct utsname *u, int cpu)
{
    preempt_model(k, u);
    double hz = measure_hz(cpu);
    if (hz >= 0)
        k->hz_measured = (struct rtg_sys_num){.known = true, .v = (double)(long long)(hz + 0.5)};
    text_file(&k->cmdline, "/proc/cmdline");
    text_file(&k->isolcpus, "/sys/devices/system/cpu/isolated");
    /* The kernel prints "(null)" when nohz_full is not set. */
    text_file(&k->nohz_full, "/sys/devices/system/cpu/nohz_full");
    if (k->nohz_full.known && strcmp(k->nohz_full.v, "(null)") == 0)
        k->nohz_full.v[0] = '\0';
    int_file(&k->rt_runtime_us, "/proc/sys/kernel/sched_rt_runtime_us");
    int_file(&k->rt_period_us, "/proc/sys/kernel/sched_rt_period_us");
}

static void cpu_facts(struct rtg_sys_cpu *c)
{
    cpu_model(c->model.v, sizeof c->model.v);
    c->model.known = c->model.v[0] != '\0';
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    c->online = online > 0 ? online : 1;
    c->configured = rtg_cpu_count_configured();
    text_file(&c->governor, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
}

static void warnings(struct rtg_sys_warnings *w)
{
    char gov[64];
    if (rtg_lx_read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", gov, sizeof gov) &&
        strcmp(gov, "performance") != 0)
        rtg_sys_warning(w, "CPU frequency scaling is active (governor is not 'performance')");
}

void rtg_sys_facts(const int *cpus, size_t n_cpus, struct rtg_sys_facts *f)
{
    struct utsname u;
    if (uname(&u) != 0)
        memset(&u, 0, sizeof u);
    host_facts(&f->host, &u);
    kernel_facts(&f->kernel, &u, n_cpus ? cpus[0] : 0);
    cpu_facts(&f->cpu);
    text_file(&f->clock.kernel_clocksource,
              "/sys/devices/system/clocksource/clocksource0/current_clocksource");
    rtg_lx_audit_facts(cpus, n_cpus, u.release, &f->extra);
    warnings(&f->warnings);
}
