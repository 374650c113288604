/* Block maxima in time order: against blocks worked out by hand, through
 * coarsening, merging and the emitted JSON. */
#include <stdlib.h>

#include "rtg/blocks.h"
#include "rtg/metric.h"
#include "unit.h"

#define MS 1000000ull

static void by_hand(void)
{
    struct rtg_blocks *bl = malloc(sizeof *bl);
    rtg_blocks_init(bl, 100);
    CHECK_EQ_U(bl->span_ns, 100 * MS);
    CHECK_EQ_U(bl->used, 0);
    /* block 0: 10, 150, 90 (one above 100); block 2: 100 (not above), 300 */
    rtg_blocks_add(bl, 10, 0);
    rtg_blocks_add(bl, 150, 50 * MS);
    rtg_blocks_add(bl, 90, 99 * MS);
    rtg_blocks_add(bl, 100, 200 * MS);
    rtg_blocks_add(bl, 300, 299 * MS);
    CHECK_EQ_U(bl->used, 3);
    CHECK_EQ_U(bl->b[0].count, 3);
    CHECK_EQ_U(bl->b[0].max, 150);
    CHECK_EQ_U(bl->b[0].above, 1);
    CHECK_EQ_U(bl->b[1].count, 0);
    CHECK_EQ_U(bl->b[2].count, 2);
    CHECK_EQ_U(bl->b[2].max, 300);
    CHECK_EQ_U(bl->b[2].above, 1);

    /* Past the last block the span doubles: blocks 0+1 and 2+3 merge. */
    rtg_blocks_add(bl, 500, RTG_BLOCKS_MAX * 100 * MS);
    CHECK_EQ_U(bl->span_ns, 200 * MS);
    CHECK_EQ_U(bl->b[0].count, 3);
    CHECK_EQ_U(bl->b[1].count, 2);
    CHECK_EQ_U(bl->b[1].max, 300);
    CHECK_EQ_U(bl->used, RTG_BLOCKS_MAX / 2 + 1);
    CHECK_EQ_U(bl->b[RTG_BLOCKS_MAX / 2].max, 500);

    struct rtg_json j;
    rtg_json_init(&j);
    rtg_blocks_emit(bl, &j);
    CHECK(strstr(j.buf, "{\"span_ms\":200,\"threshold_ns\":100,\"items\":[[0,3,150,1],"
                        "[200,2,300,1],[102400,1,500,1]]}") != NULL);
    rtg_json_free(&j);
    free(bl);
}

static void merging(void)
{
    /* Two CPUs: a at 100 ms blocks, b coarsened to 200 ms; the merge is at 200 ms. */
    struct rtg_blocks *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    rtg_blocks_init(a, 100);
    rtg_blocks_init(b, 100);
    rtg_blocks_add(a, 50, 0);
    rtg_blocks_add(a, 400, 150 * MS);
    rtg_blocks_add(b, 200, 10 * MS);
    rtg_blocks_add(b, 1, (uint64_t)RTG_BLOCKS_MAX * 100 * MS); /* b now at 200 ms */
    rtg_blocks_merge(a, b);
    CHECK_EQ_U(a->span_ns, 200 * MS);
    CHECK_EQ_U(a->b[0].count, 3);
    CHECK_EQ_U(a->b[0].max, 400);
    CHECK_EQ_U(a->b[0].above, 2);
    CHECK_EQ_U(a->b[RTG_BLOCKS_MAX / 2].count, 1);
    free(a);
    free(b);
}

static void metrics(void)
{
    struct rtg_metric *cpu = malloc(sizeof *cpu), *all = malloc(sizeof *all);
    struct rtg_metric *plain = malloc(sizeof *plain);
    rtg_metric_init(cpu, "timer.wakeup.x.cpu0");
    rtg_metric_init(all, "timer.wakeup.x.all");
    rtg_metric_init(plain, "timer.wakeup.x.cpu1");
    CHECK(cpu->blocks == NULL);
    CHECK(rtg_metric_with_blocks(NULL) == NULL);
    CHECK(rtg_metric_with_blocks(cpu) == cpu);
    CHECK(cpu->blocks != NULL && cpu->blocks->threshold_ns == RTG_BLOCKS_THRESHOLD_NS);
    for (uint64_t i = 0; i < 1000; i++)
        rtg_metric_add(cpu, 20000 + (i == 500 ? 200000 : 0), i * MS);
    CHECK_EQ_U(cpu->blocks->used, 10);
    CHECK_EQ_U(cpu->blocks->b[5].max, 220000);
    CHECK_EQ_U(cpu->blocks->b[5].above, 1);

    /* A merged figure takes its parts' blocks... */
    rtg_metric_merge(all, cpu);
    CHECK(all->blocks != NULL);
    CHECK_EQ_U(all->blocks->b[5].count, 100);
    struct rtg_json j;
    rtg_json_init(&j);
    rtg_metric_emit(all, &j);
    CHECK(strstr(j.buf, "\"blocks\":{\"span_ms\":100,\"threshold_ns\":100000,\"items\":[[0,100,"
                        "20000,0],") != NULL);
    CHECK(strstr(j.buf, "[500,100,220000,1]") != NULL);
    rtg_json_free(&j);

    /* ...and drops them when a part has none: they would not hold every sample. */
    rtg_metric_add(plain, 5, 0);
    rtg_metric_merge(all, plain);
    CHECK(all->blocks == NULL);
    rtg_json_init(&j);
    rtg_metric_emit(all, &j);
    CHECK(strstr(j.buf, "\"blocks\"") == NULL);
    rtg_json_free(&j);

    rtg_metric_free(cpu);
    rtg_metric_free(all);
    rtg_metric_free(plain);
    free(cpu);
    free(all);
    free(plain);
}

/* A week of samples, one per 100 ms (the longest a duration test runs):
 * the store stays within its RTG_BLOCKS_MAX blocks, the span has doubled
 * from 100 ms until the week fits, and every sample is still counted. */
static void a_week(void)
{
    struct rtg_blocks *bl = malloc(sizeof *bl);
    rtg_blocks_init(bl, 100);
    const uint64_t week_ns = 7ull * 24 * 3600 * 1000 * MS, step = 100 * MS;
    uint64_t span = 100 * MS, n = 0, most = 0;
    while (span * RTG_BLOCKS_MAX <= week_ns - step)
        span *= 2;
    for (uint64_t at = 0; at < week_ns; at += step, n++) {
        rtg_blocks_add(bl, n % 1000 == 999 ? 500 : 20, at + n % 7 * MS);
        if (bl->used > most)
            most = bl->used;
    }
    CHECK(most <= RTG_BLOCKS_MAX);
    CHECK_EQ_U(bl->span_ns, span);
    uint64_t count = 0, above = 0, max = 0;
    for (size_t i = 0; i < bl->used; i++) {
        count += bl->b[i].count;
        above += bl->b[i].above;
        if (bl->b[i].max > max)
            max = bl->b[i].max;
    }
    CHECK_EQ_U(count, n);
    CHECK_EQ_U(above, n / 1000);
    CHECK_EQ_U(max, 500);
    free(bl);
}

int main(void)
{
    by_hand();
    merging();
    metrics();
    a_week();
    return unit_report("blocks");
}
