/* Reading the kernel's trace ring buffer as tracefs hands it out
 * (per_cpu/cpuN/trace_pipe_raw: one sub-buffer page per read) and the
 * event formats (events/<system>/<event>/format). Pure: bytes and text in,
 * events out, so the unit tests feed it hand-made pages. */
#ifndef RTG_TRACE_RING_H
#define RTG_TRACE_RING_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a page keeps its parts (events/header_page). */
struct rtg_ring_layout {
    size_t commit_off, commit_size; /* bytes of data in the page, and flags */
    size_t data_off;
};
/* Reads header_page's text; EINVAL when a field is missing. */
int rtg_ring_layout_parse(const char *text, struct rtg_ring_layout *l);

/* One event of a page: its time stamp and its record (the trace entry,
 * common_type first). */
struct rtg_ring_event {
    uint64_t ts;
    const uint8_t *data;
    size_t len;
};
typedef void (*rtg_ring_fn)(void *arg, const struct rtg_ring_event *e);

/* Walks one page in time order, calling fn for each data event. *missed:
 * 0 when no event was lost before this page, the number lost when the
 * page says it, UINT64_MAX when it says only that some were. 0, or EINVAL
 * for a page that does not parse (nothing after the fault is reported). */
int rtg_ring_page_walk(const struct rtg_ring_layout *l, const uint8_t *page, size_t len,
                       rtg_ring_fn fn, void *arg, uint64_t *missed);
/* Events lost before this page, as rtg_ring_page_walk says it, without
 * walking the events. */
uint64_t rtg_ring_page_missed(const struct rtg_ring_layout *l, const uint8_t *page, size_t len);
/* The time stamp of the page's last event (its header's when it has none). */
uint64_t rtg_ring_page_last_ts(const struct rtg_ring_layout *l, const uint8_t *page, size_t len);
/* The page's first time stamp (its header), for skipping whole pages. */
uint64_t rtg_ring_page_ts(const uint8_t *page);

/* An event's format: its id and the fields a decoder reads. */
#define RTG_FMT_FIELDS 24
struct rtg_fmt_field {
    char name[32];
    uint16_t offset, size;
    bool is_signed;
    bool data_loc; /* __data_loc: a u32 (length << 16 | offset) to the bytes */
};
struct rtg_fmt {
    int id;
    size_t n_fields;
    struct rtg_fmt_field f[RTG_FMT_FIELDS];
};
/* Reads a format file's text; EINVAL without an ID. */
int rtg_fmt_parse(const char *text, struct rtg_fmt *f);
/* The field called name, or NULL. */
const struct rtg_fmt_field *rtg_fmt_field(const struct rtg_fmt *f, const char *name);
/* The field's integer value in the record (0 when absent or outside it). */
int64_t rtg_fmt_int(const struct rtg_fmt_field *fl, const uint8_t *rec, size_t len);
/* The field's string (a char array or a __data_loc string) into out. */
void rtg_fmt_str(const struct rtg_fmt_field *fl, const uint8_t *rec, size_t len, char *out,
                 size_t n);

#endif
