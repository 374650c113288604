/* The real-time audit's facts on Linux (docs/audit.md lists each and the
 * check that reads it). Read only: nothing here changes the system. Each
 * fact is what a file said, under "audit."; a file that cannot be read
 * leaves its fact out (the host says it could not judge), or null where
 * the absence is itself the fact (/sys/kernel/realtime). The facts that
 * count over the run are read again at its end (rtg_sys_end_facts). */
#define _GNU_SOURCE
#include "audit_facts.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys_read.h"

#define SYS_CPU "/sys/devices/system/cpu"

/* ---- one fact from one file ---- */

/* A text fact from a file's first line; left out when unreadable. */
static bool text_fact(struct rtg_sys_extra *x, const char *path, const char *file)
{
    char buf[RTG_SYS_FACT_TEXT_MAX];
    if (!rtg_lx_read_line(file, buf, sizeof buf))
        return false;
    rtg_sys_extra_text(x, path, buf);
    return true;
}

/* The same, null when unreadable: the file's absence is a fact. */
static void text_or_null(struct rtg_sys_extra *x, const char *path, const char *file)
{
    if (!text_fact(x, path, file))
        rtg_sys_extra_add(x, path, RTG_FACT_NULL);
}

/* An integer fact from a file's first line; left out when unreadable or
 * not a number. */
static void int_fact(struct rtg_sys_extra *x, const char *path, const char *file)
{
    char buf[64], *end;
    if (!rtg_lx_read_line(file, buf, sizeof buf))
        return;
    long long v = strtoll(buf, &end, 10);
    if (end != buf)
        rtg_sys_extra_int(x, path, v);
}

/* A path built from a format: "audit.cpus.%d.governor". */
#define PATHF(buf, ...) snprintf(buf, sizeof buf, __VA_ARGS__)

/* ---- the preemption model's marks (the system record names the model) ---- */
static void preempt_marks(struct rtg_sys_extra *x)
{
    text_or_null(x, "audit.preempt.realtime_file", "/sys/kernel/realtime");
    text_or_null(x, "audit.preempt.debugfs", "/sys/kernel/debug/sched/preempt");
}

/* ---- the kernel's build options that bear on latency ---- */
static const char *const kconfig_keys[] = {
    /* the preemption model and the tick */
    "PREEMPT_RT", "PREEMPT", "PREEMPT_VOLUNTARY", "PREEMPT_NONE", "PREEMPT_LAZY",
    "PREEMPT_DYNAMIC", "HZ", "HIGH_RES_TIMERS", "NO_HZ_FULL", "NO_HZ_IDLE",
    /* what helps */
    "RCU_BOOST", "RCU_NOCB_CPU", "IRQ_FORCED_THREADING", "CPU_ISOLATION", "CPU_FREQ",
    "CPU_IDLE", "TRANSPARENT_HUGEPAGE", "NUMA_BALANCING", "X86_MSR",
    /* what hurts: debugging that runs on every lock, allocation or switch */
    "LOCKDEP", "PROVE_LOCKING", "DEBUG_LOCK_ALLOC", "LOCK_STAT", "DEBUG_SPINLOCK",
    "DEBUG_MUTEXES", "DEBUG_RT_MUTEXES", "DEBUG_ATOMIC_SLEEP", "DEBUG_PREEMPT", "PROVE_RCU",
    "KASAN", "KCSAN", "KMSAN", "DEBUG_PAGEALLOC", "DEBUG_OBJECTS", "DEBUG_KMEMLEAK",
    "SLUB_DEBUG_ON", "PAGE_POISONING", "IRQSOFF_TRACER", "PREEMPT_TRACER", "SCHED_TRACER",
    "DEBUG_VM", "UBSAN_TRAP"};
#define N_KCONFIG (sizeof kconfig_keys / sizeof kconfig_keys[0])

static void kernel_options(struct rtg_sys_extra *x, const char *release)
{
    static char values[N_KCONFIG][RTG_LX_KCONFIG_VALUE_MAX];
    const char *source = rtg_lx_kconfig(release, kconfig_keys, N_KCONFIG, values);
    if (!source) {
        rtg_sys_extra_add(x, "audit.kconfig.source", RTG_FACT_NULL);
        return;
    }
    rtg_sys_extra_text(x, "audit.kconfig.source", source);
    for (size_t i = 0; i < N_KCONFIG; i++) {
        char path[RTG_SYS_FACT_PATH_MAX];
        PATHF(path, "audit.kconfig.CONFIG_%s", kconfig_keys[i]);
        rtg_sys_extra_text(x, path, values[i]);
    }
}

