/* Helpers a port fills its system facts with (rtg/sys_facts.h). In the base
 * library: the port calls down into them, never up into the probe. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg/sys_facts.h"

void rtg_sys_text_set(struct rtg_sys_text *t, const char *s)
{
    t->known = true;
    snprintf(t->v, sizeof t->v, "%s", s);
}

/* Room for one more fact: the list doubles, from 64, up to the maximum. */
static bool make_room(struct rtg_sys_extra *x)
{
    if (x->n < x->cap)
        return true;
    if (x->cap >= RTG_SYS_EXTRA_MAX)
        return false;
    size_t cap = x->cap ? x->cap * 2 : 64;
    if (cap > RTG_SYS_EXTRA_MAX)
        cap = RTG_SYS_EXTRA_MAX;
    struct rtg_sys_fact *grown = realloc(x->facts, cap * sizeof *grown);
    if (!grown)
        return false;
    x->facts = grown;
    x->cap = cap;
    return true;
}

struct rtg_sys_fact *rtg_sys_extra_add(struct rtg_sys_extra *x, const char *path,
                                       enum rtg_sys_fact_type type)
{
    if (!path || strlen(path) >= RTG_SYS_FACT_PATH_MAX || !make_room(x)) {
        x->dropped++;
        return NULL;
    }
    struct rtg_sys_fact *f = &x->facts[x->n++];
    memset(f, 0, sizeof *f);
    memcpy(f->path, path, strlen(path) + 1);
    f->type = type;
    return f;
}

void rtg_sys_extra_free(struct rtg_sys_extra *x)
{
    free(x->facts);
    memset(x, 0, sizeof *x);
}

void rtg_sys_extra_text(struct rtg_sys_extra *x, const char *path, const char *s)
{
    struct rtg_sys_fact *f = rtg_sys_extra_add(x, path, RTG_FACT_TEXT);
    if (f)
        snprintf(f->text, sizeof f->text, "%s", s);
}

void rtg_sys_extra_bool(struct rtg_sys_extra *x, const char *path, bool v)
{
    struct rtg_sys_fact *f = rtg_sys_extra_add(x, path, RTG_FACT_BOOL);
    if (f)
        f->v.b = v;
}

void rtg_sys_extra_int(struct rtg_sys_extra *x, const char *path, int64_t v)
{
    struct rtg_sys_fact *f = rtg_sys_extra_add(x, path, RTG_FACT_INT);
    if (f)
        f->v.i = v;
}

void rtg_sys_extra_uint(struct rtg_sys_extra *x, const char *path, uint64_t v)
{
    struct rtg_sys_fact *f = rtg_sys_extra_add(x, path, RTG_FACT_UINT);
    if (f)
        f->v.u = v;
}

void rtg_sys_extra_num(struct rtg_sys_extra *x, const char *path, double v)
{
    struct rtg_sys_fact *f = rtg_sys_extra_add(x, path, RTG_FACT_NUM);
    if (f)
        f->v.d = v;
}

void rtg_sys_warning(struct rtg_sys_warnings *w, const char *s)
{
    if (w->n < RTG_SYS_WARNINGS_MAX)
        snprintf(w->text[w->n++], sizeof w->text[0], "%s", s);
}
