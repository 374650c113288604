/* One runner drives every test: check, save, set up, run in a child
 * process under the watchdog, collect, restore. A child that hangs, spins
 * or crashes costs one error record, never the run. */
#define _GNU_SOURCE
#include "rtg_private/runner.h"
#include "rtg_private/version.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "rtg/clock.h"
#include "rtg_private/ctx.h"
#include "rtg/osal.h"
#include "rtg_private/registry.h"
#include "rtg_private/sysinfo.h"

#define GRACE_NS (3ull * 1000000000ull) /* a stopped test's time to report */

static volatile sig_atomic_t parent_signal;

static void on_parent_signal(int sig)
{
    parent_signal = sig;
}

static void on_child_stop(int sig)
{
    rtg_stop_set(sig == SIGUSR1 ? 2 : 1);
}

static void install(int sig, void (*fn)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL); /* no SA_RESTART: poll must see EINTR */
}

static double bound_s(const struct rtg_ctx *ctx)
{
    if (ctx->desc->bound_s)
        return ctx->desc->bound_s(ctx);
    return 30.0 * (ctx->cfg->scale > 1 ? ctx->cfg->scale : 1);
}

struct run_state {
    const struct rtg_config *cfg;
    const struct rtg_privileges *priv;
    bool virtualized;
    bool emulated;
    FILE *out;
    bool out_failed;
};

static void write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        p += w;
        n -= (size_t)w;
    }
}

/* ---- the child: one test ---- */
static void child_main(const struct rtg_test_desc *d, const struct run_state *rs, int fd)
{
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the probe */
#endif
    install(SIGINT, on_child_stop);
    install(SIGTERM, on_child_stop);
    install(SIGUSR1, on_child_stop);
    struct rtg_ctx ctx;
    char err[256];
    if (rtg_ctx_init(&ctx, d, rs->cfg, err, sizeof err))
        _exit(2);
    ctx.virtualized = rs->virtualized;
    if (rs->priv->sched_fifo) {
        /* pthread_setschedparam, not sched_setscheduler: musl refuses the
         * latter (its process-wide meaning does not exist on Linux). */
        ctx.rt_ok = rtg_thread_set_sched(rtg_thread_self(), RTG_SCHED_FIFO, rs->cfg->prio) == 0;
    }
    if (rs->priv->mlockall)
        ctx.mlock_ok = rtg_lock_memory() == 0;
    rtg_pin_self(rs->cfg->cpus[0]);
    if (!ctx.rt_ok)
        rtg_note(&ctx, "ran without SCHED_FIFO: %s",
                 rs->cfg->no_rt ? "--no-rt given" : rs->priv->sched_fifo_reason);
    if (!ctx.mlock_ok)
        rtg_note(&ctx, "ran without mlockall: %s", rs->priv->mlockall_reason);
    if (rs->emulated)
        rtg_note(&ctx, "emulated: timings are not meaningful; behaviour verdicts are");
    else if (rs->virtualized)
        rtg_note(&ctx, "ran in a virtual machine");
    double bound = bound_s(&ctx);

    ctx.start_ns = rtg_mono_ns();
    int rc = d->run(&ctx);
    double ms = (double)(rtg_mono_ns() - ctx.start_ns) / 1e6;

    int why = rtg_stop_reason();
    enum rtg_status st = rtg_ctx_status(&ctx, rc, why == 1, why == 2);
    char reason[600];
    if (ctx.forced != RTG_ST_OK)
        snprintf(reason, sizeof reason, "%s", ctx.reason);
    else if (why == 2)
        snprintf(reason, sizeof reason,
                 "watchdog: overran its bound of %.1f s; stopped, partial results kept", bound);
    else if (why == 1)
        snprintf(reason, sizeof reason, "interrupted by a signal; partial results kept");
    else if (st == RTG_ST_ERROR && rc != 0)
        snprintf(reason, sizeof reason, "the test reported an error");
    else if (st == RTG_ST_ERROR)
        snprintf(reason, sizeof reason, "behaviour test recorded no verdict");
    else
        reason[0] = '\0';
    struct rtg_json j;
    rtg_json_init(&j);
    rtg_ctx_emit(&ctx, st, reason, ms, &j);
    if (j.failed || j.depth != 0)
        _exit(4);
    rtg_json_raw_value(&j, "\n", 1);
    write_all(fd, j.buf, j.len);
    _exit(0);
}

