/* A test's flight recorder from the runner's side and the record's
 * "explain" part (docs/schema.md, "explain"): the recorder's policy
 * (recorder_policy.c) hands over plain values, this file writes every
 * key, once. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/osal.h"
#include "rtg_private/explain.h"

static const char *const kind_names[RTG_TEV_KINDS] = {
    [RTG_TEV_IRQ_ENTRY] = "irq_entry",         [RTG_TEV_IRQ_EXIT] = "irq_exit",
    [RTG_TEV_VEC_ENTRY] = "vec_entry",         [RTG_TEV_VEC_EXIT] = "vec_exit",
    [RTG_TEV_SOFTIRQ_RAISE] = "softirq_raise", [RTG_TEV_SOFTIRQ_ENTRY] = "softirq_entry",
    [RTG_TEV_SOFTIRQ_EXIT] = "softirq_exit",   [RTG_TEV_TIMER_ENTRY] = "timer_entry",
    [RTG_TEV_TIMER_EXIT] = "timer_exit",       [RTG_TEV_WAKING] = "waking",
    [RTG_TEV_WAKEUP] = "wakeup",               [RTG_TEV_SWITCH] = "switch",
    [RTG_TEV_IDLE_ENTRY] = "idle_entry",       [RTG_TEV_IDLE_EXIT] = "idle_exit",
    [RTG_TEV_WORK_START] = "work_start",       [RTG_TEV_WORK_END] = "work_end",
    [RTG_TEV_IPI_SEND] = "ipi_send",           [RTG_TEV_IPI_ENTRY] = "ipi_entry",
    [RTG_TEV_IPI_EXIT] = "ipi_exit",
};

void rtg_explain_start(struct rtg_explain *x, const struct rtg_config *cfg, bool explained,
                       const char *why_not)
{
    memset(x, 0, sizeof *x);
    if (!explained)
        return;
    if (why_not) {
        x->state = RTG_EXPLAIN_NOT_HERE;
        snprintf(x->why, sizeof x->why, "%s", why_not);
        return;
    }
    if (cfg->explain.off) {
        x->state = RTG_EXPLAIN_OFF;
        snprintf(x->why, sizeof x->why, "--no-explain");
        return;
    }
    x->cfg = (struct rtg_trace_config){.cpus = cfg->cpus,
                                       .n_cpus = cfg->n_cpus,
                                       .keep = cfg->explain.keep,
                                       .slots = cfg->explain.keep + cfg->explain.figures,
                                       .floor_ns = cfg->explain.floor_ns,
                                       .lookback_ns = cfg->explain.lookback_ns,
                                       .buffer_kb = cfg->explain.buffer_kb,
                                       .max_events = cfg->explain.max_events};
    uint64_t t0 = rtg_mono_ns();
    int e = rtg_recorder_open(&x->rec, &rtg_trace_port, &x->cfg, x->why, sizeof x->why);
    x->setup_ns = rtg_mono_ns() - t0;
    if (e) {
        x->state = RTG_EXPLAIN_NOT_HERE;
        if (!x->why[0])
            snprintf(x->why, sizeof x->why, "%s", strerror(e));
        x->rec = NULL;
        return;
    }
    x->state = RTG_EXPLAIN_ON;
}

void rtg_explain_stop(struct rtg_explain *x)
{
    if (x->state != RTG_EXPLAIN_ON || !x->rec)
        return;
    x->res = malloc(sizeof *x->res); /* NULL: the windows are dropped, the record says so */
    rtg_recorder_close(x->rec, x->res);
    x->rec = NULL;
}

void rtg_explain_free(struct rtg_explain *x)
{
    rtg_explain_stop(x);
    if (x->res) {
        rtg_trace_result_free(x->res);
        free(x->res);
    }
    x->res = NULL;
}

