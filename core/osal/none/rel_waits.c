/* Relative waits through POSIX calls (nanosleep, select, ppoll): what a
 * port without POSIX does not offer (docs/porting.md): every call returns
 * ENOTSUP (or nothing), never a made-up success; rtg_osal_offers() of
 * the port says so and the runner skips the tests that need it. Shared by
 * the ports without it (c11, freertos). */
#include <errno.h>

#include "rtg/osal_timer.h"

int rtg_nanosleep_rel(uint64_t ns)
{
    (void)ns;
    return ENOTSUP;
}
int rtg_select_rel(uint64_t ns) { return rtg_nanosleep_rel(ns); }
int rtg_ppoll_rel(uint64_t ns) { return rtg_nanosleep_rel(ns); }
