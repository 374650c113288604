/* Signals to the own process, taken synchronously (rtg/osal_sig.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rtg/osal_sig.h"

int rtg_sig_rt(int i)
{
#ifdef SIGRTMIN
    if (i < 0 || SIGRTMIN + i > SIGRTMAX)
        return -1;
    return SIGRTMIN + i;
#else
    (void)i;
    return -1;
#endif
}

int rtg_sig_rt_count(void)
{
#ifdef SIGRTMIN
    return SIGRTMAX - SIGRTMIN + 1;
#else
    return 0;
#endif
}

int rtg_sig_std(int i)
{
    /* The runner owns SIGINT, SIGTERM and SIGUSR1. */
    return i == 0 ? SIGUSR2 : i == 1 ? SIGWINCH : -1;
}

static int make_set(sigset_t *set, const int *sigs, size_t n)
{
    sigemptyset(set);
    for (size_t i = 0; i < n; i++)
        if (sigaddset(set, sigs[i]))
            return EINVAL;
    return 0;
}

int rtg_sig_block(const int *sigs, size_t n)
{
    sigset_t set;
    int rc = make_set(&set, sigs, n);
    return rc ? rc : pthread_sigmask(SIG_BLOCK, &set, NULL);
}

int rtg_sig_unblock(const int *sigs, size_t n)
{
    sigset_t set;
    int rc = make_set(&set, sigs, n);
    return rc ? rc : pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

int rtg_sig_send(int sig, uint64_t value)
{
    union sigval v;
    memset(&v, 0, sizeof v);
    v.sival_ptr = (void *)(uintptr_t)value;
    return sigqueue(getpid(), sig, v) ? errno : 0;
}

int rtg_sig_wait(const int *sigs, size_t n, uint64_t timeout_ns, int *sig, uint64_t *value)
{
    sigset_t set;
    int rc = make_set(&set, sigs, n);
    if (rc)
        return rc;
    struct timespec ts = {.tv_sec = (time_t)(timeout_ns / 1000000000u),
                          .tv_nsec = (long)(timeout_ns % 1000000000u)};
    siginfo_t si;
    int s = sigtimedwait(&set, &si, &ts);
    if (s < 0)
        return errno;
    if (sig)
        *sig = s;
    if (value)
        *value = si.si_code == SI_QUEUE ? (uint64_t)(uintptr_t)si.si_value.sival_ptr : 0;
    return 0;
}
