/* The catalogue's shared helpers (common/catalogue.h). */
#include "common/catalogue.h"

#include <string.h>

#include "rtg/clock.h"

struct rtg_thread_attr rtg_attr_at(const struct rtg_ctx *ctx, enum rtg_policy pol, int prio)
{
    return (struct rtg_thread_attr){.policy = pol, .prio = pol == RTG_SCHED_OTHER ? 0 : prio,
                                    .cpu = rtg_cpu_at(ctx, 0), .stack_size = RTG_TEST_STACK};
}

enum rtg_policy rtg_rt_policy(const struct rtg_ctx *ctx)
{
    return rtg_rt_ok(ctx) ? RTG_SCHED_FIFO : RTG_SCHED_OTHER;
}

bool rtg_fault_is(const struct rtg_ctx *ctx, const char *name)
{
    return strcmp(rtg_opt_enum(ctx, "fault"), name) == 0;
}

static int64_t fit(struct rtg_ctx *ctx, const char *what, int64_t want, size_t unit,
                   size_t reserve, bool one_block)
{
    size_t free_bytes, largest;
    if (want <= 0 || unit == 0 || rtg_mem_available(&free_bytes, &largest))
        return want;
    size_t room = (size_t)rtg_past(free_bytes, reserve);
    room -= room / 8; /* an eighth left over: calls the test makes beside them */
    if (one_block && largest < room)
        room = largest;
    int64_t n = (int64_t)(room / unit);
    if (n >= want)
        return want;
    rtg_fit_note(ctx, what, want, n);
    return n;
}

void rtg_fit_note(struct rtg_ctx *ctx, const char *what, int64_t want, int64_t got)
{
    size_t free_bytes = 0, largest;
    if (rtg_mem_available(&free_bytes, &largest))
        free_bytes = 0;
    rtg_note(ctx, "%s = %lld reduced to %lld: %zu KB of heap", what, (long long)want,
             (long long)got, free_bytes / 1024);
}

int64_t rtg_fit_count(struct rtg_ctx *ctx, const char *what, int64_t want, size_t unit,
                      size_t reserve)
{
    return fit(ctx, what, want, unit, reserve, false);
}

int64_t rtg_fit_array(struct rtg_ctx *ctx, const char *what, int64_t want, size_t unit,
                      size_t reserve)
{
    return fit(ctx, what, want, unit, reserve, true);
}

void rtg_ev_reset(struct rtg_evlog *l)
{
    memset(l->ev, 0, sizeof l->ev);
    atomic_store(&l->n, 0);
}

void rtg_ev_add(struct rtg_evlog *l, char c)
{
    uint64_t now = rtg_clock_ticks();
    int i = atomic_fetch_add(&l->n, 1);
    if (i < RTG_EV_MAX) {
        l->t[i] = now;
        l->ev[i] = c;
    }
}

void rtg_ev_json(struct rtg_json *j, const struct rtg_evlog *l)
{
    int n = atomic_load(&l->n);
    if (n > RTG_EV_MAX)
        n = RTG_EV_MAX;
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "events", l->ev);
    rtg_json_key(j, "t_ns");
    rtg_json_arr_begin(j);
    for (int i = 0; i < n; i++)
        rtg_json_uint(j, rtg_clock_delta_ns(l->t[0], l->t[i]));
    rtg_json_arr_end(j);
    rtg_json_obj_end(j);
}

void rtg_spin_until(uint64_t mono_deadline_ns)
{
    while (rtg_mono_ns() < mono_deadline_ns && !rtg_stop_requested())
        ;
}

void rtg_spin_ns(uint64_t ns)
{
    rtg_spin_until(rtg_mono_ns() + ns);
}

void rtg_breathe(struct rtg_breather *b)
{
    if (b->every > 1 && (b->calls++ % b->every) != 0)
        return;
    uint64_t now = rtg_mono_ns();
    if (b->since == 0)
        b->since = now;
    else if (now - b->since > 200 * NS_PER_MS) {
        rtg_sleep_ns(20 * NS_PER_MS);
        b->since = rtg_mono_ns();
    }
}

void rtg_metric_params_int(struct rtg_metric *m, const char *key, int64_t v)
{
    rtg_json_reset(&m->params);
    rtg_json_obj_begin(&m->params);
    rtg_json_kint(&m->params, key, v);
    rtg_json_obj_end(&m->params);
}
