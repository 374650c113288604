/* The real-time tasks of other programs that may run on the measured CPUs
 * (docs/audit.md, "rt-tasks"): every thread with SCHED_FIFO, SCHED_RR or
 * SCHED_DEADLINE whose affinity includes a measured CPU, that is neither a
 * kernel thread nor the probe's own, under "audit.rt_tasks.<tid>": its
 * name, policy, priority, state when read (R: runnable) and affinity. At
 * most RT_TASKS_MAX are named; "audit.rt_tasks_more" counts the rest.
 * Reads only: no task is moved, signalled or re-prioritised. */
#define _GNU_SOURCE
#include "audit_facts.h"

#include <ctype.h>
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RT_TASKS_MAX 32
#define PF_KTHREAD_FLAG 0x00200000UL /* the kernel sched.h PF_KTHREAD: a kernel thread */

struct rt_seen {
    char comm[32];
    char state;
    unsigned long flags;
    long prio, policy;
};

/* /proc/<pid>/task/<tid>/stat: the name between its parentheses (which it
 * may contain), then the fields numbered from 3 (state) on. */
static int read_stat(long pid, long tid, struct rt_seen *s)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/task/%ld/stat", pid, tid);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *open = strchr(buf, '('), *close = strrchr(buf, ')');
    if (!open || !close || close < open)
        return -1;
    size_t len = (size_t)(close - open - 1);
    if (len >= sizeof s->comm)
        len = sizeof s->comm - 1;
    memcpy(s->comm, open + 1, len);
    s->comm[len] = '\0';
    char *p = close + 2;
    for (int field = 3; field <= 41 && *p; field++) {
        char *end;
        if (field == 3)
            s->state = *p;
        else if (field == 9)
            s->flags = strtoul(p, &end, 10);
        else if (field == 40)
            s->prio = strtol(p, &end, 10);
        else if (field == 41)
            s->policy = strtol(p, &end, 10);
        char *space = strchr(p, ' ');
        if (!space)
            break;
        p = space + 1;
    }
    return 0;
}

static const char *rt_policy(long policy)
{
    switch (policy) {
    case SCHED_FIFO: return "SCHED_FIFO";
    case SCHED_RR: return "SCHED_RR";
#ifdef SCHED_DEADLINE
    case SCHED_DEADLINE: return "SCHED_DEADLINE";
#endif
    default: return NULL;
    }
}

static bool on_measured(long tid, const int *cpus, size_t n_cpus, char *list, size_t n)
{
    cpu_set_t set;
    if (sched_getaffinity((pid_t)tid, sizeof set, &set) != 0)
        return false;
    bool on = false;
    for (size_t i = 0; i < n_cpus; i++)
        on = on || CPU_ISSET(cpus[i], &set);
    size_t o = 0;
    list[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE && o + 16 < n; c++)
        if (CPU_ISSET(c, &set))
            o += (size_t)snprintf(list + o, n - o, o ? ",%d" : "%d", c);
    return on;
}

static bool numeric(const char *s)
{
    return *s && strspn(s, "0123456789") == strlen(s);
}

static void one_task(struct rtg_sys_extra *x, long pid, long tid, const int *cpus,
                     size_t n_cpus, size_t *named, size_t *more)
{
    struct rt_seen s = {0};
    char list[256], path[RTG_SYS_FACT_PATH_MAX];
    const char *policy;
    if (read_stat(pid, tid, &s) != 0 || (s.flags & PF_KTHREAD_FLAG))
        return;
    if (!(policy = rt_policy(s.policy)) || !on_measured(tid, cpus, n_cpus, list, sizeof list))
        return;
    if (*named >= RT_TASKS_MAX) {
        (*more)++;
        return;
    }
    (*named)++;
    char state[2] = {s.state, '\0'};
    snprintf(path, sizeof path, "audit.rt_tasks.%ld.comm", tid);
    rtg_sys_extra_text(x, path, s.comm);
    snprintf(path, sizeof path, "audit.rt_tasks.%ld.pid", tid);
    rtg_sys_extra_int(x, path, pid);
    snprintf(path, sizeof path, "audit.rt_tasks.%ld.policy", tid);
    rtg_sys_extra_text(x, path, policy);
    snprintf(path, sizeof path, "audit.rt_tasks.%ld.prio", tid);
    rtg_sys_extra_int(x, path, s.prio);
    snprintf(path, sizeof path, "audit.rt_tasks.%ld.state", tid);
    rtg_sys_extra_text(x, path, state);
    snprintf(path, sizeof path, "audit.rt_tasks.%ld.cpus", tid);
    rtg_sys_extra_text(x, path, list);
}

void rtg_lx_rt_task_facts(const int *cpus, size_t n_cpus, struct rtg_sys_extra *x)
{
    DIR *proc = opendir("/proc");
    if (!proc)
        return;
    long self = (long)getpid();
    size_t named = 0, more = 0;
    struct dirent *d;
    while ((d = readdir(proc))) {
        if (!numeric(d->d_name) || atol(d->d_name) == self)
            continue; /* the probe's own threads are the run's */
        char path[64];
        snprintf(path, sizeof path, "/proc/%ld/task", atol(d->d_name));
        DIR *tasks = opendir(path);
        if (!tasks)
            continue; /* it ended meanwhile */
        struct dirent *t;
        while ((t = readdir(tasks)))
            if (numeric(t->d_name))
                one_task(x, atol(d->d_name), atol(t->d_name), cpus, n_cpus, &named, &more);
        closedir(tasks);
    }
    closedir(proc);
    rtg_sys_extra_int(x, "audit.rt_tasks_more", (int64_t)more);
    if (!named)
        rtg_sys_extra_add(x, "audit.rt_tasks", RTG_FACT_NULL);
}
