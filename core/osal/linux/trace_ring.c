/* The trace ring buffer's page and event formats (trace_ring.h). The
 * layout is the kernel's documented one: a page header (a time stamp, then
 * the committed length with two flag bits for lost events), then events,
 * each a 32-bit header of type_len (5 bits) and time_delta (27 bits). */
#include "trace_ring.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* type_len values with a meaning of their own (the rest: data length / 4) */
#define TYPE_PADDING 29
#define TYPE_TIME_EXTEND 30
#define TYPE_TIME_STAMP 31
/* In the committed length: events were lost before this page, and their
 * count follows the data. */
#define MISSED_EVENTS (1ull << 31)
#define MISSED_STORED (1ull << 30)
/* An absolute time stamp holds 59 bits; the top 5 come from the page. */
#define TS_MSB_MASK (0x1full << 59)

/* One "field: TYPE NAME; offset:N; size:N; ..." line's parts. */
static int field_of(const char *line, char *decl, size_t dn, size_t *off, size_t *size,
                    int *is_signed)
{
    const char *f = strstr(line, "field:");
    const char *o = strstr(line, "offset:");
    const char *s = strstr(line, "size:");
    if (!f || !o || !s)
        return EINVAL;
    f += 6;
    const char *semi = strchr(f, ';');
    if (!semi || (size_t)(semi - f) >= dn)
        return EINVAL;
    memcpy(decl, f, (size_t)(semi - f));
    decl[semi - f] = '\0';
    *off = strtoul(o + 7, NULL, 10);
    *size = strtoul(s + 5, NULL, 10);
    const char *g = strstr(line, "signed:");
    *is_signed = g ? atoi(g + 7) : 0;
    return 0;
}

/* The declared name: the last word of "TYPE NAME[16]", without brackets. */
static void name_of(const char *decl, char *out, size_t n)
{
    size_t end = strlen(decl);
    const char *br = strchr(decl, '[');
    if (br && strstr(decl, "__data_loc") == NULL)
        end = (size_t)(br - decl);
    else if (br) { /* "__data_loc char[] name": the name follows the brackets */
        end = strlen(decl);
    }
    while (end > 0 && decl[end - 1] == ' ')
        end--;
    size_t start = end;
    while (start > 0 && decl[start - 1] != ' ' && decl[start - 1] != '*' && decl[start - 1] != ']')
        start--;
    size_t len = end - start < n - 1 ? end - start : n - 1;
    memcpy(out, decl + start, len);
    out[len] = '\0';
}

