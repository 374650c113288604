/* Coordinating an exchange's peers (msg_peers.h). */
#include <errno.h>
#include <stdbool.h>

#include "rtg/osal.h"
#include "rtg/osal_msg.h"
#include "rtg/stop.h"

#include "msg_peers.h"

int rtg_msg_finish(struct rtg_peer *peers, size_t np, struct rtg_msg_chan **ch, size_t nch,
                   struct shared_flags *fl, uint64_t deadline)
{
    /* The coordinator stays at --prio: a stop request's signal handler runs
     * on this thread, which must not be starved by busy peers. It wakes
     * once a second to look for a failed peer (at most one disturbance a
     * second, on the sending side). */
    bool aborted = false;
    int rc = 0;
    for (size_t i = 0; i < np; i++) {
        for (;;) {
            uint64_t now = rtg_mono_ns();
            uint64_t slice = now + 1000000000u;
            int w = rtg_peer_wait(&peers[i], slice < deadline || aborted ? slice : deadline);
            if (w == 0)
                break;
            if (!aborted && (fl->failed || rtg_stop_requested() || rtg_mono_ns() >= deadline)) {
                fl->stop = 1;
                for (size_t k = 0; k < nch; k++)
                    rtg_msg_abort(ch[k]);
                for (size_t k = 0; k < np; k++)
                    rtg_peer_kill(&peers[k]);
                aborted = true;
                deadline = rtg_mono_ns() + 3000000000u;
                if (!fl->failed && !rtg_stop_requested())
                    rc = ETIMEDOUT;
            } else if (aborted && rtg_mono_ns() >= deadline) {
                return EDEADLK; /* a thread stuck in a call: the process exit ends it */
            }
        }
    }
    return rc;
}

void rtg_msg_fail_flag(struct shared_flags *fl, int err, int line)
{
    if (!fl->failed) {
        fl->fail_line = line;
        fl->failed = err;
    }
}
