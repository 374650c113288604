#include "rtg/blocks.h"

#include <string.h>

void rtg_blocks_init(struct rtg_blocks *bl, uint64_t threshold_ns)
{
    memset(bl, 0, sizeof *bl);
    bl->span_ns = RTG_BLOCKS_SPAN_NS;
    bl->threshold_ns = threshold_ns;
}

static void fold(struct rtg_block *into, const struct rtg_block *from)
{
    if (from->max > into->max)
        into->max = from->max;
    into->count += from->count;
    into->above += from->above;
}

/* Halve the resolution: block i becomes blocks 2i and 2i+1 merged. */
static void coarsen(struct rtg_blocks *bl)
{
    size_t half = (bl->used + 1) / 2;
    for (size_t i = 0; i < half; i++) {
        struct rtg_block m = bl->b[2 * i];
        if (2 * i + 1 < bl->used)
            fold(&m, &bl->b[2 * i + 1]);
        bl->b[i] = m;
    }
    memset(&bl->b[half], 0, (RTG_BLOCKS_MAX - half) * sizeof bl->b[0]);
    bl->used = half;
    bl->span_ns *= 2;
}

static struct rtg_block *slot(struct rtg_blocks *bl, uint64_t at_ns)
{
    while (at_ns / bl->span_ns >= RTG_BLOCKS_MAX)
        coarsen(bl);
    size_t i = (size_t)(at_ns / bl->span_ns);
    if (i >= bl->used)
        bl->used = i + 1;
    return &bl->b[i];
}

void rtg_blocks_add(struct rtg_blocks *bl, uint64_t ns, uint64_t at_ns)
{
    struct rtg_block *b = slot(bl, at_ns);
    if (ns > b->max)
        b->max = ns;
    b->count++;
    if (ns > bl->threshold_ns)
        b->above++;
}

void rtg_blocks_merge(struct rtg_blocks *a, const struct rtg_blocks *b)
{
    while (a->span_ns < b->span_ns)
        coarsen(a);
    for (size_t i = 0; i < b->used; i++)
        if (b->b[i].count)
            fold(slot(a, (uint64_t)i * b->span_ns), &b->b[i]);
}

void rtg_blocks_emit(const struct rtg_blocks *bl, struct rtg_json *j)
{
    rtg_json_obj_begin(j);
    rtg_json_knum(j, "span_ms", (double)bl->span_ns / 1e6);
    rtg_json_kuint(j, "threshold_ns", bl->threshold_ns);
    rtg_json_key(j, "items");
    rtg_json_arr_begin(j);
    for (size_t i = 0; i < bl->used; i++) {
        const struct rtg_block *b = &bl->b[i];
        if (!b->count)
            continue;
        rtg_json_arr_begin(j);
        rtg_json_num(j, (double)i * (double)bl->span_ns / 1e6);
        rtg_json_uint(j, b->count);
        rtg_json_uint(j, b->max);
        rtg_json_uint(j, b->above);
        rtg_json_arr_end(j);
    }
    rtg_json_arr_end(j);
    rtg_json_obj_end(j);
}
