/* The machine's own pauses, as a behaviour verdict sees them: a hypervisor
 * that stops every vCPU for milliseconds makes any timing claim miss,
 * however well the OS schedules. A test reads the steal counter around a
 * stretch it judges (never inside a timed part); a failure during which
 * the counter advanced is the machine's, listed in the evidence and
 * tolerated up to a tenth of the stretches (or one); any other failure stays the
 * OS's. Where the OS reports no steal time nothing is tolerated. */
#ifndef RTG_STEAL_WATCH_H
#define RTG_STEAL_WATCH_H
#include <stdbool.h>
#include <stdint.h>

#include "rtg/json.h"

struct rtg_steal_watch {
    bool known;          /* the OS reports steal time */
    uint64_t first, at;  /* the first reading, the latest */
    uint64_t stretches;  /* stretches judged */
    uint64_t failed;     /* of those, failed */
    uint64_t in_steal;   /* of the failed, while the counter advanced */
};

/* Starts watching: the first reading. */
void rtg_steal_watch_begin(struct rtg_steal_watch *w);
/* Reads the counter at the end of a stretch; returns whether the
 * hypervisor stole time since the previous reading. */
bool rtg_steal_watch_read(struct rtg_steal_watch *w);
/* Counts a stretch judged, failed or not, and whether time was stolen in it. */
void rtg_steal_watch_count(struct rtg_steal_watch *w, bool failed, bool stole);
/* Adds w's stretches to *sum (several tasks over the same time; sum
 * starts zeroed with known true). */
void rtg_steal_watch_add(struct rtg_steal_watch *sum, const struct rtg_steal_watch *w);
/* Whether the failures are all the machine's and few enough to tolerate. */
bool rtg_steal_watch_tolerable(const struct rtg_steal_watch *w);
/* Adds the watch's figures to an evidence object, under "machine_stalls",
 * with what a stretch is (e.g. "a period of one task"). */
void rtg_steal_watch_json(struct rtg_json *j, const struct rtg_steal_watch *w,
                          const char *stretch);

#endif
