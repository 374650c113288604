/* Queued signals: a topic this port does not offer (docs/porting.md): every call returns
 * ENOTSUP (or nothing), never a made-up success; rtg_osal_offers() of
 * the port says so and the runner skips the tests that need it. Shared by
 * the ports without it (c11, freertos). */
#include <errno.h>

#include "rtg/osal_sig.h"

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
