/* PRC-P-NEW: process creation and deletion by fork, vfork + exec,
 * posix_spawn and (Linux) clone with the lightest flags. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg/osal_proc.h"
#include "rtg/test.h"
#include "common/catalogue.h"

#define CLONE_STACK RTG_TEST_STACK

enum scenario { SC_FORK, SC_FORK_EXIT, SC_VFORK_EXEC, SC_SPAWN, SC_CLONE, SC_N };

struct prc_run {
    struct rtg_ctx *ctx;
    struct rtg_proc_child *child; /* shared memory */
    void *stack;
    const char *helper;
    char *argv[2];
    int pipe_fd[2]; /* the helper's stdin: it ends when the probe does */
    struct rtg_metric *create[SC_N], *del[SC_N];
    int lost; /* children whose first instruction was never seen */
};

/* Lets the new child run until it blocks: same priority and CPU, so a
 * yield hands it the CPU; without SCHED_FIFO, sleep instead. */
static void let_child_run(const struct rtg_ctx *ctx)
{
    if (rtg_rt_ok(ctx))
        rtg_thread_yield();
    rtg_sleep_ns(rtg_rt_ok(ctx) ? 200 * NS_PER_US : 2 * NS_PER_MS);
}

static bool wait_first(const struct prc_run *r)
{
    for (int i = 0; i < 1000 && !r->child->first; i++)
        rtg_sleep_ns(NS_PER_MS);
    return r->child->first != 0;
}

static int one(struct prc_run *r, enum scenario sc)
{
    int pid = -1, rc = 0;
    struct rtg_proc_child *c = r->child;
    c->first = c->last = 0;
    c->block = sc != SC_FORK_EXIT;
    uint64_t a = rtg_clock_ticks();
    switch (sc) {
    case SC_FORK:
    case SC_FORK_EXIT: rc = rtg_proc_fork(&pid, c); break;
    case SC_CLONE: rc = rtg_proc_clone(&pid, c, r->stack, CLONE_STACK); break;
    case SC_VFORK_EXEC: rc = rtg_proc_vfork_exec(&pid, r->helper, r->argv, r->pipe_fd[0]); break;
    case SC_SPAWN: rc = rtg_proc_spawn(&pid, r->helper, r->argv, r->pipe_fd[0]); break;
    default: rc = EINVAL;
    }
    uint64_t b = rtg_clock_ticks();
    if (rc)
        return rc;
    uint64_t at = rtg_test_elapsed_ns(r->ctx);
    if (sc == SC_FORK_EXIT) {
        /* fork + exit + wait: the parent waits at once, the child stamps
         * and exits; exit call -> reaped. */
        int st;
        rc = rtg_proc_reap(pid, &st);
        uint64_t e = rtg_clock_ticks();
        if (rc)
            return rc;
        if (!c->first) {
            r->lost++;
            return 0;
        }
        if (r->create[sc]) {
            rtg_metric_ticks(r->create[sc], a, c->first, rtg_clock_delta_ns(a, c->first), at);
            rtg_metric_ticks(r->del[sc], c->last, e, rtg_clock_delta_ns(c->last, e), at);
        }
        return 0;
    }
    let_child_run(r->ctx);
    bool seen = true;
    if (sc == SC_FORK || sc == SC_CLONE)
        seen = wait_first(r);
    uint64_t k = rtg_clock_ticks();
    int krc = rtg_proc_kill(pid);
    int st;
    rc = rtg_proc_reap(pid, &st);
    uint64_t e = rtg_clock_ticks();
    if (krc || rc)
        return krc ? krc : rc;
    if (!seen) {
        r->lost++;
        return 0;
    }
    uint64_t created = (sc == SC_FORK || sc == SC_CLONE) ? c->first : b;
    if (r->create[sc]) { /* NULL: the unmeasured first round */
        rtg_metric_ticks(r->create[sc], a, created, rtg_clock_delta_ns(a, created), at);
        rtg_metric_ticks(r->del[sc], k, e, rtg_clock_delta_ns(k, e), at);
    }
    return 0;
}