int rtg_ring_layout_parse(const char *text, struct rtg_ring_layout *l)
{
    bool have_commit = false, have_data = false;
    const char *line = text;
    while (line && *line) {
        char decl[96];
        size_t off, size;
        int sg;
        if (field_of(line, decl, sizeof decl, &off, &size, &sg) == 0) {
            char name[32];
            name_of(decl, name, sizeof name);
            if (!strcmp(name, "commit")) {
                l->commit_off = off;
                l->commit_size = size;
                have_commit = true;
            } else if (!strcmp(name, "data")) {
                l->data_off = off;
                have_data = true;
            }
        }
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    if (!have_commit || !have_data || (l->commit_size != 4 && l->commit_size != 8))
        return EINVAL;
    return 0;
}

static uint64_t read_u(const uint8_t *p, size_t size)
{
    if (size == 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    if (size == 4) {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    if (size == 2) {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    return p[0];
}

uint64_t rtg_ring_page_ts(const uint8_t *page)
{
    return read_u(page, 8);
}

static void note_ts(void *arg, const struct rtg_ring_event *e)
{
    *(uint64_t *)arg = e->ts;
}

uint64_t rtg_ring_page_last_ts(const struct rtg_ring_layout *l, const uint8_t *page, size_t len)
{
    uint64_t last = len >= 8 ? read_u(page, 8) : 0, missed;
    rtg_ring_page_walk(l, page, len, note_ts, &last, &missed);
    return last;
}

uint64_t rtg_ring_page_missed(const struct rtg_ring_layout *l, const uint8_t *page, size_t len)
{
    if (len < l->data_off || len < l->commit_off + l->commit_size)
        return 0;
    uint64_t commit = read_u(page + l->commit_off, l->commit_size);
    if (!(commit & MISSED_EVENTS))
        return 0;
    uint64_t size = commit & (MISSED_STORED - 1);
    size_t room = len - l->data_off, w = l->commit_size; /* the count: an unsigned long */
    if ((commit & MISSED_STORED) && size + w <= room)
        return read_u(page + l->data_off + size, w);
    return UINT64_MAX;
}

int rtg_ring_page_walk(const struct rtg_ring_layout *l, const uint8_t *page, size_t len,
                       rtg_ring_fn fn, void *arg, uint64_t *missed)
{
    *missed = 0;
    if (len < l->data_off || len < l->commit_off + l->commit_size)
        return EINVAL;
    uint64_t ts = read_u(page, 8);
    uint64_t commit = read_u(page + l->commit_off, l->commit_size);
    uint64_t size = commit & (MISSED_STORED - 1);
    const uint8_t *data = page + l->data_off;
    size_t room = len - l->data_off;
    if (size > room)
        return EINVAL;
    *missed = rtg_ring_page_missed(l, page, len);
    size_t i = 0;
    while (i + 4 <= size) {
        uint32_t hdr;
        memcpy(&hdr, data + i, 4);
        unsigned type_len = hdr & 0x1f;
        uint64_t delta = hdr >> 5;
        uint32_t a0 = 0;
        if (i + 8 <= size)
            memcpy(&a0, data + i + 4, 4);
        switch (type_len) {
        case TYPE_PADDING:
            if (delta == 0) /* the rest of the page is unused */
                return 0;
            if (i + 8 > size || a0 == 0)
                return EINVAL;
            ts += delta; /* a discarded event keeps its time */
            i += 4 + (size_t)a0;
            continue;
        case TYPE_TIME_EXTEND:
            if (i + 8 > size)
                return EINVAL;
            ts += delta | ((uint64_t)a0 << 27);
            i += 8;
            continue;
        case TYPE_TIME_STAMP: {
            if (i + 8 > size)
                return EINVAL;
            uint64_t abs = delta | ((uint64_t)a0 << 27);
            ts = abs | (read_u(page, 8) & TS_MSB_MASK);
            i += 8;
            continue;
        }
        default:
            break;
        }
        ts += delta;
        struct rtg_ring_event e = {.ts = ts};
        if (type_len == 0) { /* long event: its length (with the length word) first */
            if (i + 8 > size || a0 < 4 || i + 4 + (size_t)a0 > size)
                return EINVAL;
            e.data = data + i + 8;
            e.len = a0 - 4;
            i += 4 + (size_t)a0;
        } else {
            size_t dl = (size_t)type_len * 4;
            if (i + 4 + dl > size)
                return EINVAL;
            e.data = data + i + 4;
            e.len = dl;
            i += 4 + dl;
        }
        fn(arg, &e);
    }
    return 0;
}

int rtg_fmt_parse(const char *text, struct rtg_fmt *f)
{
    memset(f, 0, sizeof *f);
    f->id = -1;
    const char *line = text;
    while (line && *line) {
        if (!strncmp(line, "ID:", 3))
            f->id = atoi(line + 3);
        char decl[96];
        size_t off, size;
        int sg;
        if (field_of(line, decl, sizeof decl, &off, &size, &sg) == 0 &&
            f->n_fields < RTG_FMT_FIELDS) {
            struct rtg_fmt_field *fl = &f->f[f->n_fields++];
            name_of(decl, fl->name, sizeof fl->name);
            fl->offset = (uint16_t)off;
            fl->size = (uint16_t)size;
            fl->is_signed = sg != 0;
            fl->data_loc = strstr(decl, "__data_loc") != NULL;
        }
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    return f->id < 0 ? EINVAL : 0;
}

const struct rtg_fmt_field *rtg_fmt_field(const struct rtg_fmt *f, const char *name)
{
    for (size_t i = 0; i < f->n_fields; i++)
        if (!strcmp(f->f[i].name, name))
            return &f->f[i];
    return NULL;
}

int64_t rtg_fmt_int(const struct rtg_fmt_field *fl, const uint8_t *rec, size_t len)
{
    if (!fl || fl->size == 0 || fl->size > 8 || (size_t)fl->offset + fl->size > len)
        return 0;
    uint64_t u = read_u(rec + fl->offset, fl->size);
    if (fl->is_signed && fl->size < 8) {
        uint64_t sign = 1ull << (fl->size * 8 - 1);
        if (u & sign)
            u |= ~((sign << 1) - 1);
    }
    return (int64_t)u;
}

void rtg_fmt_str(const struct rtg_fmt_field *fl, const uint8_t *rec, size_t len, char *out,
                 size_t n)
{
    out[0] = '\0';
    if (!fl || n == 0)
        return;
    const uint8_t *p;
    size_t avail;
    if (fl->data_loc) {
        if ((size_t)fl->offset + 4 > len)
            return;
        uint32_t loc = (uint32_t)read_u(rec + fl->offset, 4);
        size_t off = loc & 0xffff, l = loc >> 16;
        if (off + l > len)
            return;
        p = rec + off;
        avail = l;
    } else {
        if ((size_t)fl->offset + fl->size > len)
            return;
        p = rec + fl->offset;
        avail = fl->size;
    }
    size_t k = 0;
    while (k < avail && k + 1 < n && p[k] != '\0') {
        out[k] = (char)p[k];
        k++;
    }
    out[k] = '\0';
}
