/* MSG-P-LAT: send to a blocked higher-priority receiver, per mechanism and
 * size (msg_common.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg/osal_msg.h"
#include "rtg/test.h"
#include "common/catalogue.h"
#include "msg_verdicts.h"

#include "msg_common.h"

static int run_lat(struct rtg_ctx *ctx) { return rtg_msg_run_all(ctx, MODE_LAT); }

const struct rtg_test_desc rtg_test_msg_p_lat = {
    .id = "MSG-P-LAT",
    .source = __FILE__,
    .needs = RTG_OFFERS_MSG_QUEUES,
    .title = "Message send to a blocked higher-priority receiver",
    .kind = 'P',
    .options = RTG_OPTIONS(rtg_msg_x_options),
    .run = run_lat,
    .bound_s = rtg_msg_bound_x,
};
