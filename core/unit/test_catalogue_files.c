/* Every test of catalogue.def lives in a file named after its id,
 * core/catalogue/<family>/<id lower-cased, '-' -> '_'>.c, that file exists
 * in the source tree, and docs/catalogue.md lists the id with that path. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtg_private/registry.h"
#include "unit.h"

#ifndef RTG_SOURCE_DIR
#error "RTG_SOURCE_DIR (the source tree) is set by the build"
#endif

/* "THR-P-SUS" -> "core/catalogue/thr/thr_p_sus.c" */
static void expected_path(const char *id, char *out, size_t n)
{
    char lower[64], family[16];
    size_t i = 0;
    for (; id[i] && i + 1 < sizeof lower; i++)
        lower[i] = id[i] == '-' ? '_' : (char)tolower((unsigned char)id[i]);
    lower[i] = '\0';
    size_t f = strcspn(lower, "_");
    snprintf(family, sizeof family, "%.*s", (int)(f < sizeof family - 1 ? f : sizeof family - 1),
             lower);
    snprintf(out, n, "core/catalogue/%s/%s.c", family, lower);
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += r;
        if (len + 1 == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
    }
    fclose(f);
    if (buf)
        buf[len] = '\0';
    return buf;
}

/* The table row of id in docs/catalogue.md names the path. */
static int doc_lists(const char *doc, const char *id, const char *path)
{
    char cell[80], src[200];
    snprintf(cell, sizeof cell, "\n| %s |", id);
    snprintf(src, sizeof src, "`%s`", path);
    const char *row = strstr(doc, cell);
    if (!row)
        return 0;
    const char *end = strchr(row + 1, '\n');
    const char *hit = strstr(row, src);
    return hit && (!end || hit < end);
}

int main(void)
{
    char *doc = read_all(RTG_SOURCE_DIR "/docs/catalogue.md");
    CHECK(doc != NULL);
    /* the checks must be able to fail: a made-up id has no file, no row */
    char want[160], full[512];
    expected_path("THR-P-NOPE", want, sizeof want);
    CHECK_STR(want, "core/catalogue/thr/thr_p_nope.c");
    snprintf(full, sizeof full, "%s/%s", RTG_SOURCE_DIR, want);
    CHECK(fopen(full, "r") == NULL);
    CHECK(!doc || !doc_lists(doc, "THR-P-NOPE", want));

    CHECK(rtg_registry_len >= 35);
    for (size_t i = 0; i < rtg_registry_len; i++) {
        const struct rtg_test_desc *d = rtg_registry[i];
        expected_path(d->id, want, sizeof want);
        CHECK_STR(d->source, want);
        snprintf(full, sizeof full, "%s/%s", RTG_SOURCE_DIR, want);
        FILE *f = fopen(full, "r");
        if (!f)
            fprintf(stderr, "%s: no file %s\n", d->id, want);
        CHECK(f != NULL);
        if (f)
            fclose(f);
        if (doc && !doc_lists(doc, d->id, want))
            fprintf(stderr, "%s: docs/catalogue.md has no row naming %s\n", d->id, want);
        CHECK(doc && doc_lists(doc, d->id, want));
    }
    free(doc);
    return unit_report("test_catalogue_files");
}
