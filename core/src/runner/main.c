/* rtgauge-probe: parse, validate everything, then run. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "rtg_private/config.h"
#include "rtg_private/registry.h"
#include "rtg_private/runner.h"
#include "rtg_private/version.h"

static void list_text(void)
{
    for (size_t i = 0; i < rtg_registry_len; i++) {
        const struct rtg_test_desc *d = rtg_registry[i];
        const char *why_not = rtg_test_unavailable(d);
        printf("%-12s %c  %s\n", d->id, d->kind, d->title);
        printf("    source: %s\n", d->source);
        if (why_not)
            printf("    unavailable here: %s\n", why_not);
        for (size_t k = 0; k < d->n_options; k++) {
            const struct rtg_option *o = &d->options[k];
            if (!rtg_option_in_build(o))
                continue;
            if (o->type == RTG_OPT_ENUM)
                printf("    %-16s one of %s  %s\n", o->key, o->choices, o->help);
            else if (o->quick != 0)
                printf("    %-16s default %g (quick %g), %.10g..%.10g%s  %s\n", o->key, o->def, o->quick,
                       o->min, o->max, o->flags & RTG_OPT_SCALED ? ", scaled" : "", o->help);
            else
                printf("    %-16s default %g, %.10g..%.10g%s  %s\n", o->key, o->def, o->min, o->max,
                       o->flags & RTG_OPT_SCALED ? ", scaled" : "", o->help);
        }
    }
}

static void list_json(void)
{
    struct rtg_json j;
    rtg_json_init(&j);
    for (size_t i = 0; i < rtg_registry_len; i++) {
        const struct rtg_test_desc *d = rtg_registry[i];
        char kind[2] = {d->kind, '\0'};
        rtg_json_reset(&j);
        rtg_json_obj_begin(&j);
        rtg_json_kstr(&j, "record", "catalogue");
        rtg_json_kstr(&j, "id", d->id);
        rtg_json_kstr(&j, "title", d->title);
        rtg_json_kstr(&j, "kind", kind);
        rtg_test_facts_emit(d, &j);
        rtg_json_kstr(&j, "source", d->source);
        const char *why_not = rtg_test_unavailable(d);
        rtg_json_kbool(&j, "available", why_not == NULL);
        rtg_json_kstr(&j, "reason", why_not);
        rtg_json_key(&j, "options");
        rtg_json_arr_begin(&j);
        for (size_t k = 0; k < d->n_options; k++) {
            const struct rtg_option *o = &d->options[k];
            if (!rtg_option_in_build(o))
                continue;
            rtg_json_obj_begin(&j);
            rtg_json_kstr(&j, "key", o->key);
            rtg_json_kstr(&j, "type", o->type == RTG_OPT_INT ? "int" : o->type == RTG_OPT_FLOAT ? "float" : "enum");
            if (o->type == RTG_OPT_ENUM) {
                rtg_json_kstr(&j, "choices", o->choices);
            } else {
                rtg_json_knum(&j, "default", o->def);
                if (o->quick != 0)
                    rtg_json_knum(&j, "quick", o->quick);
                rtg_json_knum(&j, "min", o->min);
                rtg_json_knum(&j, "max", o->max);
                rtg_json_kbool(&j, "scaled", (o->flags & RTG_OPT_SCALED) != 0);
            }
            rtg_json_kstr(&j, "help", o->help);
            rtg_json_obj_end(&j);
        }
        rtg_json_arr_end(&j);
        rtg_json_obj_end(&j);
        puts(j.buf);
    }
    rtg_json_free(&j);
}

int main(int argc, char **argv)
{
    static struct rtg_config cfg;
    char err[512];
    if (rtg_cli_parse(argc, argv, &cfg, err, sizeof err) || rtg_cli_resolve(&cfg, err, sizeof err)) {
        fprintf(stderr, "rtgauge-probe: error: %s\n", err);
        return 2;
    }
    switch (cfg.mode) {
    case RTG_MODE_HELP:
        rtg_cli_usage(stdout);
        return 0;
    case RTG_MODE_VERSION:
        printf("rtgauge-probe %s\n", RTG_VERSION);
        return 0;
    case RTG_MODE_LIST:
        list_text();
        return 0;
    case RTG_MODE_LIST_JSON:
        list_json();
        return 0;
    case RTG_MODE_RUN:
    case RTG_MODE_FACTS:
        break;
    }
    FILE *out = stdout;
    if (cfg.out && strcmp(cfg.out, "-") != 0) {
        out = fopen(cfg.out, "w");
        if (!out) {
            fprintf(stderr, "rtgauge-probe: error: cannot write '%s': %m\n", cfg.out);
            return 2;
        }
    }
    int code = rtg_run(&cfg, argc, argv, out);
    if (out != stdout && fclose(out) != 0) {
        fprintf(stderr, "rtgauge-probe: error: writing '%s': %m\n", cfg.out);
        return 3;
    }
    return code;
}
