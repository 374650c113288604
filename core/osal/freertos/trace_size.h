/* How much of the heap the FreeRTOS flight recorder takes (trace_size.c). */
#ifndef RTG_FR_TRACE_SIZE_H
#define RTG_FR_TRACE_SIZE_H
#include <stddef.h>
#include <stdint.h>

#include "rtg/osal_trace.h"

struct fr_sizes {
    uint32_t entries;    /* the ring's events, a power of two */
    unsigned buffer_kb;  /* the ring's size as the record says it */
    unsigned max_events; /* a kept window's */
    unsigned slots;      /* windows kept: K and the figures' worst */
    char reduced[sizeof ((struct rtg_trace_about *)0)->reduced]; /* "": as asked */
};

/* The ring as --explain-buffer-kb asks and cfg->slots windows of
 * --explain-events, or less to stay within a sixteenth of the free heap
 * (fewer figure windows first, down to K; then a smaller ring and shorter
 * windows; reduced says so); 0,
 * or ENOMEM with why filled when not even the least fits. */
int rtg_fr_trace_size(const struct rtg_trace_config *cfg, struct fr_sizes *s, char *why,
                      size_t n);

#endif
