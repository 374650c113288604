/* Isolation on POSIX (rtg/osal_isolate.h): each test runs in a child
 * process, the parent is its watchdog and collector. A child that hangs,
 * spins or crashes costs one error record, never the run. The stop
 * request is SIGUSR1 (overran) or SIGTERM (interrupted); SIGKILL follows
 * RTG_ISOLATE_GRACE_S later. */
#define _GNU_SOURCE
#include "rtg/osal_isolate.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "posix_os.h"
#include "rtg/osal.h"

#define GRACE_NS ((uint64_t)(RTG_ISOLATE_GRACE_S * 1e9)) /* a stopped test's time to report */

static volatile sig_atomic_t parent_signal;
/* The reader of our output went away (the host died): nobody will see
 * further results, so the run stops as if interrupted. */
static volatile sig_atomic_t output_gone;
static int out_fd = -1;
static int dma_fd = -1;

static void on_parent_signal(int sig)
{
    parent_signal = sig;
}

static void on_child_stop(int sig)
{
    rtg_stop_set(sig == SIGUSR1 ? RTG_STOP_OVERRAN : RTG_STOP_INTERRUPTED);
}

static void install(int sig, void (*fn)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL); /* no SA_RESTART: poll must see EINTR */
}

int rtg_isolate_begin(struct rtg_isolate_run *run, FILE *out, bool rt)
{
    memset(run, 0, sizeof *run);
    install(SIGINT, on_parent_signal);
    install(SIGTERM, on_parent_signal);
    signal(SIGPIPE, SIG_IGN);
    out_fd = out ? fileno(out) : -1;
    dma_fd = rtg_px_hold_dma_latency();
    run->cpu_dma_latency = dma_fd >= 0;
    /* The watchdog outranks every test thread; children start SCHED_OTHER. */
    if (rt) {
#if defined(__linux__) && defined(SCHED_RESET_ON_FORK)
        struct sched_param sp = {.sched_priority = rtg_prio_max(RTG_SCHED_FIFO)};
        if (syscall(SYS_sched_setscheduler, 0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) == 0)
            run->watchdog_rt = true;
        else
#endif
            run->watchdog_rt = rtg_thread_set_sched(rtg_thread_self(), RTG_SCHED_FIFO,
                                                    rtg_prio_max(RTG_SCHED_FIFO)) == 0;
    }
    return 0;
}

void rtg_isolate_end(struct rtg_isolate_run *run)
{
    if (run->watchdog_rt)
        rtg_thread_set_sched(rtg_thread_self(), RTG_SCHED_OTHER, 0);
    run->watchdog_rt = false;
    if (dma_fd >= 0)
        close(dma_fd);
    dma_fd = -1;
    run->cpu_dma_latency = false;
}

/* Nothing only this port knows: the end record is the runner's alone. */
void rtg_isolate_end_record(struct rtg_json *j) { (void)j; }

bool rtg_isolate_interrupted(void)
{
    return parent_signal != 0 || output_gone != 0;
}

/* ---- the child: one test ---- */
struct rtg_isolate_channel {
    int fd;
};

