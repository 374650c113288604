/* Which mechanisms and sizes a MSG test loops over (msg_select.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/osal_msg.h"
#include "rtg/test.h"

#include "msg_select.h"

/* Whether the OS has the mechanism at all (an RTOS has no pipes or System
 * V queues: ENOTSUP), from a small channel opened once. */
static bool mech_offered(enum rtg_msg_mech m)
{
    static signed char known[RTG_MSG_NMECH]; /* 0 not asked, 1 offered, -1 not */
    if (!known[m]) {
        struct rtg_msg_chan *c;
        int rc = rtg_msg_open(&c, m, 16, 0, false, NULL);
        if (rc == 0)
            rtg_msg_close(c);
        known[m] = rc == ENOTSUP ? -1 : 1;
    }
    return known[m] > 0;
}

static bool mech_named(const struct rtg_ctx *ctx, enum rtg_msg_mech m)
{
    const char *s = rtg_opt_enum(ctx, "mechanism");
    return strcmp(s, "all") == 0 || strcmp(s, rtg_msg_mech_name(m)) == 0;
}

bool rtg_msg_mech_selected(const struct rtg_ctx *ctx, enum rtg_msg_mech m)
{
    return mech_named(ctx, m) && mech_offered(m);
}

void rtg_msg_note_not_offered(struct rtg_ctx *ctx)
{
    for (int m = 0; m < RTG_MSG_NMECH; m++)
        if (mech_named(ctx, (enum rtg_msg_mech)m) && !mech_offered((enum rtg_msg_mech)m))
            rtg_note(ctx, "%s: not offered by this OS, no figures",
                     rtg_msg_mech_name((enum rtg_msg_mech)m));
}

bool rtg_msg_size_selected(const struct rtg_ctx *ctx, size_t size)
{
    const char *s = rtg_opt_enum(ctx, "size");
    return strcmp(s, "all") == 0 || (size_t)strtoul(s, NULL, 10) == size;
}

size_t rtg_msg_n_combos(const struct rtg_ctx *ctx)
{
    size_t n = 0;
    for (int m = 0; m < RTG_MSG_NMECH; m++)
        for (size_t s = 0; s < NSIZES; s++)
            n += rtg_msg_mech_selected(ctx, (enum rtg_msg_mech)m) &&
                 rtg_msg_size_selected(ctx, SIZES[s]);
    return n;
}

double rtg_msg_bound_x(const struct rtg_ctx *ctx)
{
    double n = (double)rtg_opt_int(ctx, "count");
    /* generous: 2 ms per exchange, plus channel set-up and process start */
    return 15.0 + (double)rtg_msg_n_combos(ctx) * (n * 0.002 + 1.0);
}