/* ---- the measured CPUs: siblings, node, frequency, idle states ---- */

/* The NUMA node a CPU belongs to: the nodeN entry of its sysfs folder. */
static int cpu_node(int cpu)
{
    char dir[96];
    PATHF(dir, SYS_CPU "/cpu%d", cpu);
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int node = -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, "node", 4) == 0 && isdigit((unsigned char)e->d_name[4]))
            node = atoi(e->d_name + 4);
    closedir(d);
    return node;
}

static void idle_states(struct rtg_sys_extra *x, int cpu)
{
    for (int s = 0; s < 32; s++) {
        char file[160], path[RTG_SYS_FACT_PATH_MAX];
        PATHF(file, SYS_CPU "/cpu%d/cpuidle/state%d/name", cpu, s);
        PATHF(path, "audit.cpus.%d.idle.%d.name", cpu, s);
        if (!text_fact(x, path, file))
            return;
        PATHF(file, SYS_CPU "/cpu%d/cpuidle/state%d/latency", cpu, s);
        PATHF(path, "audit.cpus.%d.idle.%d.exit_latency_us", cpu, s);
        int_fact(x, path, file);
        PATHF(file, SYS_CPU "/cpu%d/cpuidle/state%d/residency", cpu, s);
        PATHF(path, "audit.cpus.%d.idle.%d.residency_us", cpu, s);
        int_fact(x, path, file);
        PATHF(file, SYS_CPU "/cpu%d/cpuidle/state%d/disable", cpu, s);
        PATHF(path, "audit.cpus.%d.idle.%d.disabled", cpu, s);
        int_fact(x, path, file);
    }
}

static void cpu_facts(struct rtg_sys_extra *x, int cpu)
{
    static const struct {
        const char *key, *file;
        bool number;
    } files[] = {
        {"siblings", "topology/thread_siblings_list", false},
        {"governor", "cpufreq/scaling_governor", false},
        {"driver", "cpufreq/scaling_driver", false},
        {"min_khz", "cpufreq/scaling_min_freq", true},
        {"max_khz", "cpufreq/scaling_max_freq", true},
        {"hw_max_khz", "cpufreq/cpuinfo_max_freq", true},
    };
    char file[160], path[RTG_SYS_FACT_PATH_MAX];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        PATHF(file, SYS_CPU "/cpu%d/%s", cpu, files[i].file);
        PATHF(path, "audit.cpus.%d.%s", cpu, files[i].key);
        if (files[i].number)
            int_fact(x, path, file);
        else
            text_fact(x, path, file);
    }
    int node = cpu_node(cpu);
    if (node >= 0) {
        PATHF(path, "audit.cpus.%d.node", cpu);
        rtg_sys_extra_int(x, path, node);
    }
    idle_states(x, cpu);
}

static void cpu_wide_facts(struct rtg_sys_extra *x)
{
    int_fact(x, "audit.cpufreq.boost", SYS_CPU "/cpufreq/boost");
    int_fact(x, "audit.cpufreq.no_turbo", SYS_CPU "/intel_pstate/no_turbo");
    text_fact(x, "audit.cpuidle.driver", SYS_CPU "/cpuidle/current_driver");
    if (!text_fact(x, "audit.cpuidle.governor", SYS_CPU "/cpuidle/current_governor_ro"))
        text_fact(x, "audit.cpuidle.governor", SYS_CPU "/cpuidle/current_governor");
    text_fact(x, "audit.smt.control", SYS_CPU "/smt/control");
    int_fact(x, "audit.smt.active", SYS_CPU "/smt/active");
}

/* ---- where the probe may run, and the cpuset that says so ---- */

/* A CPU set as a list ("0-3,6"). */
static void cpu_list(const cpu_set_t *set, char *out, size_t n)
{
    size_t o = 0;
    out[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE && o + 16 < n; c++) {
        if (!CPU_ISSET(c, set))
            continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
            last++;
        o += (size_t)snprintf(out + o, n - o, o ? ",%d" : "%d", c);
        if (last > c)
            o += (size_t)snprintf(out + o, n - o, "-%d", last);
        c = last;
    }
}

