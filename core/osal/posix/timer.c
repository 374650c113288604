/* POSIX timers (signal wait or handler), timerfd, relative sleeps by
 * nanosleep / select / ppoll. (The timerlat check is Linux's: core/osal/linux.) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/timerfd.h>
#endif

#include "rtg/osal.h"
#include "rtg/osal_timer.h"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

#define SIG_WAIT_NO (SIGRTMIN + 2)
#define SIG_HANDLER_NO (SIGRTMIN + 3)

struct rtg_timer {
    enum rtg_timer_mode mode;
    timer_t id;
    int fd;
    sigset_t set;
    void (*fn)(void *);
    void *arg;
};

static struct timespec to_ts(uint64_t ns)
{
    struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u)};
    return ts;
}

static void on_timer_signal(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    struct rtg_timer *t = si->si_value.sival_ptr;
    if (t && t->fn)
        t->fn(t->arg);
}

int rtg_timer_create(struct rtg_timer **out, enum rtg_timer_mode mode, void (*fn)(void *), void *arg)
{
#ifndef __linux__
    (void)out; (void)mode; (void)fn; (void)arg;
    return ENOTSUP;
#else
    struct rtg_timer *t = calloc(1, sizeof *t);
    if (!t)
        return ENOMEM;
    t->mode = mode;
    t->fn = fn;
    t->arg = arg;
    t->fd = -1;
    if (mode == RTG_TIMER_FD) {
        t->fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
        if (t->fd < 0) {
            int e = errno;
            free(t);
            return e;
        }
        *out = t;
        return 0;
    }
    int sig = mode == RTG_TIMER_SIGWAIT ? SIG_WAIT_NO : SIG_HANDLER_NO;
    sigemptyset(&t->set);
    sigaddset(&t->set, sig);
    if (mode == RTG_TIMER_SIGWAIT) {
        pthread_sigmask(SIG_BLOCK, &t->set, NULL);
    } else {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_timer_signal;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        if (sigaction(sig, &sa, NULL)) {
            int e = errno;
            free(t);
            return e;
        }
        pthread_sigmask(SIG_UNBLOCK, &t->set, NULL);
    }
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = sig;
    ev.sigev_value.sival_ptr = t;
    ev.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
    if (timer_create(CLOCK_MONOTONIC, &ev, &t->id)) {
        int e = errno;
        free(t);
        return e;
    }
    *out = t;
    return 0;
#endif
}

int rtg_timer_arm(struct rtg_timer *t, uint64_t first_abs_ns, uint64_t period_ns)
{
#ifdef __linux__
    struct itimerspec its = {.it_interval = to_ts(period_ns), .it_value = to_ts(first_abs_ns)};
    if (t->mode == RTG_TIMER_FD)
        return timerfd_settime(t->fd, TFD_TIMER_ABSTIME, &its, NULL) ? errno : 0;
    return timer_settime(t->id, TIMER_ABSTIME, &its, NULL) ? errno : 0;
#else
    (void)t; (void)first_abs_ns; (void)period_ns;
    return ENOTSUP;
#endif
}

/* The kernel expires the timer at the absolute times it was given: the
 * arming's own path is before them, unless it outlasted the lead, which
 * armed_ns (read once timer_settime has returned) shows. */
int rtg_timer_arm_plan(struct rtg_timer *t, uint64_t first_abs_ns, uint64_t period_ns,
                       struct rtg_timer_plan *plan)
{
    if (period_ns == 0)
        return EINVAL;
    int rc = rtg_timer_arm(t, first_abs_ns, period_ns);
    if (rc)
        return rc;
    plan->first_ns = first_abs_ns;
    plan->period_ns = period_ns;
    plan->armed_ns = rtg_mono_ns();
    return 0;
}

uint64_t rtg_timer_stamp(void) { return rtg_mono_ns(); }
uint64_t rtg_timer_entry_stamp(void) { return rtg_mono_ns(); }
uint64_t rtg_timer_stamp_ns(uint64_t stamp) { return stamp; }

int rtg_timer_wait(struct rtg_timer *t, uint64_t *expirations)
{
    if (t->mode == RTG_TIMER_FD) {
        uint64_t n = 0;
        ssize_t r = read(t->fd, &n, sizeof n);
        if (r < 0)
            return errno;
        if (r != sizeof n)
            return EIO;
        *expirations = n;
        return 0;
    }
    if (t->mode != RTG_TIMER_SIGWAIT)
        return EINVAL;
    siginfo_t si;
    int s = sigwaitinfo(&t->set, &si);
    if (s < 0)
        return errno;
    int ov = si.si_overrun;
    *expirations = 1 + (uint64_t)(ov > 0 ? ov : 0);
    return 0;
}

int rtg_timer_overrun(struct rtg_timer *t)
{
    int ov = timer_getoverrun(t->id);
    return ov > 0 ? ov : 0;
}

void rtg_timer_delete(struct rtg_timer *t)
{
    if (!t)
        return;
    if (t->mode == RTG_TIMER_FD) {
        close(t->fd);
    } else {
        timer_delete(t->id);
        if (t->mode == RTG_TIMER_SIGWAIT) {
            /* drop a pending expiry so it cannot fire later */
            struct timespec zero = {0, 0};
            while (sigtimedwait(&t->set, NULL, &zero) > 0)
                ;
        }
    }
    free(t);
}

int rtg_nanosleep_rel(uint64_t ns)
{
    struct timespec ts = to_ts(ns);
    return nanosleep(&ts, NULL) ? errno : 0;
}

int rtg_select_rel(uint64_t ns)
{
    uint64_t us = (ns + 999) / 1000;
    struct timeval tv = {.tv_sec = (time_t)(us / 1000000u), .tv_usec = (suseconds_t)(us % 1000000u)};
    return select(0, NULL, NULL, NULL, &tv) < 0 ? errno : 0;
}

int rtg_ppoll_rel(uint64_t ns)
{
    struct timespec ts = to_ts(ns);
    return ppoll(NULL, 0, &ts, NULL) < 0 ? errno : 0;
}

/* A HANDLER timer's fn is the signal handler of a POSIX timer. */
const char *rtg_timer_handler_context(void) { return "signal_handler"; }
