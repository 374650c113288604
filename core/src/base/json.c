#include "rtg/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rtg_json_init(struct rtg_json *j)
{
    memset(j, 0, sizeof(*j));
}

void rtg_json_free(struct rtg_json *j)
{
    free(j->buf);
    rtg_json_init(j);
}

void rtg_json_reset(struct rtg_json *j)
{
    char *buf = j->buf;
    size_t cap = j->cap;
    rtg_json_init(j);
    j->buf = buf;
    j->cap = cap;
    if (buf)
        buf[0] = '\0';
}

static void put(struct rtg_json *j, const char *s, size_t n)
{
    if (j->failed)
        return;
    if (j->len + n + 1 > j->cap) {
        size_t cap = j->cap ? j->cap : 256;
        while (j->len + n + 1 > cap)
            cap *= 2;
        char *nb = realloc(j->buf, cap);
        if (!nb) { /* a small heap: no room to double, perhaps for what is needed */
            cap = j->len + n + 1 + 256;
            nb = realloc(j->buf, cap);
        }
        if (!nb) {
            j->failed = true;
            return;
        }
        j->buf = nb;
        j->cap = cap;
    }
    memcpy(j->buf + j->len, s, n);
    j->len += n;
    j->buf[j->len] = '\0';
}

static void puts_(struct rtg_json *j, const char *s)
{
    put(j, s, strlen(s));
}

/* Separator before a value: a comma unless first in its container. */
static void before_value(struct rtg_json *j)
{
    if (j->after_key) {
        j->after_key = false;
        return;
    }
    if (j->depth > 0) {
        if (j->need_comma[j->depth])
            put(j, ",", 1);
        j->need_comma[j->depth] = true;
    }
}

static void open_(struct rtg_json *j, char c)
{
    before_value(j);
    put(j, &c, 1);
    if (j->depth + 1 >= RTG_JSON_DEPTH) {
        j->failed = true;
        return;
    }
    j->depth++;
    j->need_comma[j->depth] = false;
}

static void close_(struct rtg_json *j, char c)
{
    if (j->depth <= 0) {
        j->failed = true;
        return;
    }
    j->depth--;
    put(j, &c, 1);
}

void rtg_json_obj_begin(struct rtg_json *j) { open_(j, '{'); }
void rtg_json_obj_end(struct rtg_json *j) { close_(j, '}'); }
void rtg_json_arr_begin(struct rtg_json *j) { open_(j, '['); }
void rtg_json_arr_end(struct rtg_json *j) { close_(j, ']'); }

static void quoted(struct rtg_json *j, const char *s)
{
    put(j, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[8];
        switch (*p) {
        case '"': puts_(j, "\\\""); break;
        case '\\': puts_(j, "\\\\"); break;
        case '\n': puts_(j, "\\n"); break;
        case '\r': puts_(j, "\\r"); break;
        case '\t': puts_(j, "\\t"); break;
        default:
            if (*p < 0x20 || *p == 0x7f) {
                snprintf(esc, sizeof esc, "\\u%04x", *p);
                puts_(j, esc);
            } else if (*p >= 0x80) {
                /* Bytes from the target may not be UTF-8: keep ASCII only. */
                snprintf(esc, sizeof esc, "\\u%04x", 0xfffd);
                puts_(j, esc);
            } else {
                put(j, (const char *)p, 1);
            }
        }
    }
    put(j, "\"", 1);
}

void rtg_json_key(struct rtg_json *j, const char *key)
{
    before_value(j);
    quoted(j, key);
    put(j, ":", 1);
    j->after_key = true;
}

void rtg_json_str(struct rtg_json *j, const char *s)
{
    if (!s) {
        rtg_json_null(j);
        return;
    }
    before_value(j);
    quoted(j, s);
}

void rtg_json_int(struct rtg_json *j, int64_t v)
{
    char b[32];
    before_value(j);
    snprintf(b, sizeof b, "%lld", (long long)v);
    puts_(j, b);
}

void rtg_json_uint(struct rtg_json *j, uint64_t v)
{
    char b[32];
    before_value(j);
    snprintf(b, sizeof b, "%llu", (unsigned long long)v);
    puts_(j, b);
}

void rtg_json_num(struct rtg_json *j, double v)
{
    char b[40];
    if (!isfinite(v)) {
        rtg_json_null(j);
        return;
    }
    before_value(j);
    if (v == floor(v) && fabs(v) < 9e15)
        snprintf(b, sizeof b, "%.0f", v);
    else
        snprintf(b, sizeof b, "%.6g", v);
    puts_(j, b);
}

void rtg_json_bool(struct rtg_json *j, bool v)
{
    before_value(j);
    puts_(j, v ? "true" : "false");
}

void rtg_json_null(struct rtg_json *j)
{
    before_value(j);
    puts_(j, "null");
}

void rtg_json_raw_value(struct rtg_json *j, const char *json, size_t len)
{
    before_value(j);
    put(j, json, len);
}

void rtg_json_shrink(struct rtg_json *j)
{
    if (j->failed || !j->buf || j->len + 1 >= j->cap)
        return;
    char *nb = realloc(j->buf, j->len + 1);
    if (nb) {
        j->buf = nb;
        j->cap = j->len + 1;
    }
}

struct rtg_json_mark rtg_json_mark(const struct rtg_json *j)
{
    struct rtg_json_mark m = {.len = j->len, .depth = j->depth, .after_key = j->after_key,
                              .failed = j->failed};
    m.need_comma = j->depth >= 0 && j->depth < RTG_JSON_DEPTH ? j->need_comma[j->depth] : false;
    return m;
}

void rtg_json_rollback(struct rtg_json *j, const struct rtg_json_mark *m)
{
    /* A failed realloc left the buffer as it was: everything before the
     * mark is still there. */
    j->len = m->len;
    if (j->buf)
        j->buf[j->len] = '\0';
    j->depth = m->depth;
    if (m->depth >= 0 && m->depth < RTG_JSON_DEPTH)
        j->need_comma[m->depth] = m->need_comma;
    j->after_key = m->after_key;
    j->failed = m->failed;
}

void rtg_json_kstr(struct rtg_json *j, const char *k, const char *s) { rtg_json_key(j, k); rtg_json_str(j, s); }
void rtg_json_kint(struct rtg_json *j, const char *k, int64_t v) { rtg_json_key(j, k); rtg_json_int(j, v); }
void rtg_json_kuint(struct rtg_json *j, const char *k, uint64_t v) { rtg_json_key(j, k); rtg_json_uint(j, v); }
void rtg_json_knum(struct rtg_json *j, const char *k, double v) { rtg_json_key(j, k); rtg_json_num(j, v); }
void rtg_json_kbool(struct rtg_json *j, const char *k, bool v) { rtg_json_key(j, k); rtg_json_bool(j, v); }
void rtg_json_knull(struct rtg_json *j, const char *k) { rtg_json_key(j, k); rtg_json_null(j); }
