/* DLN behaviour verdicts (see dln_verdicts.h): pure functions. */
#include "dln_verdicts.h"

static double util(const struct rtg_dln_ask *t)
{
    return t->period_ns ? (double)t->runtime_ns / (double)t->period_ns : 0.0;
}

double rtg_dln_admitted_util(const struct rtg_dln_ask *a, size_t n)
{
    double u = 0;
    for (size_t i = 0; i < n; i++)
        if (a[i].rc == 0)
            u += util(&a[i]);
    return u;
}

double rtg_dln_asked_util(const struct rtg_dln_ask *a, size_t n)
{
    double u = 0;
    for (size_t i = 0; i < n; i++)
        u += util(&a[i]);
    return u;
}

bool rtg_dln_oversubscribed_refused(const struct rtg_dln_ask *a, size_t n, int cpus)
{
    bool refused = false;
    for (size_t i = 0; i < n; i++)
        refused |= a[i].rc != 0;
    /* A set that is not over-subscribed proves nothing: not a pass. */
    return cpus > 0 && rtg_dln_asked_util(a, n) > (double)cpus && refused &&
           rtg_dln_admitted_util(a, n) <= (double)cpus;
}

bool rtg_dln_below_admitted(const struct rtg_dln_ask *a, size_t n, double capacity)
{
    if (n == 0 || rtg_dln_asked_util(a, n) > capacity)
        return false;
    for (size_t i = 0; i < n; i++)
        if (a[i].rc != 0)
            return false;
    return true;
}

bool rtg_dln_run_ok(uint64_t periods_run, uint64_t periods_asked,
                    const struct rtg_steal_watch *periods)
{
    return periods_asked > 0 && periods->stretches > 0 && periods_run >= periods_asked &&
           rtg_steal_watch_tolerable(periods);
}
