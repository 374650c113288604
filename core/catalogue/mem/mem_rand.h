/* The quasi-random sequence of MEM-P-ALC's allocation sizes: splitmix64
 * from the recorded seed (123 by default), written here so that every
 * target draws the same sizes whatever its C library. */
#ifndef RTG_MEM_RAND_H
#define RTG_MEM_RAND_H
#include <stdint.h>

struct rtg_rand {
    uint64_t state;
};

void rtg_rand_seed(struct rtg_rand *r, uint64_t seed);
uint64_t rtg_rand_next(struct rtg_rand *r);
/* Uniform in [lo, hi] (modulo reduction: a bias below 2^-40 for these ranges). */
uint64_t rtg_rand_range(struct rtg_rand *r, uint64_t lo, uint64_t hi);

#endif