int rtg_isolate_write(struct rtg_isolate_channel *ch, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(ch->fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int rtg_isolate_give(struct rtg_isolate_channel *ch, char *buf, size_t len)
{
    int rc = rtg_isolate_write(ch, buf, len);
    free(buf);
    return rc;
}

static void child_main(const struct rtg_isolated_test *t, int fd)
{
    rtg_px_die_with_parent(); /* never outlive the probe */
    install(SIGINT, on_child_stop);
    install(SIGTERM, on_child_stop);
    install(SIGUSR1, on_child_stop);
    struct rtg_isolate_channel ch = {.fd = fd};
    _exit(t->body(t->arg, &ch) & 0xff);
}

/* ---- the parent: watchdog and collector ---- */
struct collected {
    int status;  /* from waitpid */
    bool killed; /* by the watchdog, after the grace period */
    size_t cap;
};

/* waitpid as an ordinary task. Reaping a child invalidates its /proc
 * entries (release_task), and the kernel retries that until no other task
 * holds one: a real-time reaper that spins there keeps the holder, an
 * ordinary task reading /proc/<child>/, off its CPU. Seen on this
 * project's VM: the runner at SCHED_FIFO looped in shrink_dcache_parent for
 * twenty minutes, and let go once it ran SCHED_OTHER. */
static pid_t reap_ordinary(pid_t pid, int *status, int options)
{
    int policy;
    struct sched_param was;
    bool rt = pthread_getschedparam(pthread_self(), &policy, &was) == 0 && policy != SCHED_OTHER;
    struct sched_param zero = {.sched_priority = 0};
    if (rt)
        pthread_setschedparam(pthread_self(), SCHED_OTHER, &zero);
    pid_t r = waitpid(pid, status, options);
    if (rt)
        pthread_setschedparam(pthread_self(), policy, &was);
    return r;
}

static void append(struct rtg_isolated_outcome *o, size_t *cap, const char *p, size_t n)
{
    if (o->len + n + 1 > *cap) {
        size_t c = *cap ? *cap : 65536;
        while (o->len + n + 1 > c)
            c *= 2;
        char *nb = realloc(o->record, c);
        if (!nb)
            return; /* the record will be incomplete and reported as such */
        o->record = nb;
        *cap = c;
    }
    memcpy(o->record + o->len, p, n);
    o->len += n;
    o->record[o->len] = '\0';
}

static void watch_child(pid_t pid, int fd, double bound, struct rtg_isolated_outcome *o,
                        struct collected *c)
{
    uint64_t deadline = rtg_mono_ns() + (uint64_t)(bound * 1e9);
    int stage = 0; /* 0 running, 1 asked to stop, 2 killed */
    bool forwarded = false;
    char chunk[65536];
    for (;;) {
        if (rtg_isolate_interrupted() && !forwarded) {
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
            c->killed = true;
            break;
        }
        /* events 0 on our output: only POLLERR/POLLHUP, a closed pipe. The
         * watchdog sleeps until the child writes, the output closes, a
         * signal or the deadline: it runs at the highest priority, and a
         * wake-up of its own on a measured CPU would be in the figures. */
        struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = out_fd, .events = 0}};
        uint64_t left_ms = (deadline - now) / 1000000u + 1;
        int ms = left_ms > INT_MAX ? INT_MAX : (int)left_ms;
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
        append(o, &c->cap, chunk, (size_t)n);
    }
    /* A child that closed its pipe but lingers is killed after the grace. */
    uint64_t until = rtg_mono_ns() + GRACE_NS;
    while (reap_ordinary(pid, &c->status, WNOHANG) == 0) {
        if (rtg_mono_ns() > until) {
            kill(pid, SIGKILL);
            c->killed = true;
            reap_ordinary(pid, &c->status, 0);
            break;
        }
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
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

int rtg_isolate_run(const struct rtg_isolated_test *t, double bound_s,
                    struct rtg_isolated_outcome *o)
{
    memset(o, 0, sizeof *o);
    int fds[2];
    if (pipe2(fds, O_CLOEXEC)) {
        o->end = RTG_ISO_NOT_STARTED;
        snprintf(o->fault, sizeof o->fault, "cannot create a pipe for the test process");
        return 0;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        o->end = RTG_ISO_NOT_STARTED;
        snprintf(o->fault, sizeof o->fault, "cannot fork the test process");
        return 0;
    }
    if (pid == 0) {
        close(fds[0]);
        child_main(t, fds[1]);
    }
    close(fds[1]);
    struct collected c = {0};
    watch_child(pid, fds[0], bound_s, o, &c);
    close(fds[0]);

    if (c.killed)
        o->end = RTG_ISO_OVERRAN;
    else if (WIFSIGNALED(c.status)) {
        o->end = RTG_ISO_CRASHED;
        snprintf(o->fault, sizeof o->fault, "%s", signal_name(WTERMSIG(c.status)));
    } else if (WIFEXITED(c.status) && WEXITSTATUS(c.status) != 0) {
        o->end = RTG_ISO_EXITED;
        o->status = WEXITSTATUS(c.status);
    } else {
        o->end = RTG_ISO_COMPLETED;
    }
    return 0;
}
