/* Steal-time watch of behaviour verdicts (steal_watch.h). */
#include "steal_watch.h"

#include <stdio.h>

#include "rtg/osal_sys.h"
#include "catalogue.h"

void rtg_steal_watch_begin(struct rtg_steal_watch *w)
{
    *w = (struct rtg_steal_watch){0};
    w->known = rtg_sys_steal_ns(&w->first);
    w->at = w->first;
}

bool rtg_steal_watch_read(struct rtg_steal_watch *w)
{
    uint64_t now = 0;
    if (!w->known || !rtg_sys_steal_ns(&now) || now <= w->at)
        return false;
    w->at = now;
    return true;
}

void rtg_steal_watch_count(struct rtg_steal_watch *w, bool failed, bool stole)
{
    w->stretches++;
    if (failed) {
        w->failed++;
        w->in_steal += stole;
    }
}

void rtg_steal_watch_add(struct rtg_steal_watch *sum, const struct rtg_steal_watch *w)
{
    bool first = sum->stretches == 0 && sum->first == 0;
    sum->known = sum->known && w->known;
    sum->first = first || w->first < sum->first ? w->first : sum->first;
    sum->at = w->at > sum->at ? w->at : sum->at;
    sum->stretches += w->stretches;
    sum->failed += w->failed;
    sum->in_steal += w->in_steal;
}

bool rtg_steal_watch_tolerable(const struct rtg_steal_watch *w)
{
    /* One pause is tolerated however short the run. */
    return w->failed == w->in_steal && (w->in_steal <= 1 || w->in_steal * 10 <= w->stretches);
}

void rtg_steal_watch_json(struct rtg_json *j, const struct rtg_steal_watch *w,
                          const char *stretch)
{
    char text[240];
    rtg_json_key(j, "machine_stalls");
    rtg_json_obj_begin(j);
    if (w->known)
        rtg_json_kuint(j, "steal_ns", rtg_past(w->at, w->first));
    else
        rtg_json_kstr(j, "steal_ns", "not reported by this OS: no failure is tolerated");
    rtg_json_kuint(j, "stretches", w->stretches);
    rtg_json_kuint(j, "failed", w->failed);
    rtg_json_kuint(j, "failed_while_the_hypervisor_stole_time", w->in_steal);
    snprintf(text, sizeof text,
             "a stretch (%s) that failed while the hypervisor stole time (steal counter "
             "advanced; 10 ms granularity) is the machine's pause, not the OS's; at most a "
             "tenth of the stretches, or one",
             stretch);
    rtg_json_kstr(j, "tolerated", text);
    rtg_json_obj_end(j);
}
