/* Names of the OSAL's portable enums, the same on every port so that records
 * from different operating systems compare. */
#include "rtg/osal.h"

const char *rtg_policy_name(enum rtg_policy p)
{
    switch (p) {
    case RTG_SCHED_FIFO: return "SCHED_FIFO";
    case RTG_SCHED_RR: return "SCHED_RR";
    default: return "SCHED_OTHER";
    }
}
