/* The only way the probe writes JSON: a small writer that tracks commas
 * and escapes every string, into a growable memory buffer. */
#ifndef RTG_JSON_H
#define RTG_JSON_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RTG_JSON_DEPTH 32

struct rtg_json {
    char *buf;
    size_t len, cap;
    int depth;
    bool need_comma[RTG_JSON_DEPTH];
    bool after_key;
    bool failed; /* out of memory or nesting misuse */
};

void rtg_json_init(struct rtg_json *j);
void rtg_json_free(struct rtg_json *j);
void rtg_json_reset(struct rtg_json *j);

void rtg_json_obj_begin(struct rtg_json *j);
void rtg_json_obj_end(struct rtg_json *j);
void rtg_json_arr_begin(struct rtg_json *j);
void rtg_json_arr_end(struct rtg_json *j);
void rtg_json_key(struct rtg_json *j, const char *key);
void rtg_json_str(struct rtg_json *j, const char *s); /* NULL writes null */
void rtg_json_int(struct rtg_json *j, int64_t v);
void rtg_json_uint(struct rtg_json *j, uint64_t v);
void rtg_json_num(struct rtg_json *j, double v); /* non-finite writes null */
void rtg_json_bool(struct rtg_json *j, bool v);
void rtg_json_null(struct rtg_json *j);
/* Insert an already valid JSON value produced by another rtg_json. */
void rtg_json_raw_value(struct rtg_json *j, const char *json, size_t len);
/* Gives back the buffer's unused room (its capacity grows by doubling). */
void rtg_json_shrink(struct rtg_json *j);
/* A point to come back to: what is written after it can be dropped whole
 * (rtg_json_rollback), and an out-of-memory failure since forgotten, so a
 * record that cannot hold an optional part is still written without it.
 * Valid while the container open at the mark stays open. */
struct rtg_json_mark {
    size_t len;
    int depth;
    bool need_comma, after_key, failed;
};
struct rtg_json_mark rtg_json_mark(const struct rtg_json *j);
void rtg_json_rollback(struct rtg_json *j, const struct rtg_json_mark *m);

/* Shorthands for key + value. */
void rtg_json_kstr(struct rtg_json *j, const char *key, const char *s);
void rtg_json_kint(struct rtg_json *j, const char *key, int64_t v);
void rtg_json_kuint(struct rtg_json *j, const char *key, uint64_t v);
void rtg_json_knum(struct rtg_json *j, const char *key, double v);
void rtg_json_kbool(struct rtg_json *j, const char *key, bool v);
void rtg_json_knull(struct rtg_json *j, const char *key);

#endif