/* ---- the parent: watchdog and collector ---- */
struct child_outcome {
    char *buf;
    size_t len;
    int status;       /* from waitpid */
    bool killed;      /* by the watchdog, after the grace period */
    bool interrupted; /* the run was interrupted meanwhile */
};

static void append(struct child_outcome *o, size_t *cap, const char *p, size_t n)
{
    if (o->len + n + 1 > *cap) {
        size_t c = *cap ? *cap : 65536;
        while (o->len + n + 1 > c)
            c *= 2;
        char *nb = realloc(o->buf, c);
        if (!nb)
            return; /* the record will be incomplete and reported as such */
        o->buf = nb;
        *cap = c;
    }
    memcpy(o->buf + o->len, p, n);
    o->len += n;
    o->buf[o->len] = '\0';
}

/* The reader of our output went away (the host died): nobody will see
 * further results, so the run stops as if interrupted. */
static volatile sig_atomic_t output_gone;

static void watch_child(pid_t pid, int fd, int out_fd, double bound, struct child_outcome *o)
{
    size_t cap = 0;
    uint64_t deadline = rtg_mono_ns() + (uint64_t)(bound * 1e9);
    int stage = 0; /* 0 running, 1 asked to stop, 2 killed */
    bool forwarded = false;
    char chunk[65536];
    for (;;) {
        if ((parent_signal || output_gone) && !forwarded) {
            kill(pid, SIGTERM);
            forwarded = true;
            o->interrupted = true;
            uint64_t d = rtg_mono_ns() + GRACE_NS;
            if (d < deadline)
                deadline = d;
        }
        uint64_t now = rtg_mono_ns();
        if (now >= deadline) {
            if (stage == 0) {
                kill(pid, SIGUSR1);
                stage = 1;
                deadline = now + GRACE_NS;
                continue;
            }
            kill(pid, SIGKILL);
            o->killed = true;
            break;
        }
        /* events 0 on our output: only POLLERR/POLLHUP, a closed pipe */
        struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = out_fd, .events = 0}};
        int ms = (int)((deadline - now) / 1000000u) + 1;
        if (ms > 500)
            ms = 500; /* look at the output pipe now and then */
        int r = poll(p, out_fd >= 0 ? 2 : 1, ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (out_fd >= 0 && (p[1].revents & (POLLERR | POLLHUP)))
            output_gone = 1;
        if (r <= 0 || !(p[0].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* EOF: the child is done (or dead) */
        append(o, &cap, chunk, (size_t)n);
    }
    /* A child that closed its pipe but lingers is killed after the grace. */
    uint64_t until = rtg_mono_ns() + GRACE_NS;
    while (waitpid(pid, &o->status, WNOHANG) == 0) {
        if (rtg_mono_ns() > until) {
            kill(pid, SIGKILL);
            o->killed = true;
            waitpid(pid, &o->status, 0);
            break;
        }
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}

static void emit_line(struct run_state *rs, const char *buf, size_t len)
{
    if (rs->out_failed)
        return;
    if (fwrite(buf, 1, len, rs->out) != len || fflush(rs->out) != 0) {
        rs->out_failed = true;
        fprintf(stderr, "rtgauge-probe: error: writing results: %s\n", strerror(errno));
    }
}

/* A record the parent writes for a test that produced none of its own. */
static void emit_parent_record(struct run_state *rs, const struct rtg_test_desc *d,
                               enum rtg_status st, const char *reason, double ms)
{
    struct rtg_ctx ctx;
    char err[256];
    if (rtg_ctx_init(&ctx, d, rs->cfg, err, sizeof err))
        return;
    ctx.rt_ok = rs->priv->sched_fifo;
    ctx.mlock_ok = rs->priv->mlockall;
    ctx.virtualized = rs->virtualized;
    struct rtg_json j;
    rtg_json_init(&j);
    rtg_ctx_emit(&ctx, st, reason, ms, &j);
    rtg_json_raw_value(&j, "\n", 1);
    emit_line(rs, j.buf, j.len);
    rtg_json_free(&j);
    rtg_ctx_free(&ctx);
}

/* The status the child wrote: the first "status" key of the record is the
 * top-level one (id, title and kind precede it; strings are escaped). */
static enum rtg_status status_of_line(const char *line)
{
    for (int st = RTG_ST_OK; st <= RTG_ST_INTERRUPTED; st++) {
        char want[48];
        snprintf(want, sizeof want, "\"status\":\"%s\"", rtg_status_name((enum rtg_status)st));
        const char *first = strstr(line, "\"status\":");
        if (first && strncmp(first, want, strlen(want)) == 0)
            return (enum rtg_status)st;
    }
    return RTG_ST_ERROR;
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGXCPU: return "SIGXCPU";
    default: return "a signal";
    }
}

static enum rtg_status run_one(struct run_state *rs, const struct rtg_test_desc *d)
{
    struct rtg_ctx probe_ctx;
    char err[256];
    if (rtg_ctx_init(&probe_ctx, d, rs->cfg, err, sizeof err))
        return RTG_ST_ERROR;
    double bound = bound_s(&probe_ctx);
    rtg_ctx_free(&probe_ctx);

    int fds[2];
    if (pipe2(fds, O_CLOEXEC)) {
        emit_parent_record(rs, d, RTG_ST_ERROR, "cannot create a pipe for the test process", 0);
        return RTG_ST_ERROR;
    }
    fflush(rs->out);
    uint64_t t0 = rtg_mono_ns();
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        emit_parent_record(rs, d, RTG_ST_ERROR, "cannot fork the test process", 0);
        return RTG_ST_ERROR;
    }
    if (pid == 0) {
        close(fds[0]);
        child_main(d, rs, fds[1]);
    }
    close(fds[1]);
    struct child_outcome o = {0};
    watch_child(pid, fds[0], fileno(rs->out), bound, &o);
    close(fds[0]);
    double ms = (double)(rtg_mono_ns() - t0) / 1e6;

    bool complete = o.len > 0 && o.buf[o.len - 1] == '\n';
    if (complete && WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0 && !o.killed) {
        emit_line(rs, o.buf, o.len);
        enum rtg_status st = status_of_line(o.buf);
        free(o.buf);
        return st;
    }
    free(o.buf);
    char reason[256];
    if (o.killed)
        snprintf(reason, sizeof reason,
                 "watchdog: overran its bound of %.1f s and did not stop; killed", bound);
    else if (WIFSIGNALED(o.status))
        snprintf(reason, sizeof reason, "crashed (%s)", signal_name(WTERMSIG(o.status)));
    else if (WIFEXITED(o.status) && WEXITSTATUS(o.status) != 0)
        snprintf(reason, sizeof reason, "test process exited with status %d",
                 WEXITSTATUS(o.status));
    else
        snprintf(reason, sizeof reason, "test process ended without a complete result");
    enum rtg_status st = o.interrupted && !o.killed ? RTG_ST_INTERRUPTED : RTG_ST_ERROR;
    emit_parent_record(rs, d, st, reason, ms);
    return st;
}

