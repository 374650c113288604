/* The flight recorder is not offered (rtg/osal_trace.h): a port without a
 * tracer of its own says so, and its tests run unexplained. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rtg/osal_trace.h"

int rtg_trace_open(struct rtg_trace **out, const struct rtg_trace_config *cfg, char *why,
                   size_t n)
{
    (void)cfg;
    *out = NULL;
    snprintf(why, n, "this OS (its OSAL) offers no kernel event tracer");
    return ENOTSUP;
}

void rtg_trace_offer(struct rtg_trace *t, const char *metric, uint64_t release_ns,
                     uint64_t end_ns)
{
    (void)t, (void)metric, (void)release_ns, (void)end_ns;
}

void rtg_trace_close(struct rtg_trace *t, struct rtg_trace_result *out)
{
    (void)t;
    if (out)
        memset(out, 0, sizeof *out);
}

void rtg_trace_janitor(void) {}