static const char *find_helper(void)
{
    static const char *const paths[] = {"/bin/cat", "/usr/bin/cat"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        if (rtg_proc_executable(paths[i]))
            return paths[i];
    return NULL;
}

static int prc_run(struct rtg_ctx *ctx)
{
    if (!rtg_rt_ok(ctx))
        rtg_note(ctx, "ran SCHED_OTHER: the children were given the CPU by sleeping 2 ms");
    static const char *const conds[SC_N] = {"fork", "fork_exit", "vfork_exec", "posix_spawn",
                                            "clone"};
    int64_t loops = rtg_opt_int(ctx, "loops");
    int64_t exec_loops = rtg_opt_int(ctx, "exec_loops");
    struct prc_run r = {.ctx = ctx, .pipe_fd = {-1, -1}};
    r.helper = find_helper();
    r.argv[0] = "cat";
    r.argv[1] = NULL;
    if (r.helper) {
        int prc = rtg_proc_pipe(r.pipe_fd);
        if (prc)
            return rtg_fail_error(ctx, "pipe: %s", strerror(prc));
    }
    r.child = rtg_shared_alloc(sizeof *r.child);
    r.stack = rtg_shared_alloc(CLONE_STACK);
    if (!r.child || !r.stack) {
        rtg_shared_free(r.child, sizeof *r.child);
        rtg_shared_free(r.stack, CLONE_STACK);
        rtg_proc_close(r.pipe_fd[0]);
        rtg_proc_close(r.pipe_fd[1]);
        return rtg_fail_error(ctx, "cannot map shared memory");
    }
    bool run[SC_N] = {true, true, r.helper != NULL, r.helper != NULL, true};
#ifndef __linux__
    run[SC_CLONE] = false;
#endif
    struct rtg_json *info = rtg_info(ctx);
    int rc = 0;
    bool oom = false;
    enum scenario bad = SC_FORK;
    for (int sc = 0; sc < SC_N && !rc && !oom; sc++) {
        if (!run[sc])
            continue;
        /* One unmeasured round first (first-touch costs; and whether the
         * way works here at all: qemu-user refuses clone with CLONE_VM
         * but without CLONE_THREAD). */
        rc = one(&r, (enum scenario)sc);
        if (rc && sc == SC_CLONE && (rc == EINVAL || rc == ENOSYS || rc == ENOTSUP)) {
            rtg_note(ctx, "clone(CLONE_VM|SIGCHLD) refused here (%s): no clone figures",
                     strerror(rc));
            rc = 0;
            continue;
        }
        if (rc) {
            bad = (enum scenario)sc;
            break;
        }
        r.create[sc] = rtg_metric_new(ctx, "proc.create.%s", conds[sc]);
        r.del[sc] = rtg_metric_new(ctx, "proc.%s.%s", sc == SC_FORK_EXIT ? "exit" : "delete",
                                   conds[sc]);
        if (!r.create[sc] || !r.del[sc]) {
            oom = true;
            break;
        }
        rtg_metric_explain_call(ctx, r.create[sc]);
        rtg_metric_explain_call(ctx, r.del[sc]);
        int64_t n = (sc == SC_VFORK_EXEC || sc == SC_SPAWN) ? exec_loops : loops;
        for (int64_t i = 0; i < n && !rc && !rtg_stop_requested(); i++) {
            rc = one(&r, (enum scenario)sc);
            if (rc)
                bad = (enum scenario)sc;
        }
    }
    rtg_shared_free(r.child, sizeof *r.child);
    rtg_shared_free(r.stack, CLONE_STACK);
    rtg_proc_close(r.pipe_fd[0]);
    rtg_proc_close(r.pipe_fd[1]);
    rtg_json_kstr(info, "helper", r.helper ? r.helper : "none found");
    rtg_json_kstr(info, "helper_argv",
                  "cat, stdin a pipe held open by the test: it blocks in read until killed, "
                  "and ends by itself if the probe dies");
    rtg_json_kstr(info, "clone_flags", "CLONE_VM|SIGCHLD");
    rtg_json_kint(info, "children_not_seen", r.lost);
    if (!r.helper)
        rtg_note(ctx, "no /bin/cat or /usr/bin/cat: vfork_exec and posix_spawn not run");
    if (oom)
        return rtg_fail_error(ctx, "out of memory");
    if (rc)
        return rtg_fail_error(ctx, "%s: %s", conds[bad], strerror(rc));
    if (r.lost)
        rtg_note(ctx, "%d children never reported their first instruction", r.lost);
    return 0;
}

static double prc_bound(const struct rtg_ctx *ctx)
{
    return 15.0 + (double)rtg_opt_int(ctx, "loops") * 3 * 2e-3 +
           (double)rtg_opt_int(ctx, "exec_loops") * 2 * 1e-2;
}

static const struct rtg_option prc_options[] = {
    {"loops", RTG_OPT_INT, 300, 50, 5, 100000, NULL, RTG_OPT_SCALED,
     "processes per fork and clone scenario"},
    {"exec_loops", RTG_OPT_INT, 150, 30, 5, 100000, NULL, RTG_OPT_SCALED,
     "processes per vfork+exec and posix_spawn scenario"},
};

const struct rtg_test_desc rtg_test_prc_p_new = {
    .id = "PRC-P-NEW",
    .source = __FILE__,
    .recorded = true, /* its calls' worst samples are explained */
    .needs = RTG_OFFERS_PROCESSES,
    .title = "Process creation and deletion (fork, vfork+exec, posix_spawn, clone)",
    .kind = 'P',
    .options = RTG_OPTIONS(prc_options),
    .run = prc_run,
    .bound_s = prc_bound,
};
