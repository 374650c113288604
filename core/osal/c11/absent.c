/* What ISO C11 does not offer: the OSAL topics for processes, message
 * queues, signals, timers, fresh pages, named semaphores and load
 * generators. rtg_osal_offers() says so, and the runner skips the tests
 * that declare they need them; a test that reaches one of these anyway
 * gets ENOTSUP, never a made-up success. */
#include <errno.h>
#include <stdio.h>

#include "rtg/load.h"
#include "rtg/osal.h"
#include "rtg/osal_mem.h"
#include "rtg/osal_msg.h"
#include "rtg/osal_named.h"
#include "rtg/osal_proc.h"
#include "rtg/osal_sig.h"
#include "rtg/osal_timer.h"

unsigned rtg_osal_offers(void) { return 0; }

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

/* ---- message channels and peers ---- */
const char *rtg_msg_mech_name(enum rtg_msg_mech m)
{
    (void)m;
    return "none";
}
int rtg_msg_open(struct rtg_msg_chan **c, enum rtg_msg_mech mech, size_t msg_size,
                 size_t capacity, bool want_prio, struct rtg_msg_caps *caps)
{
    (void)c, (void)mech, (void)msg_size, (void)capacity, (void)want_prio, (void)caps;
    return ENOTSUP;
}
const struct rtg_msg_caps *rtg_msg_caps(const struct rtg_msg_chan *c)
{
    (void)c;
    return NULL;
}
int rtg_msg_send(struct rtg_msg_chan *c, const void *buf, size_t len, unsigned prio)
{
    (void)c, (void)buf, (void)len, (void)prio;
    return ENOTSUP;
}
int rtg_msg_send_try(struct rtg_msg_chan *c, const void *buf, size_t len, unsigned prio)
{
    return rtg_msg_send(c, buf, len, prio);
}
int rtg_msg_recv(struct rtg_msg_chan *c, void *buf, size_t cap, size_t *len, unsigned *prio)
{
    (void)c, (void)buf, (void)cap, (void)len, (void)prio;
    return ENOTSUP;
}
int rtg_msg_recv_try(struct rtg_msg_chan *c, void *buf, size_t cap, size_t *len, unsigned *prio)
{
    return rtg_msg_recv(c, buf, cap, len, prio);
}
void rtg_msg_set_wait_ns(struct rtg_msg_chan *c, uint64_t ns) { (void)c, (void)ns; }
void rtg_msg_abort(struct rtg_msg_chan *c) { (void)c; }
void rtg_msg_close(struct rtg_msg_chan *c) { (void)c; }
int rtg_msg_sweep(int *removed)
{
    *removed = 0;
    return 0;
}
int rtg_peer_start(struct rtg_peer *p, bool process, const struct rtg_thread_attr *attr,
                   rtg_thread_fn fn, void *arg)
{
    (void)p, (void)process, (void)attr, (void)fn, (void)arg;
    return ENOTSUP;
}
int rtg_peer_wait(struct rtg_peer *p, uint64_t deadline_ns)
{
    (void)p, (void)deadline_ns;
    return ENOTSUP;
}
int rtg_peer_kill(struct rtg_peer *p)
{
    (void)p;
    return ENOTSUP;
}
void *rtg_shared_alloc(size_t len)
{
    (void)len;
    return NULL;
}
void rtg_shared_free(void *p, size_t len) { (void)p, (void)len; }

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

/* ---- timers ---- */
int rtg_timer_create(struct rtg_timer **t, enum rtg_timer_mode mode, void (*fn)(void *arg),
                     void *arg)
{
    (void)mode, (void)fn, (void)arg;
    *t = NULL;
    return ENOTSUP;
}
int rtg_timer_arm(struct rtg_timer *t, uint64_t first_abs_ns, uint64_t period_ns)
{
    (void)t, (void)first_abs_ns, (void)period_ns;
    return ENOTSUP;
}
int rtg_timer_wait(struct rtg_timer *t, uint64_t *expirations)
{
    (void)t, (void)expirations;
    return ENOTSUP;
}
int rtg_timer_overrun(struct rtg_timer *t)
{
    (void)t;
    return 0;
}
void rtg_timer_delete(struct rtg_timer *t) { (void)t; }
int rtg_nanosleep_rel(uint64_t ns)
{
    (void)ns;
    return ENOTSUP;
}
int rtg_select_rel(uint64_t ns) { return rtg_nanosleep_rel(ns); }
int rtg_ppoll_rel(uint64_t ns) { return rtg_nanosleep_rel(ns); }
bool rtg_timerlat_available(char *why, size_t n)
{
    snprintf(why, n, "no kernel tracer in the c11 OSAL");
    return false;
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