/* Holding /dev/cpu_dma_latency at 0 keeps CPUs out of deep idle states for
 * the run, as cyclictest does; closing it restores the old setting. */
static int hold_dma_latency(void)
{
    int fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int32_t zero = 0;
    if (write(fd, &zero, sizeof zero) != sizeof zero) {
        close(fd);
        return -1;
    }
    return fd;
}

int rtg_run(struct rtg_config *cfg, int argc, char **argv, FILE *out)
{
    install(SIGINT, on_parent_signal);
    install(SIGTERM, on_parent_signal);
    signal(SIGPIPE, SIG_IGN);
    uint64_t t_start = rtg_mono_ns();

    rtg_clock_init(cfg->posix_clock);
    struct rtg_privileges priv;
    rtg_privileges_probe(cfg, &priv);
    int dma_fd = hold_dma_latency();
    priv.cpu_dma_latency = dma_fd >= 0;
    struct run_state rs = {.cfg = cfg, .priv = &priv, .virtualized = rtg_sys_virtualized(),
                          .emulated = rtg_sys_emulated(), .out = out};

    struct rtg_json j;
    rtg_json_init(&j);
    rtg_sysinfo_emit(&j, argc, argv, cfg, &priv);
    rtg_json_raw_value(&j, "\n", 1);
    emit_line(&rs, j.buf, j.len);

    /* The watchdog outranks every test thread; children start SCHED_OTHER. */
    if (priv.sched_fifo) {
#if defined(__linux__) && defined(SCHED_RESET_ON_FORK)
        struct sched_param sp = {.sched_priority = rtg_prio_max(RTG_SCHED_FIFO)};
        if (syscall(SYS_sched_setscheduler, 0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) != 0)
#endif
            rtg_thread_set_sched(rtg_thread_self(), RTG_SCHED_FIFO, rtg_prio_max(RTG_SCHED_FIFO));
    }

    int counts[RTG_ST_INTERRUPTED + 1] = {0};
    size_t ran = 0;
    for (size_t i = 0; i < cfg->n_selected && !parent_signal && !output_gone && !rs.out_failed;
         i++) {
        const struct rtg_test_desc *d = rtg_registry[cfg->selected[i]];
        enum rtg_status st;
        const char *why_not = rtg_test_unavailable(d);
        if (why_not) {
            st = RTG_ST_SKIPPED;
            emit_parent_record(&rs, d, st, why_not, 0);
        } else {
            st = run_one(&rs, d);
        }
        counts[st]++;
        ran++;
    }
    rtg_thread_set_sched(rtg_thread_self(), RTG_SCHED_OTHER, 0);
    if (dma_fd >= 0)
        close(dma_fd);

    bool interrupted = parent_signal != 0 || output_gone || counts[RTG_ST_INTERRUPTED] > 0;
    int code = 0;
    if (counts[RTG_ST_FAIL])
        code = 1;
    if (counts[RTG_ST_ERROR] || interrupted || rs.out_failed)
        code = 3;
    rtg_json_reset(&j);
    rtg_json_obj_begin(&j);
    rtg_json_kstr(&j, "record", "end");
    rtg_json_kint(&j, "schema_version", RTG_SCHEMA_VERSION);
    rtg_json_kstr(&j, "status", interrupted ? "interrupted" : "complete");
    rtg_json_kint(&j, "tests", (int64_t)ran);
    rtg_json_kint(&j, "passed", counts[RTG_ST_PASS] + counts[RTG_ST_OK]);
    rtg_json_kint(&j, "failed", counts[RTG_ST_FAIL]);
    rtg_json_kint(&j, "errors", counts[RTG_ST_ERROR]);
    rtg_json_kint(&j, "skipped", counts[RTG_ST_SKIPPED]);
    rtg_json_kint(&j, "interrupted", counts[RTG_ST_INTERRUPTED]);
    rtg_json_kint(&j, "exit_code", code);
    rtg_json_knum(&j, "elapsed_ms", (double)((rtg_mono_ns() - t_start) / 1000000u));
    rtg_json_obj_end(&j);
    rtg_json_raw_value(&j, "\n", 1);
    emit_line(&rs, j.buf, j.len);
    rtg_json_free(&j);
    return code;
}