/* Where a cgroup file system is mounted (fstype "cgroup2", or "cgroup"
 * with the option opt among its super options). */
static bool cgroup_mount(const char *fstype, const char *opt, char *out, size_t n)
{
    FILE *f = fopen("/proc/self/mountinfo", "r");
    if (!f)
        return false;
    char line[1024];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        char mnt[512], type[64], super[512];
        const char *dash = strstr(line, " - ");
        if (!dash || sscanf(line, "%*s %*s %*s %*s %511s", mnt) != 1 ||
            sscanf(dash + 3, "%63s %*s %511s", type, super) != 2)
            continue;
        if (strcmp(type, fstype) != 0)
            continue;
        if (opt) {
            char *save = NULL;
            bool has = false;
            for (char *t = strtok_r(super, ",", &save); t; t = strtok_r(NULL, ",", &save))
                has = has || strcmp(t, opt) == 0;
            if (!has)
                continue;
        }
        snprintf(out, n, "%s", mnt);
        found = true;
    }
    fclose(f);
    return found;
}

/* Whether the comma-separated list holds item. */
static bool has_item(const char *list, const char *item)
{
    size_t l = strlen(item);
    for (const char *p = list;;) {
        size_t len = strcspn(p, ",");
        if (len == l && strncmp(p, item, l) == 0)
            return true;
        if (!p[len])
            return false;
        p += len + 1;
    }
}

/* The probe's cgroup in the hierarchy that has the cpuset controller. */
static bool own_cgroup(bool v1, char *out, size_t n)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f)
        return false;
    char line[1024];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
        if (!b)
            continue;
        *b = '\0';
        const char *controllers = a + 1;
        bool match = v1 ? has_item(controllers, "cpuset") : controllers[0] == '\0';
        if (match) {
            snprintf(out, n, "%s", b + 1);
            found = true;
        }
    }
    fclose(f);
    return found;
}

static void cpuset_facts(struct rtg_sys_extra *x)
{
    char mnt[512], cg[512], file[1100];
    if (cgroup_mount("cgroup", "cpuset", mnt, sizeof mnt) && own_cgroup(true, cg, sizeof cg)) {
        rtg_sys_extra_int(x, "audit.cpuset.version", 1);
        rtg_sys_extra_text(x, "audit.cpuset.path", cg);
        PATHF(file, "%s%s/cpuset.effective_cpus", mnt, strcmp(cg, "/") ? cg : "");
        if (!text_fact(x, "audit.cpuset.cpus", file)) {
            PATHF(file, "%s%s/cpuset.cpus", mnt, strcmp(cg, "/") ? cg : "");
            text_fact(x, "audit.cpuset.cpus", file);
        }
        PATHF(file, "%s/cpuset.sched_load_balance", mnt);
        int_fact(x, "audit.cpuset.root_load_balance", file);
        return;
    }
    if (cgroup_mount("cgroup2", NULL, mnt, sizeof mnt) && own_cgroup(false, cg, sizeof cg)) {
        rtg_sys_extra_int(x, "audit.cpuset.version", 2);
        rtg_sys_extra_text(x, "audit.cpuset.path", cg);
        const char *own = strcmp(cg, "/") ? cg : "";
        PATHF(file, "%s%s/cpuset.cpus.effective", mnt, own);
        text_fact(x, "audit.cpuset.cpus", file);
        PATHF(file, "%s%s/cpuset.cpus.partition", mnt, own);
        text_fact(x, "audit.cpuset.partition", file);
        PATHF(file, "%s/cpuset.cpus.isolated", mnt);
        text_fact(x, "audit.cpuset.isolated", file);
    }
}

static void placement_facts(struct rtg_sys_extra *x)
{
    cpu_set_t set;
    char list[RTG_SYS_FACT_TEXT_MAX];
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        cpu_list(&set, list, sizeof list);
        rtg_sys_extra_text(x, "audit.affinity", list);
    }
    cpuset_facts(x);
    text_fact(x, "audit.housekeeping.workqueue_cpumask", "/sys/devices/virtual/workqueue/cpumask");
    if (rtg_lx_find_field("/proc/2/status", "Cpus_allowed_list", list, sizeof list))
        rtg_sys_extra_text(x, "audit.housekeeping.kthread_cpus", list);
}

