/* No deadline scheduler on a POSIX system other than Linux: the offers
 * bit is clear and every call says ENOTSUP. */
#include <errno.h>

#include "../posix_os.h"
#include "rtg/osal_deadline.h"

int rtg_px_has_deadline(void) { return 0; }
int rtg_deadline_set_self(const struct rtg_deadline_params *p, uint64_t *called_ns)
{
    (void)p, (void)called_ns;
    return ENOTSUP;
}
int rtg_deadline_clear_self(void) { return ENOTSUP; }
int rtg_deadline_yield(void) { return ENOTSUP; }
int rtg_deadline_bandwidth(int *cpus, double *share)
{
    (void)cpus, (void)share;
    return ENOTSUP;
}
