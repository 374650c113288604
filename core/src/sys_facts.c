/* Helpers a port fills its system facts with (rtg/osal_sys.h). In the base
 * library: the port calls down into them, never up into the probe. */
#include <stdio.h>

#include "rtg/osal_sys.h"

void rtg_sys_text_set(struct rtg_sys_text *t, const char *s)
{
    t->known = true;
    snprintf(t->v, sizeof t->v, "%s", s);
}

struct rtg_sys_fact *rtg_sys_extra_add(struct rtg_sys_extra *x, const char *path,
                                       enum rtg_sys_fact_type type)
{
    if (x->n == RTG_SYS_EXTRA_MAX) {
        x->dropped++;
        return NULL;
    }
    struct rtg_sys_fact *f = &x->facts[x->n++];
    *f = (struct rtg_sys_fact){.path = path, .type = type};
    return f;
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
