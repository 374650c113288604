/* The order of the extremes, which a histogram cannot keep: test time is cut
 * into blocks (100 ms to start with); per block the sample count, the maximum
 * and how many samples exceeded a threshold. The host tests stationarity and
 * independence on these block maxima before it extrapolates a tail.
 *
 * Fixed memory, no allocation while adding: when a run outgrows the blocks,
 * neighbours are merged in pairs and the span doubles. */
#ifndef RTG_BLOCKS_H
#define RTG_BLOCKS_H
#include <stddef.h>
#include <stdint.h>

#include "rtg/json.h"

#ifndef RTG_BLOCKS_MAX /* a build for a small board may keep fewer (-D) */
#define RTG_BLOCKS_MAX 1024
#endif
#define RTG_BLOCKS_SPAN_NS 100000000ull /* 100 ms: 100 activations at a 1 ms period */
#define RTG_BLOCKS_THRESHOLD_NS 100000ull /* 100 µs, the deadline seed evaluations ask about */

struct rtg_block {
    uint64_t max;
    uint32_t count;
    uint32_t above; /* samples > threshold_ns */
};

struct rtg_blocks {
    uint64_t span_ns;
    uint64_t threshold_ns;
    size_t used; /* blocks [0, used) may hold samples; block i starts at i * span_ns */
    struct rtg_block b[RTG_BLOCKS_MAX];
};

void rtg_blocks_init(struct rtg_blocks *bl, uint64_t threshold_ns);
/* One sample of value ns taken at at_ns from the test's start. */
void rtg_blocks_add(struct rtg_blocks *bl, uint64_t ns, uint64_t at_ns);
/* Fold b into a, block by block in time (the coarser span wins). Both must
 * count above the same threshold; a's is kept. */
void rtg_blocks_merge(struct rtg_blocks *a, const struct rtg_blocks *b);
/* The "blocks" object of schema/result-v1.json (non-empty blocks only). */
void rtg_blocks_emit(const struct rtg_blocks *bl, struct rtg_json *j);

#endif