/* ---- interrupts ---- */

/* One pass over /proc/interrupts: the device IRQs (numeric labels) into
 * "audit.irqs", or the per-CPU ones (LOC, RES, TLB ...) into "audit.ipis";
 * at the start with their description and affinity, at the end their
 * count only. */
static void interrupts(struct rtg_sys_extra *x, const int *cpus, size_t n_cpus, bool devices,
                       bool end)
{
    FILE *f = fopen("/proc/interrupts", "r");
    if (!f)
        return;
    static int cols[RTG_LX_IRQ_COLS];
    char *line = NULL;
    size_t cap = 0;
    size_t ncols = getline(&line, &cap, f) > 0 ? rtg_lx_irq_header(line, cols, RTG_LX_IRQ_COLS) : 0;
    const char *group = devices ? "irqs" : "ipis";
    while (ncols && getline(&line, &cap, f) > 0) {
        char label[32], rest[RTG_SYS_FACT_TEXT_MAX], path[RTG_SYS_FACT_PATH_MAX];
        char file[128];
        uint64_t sum;
        if (!rtg_lx_irq_row(line, cols, ncols, cpus, n_cpus, label, sizeof label, &sum, rest,
                            sizeof rest))
            continue;
        if ((isdigit((unsigned char)label[0]) != 0) != devices)
            continue;
        if (!end) {
            PATHF(path, "audit.%s.%s.name", group, label);
            rtg_sys_extra_text(x, path, rest);
        }
        if (devices && !end) {
            PATHF(file, "/proc/irq/%s/smp_affinity_list", label);
            PATHF(path, "audit.irqs.%s.affinity", label);
            text_fact(x, path, file);
            PATHF(file, "/proc/irq/%s/effective_affinity_list", label);
            PATHF(path, "audit.irqs.%s.effective", label);
            text_fact(x, path, file);
        }
        PATHF(path, "audit.%s.%s.count", group, label);
        rtg_sys_extra_uint(x, path, sum);
    }
    free(line);
    fclose(f);
}

/* ---- the hypervisor's steal time and the firmware's SMIs ---- */

/* Steal time of the measured CPUs, in USER_HZ ticks, from /proc/stat. */
static void steal(struct rtg_sys_extra *x, const int *cpus, size_t n_cpus)
{
    uint64_t sum;
    if (rtg_lx_steal_ticks(cpus, n_cpus, &sum)) {
        rtg_sys_extra_uint(x, "audit.steal.ticks", sum);
        rtg_sys_extra_int(x, "audit.steal.clk_tck", sysconf(_SC_CLK_TCK));
    }
}

/* The SMI count of the first measured CPU: MSR 0x34 (MSR_SMI_COUNT, Intel)
 * through the msr driver; null with the reason when it cannot be read. */
static void smi(struct rtg_sys_extra *x, int cpu, bool end)
{
#if defined(__x86_64__) || defined(__i386__)
    char dev[64], why[RTG_SYS_FACT_TEXT_MAX];
    PATHF(dev, "/dev/cpu/%d/msr", cpu);
    int fd = open(dev, O_RDONLY | O_CLOEXEC);
    uint64_t count = 0;
    int err = 0;
    if (fd < 0)
        err = errno;
    else if (pread(fd, &count, sizeof count, 0x34) != (ssize_t)sizeof count)
        err = errno ? errno : EIO;
    if (fd >= 0)
        close(fd);
    if (!err) {
        rtg_sys_extra_uint(x, "audit.smi.count", count);
        if (!end)
            rtg_sys_extra_text(x, "audit.smi.source", dev);
        return;
    }
    if (end)
        return;
    rtg_sys_extra_add(x, "audit.smi.count", RTG_FACT_NULL);
    if (err == ENOENT)
        PATHF(why, "%s: absent (the msr driver is not loaded)", dev);
    else if (err == EIO)
        PATHF(why, "%s: MSR 0x34 unreadable (a CPU without MSR_SMI_COUNT, or a guest)", dev);
    else
        PATHF(why, "%s: %s", dev, strerror(err));
    rtg_sys_extra_text(x, "audit.smi.source", why);
#else
    (void)cpu;
    if (!end) {
        rtg_sys_extra_add(x, "audit.smi.count", RTG_FACT_NULL);
        rtg_sys_extra_text(x, "audit.smi.source", "not x86: no System Management Mode count");
    }
#endif
}

