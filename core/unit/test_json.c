/* The emitter: commas, nesting, escaping, numbers, and a metric record. */
#include <math.h>
#include <stdlib.h>

#include "rtg/json.h"
#include "rtg/metric.h"
#include "unit.h"

int main(void)
{
    struct rtg_json j;
    rtg_json_init(&j);
    rtg_json_obj_begin(&j);
    rtg_json_kstr(&j, "a", "x\"y\\z\n\x01<script>");
    rtg_json_kint(&j, "b", -3);
    rtg_json_key(&j, "c");
    rtg_json_arr_begin(&j);
    rtg_json_uint(&j, 1);
    rtg_json_num(&j, 2.5);
    rtg_json_num(&j, NAN);
    rtg_json_bool(&j, true);
    rtg_json_str(&j, NULL);
    rtg_json_arr_end(&j);
    rtg_json_key(&j, "d");
    rtg_json_obj_begin(&j);
    rtg_json_obj_end(&j);
    rtg_json_kstr(&j, "e", "\xc3\xa9");
    rtg_json_obj_end(&j);
    CHECK_STR(j.buf, "{\"a\":\"x\\\"y\\\\z\\n\\u0001<script>\",\"b\":-3,\"c\":[1,2.5,null,true,null],"
                     "\"d\":{},\"e\":\"\\ufffd\\ufffd\"}");
    CHECK(j.depth == 0);
    CHECK(!j.failed);

    /* Closing more than was opened is caught, not written. */
    rtg_json_reset(&j);
    rtg_json_arr_end(&j);
    CHECK(j.failed);

    /* Back to a mark: an optional part that failed half-way is dropped
     * whole (its commas too), the failure forgotten, and what follows
     * written as if it had never been tried. */
    rtg_json_reset(&j);
    rtg_json_obj_begin(&j);
    rtg_json_key(&j, "w");
    rtg_json_arr_begin(&j);
    rtg_json_int(&j, 1);
    struct rtg_json_mark mark = rtg_json_mark(&j);
    rtg_json_obj_begin(&j);
    rtg_json_kint(&j, "half", 2);
    rtg_json_key(&j, "deeper");
    rtg_json_arr_begin(&j);
    j.failed = true; /* as an out-of-memory realloc leaves it */
    rtg_json_rollback(&j, &mark);
    CHECK(!j.failed);
    rtg_json_int(&j, 3);
    rtg_json_arr_end(&j);
    rtg_json_kint(&j, "n", 1);
    rtg_json_obj_end(&j);
    CHECK_STR(j.buf, "{\"w\":[1,3],\"n\":1}");
    CHECK(j.depth == 0);
    /* A mark taken at the first value of a container: no comma after rollback. */
    rtg_json_reset(&j);
    rtg_json_arr_begin(&j);
    mark = rtg_json_mark(&j);
    rtg_json_int(&j, 7);
    rtg_json_rollback(&j, &mark);
    rtg_json_int(&j, 8);
    rtg_json_arr_end(&j);
    CHECK_STR(j.buf, "[8]");
    rtg_json_free(&j);

    /* A metric: percentiles are null below their sample counts. */
    struct rtg_metric *m = malloc(sizeof *m);
    rtg_metric_init(m, "timer.wakeup.test");
    for (uint64_t v = 1; v <= 100; v++)
        rtg_metric_add(m, v, v * 1000000);
    rtg_json_init(&j);
    rtg_metric_emit(m, &j);
    CHECK(strstr(j.buf, "\"name\":\"timer.wakeup.test\",\"unit\":\"ns\",\"count\":100,"
                        "\"negative\":0,\"min\":1,\"max\":100,\"mean\":50.5,") != NULL);
    CHECK(strstr(j.buf, "\"worst_at_ms\":100,") != NULL);
    CHECK(strstr(j.buf, "\"p50\":50,\"p90\":90,\"p99\":99,\"p99_9\":null,\"p99_99\":null") != NULL);
    CHECK(strstr(j.buf, "\"buckets\":[[1,2,1],[2,3,1],") != NULL);
    CHECK(strstr(j.buf, "\"overflow\":0,") != NULL);
    rtg_json_free(&j);

    /* An empty metric has nulls, not zeros. */
    struct rtg_metric *e = malloc(sizeof *e);
    rtg_metric_init(e, "x.y");
    rtg_json_init(&j);
    rtg_metric_emit(e, &j);
    CHECK(strstr(j.buf, "\"count\":0,\"negative\":0,\"min\":null,\"max\":null,\"mean\":null") !=
          NULL);
    rtg_json_free(&j);

    /* An interval that ends before it begins is counted apart, never a 0 ns
     * sample; one that ends where it begins is a 0 ns sample; merging adds. */
    rtg_metric_interval(e, 500, 400, 1);
    CHECK_EQ_U(e->stats.count, 0);
    CHECK_EQ_U(e->negative, 1);
    rtg_metric_interval(e, 500, 500, 2);
    CHECK_EQ_U(e->stats.count, 1);
    CHECK_EQ_U(e->stats.max, 0);
    rtg_metric_interval(e, 500, 730, 3);
    CHECK_EQ_U(e->stats.max, 230);
    rtg_metric_merge(m, e);
    CHECK_EQ_U(m->negative, 1);
    rtg_json_init(&j);
    rtg_metric_emit(e, &j);
    CHECK(strstr(j.buf, "\"count\":2,\"negative\":1,\"min\":0,\"max\":230,") != NULL);
    CHECK(strstr(j.buf, "condition_unmet") == NULL); /* absent while it held */
    rtg_json_free(&j);

    /* A figure whose condition did not hold says why; a merge keeps it. */
    e->condition_unmet = "the load did not run";
    rtg_metric_merge(m, e);
    rtg_json_init(&j);
    rtg_metric_emit(m, &j);
    CHECK(strstr(j.buf, "\"negative\":2,\"condition_unmet\":\"the load did not run\",\"min\"") !=
          NULL);
    rtg_json_free(&j);
    rtg_metric_free(m);
    rtg_metric_free(e);
    free(m);
    free(e);
    return unit_report("json");
}
