/* OSAL topic: signals a test sends to its own process and waits for
 * synchronously (SIG). Signals are named by the OS layer: rtg_sig_rt(i) is
 * the i-th real-time signal (SIGRTMIN + i on POSIX), rtg_sig_std(i) one of
 * two standard signals the probe's runner does not use (negative controls:
 * standard signals do not queue). All calls return 0 or an errno value. */
#ifndef RTG_OSAL_SIG_H
#define RTG_OSAL_SIG_H
#include <stddef.h>
#include <stdint.h>

/* The signal number, or -1 when there is no such signal. */
int rtg_sig_rt(int i);
int rtg_sig_rt_count(void);
int rtg_sig_std(int i); /* i = 0, 1 */
/* Blocks (or unblocks) the signals in the calling thread; threads created
 * afterwards inherit the mask. Block before creating threads so that a
 * signal can only be taken by a waiting thread. */
int rtg_sig_block(const int *sigs, size_t n);
int rtg_sig_unblock(const int *sigs, size_t n);
/* Queues sig with value to this process (sigqueue). EAGAIN when the
 * queue limit (RLIMIT_SIGPENDING) is reached. */
int rtg_sig_send(int sig, uint64_t value);
/* Waits for one of sigs (blocked) for at most timeout_ns (0: just look):
 * sigtimedwait. EAGAIN when none came, EINTR when another signal did. */
int rtg_sig_wait(const int *sigs, size_t n, uint64_t timeout_ns, int *sig, uint64_t *value);

#endif
