/* SEM behaviour verdicts: pure functions, no OS call (see sem_verdicts.h). */
#include "sem_verdicts.h"

#include <string.h>

bool rtg_sem_p_did_not_block(struct rtg_sem_p_obs p, uint64_t blocked_ns)
{
    return p.acquired && blocked_ns > 0 && p.took_ns < blocked_ns / 2;
}

bool rtg_sem_p_zero_blocks(bool timed_out, uint64_t waited_ns, uint64_t timeout_ns)
{
    return timed_out && timeout_ns > 0 && waited_ns >= timeout_ns;
}

bool rtg_sem_v_increments(const struct rtg_sem_p_obs after_two_v[3], uint64_t blocked_ns)
{
    return rtg_sem_p_did_not_block(after_two_v[0], blocked_ns) &&
           rtg_sem_p_did_not_block(after_two_v[1], blocked_ns) && !after_two_v[2].acquired;
}

bool rtg_sem_wake_order_ok(const char *log, bool waiter_higher)
{
    if (!log)
        return false;
    return strcmp(log, waiter_higher ? "bpwr" : "bprw") == 0;
}

static bool sorted(const int *p, size_t n, int dir)
{
    for (size_t i = 1; i < n; i++)
        if ((dir > 0 && p[i] < p[i - 1]) || (dir < 0 && p[i] > p[i - 1]))
            return false;
    return true;
}

enum rtg_sem_rel_result rtg_sem_rel_check(const int *block_prio, size_t n_block,
                                          const int *release_prio, size_t n_release,
                                          size_t *first_bad)
{
    *first_bad = n_release;
    if (n_block < 3 || sorted(block_prio, n_block, 1) || sorted(block_prio, n_block, -1))
        return RTG_SEM_REL_NOT_SCRAMBLED;
    /* Each release must take the highest priority still waiting: walk the
     * waiters that remain (a release of a thread that never blocked, or
     * twice, is wrong too). */
    unsigned char taken[1024];
    if (n_block > sizeof taken)
        return RTG_SEM_REL_NOT_SCRAMBLED;
    memset(taken, 0, n_block);
    for (size_t r = 0; r < n_release; r++) {
        size_t best = n_block, match = n_block;
        for (size_t i = 0; i < n_block; i++) {
            if (taken[i])
                continue;
            if (best == n_block || block_prio[i] > block_prio[best])
                best = i;
            if (match == n_block && block_prio[i] == release_prio[r])
                match = i;
        }
        if (best == n_block || match == n_block || block_prio[best] != release_prio[r]) {
            *first_bad = r;
            return RTG_SEM_REL_WRONG_ORDER;
        }
        taken[match] = 1;
    }
    if (n_release < n_block)
        return RTG_SEM_REL_MISSING;
    return RTG_SEM_REL_OK;
}

const char *rtg_sem_rel_result_name(enum rtg_sem_rel_result r)
{
    switch (r) {
    case RTG_SEM_REL_OK: return "released by decreasing priority";
    case RTG_SEM_REL_NOT_SCRAMBLED: return "blocking order not scrambled: inconclusive";
    case RTG_SEM_REL_MISSING: return "a waiter was not released";
    default: return "a release did not take the highest-priority waiter";
    }
}
