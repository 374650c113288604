/* splitmix64 (Steele, Lea, Flood 2014): a pure function of the seed. */
#include "mem_rand.h"

void rtg_rand_seed(struct rtg_rand *r, uint64_t seed)
{
    r->state = seed;
}

uint64_t rtg_rand_next(struct rtg_rand *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t rtg_rand_range(struct rtg_rand *r, uint64_t lo, uint64_t hi)
{
    if (hi <= lo)
        return lo;
    return lo + rtg_rand_next(r) % (hi - lo + 1);
}
