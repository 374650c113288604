/* Which tracepoints the recorder enables, and how each becomes an event of
 * the recorder's own vocabulary (rtg/osal_trace.h). Pure once the formats
 * are read, so the unit tests feed it hand-made records. */
#ifndef RTG_TRACE_EVENTS_H
#define RTG_TRACE_EVENTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtg/osal_trace.h"
#include "trace_ring.h"

/* A tracepoint the recorder asks for: "system/event". Vectors
 * (irq_vectors/<name>_entry and _exit) are found by listing the system. */
struct rtg_tp {
    const char *system, *event;
    enum rtg_tev_kind kind;
    bool on; /* on by default (RTGAUGE_TRACE_OMIT, RTGAUGE_TRACE_ADD: trace_setup.c) */
};
extern const struct rtg_tp rtg_tp_wanted[];
extern const size_t rtg_tp_n_wanted;

/* A decoder: a format read from tracefs and the kind it maps to. */
struct rtg_tp_decoder {
    struct rtg_fmt fmt;
    enum rtg_tev_kind kind;
    char vector[RTG_TEV_NAME_MAX]; /* VEC_ENTRY/EXIT: the vector's name */
};
/* Fills ev from a record of this decoder's format; ts on the trace clock. */
void rtg_tp_decode(const struct rtg_tp_decoder *d, const uint8_t *rec, size_t len, uint64_t ts,
                   int cpu, struct rtg_tev *ev);
/* The common_type of a record (which decoder applies), or -1. */
int rtg_tp_type(const uint8_t *rec, size_t len);

/* Whether "system/event" is named in a comma-separated list of events,
 * systems or "system/event" pairs (NULL or "": none). The recorder's
 * development switch RTGAUGE_TRACE_OMIT (trace_setup.c) leaves the events
 * it names off, to measure what each costs (bench/recorder_events.py). */
bool rtg_tp_listed(const char *list, const char *system, const char *event);

#endif
