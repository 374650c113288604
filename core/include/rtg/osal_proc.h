/* Processes for PRC-P-NEW: creation by fork, vfork + exec, posix_spawn and
 * (Linux) clone, deletion by kill + reap, and memory shared with a child.
 *
 * An OSAL topic (see osal.h): the POSIX implementation is
 * core/osal/posix/proc.c. Calls return 0 or an errno value. Process ids
 * are plain ints here so the header needs no port type. Every child made
 * here by fork, clone or vfork is SIGKILLed when the thread that made it
 * exits (Linux PR_SET_PDEATHSIG), so a killed probe leaves none behind; a
 * posix_spawn'ed helper cannot set that, so give it a pipe as its stdin
 * (rtg_proc_pipe) and a helper that exits at end of input. */
#ifndef RTG_OSAL_PROC_H
#define RTG_OSAL_PROC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The child's side of a fork or clone: it stamps *first with
 * rtg_clock_ticks() as its very first action, then blocks until killed
 * (block != 0) or exits at once after stamping *last (block == 0). */
struct rtg_proc_child {
    volatile uint64_t first; /* clock ticks at the child's first instruction */
    volatile uint64_t last;  /* clock ticks just before _exit */
    int block;
};

/* Memory shared between this process and its children (MAP_SHARED,
 * zeroed), and freeing it; used by PRC and by MSG's process peers. */
void *rtg_shared_alloc(size_t len);
void rtg_shared_free(void *p, size_t len);

/* fork(): the child runs the body above on c (which must be shared memory). */
int rtg_proc_fork(int *pid, struct rtg_proc_child *c);
/* Linux clone() with the lightest flags that still make a process:
 * CLONE_VM | SIGCHLD (address space shared, so no page tables to copy;
 * own file table, fs info, signal handlers and thread group). The child
 * runs on stack[0..stack_size). ENOTSUP where there is no clone. */
int rtg_proc_clone(int *pid, struct rtg_proc_child *c, void *stack, size_t stack_size);
/* vfork() then execve(path, argv) in the child, with stdin_fd (if >= 0)
 * as its standard input; returns once the child has exec'd (the parent is
 * suspended until then). A failed exec ends the child with status 127. */
int rtg_proc_vfork_exec(int *pid, const char *path, char *const argv[], int stdin_fd);
/* posix_spawn(path, argv), default attributes; stdin_fd (if >= 0) becomes
 * the child's standard input (one dup2 file action). */
int rtg_proc_spawn(int *pid, const char *path, char *const argv[], int stdin_fd);
/* A pipe whose two ends are closed on exec (fds[0] read, fds[1] write);
 * a helper reading the read end as its stdin ends when every write end is
 * closed, i.e. when this process dies. */
int rtg_proc_pipe(int fds[2]);
void rtg_proc_close(int fd);

/* SIGKILL. */
int rtg_proc_kill(int pid);
/* Blocks until the child has ended and is reaped; *status: its exit code,
 * or 128 + signal. */
int rtg_proc_reap(int pid, int *status);
/* Whether path names an executable regular file. */
bool rtg_proc_executable(const char *path);

#endif
