/* Load generators (TMR-P-LOAD): each a separate SCHED_OTHER process that
 * counts what it does, so "under load" is a measured condition.
 *
 * This is an OSAL topic (processes, memory mapping, files, sockets): the
 * implementation is Linux's, core/osal/linux/load.c; a port without
 * processes takes core/osal/none/load.c (ENOTSUP) and leaves
 * RTG_OFFERS_PROCESSES clear, so the runner skips TMR-P-LOAD and
 * THR-P-BKG. Calls return 0 or an errno value.
 *
 * Load processes never outlive the test: each is killed (SIGKILL) when the
 * thread that started it exits, so start them from the test's main
 * thread; rtg_load_stop kills and reaps them. */
#ifndef RTG_LOAD_H
#define RTG_LOAD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rtg_load_kind {
    RTG_LOAD_CPU,     /* integer and floating-point arithmetic */
    RTG_LOAD_MEMORY,  /* fresh mmap, write and read every page, munmap */
    RTG_LOAD_FILEIO,  /* write, fsync, read, unlink in the scratch directory */
    RTG_LOAD_FORK,    /* fork, child exits at once, wait */
    RTG_LOAD_SYSCALL, /* cheap system calls in a row */
    RTG_LOAD_PROC,    /* open, read and close /proc files */
    RTG_LOAD_NET,     /* loopback TCP ping-pong with a peer process, 64 bytes */
    RTG_LOAD_TIMER,   /* 1 us relative sleeps (timer slack 1 ns): a timer storm */
    RTG_LOAD_KINDS
};

enum rtg_load_tool { RTG_LOAD_BUILTIN, RTG_LOAD_STRESS_NG };

struct rtg_load_cfg {
    enum rtg_load_tool tool;
    const char *scratch_dir; /* for the file I/O load (and stress-ng's files) */
    size_t memory_bytes;     /* buffer of the memory load, per process */
    unsigned max_s;          /* delegated tool: its own time limit (a safety net) */
};

/* "cpu", "memory", "fileio", "fork", "syscall", "proc", "net", "timer". */
const char *rtg_load_name(enum rtg_load_kind kind);
/* What one counted operation is, for the record. */
const char *rtg_load_op_unit(enum rtg_load_kind kind, enum rtg_load_tool tool);

struct rtg_load_set;

/* Starts the load: one process per CPU in cpus[0..n) pinned there (builtin),
 * or one stress-ng run with n workers restricted to those CPUs. All run at
 * SCHED_OTHER. On error nothing is left running. */
int rtg_load_start(struct rtg_load_set **set, enum rtg_load_kind kind, const int *cpus, size_t n,
                   const struct rtg_load_cfg *cfg);
/* Operations counted so far (builtin only; 0 for a delegated tool). */
uint64_t rtg_load_ops_now(const struct rtg_load_set *set);
/* Stops every process of the set (kill, reap), frees it. *ops: operations
 * done, *known false when the tool did not report them. */
int rtg_load_stop(struct rtg_load_set *set, uint64_t *ops, bool *known);

/* Whether an external tool can be run (found on PATH). */
bool rtg_load_tool_present(enum rtg_load_tool tool);
const char *rtg_load_tool_name(enum rtg_load_tool tool);

/* A fresh private directory under the temporary directory; and its removal
 * with every regular file in it. */
int rtg_scratch_create(char *path, size_t n);
int rtg_scratch_remove(const char *path);

#endif