/* ---- sysctls, memory, clock ---- */
static void sysctls(struct rtg_sys_extra *x)
{
    static const char *const ints[][2] = {
        {"timer_migration", "/proc/sys/kernel/timer_migration"},
        {"nmi_watchdog", "/proc/sys/kernel/nmi_watchdog"},
        {"watchdog", "/proc/sys/kernel/watchdog"},
        {"soft_watchdog", "/proc/sys/kernel/soft_watchdog"},
        {"watchdog_thresh", "/proc/sys/kernel/watchdog_thresh"},
        {"numa_balancing", "/proc/sys/kernel/numa_balancing"},
        {"stat_interval", "/proc/sys/vm/stat_interval"},
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        char path[RTG_SYS_FACT_PATH_MAX];
        PATHF(path, "audit.sysctl.%s", ints[i][0]);
        int_fact(x, path, ints[i][1]);
    }
    text_fact(x, "audit.sysctl.watchdog_cpumask", "/proc/sys/kernel/watchdog_cpumask");
}

static void memory_facts(struct rtg_sys_extra *x)
{
    const char *thp = "/sys/kernel/mm/transparent_hugepage";
    char file[128], buf[128];
    PATHF(file, "%s/enabled", thp);
    text_fact(x, "audit.thp.enabled", file);
    PATHF(file, "%s/defrag", thp);
    text_fact(x, "audit.thp.defrag", file);
    PATHF(file, "%s/khugepaged/defrag", thp);
    int_fact(x, "audit.thp.khugepaged_defrag", file);
    if (rtg_lx_find_field("/proc/meminfo", "SwapTotal", buf, sizeof buf))
        rtg_sys_extra_int(x, "audit.swap.total_kb", strtoll(buf, NULL, 10));
    FILE *f = fopen("/proc/swaps", "r");
    if (f) {
        int lines = 0;
        while (fgets(buf, sizeof buf, f))
            if (strchr(buf, '\n'))
                lines++;
        fclose(f);
        rtg_sys_extra_int(x, "audit.swap.devices", lines > 0 ? lines - 1 : 0); /* a header */
    }
    text_fact(x, "audit.numa.nodes", "/sys/devices/system/node/online");
}

static void clock_facts(struct rtg_sys_extra *x)
{
    text_fact(x, "audit.clock.available",
              "/sys/devices/system/clocksource/clocksource0/available_clocksource");
#if defined(__x86_64__) || defined(__i386__)
    rtg_sys_extra_bool(x, "audit.clock.tsc_constant", rtg_sys_cpu_flag("constant_tsc"));
    rtg_sys_extra_bool(x, "audit.clock.tsc_nonstop", rtg_sys_cpu_flag("nonstop_tsc"));
    rtg_sys_extra_bool(x, "audit.clock.tsc_reliable", rtg_sys_cpu_flag("tsc_reliable"));
#endif
}

/* ---- the two readings ---- */
void rtg_lx_audit_facts(const int *cpus, size_t n_cpus, const char *release,
                        struct rtg_sys_extra *x)
{
    preempt_marks(x);
    kernel_options(x, release);
    for (size_t i = 0; i < n_cpus; i++)
        cpu_facts(x, cpus[i]);
    cpu_wide_facts(x);
    placement_facts(x);
    text_fact(x, "audit.irq.default_affinity", "/proc/irq/default_smp_affinity");
    interrupts(x, cpus, n_cpus, true, false);
    interrupts(x, cpus, n_cpus, false, false);
    sysctls(x);
    memory_facts(x);
    clock_facts(x);
    steal(x, cpus, n_cpus);
    if (n_cpus)
        smi(x, cpus[0], false);
    rtg_lx_rt_task_facts(cpus, n_cpus, x);
}

void rtg_sys_end_facts(const int *cpus, size_t n_cpus, struct rtg_sys_extra *x)
{
    interrupts(x, cpus, n_cpus, true, true);
    interrupts(x, cpus, n_cpus, false, true);
    steal(x, cpus, n_cpus);
    if (n_cpus)
        smi(x, cpus[0], true);
}