static void emit_event(struct rtg_json *j, const struct rtg_tev *e, uint64_t release)
{
    rtg_json_obj_begin(j);
    rtg_json_kint(j, "t", e->t_ns - (int64_t)release);
    rtg_json_kint(j, "cpu", e->cpu);
    rtg_json_kstr(j, "k", e->kind < RTG_TEV_KINDS ? kind_names[e->kind] : "?");
    rtg_json_kint(j, "cur", e->cur);
    switch (e->kind) {
    case RTG_TEV_SWITCH:
        rtg_json_kint(j, "pid", e->pid);
        rtg_json_kint(j, "prio", e->prio);
        rtg_json_kstr(j, "name", e->name);
        rtg_json_kint(j, "state", e->state);
        rtg_json_kint(j, "pid2", e->pid2);
        rtg_json_kint(j, "prio2", e->prio2);
        rtg_json_kstr(j, "name2", e->name2);
        break;
    case RTG_TEV_WAKING:
    case RTG_TEV_WAKEUP:
        rtg_json_kint(j, "pid", e->pid);
        rtg_json_kint(j, "prio", e->prio);
        rtg_json_kstr(j, "name", e->name);
        rtg_json_kint(j, "num", e->num);
        break;
    case RTG_TEV_TIMER_ENTRY:
        rtg_json_kstr(j, "name", e->name);
        if (e->arg)
            rtg_json_kint(j, "now", (int64_t)e->arg - (int64_t)release);
        break;
    case RTG_TEV_TIMER_EXIT:
    case RTG_TEV_IDLE_EXIT:
        break;
    case RTG_TEV_WORK_START:
    case RTG_TEV_WORK_END:
    case RTG_TEV_IPI_ENTRY:
    case RTG_TEV_IPI_EXIT:
        rtg_json_kstr(j, "name", e->name);
        break;
    default: /* irq, vectors, softirqs, idle entry, ipi send: a number and a name */
        rtg_json_kint(j, "num", e->num);
        if (e->name[0])
            rtg_json_kstr(j, "name", e->name);
        break;
    }
    rtg_json_obj_end(j);
}

static void emit_window(struct rtg_json *j, const struct rtg_trace_window *w)
{
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "metric", w->metric);
    rtg_json_kstr(j, "interval", w->operation ? "operation" : "release");
    rtg_json_kuint(j, "sample_ns", w->end_ns - w->release_ns);
    rtg_json_kuint(j, "release_ns", w->release_ns);
    rtg_json_kuint(j, "end_ns", w->end_ns);
    rtg_json_kint(j, "start", (int64_t)w->start_ns - (int64_t)w->release_ns);
    rtg_json_kint(j, "cpu", w->cpu);
    rtg_json_kint(j, "tid", w->tid);
    rtg_json_kbool(j, "complete", w->complete);
    rtg_json_kuint(j, "lost_events", w->lost_events);
    if (w->first_event_ns >= 0)
        rtg_json_kint(j, "first_event", w->first_event_ns - (int64_t)w->release_ns);
    else
        rtg_json_knull(j, "first_event");
    rtg_json_kbool(j, "capped", w->capped);
    rtg_json_kbool(j, "worst", w->worst);
    rtg_json_kbool(j, "figure_max", w->figure_max);
    rtg_json_key(j, "steal");
    if (w->steal_known) {
        rtg_json_obj_begin(j);
        rtg_json_kuint(j, "ns", w->steal_ns);
        rtg_json_kuint(j, "over_ns", w->steal_over_ns);
        rtg_json_obj_end(j);
    } else {
        rtg_json_null(j);
    }
    rtg_json_key(j, "tasks");
    rtg_json_arr_begin(j);
    for (size_t i = 0; i < w->n_tasks; i++) {
        rtg_json_obj_begin(j);
        rtg_json_kint(j, "pid", w->tasks[i].pid);
        rtg_json_kstr(j, "policy", w->tasks[i].policy[0] ? w->tasks[i].policy : NULL);
        if (w->tasks[i].origin[0])
            rtg_json_kstr(j, "origin", w->tasks[i].origin);
        rtg_json_obj_end(j);
    }
    rtg_json_arr_end(j);
    rtg_json_key(j, "events");
    rtg_json_arr_begin(j);
    for (size_t i = 0; i < w->n_events; i++)
        emit_event(j, &w->events[i], w->release_ns);
    rtg_json_arr_end(j);
    rtg_json_obj_end(j);
}

