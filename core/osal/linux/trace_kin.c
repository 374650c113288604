/* Whose an ended task was (trace_kin.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_kin.h"

/* ---- the pid set ---- */

static size_t home_of(int32_t pid, size_t cap)
{
    return ((uint32_t)pid * 2654435761u) & (cap - 1); /* cap: a power of two */
}

static void put(int32_t *slot, size_t cap, int32_t pid)
{
    size_t i = home_of(pid, cap);
    while (slot[i] != 0 && slot[i] != pid)
        i = (i + 1) & (cap - 1);
    slot[i] = pid;
}

bool rtg_pid_set_add(struct rtg_pid_set *s, int32_t pid)
{
    if (pid <= 0)
        return false;
    if (rtg_pid_set_has(s, pid))
        return true;
    if ((s->n + 1) * 2 > s->cap) { /* at most half full */
        size_t cap = s->cap ? s->cap * 2 : 256;
        int32_t *slot = calloc(cap, sizeof *slot);
        if (!slot)
            return false;
        for (size_t i = 0; i < s->cap; i++)
            if (s->slot[i])
                put(slot, cap, s->slot[i]);
        free(s->slot);
        s->slot = slot;
        s->cap = cap;
    }
    put(s->slot, s->cap, pid);
    s->n++;
    return true;
}

bool rtg_pid_set_has(const struct rtg_pid_set *s, int32_t pid)
{
    if (!s->cap || pid <= 0)
        return false;
    for (size_t i = home_of(pid, s->cap); s->slot[i]; i = (i + 1) & (s->cap - 1))
        if (s->slot[i] == pid)
            return true;
    return false;
}

void rtg_pid_set_free(struct rtg_pid_set *s)
{
    free(s->slot);
    memset(s, 0, sizeof *s);
}

/* ---- trace_pipe's lines ---- */

/* The number after the last occurrence of key before end; -1 if none. */
static long number_after_last(const char *line, const char *end, const char *key)
{
    const char *at = NULL;
    size_t kl = strlen(key);
    for (const char *p = line; (p = strstr(p, key)) != NULL && p < end; p++)
        at = p;
    if (!at)
        return -1;
    char *stop;
    long v = strtol(at + kl, &stop, 10);
    return stop == at + kl ? -1 : v;
}

/* "<task>-<pid> [cpu] … sched_process_fork: comm=C pid=P child_comm=C
 * child_pid=P", or the pipe's "CPU:n [LOST k EVENTS]". A comm may hold
 * spaces: each pid is read after the last of its keys. */
enum rtg_kin_line rtg_kin_parse(const char *line, long *parent, long *child)
{
    if (strstr(line, "[LOST ") && strstr(line, " EVENTS]"))
        return RTG_KIN_LOST;
    const char *ev = strstr(line, "sched_process_fork: ");
    if (!ev)
        return RTG_KIN_OTHER;
    const char *cc = strstr(ev, " child_comm=");
    if (!cc)
        return RTG_KIN_OTHER;
    long p = number_after_last(ev, cc, " pid=");
    long c = number_after_last(cc, cc + strlen(cc), " child_pid=");
    if (p <= 0 || c <= 0)
        return RTG_KIN_OTHER;
    *parent = p;
    *child = c;
    return RTG_KIN_FORK;
}

void rtg_kin_fork(struct rtg_trace_kin *k, long parent, long child)
{
    if (rtg_pid_set_has(&k->run, (int32_t)parent)) {
        if (!rtg_pid_set_add(&k->run, (int32_t)child))
            k->lost = true; /* out of memory: that child is not known */
    } else if (parent == 2 || rtg_pid_set_has(&k->kernel, (int32_t)parent)) {
        rtg_pid_set_add(&k->kernel, (int32_t)child);
    }
}

/* ---- following ---- */

static bool seed(struct rtg_trace_kin *k)
{
    bool ok = rtg_pid_set_add(&k->run, (int32_t)getpid()) &&
              rtg_pid_set_add(&k->run, (int32_t)getppid()) && rtg_pid_set_add(&k->kernel, 2);
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return false;
    for (struct dirent *e; ok && (e = readdir(d)) != NULL;) {
        long tid = strtol(e->d_name, NULL, 10);
        if (tid > 0)
            ok = rtg_pid_set_add(&k->run, (int32_t)tid);
    }
    closedir(d);
    return ok;
}

int rtg_kin_open(struct rtg_trace_kin *k, const struct rtg_tracefs *fs)
{
    memset(k, 0, sizeof *k);
    k->fd = -1;
    int e = rtg_tracefs_instance_new(fs, 1, k->dir, sizeof k->dir);
    /* forks are rare: a small buffer on every CPU, read every 100 ms at
     * least; overwrite off, so a burst loses the newest, which the pipe
     * says ("LOST"), never silently the oldest */
    if (!e)
        e = rtg_tracefs_write(k->dir, "buffer_size_kb", "128");
    if (!e)
        e = rtg_tracefs_write(k->dir, "options/overwrite", "0");
    if (!e)
        e = rtg_tracefs_write(k->dir, "events/sched/sched_process_fork/enable", "1");
    if (!e) {
        char p[sizeof k->dir + 16];
        snprintf(p, sizeof p, "%s/trace_pipe", k->dir);
        k->fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        e = k->fd < 0 ? errno : 0;
    }
    if (!e)
        e = rtg_tracefs_write(k->dir, "tracing_on", "1");
    if (!e && !seed(k))
        e = ENOMEM;
    if (e)
        rtg_kin_close(k);
    return e;
}

static void take_line(struct rtg_trace_kin *k, const char *line)
{
    long parent, child;
    switch (rtg_kin_parse(line, &parent, &child)) {
    case RTG_KIN_FORK: rtg_kin_fork(k, parent, child); break;
    case RTG_KIN_LOST: k->lost = true; break;
    case RTG_KIN_OTHER: break;
    }
}

void rtg_kin_read(struct rtg_trace_kin *k)
{
    if (k->fd < 0)
        return;
    char buf[4096];
    for (;;) {
        ssize_t got = read(k->fd, buf, sizeof buf);
        if (got <= 0)
            return; /* EAGAIN: all read */
        for (ssize_t i = 0; i < got; i++) {
            if (buf[i] != '\n') {
                if (k->carry_len + 1 < sizeof k->carry)
                    k->carry[k->carry_len++] = buf[i];
                continue;
            }
            k->carry[k->carry_len] = '\0';
            take_line(k, k->carry);
            k->carry_len = 0;
        }
    }
}

const char *rtg_kin_of(const struct rtg_trace_kin *k, long pid)
{
    if (rtg_pid_set_has(&k->run, (int32_t)pid))
        return "run";
    if (rtg_pid_set_has(&k->kernel, (int32_t)pid))
        return "kernel";
    return k->fd >= 0 && !k->lost ? "ended" : "";
}

void rtg_kin_close(struct rtg_trace_kin *k)
{
    if (!k->dir[0]) /* never opened: a zeroed port's fd 0 is not ours */
        return;
    if (k->fd >= 0)
        close(k->fd);
    k->fd = -1;
    rtg_tracefs_instance_remove(k->dir);
    k->dir[0] = '\0';
    rtg_pid_set_free(&k->run);
    rtg_pid_set_free(&k->kernel);
}
