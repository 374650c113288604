/* What FreeRTOS does not have: processes, queued signals, page mappings, named semaphores, load generator processes.
 * rtg_osal_offers() says what it has; the runner skips the tests that need
 * the rest, with the reason, and a call that reaches one anyway gets
 * ENOTSUP, never a made-up success. */
#include <errno.h>
#include <stdio.h>

#include "rtg/load.h"
#include "rtg/osal.h"
#include "rtg/osal_mem.h"
#include "rtg/osal_named.h"
#include "rtg/osal_proc.h"
#include "rtg/osal_sig.h"

/* Queues (msg.c) and a hardware timer with an interrupt handler (timer.c). */
unsigned rtg_osal_offers(void) { return RTG_OFFERS_MSG_QUEUES | RTG_OFFERS_TIMERS; }

/* ---- memory ---- */
size_t rtg_page_size(void) { return 0; }
int rtg_map_fresh(void **p, size_t len, bool no_huge)
{
    (void)p, (void)len, (void)no_huge;
    return ENOTSUP;
}
int rtg_unmap(void *p, size_t len)
{
    (void)p, (void)len;
    return ENOTSUP;
}
uint64_t rtg_locked_bytes(void) { return 0; }
int rtg_page_faults(uint64_t *minor, uint64_t *major)
{
    (void)minor, (void)major;
    return ENOTSUP;
}


/* ---- named semaphores ---- */
int rtg_named_sem_name(char *buf, size_t len, const char *tag)
{
    (void)buf, (void)len, (void)tag;
    return ENOTSUP;
}
int rtg_named_sem_create(rtg_sem_t **s, const char *name, unsigned value)
{
    (void)s, (void)name, (void)value;
    return ENOTSUP;
}
int rtg_named_sem_close(rtg_sem_t *s)
{
    (void)s;
    return ENOTSUP;
}
int rtg_named_sem_unlink(const char *name)
{
    (void)name;
    return ENOTSUP;
}
int rtg_named_sem_sweep(int *removed)
{
    *removed = 0;
    return 0;
}

/* ---- processes ---- */
void *rtg_proc_shared_alloc(size_t size)
{
    (void)size;
    return NULL;
}
void rtg_proc_shared_free(void *p, size_t size) { (void)p, (void)size; }
int rtg_proc_fork(int *pid, struct rtg_proc_child *c)
{
    (void)pid, (void)c;
    return ENOTSUP;
}
int rtg_proc_clone(int *pid, struct rtg_proc_child *c, void *stack, size_t stack_size)
{
    (void)pid, (void)c, (void)stack, (void)stack_size;
    return ENOTSUP;
}
int rtg_proc_vfork_exec(int *pid, const char *path, char *const argv[], int stdin_fd)
{
    (void)pid, (void)path, (void)argv, (void)stdin_fd;
    return ENOTSUP;
}
int rtg_proc_spawn(int *pid, const char *path, char *const argv[], int stdin_fd)
{
    return rtg_proc_vfork_exec(pid, path, argv, stdin_fd);
}
int rtg_proc_pipe(int fds[2])
{
    (void)fds;
    return ENOTSUP;
}
void rtg_proc_close(int fd) { (void)fd; }
int rtg_proc_kill(int pid)
{
    (void)pid;
    return ENOTSUP;
}
int rtg_proc_reap(int pid, int *status)
{
    (void)pid, (void)status;
    return ENOTSUP;
}
bool rtg_proc_executable(const char *path)
{
    (void)path;
    return false;
}

/* ---- signals ---- */
int rtg_sig_rt(int i)
{
    (void)i;
    return -1;
}
int rtg_sig_rt_count(void) { return 0; }
int rtg_sig_std(int i)
{
    (void)i;
    return -1;
}
int rtg_sig_block(const int *sigs, size_t n)
{
    (void)sigs, (void)n;
    return ENOTSUP;
}
int rtg_sig_unblock(const int *sigs, size_t n) { return rtg_sig_block(sigs, n); }
int rtg_sig_send(int sig, uint64_t value)
{
    (void)sig, (void)value;
    return ENOTSUP;
}
int rtg_sig_wait(const int *sigs, size_t n, uint64_t timeout_ns, int *sig, uint64_t *value)
{
    (void)sigs, (void)n, (void)timeout_ns, (void)sig, (void)value;
    return ENOTSUP;
}

/* ---- load generators (separate processes) ---- */
const char *rtg_load_name(enum rtg_load_kind kind)
{
    (void)kind;
    return "none";
}
const char *rtg_load_op_unit(enum rtg_load_kind kind, enum rtg_load_tool tool)
{
    (void)kind, (void)tool;
    return "none";
}
int rtg_load_start(struct rtg_load_set **set, enum rtg_load_kind kind, const int *cpus, size_t n,
                   const struct rtg_load_cfg *cfg)
{
    (void)set, (void)kind, (void)cpus, (void)n, (void)cfg;
    return ENOTSUP;
}
uint64_t rtg_load_ops_now(const struct rtg_load_set *set)
{
    (void)set;
    return 0;
}
int rtg_load_stop(struct rtg_load_set *set, uint64_t *ops, bool *known)
{
    (void)set;
    *ops = 0;
    *known = false;
    return ENOTSUP;
}
bool rtg_load_tool_present(enum rtg_load_tool tool)
{
    (void)tool;
    return false;
}
const char *rtg_load_tool_name(enum rtg_load_tool tool)
{
    (void)tool;
    return "none";
}
int rtg_scratch_create(char *path, size_t n)
{
    (void)path, (void)n;
    return ENOTSUP;
}
int rtg_scratch_remove(const char *path)
{
    (void)path;
    return ENOTSUP;
}