void rtg_explain_emit(struct rtg_explain *x, struct rtg_json *j)
{
    if (x->state == RTG_EXPLAIN_NONE)
        return;
    rtg_json_key(j, "explain");
    rtg_json_obj_begin(j);
    bool on = x->state == RTG_EXPLAIN_ON;
    rtg_json_kstr(j, "state", on ? "on" : x->state == RTG_EXPLAIN_OFF ? "off" : "not explained");
    if (on && !x->res)
        rtg_json_kstr(j, "why", "no memory was left to keep the windows");
    else
        rtg_json_kstr(j, "why", on ? NULL : x->why);
    if (on && x->res) {
        struct rtg_trace_result *r = x->res;
        rtg_json_kstr(j, "source", r->about.source);
        rtg_json_kstr(j, "clock", r->about.clock);
        rtg_json_kstr(j, "prio_scale", r->about.prio_scale);
        rtg_json_kuint(j, "keep", x->cfg.keep);
        rtg_json_kuint(j, "setup_ns", x->setup_ns);
        rtg_json_kuint(j, "figures",
                       (r->about.slots ? r->about.slots : x->cfg.slots) - x->cfg.keep);
        rtg_json_kuint(j, "floor_ns", x->cfg.floor_ns);
        rtg_json_kuint(j, "lookback_ns", x->cfg.lookback_ns);
        rtg_json_kuint(j, "buffer_kb", r->about.buffer_kb ? r->about.buffer_kb : x->cfg.buffer_kb);
        rtg_json_kuint(j, "max_events", r->about.max_events ? r->about.max_events : x->cfg.max_events);
        if (r->about.reduced[0])
            rtg_json_kstr(j, "reduced", r->about.reduced);
        if (r->about.event_ns)
            rtg_json_kuint(j, "event_ns", r->about.event_ns);
        rtg_json_kuint(j, "offered", r->offered);
        rtg_json_kuint(j, "freezes", r->freezes);
        rtg_json_kuint(j, "uncaptured", r->uncaptured);
        rtg_json_kuint(j, "uncaptured_max_ns", r->uncaptured_max_ns);
        rtg_json_kuint(j, "figures_untracked", r->figures_untracked);
        rtg_json_key(j, "figure_names");
        rtg_json_arr_begin(j);
        for (size_t i = 0; i < r->n_figures; i++)
            rtg_json_str(j, r->figures[i]);
        rtg_json_arr_end(j);
        rtg_json_kuint(j, "lost_events", r->lost_events);
        rtg_json_key(j, "windows");
        rtg_json_arr_begin(j);
        /* Worst first, each freed once written (a board's heap holds a
         * window's events or their text, not both); a window whose text
         * does not fit is left out with those after it, and said. */
        size_t dropped = 0;
        for (size_t i = 0; i < r->n_windows; i++) {
            struct rtg_trace_window *w = &r->windows[i];
            struct rtg_json_mark mark = rtg_json_mark(j);
            if (!dropped)
                emit_window(j, w);
            if (!dropped && j->failed) {
                rtg_json_rollback(j, &mark);
                dropped = r->n_windows - i;
            }
            free(w->events);
            free(w->tasks);
            w->events = NULL;
            w->tasks = NULL;
            w->n_events = w->n_tasks = 0;
        }
        rtg_json_arr_end(j);
        if (dropped)
            rtg_json_kuint(j, "windows_dropped", dropped);
    }
    rtg_json_obj_end(j);
}
