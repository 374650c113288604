/* The flight recorder is not offered (rtg/osal_trace.h): a port without a
 * tracer of its own says so, and its tests run unexplained. */
#include <errno.h>
#include <stdio.h>

#include "rtg/osal_trace.h"

static int open_none(struct rtg_trace_port **out, const struct rtg_trace_config *cfg,
                     struct rtg_trace_about *about, char *why, size_t n)
{
    (void)cfg, (void)about;
    *out = NULL;
    snprintf(why, n, "this OS (its OSAL) offers no kernel event tracer");
    return ENOTSUP;
}

/* Never called: open never succeeds. */
static void self_none(struct rtg_trace_port *p, int *cpu, int32_t *tid)
{
    (void)p;
    *cpu = 0;
    *tid = 0;
}

static int freeze_none(struct rtg_trace_port *p, const struct rtg_trace_cut *cuts, size_t n)
{
    (void)p, (void)cuts, (void)n;
    return EBUSY;
}

static void stop_none(struct rtg_trace_port *p, uint64_t *lost)
{
    (void)p;
    *lost = 0;
}

static int window_none(struct rtg_trace_port *p, unsigned slot, struct rtg_trace_window *w,
                       struct rtg_trace_cover *cover)
{
    (void)p, (void)slot, (void)w, (void)cover;
    return ENOENT;
}

static void close_none(struct rtg_trace_port *p) { (void)p; }
static void janitor_none(void) {}

const struct rtg_trace_ops rtg_trace_port = {
    .open = open_none,
    .self = self_none,
    .freeze = freeze_none,
    .stop = stop_none,
    .window = window_none,
    .close = close_none,
    .janitor = janitor_none,
};
