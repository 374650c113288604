/* MUT behaviour verdicts: pure functions, no OS call (see mut_verdicts.h). */
#include "mut_verdicts.h"

enum rtg_mut_arc_outcome rtg_mut_arc_classify(const struct rtg_mut_arc_round *r)
{
    if (!r->l_lock || !r->h_req || !r->h_acq || !r->h_done || !r->l_rel || !r->m_start ||
        !r->m_end)
        return RTG_MUT_INCONCLUSIVE;
    /* Consistency: L locked before H asked; H got the mutex only after
     * L let it go; each window is ordered. */
    if (r->l_lock > r->h_req || r->h_req > r->h_acq || r->h_acq > r->h_done ||
        r->l_rel > r->h_acq || r->m_start > r->m_end || r->l_lock > r->l_rel)
        return RTG_MUT_INCONCLUSIVE;
    if (r->h_req >= r->l_rel)
        return RTG_MUT_UNCONTENDED;
    if (r->m_start >= r->h_done)
        return RTG_MUT_NO_INVERSION;
    if (r->m_start >= r->h_req && r->m_end <= r->h_acq)
        return RTG_MUT_INVERSION;
    return RTG_MUT_INCONCLUSIVE;
}

const char *rtg_mut_arc_outcome_name(enum rtg_mut_arc_outcome o)
{
    switch (o) {
    case RTG_MUT_NO_INVERSION: return "no_inversion";
    case RTG_MUT_INVERSION: return "inversion";
    case RTG_MUT_UNCONTENDED: return "uncontended";
    default: return "inconclusive";
    }
}

/* Every contended round is o, and there is at least one. */
static bool all_are(const struct rtg_mut_arc_round *r, size_t n, enum rtg_mut_arc_outcome o)
{
    size_t counted = 0;
    for (size_t i = 0; r && i < n; i++) {
        enum rtg_mut_arc_outcome c = rtg_mut_arc_classify(&r[i]);
        if (c == RTG_MUT_UNCONTENDED)
            continue;
        if (c != o)
            return false;
        counted++;
    }
    return counted > 0;
}

bool rtg_mut_arc_prevents(const struct rtg_mut_arc_round *r, size_t n)
{
    return all_are(r, n, RTG_MUT_NO_INVERSION);
}

bool rtg_mut_arc_shows_inversion(const struct rtg_mut_arc_round *r, size_t n)
{
    return all_are(r, n, RTG_MUT_INVERSION);
}

size_t rtg_mut_arc_uncontended(const struct rtg_mut_arc_round *r, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; r && i < n; i++)
        k += rtg_mut_arc_classify(&r[i]) == RTG_MUT_UNCONTENDED;
    return k;
}
