/* Whose a task was once it has ended: the recorder follows every fork
 * (sched_process_fork, in an instance of its own on every CPU), so a task
 * the run created — the test process, the probe, or any task they created
 * since — or kthreadd created is still known when /proc no longer has it. */
#ifndef RTG_TRACE_KIN_H
#define RTG_TRACE_KIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace_fs.h"

/* A growing set of pids (open addressing). */
struct rtg_pid_set {
    int32_t *slot; /* 0: empty */
    size_t cap, n;
};

bool rtg_pid_set_add(struct rtg_pid_set *s, int32_t pid);
bool rtg_pid_set_has(const struct rtg_pid_set *s, int32_t pid);
void rtg_pid_set_free(struct rtg_pid_set *s);

struct rtg_trace_kin {
    char dir[RTG_TRACEFS_PATH * 2]; /* "": not followed */
    int fd;                         /* its trace_pipe, non-blocking */
    struct rtg_pid_set run, kernel;
    bool lost; /* a fork went unread: an unknown task may be the run's */
    char carry[512];
    size_t carry_len;
};

/* What a line of trace_pipe says: RTG_KIN_FORK with *parent and *child
 * filled, RTG_KIN_LOST, or RTG_KIN_OTHER. */
enum rtg_kin_line { RTG_KIN_OTHER, RTG_KIN_FORK, RTG_KIN_LOST };
enum rtg_kin_line rtg_kin_parse(const char *line, long *parent, long *child);

/* A fork seen: the child is the run's or the kernel's when its parent is. */
void rtg_kin_fork(struct rtg_trace_kin *k, long parent, long child);

/* Starts following, with the run's tasks so far (this process's threads
 * and the probe, its parent); 0 or an errno, and then k follows nothing. */
int rtg_kin_open(struct rtg_trace_kin *k, const struct rtg_tracefs *fs);
/* Reads what was recorded since (the reader, before each cut). */
void rtg_kin_read(struct rtg_trace_kin *k);
/* An ended task's origin: "run", "kernel", "ended" (not the run's), or ""
 * when nothing can be said (not followed, or forks went unread). */
const char *rtg_kin_of(const struct rtg_trace_kin *k, long pid);
void rtg_kin_close(struct rtg_trace_kin *k);

#endif
