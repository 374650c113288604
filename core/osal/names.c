/* Names of the OSAL's portable enums, the same on every port so that records
 * from different operating systems compare. */
#include "rtg/osal.h"
#include "rtg/osal_msg.h"

const char *rtg_policy_name(enum rtg_policy p)
{
    switch (p) {
    case RTG_SCHED_FIFO: return "SCHED_FIFO";
    case RTG_SCHED_RR: return "SCHED_RR";
    default: return "SCHED_OTHER";
    }
}

const char *rtg_msg_mech_name(enum rtg_msg_mech m)
{
    switch (m) {
    case RTG_MSG_MQ: return "mq";
    case RTG_MSG_PIPE: return "pipe";
    case RTG_MSG_SYSV: return "sysv";
    case RTG_MSG_UNIX: return "unix";
    default: return "?";
    }
}
