/* SMP behaviour verdicts (see smp_verdicts.h): pure functions. */
#include <stdlib.h>

#include "smp_verdicts.h"

static bool running_at(const struct rtg_smp_thread *t, uint64_t a, uint64_t b)
{
    /* Whether t runs through all of [a, b): the instants considered are
     * the spans' own edges, so [a, b) lies inside one span or outside all. */
    for (size_t i = 0; i < t->n_spans; i++)
        if (t->spans[i].start <= a && b <= t->spans[i].end)
            return true;
    return false;
}

static uint64_t runnable_end(const struct rtg_smp_thread *t)
{
    return t->n_spans ? t->spans[t->n_spans - 1].end : t->wake_ns;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

uint64_t rtg_smp_worst_wait(const struct rtg_smp_thread *th, size_t n, int cpus, int *who)
{
    size_t ne = 0;
    for (size_t i = 0; i < n; i++)
        ne += 2 + 2 * th[i].n_spans;
    uint64_t *edges = malloc((ne ? ne : 1) * sizeof *edges);
    if (who)
        *who = -1;
    if (!edges)
        return UINT64_MAX; /* no verdict without the computation */
    ne = 0;
    for (size_t i = 0; i < n; i++) {
        edges[ne++] = th[i].wake_ns;
        edges[ne++] = runnable_end(&th[i]);
        for (size_t k = 0; k < th[i].n_spans; k++) {
            edges[ne++] = th[i].spans[k].start;
            edges[ne++] = th[i].spans[k].end;
        }
    }
    qsort(edges, ne, sizeof *edges, cmp_u64);
    uint64_t worst = 0;
    for (size_t i = 0; i < n; i++) {
        const struct rtg_smp_thread *w = &th[i];
        uint64_t stretch = 0;
        for (size_t e = 0; e + 1 < ne; e++) {
            uint64_t a = edges[e], b = edges[e + 1];
            if (a == b)
                continue;
            bool waiting = a >= w->wake_ns && b <= runnable_end(w) && !running_at(w, a, b);
            int higher = 0;
            if (waiting)
                for (size_t j = 0; j < n; j++)
                    if (th[j].rank < w->rank && running_at(&th[j], a, b))
                        higher++;
            if (waiting && higher < cpus) {
                stretch += b - a;
                if (stretch > worst) {
                    worst = stretch;
                    if (who)
                        *who = w->rank;
                }
            } else {
                stretch = 0;
            }
        }
    }
    free(edges);
    return worst;
}

bool rtg_smp_round_ok(uint64_t worst_wait_ns, uint64_t tolerance_ns)
{
    return worst_wait_ns <= tolerance_ns;
}
