/* A recorder's result is plain heap memory on every port (rtg/osal_trace.h:
 * each window's events and tasks are malloc'd), so it is freed the same
 * way whatever recorded it. */
#include <stdlib.h>

#include "rtg/osal_trace.h"

void rtg_trace_result_free(struct rtg_trace_result *r)
{
    for (size_t i = 0; i < r->n_windows; i++) {
        free(r->windows[i].events);
        free(r->windows[i].tasks);
        r->windows[i].events = NULL;
        r->windows[i].tasks = NULL;
    }
    r->n_windows = 0;
}
