/* Reading /proc, /sys and the kernel's configuration (sys_read.h). */
#define _GNU_SOURCE
#include "sys_read.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void trim_end(char *s)
{
    size_t l = strlen(s);
    while (l && isspace((unsigned char)s[l - 1]))
        s[--l] = '\0';
}

bool rtg_lx_read_line(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(buf, (int)n, f) != NULL;
    fclose(f);
    if (!ok) {
        buf[0] = '\0';
        return true; /* readable but empty */
    }
    trim_end(buf);
    return true;
}

bool rtg_lx_find_field(const char *path, const char *key, char *out, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[4096];
    bool found = false;
    size_t kl = strlen(key);
    while (!found && fgets(line, sizeof line, f)) {
        if (strncmp(line, key, kl) != 0)
            continue;
        char *c = strchr(line, ':');
        if (!c)
            continue;
        c++;
        while (*c == ' ' || *c == '\t')
            c++;
        snprintf(out, n, "%s", c);
        trim_end(out);
        found = true;
    }
    fclose(f);
    return found;
}

bool rtg_lx_has_word(const char *s, const char *word)
{
    size_t l = strlen(word);
    for (const char *p = strstr(s, word); p; p = strstr(p + 1, word))
        if ((p == s || p[-1] == ' ') && (p[l] == ' ' || p[l] == '\0'))
            return true;
    return false;
}

bool rtg_lx_kconfig_line(const char *line, const char *key, char *out, size_t n)
{
    size_t kl = strlen(key);
    if (strncmp(line, "CONFIG_", 7) == 0 && strncmp(line + 7, key, kl) == 0 &&
        line[7 + kl] == '=') {
        const char *v = line + 8 + kl;
        size_t l = strcspn(v, "\n");
        if (l >= 2 && v[0] == '"' && v[l - 1] == '"') { /* a string: without its quotes */
            v++;
            l -= 2;
        }
        snprintf(out, n, "%.*s", (int)l, v);
        return true;
    }
    if (strncmp(line, "# CONFIG_", 9) == 0 && strncmp(line + 9, key, kl) == 0 &&
        strncmp(line + 9 + kl, " is not set", 11) == 0) {
        snprintf(out, n, "n");
        return true;
    }
    return false;
}

const char *rtg_lx_kconfig(const char *release, const char *const *keys, size_t n,
                           char (*values)[RTG_LX_KCONFIG_VALUE_MAX])
{
    static char source[300];
    char path[300], line[512];
    snprintf(path, sizeof path, "/boot/config-%s", release);
    FILE *f = fopen(path, "r");
    bool piped = false;
    if (f) {
        snprintf(source, sizeof source, "%s", path);
    } else if (access("/proc/config.gz", R_OK) == 0) {
        f = popen("gzip -dc /proc/config.gz 2>/dev/null", "r");
        piped = f != NULL;
        snprintf(source, sizeof source, "/proc/config.gz");
    }
    if (!f)
        return NULL;
    for (size_t i = 0; i < n; i++)
        snprintf(values[i], RTG_LX_KCONFIG_VALUE_MAX, "n"); /* absent from the file: unset */
    bool any = false;
    while (fgets(line, sizeof line, f)) {
        any = true;
        for (size_t i = 0; i < n; i++)
            if (rtg_lx_kconfig_line(line, keys[i], values[i], RTG_LX_KCONFIG_VALUE_MAX))
                break;
    }
    if (piped)
        pclose(f);
    else
        fclose(f);
    return any ? source : NULL; /* gzip missing: nothing came through the pipe */
}

size_t rtg_lx_irq_header(const char *line, int *cpu_of_col, size_t max)
{
    size_t n = 0;
    for (const char *p = strstr(line, "CPU"); p && n < max; p = strstr(p + 3, "CPU")) {
        char *end;
        long c = strtol(p + 3, &end, 10);
        if (end == p + 3)
            break;
        cpu_of_col[n++] = (int)c;
    }
    return n;
}

bool rtg_lx_cpu_in(int cpu, const int *cpus, size_t n_cpus)
{
    for (size_t i = 0; i < n_cpus; i++)
        if (cpus[i] == cpu)
            return true;
    return false;
}

bool rtg_lx_irq_row(const char *line, const int *cpu_of_col, size_t ncols, const int *cpus,
                    size_t n_cpus, char *label, size_t label_n, uint64_t *sum, char *rest,
                    size_t rest_n)
{
    const char *p = line;
    while (*p == ' ')
        p++;
    const char *colon = strchr(p, ':');
    if (!colon || colon == p || ncols == 0)
        return false;
    for (const char *q = p; q < colon; q++)
        if (!isalnum((unsigned char)*q) && *q != '_' && *q != '-')
            return false;
    snprintf(label, label_n, "%.*s", (int)(colon - p), p);
    p = colon + 1;
    *sum = 0;
    for (size_t c = 0; c < ncols; c++) {
        char *end;
        unsigned long long v = strtoull(p, &end, 10);
        if (end == p)
            return false; /* fewer counts than CPUs: a total, not a row per CPU */
        if (rtg_lx_cpu_in(cpu_of_col[c], cpus, n_cpus))
            *sum += v;
        p = end;
    }
    size_t o = 0;
    bool space = false;
    for (; *p && o + 1 < rest_n; p++) {
        if (isspace((unsigned char)*p)) {
            space = o > 0;
            continue;
        }
        if (space && o + 2 < rest_n)
            rest[o++] = ' ';
        space = false;
        rest[o++] = *p;
    }
    rest[o] = '\0';
    return true;
}

bool rtg_lx_stat_steal(const char *line, int *cpu, uint64_t *steal)
{
    if (strncmp(line, "cpu", 3) != 0 || !isdigit((unsigned char)line[3]))
        return false;
    char *end;
    long c = strtol(line + 3, &end, 10);
    const char *p = end;
    unsigned long long v = 0;
    for (int i = 0; i < 8; i++) { /* user nice system idle iowait irq softirq steal */
        v = strtoull(p, &end, 10);
        if (end == p)
            return false;
        p = end;
    }
    *cpu = (int)c;
    *steal = v;
    return true;
}

bool rtg_lx_steal_ticks(const int *cpus, size_t n_cpus, uint64_t *ticks)
{
    FILE *f = fopen("/proc/stat", "re");
    if (!f)
        return false;
    /* The "intr" line is longer than the buffer: its pieces start with a
     * digit or a space, never with "cpu". */
    char line[1024];
    uint64_t sum = 0;
    bool any = false;
    while (fgets(line, sizeof line, f)) {
        int cpu;
        uint64_t v;
        if (rtg_lx_stat_steal(line, &cpu, &v) && (!cpus || rtg_lx_cpu_in(cpu, cpus, n_cpus))) {
            sum += v;
            any = true;
        }
    }
    fclose(f);
    *ticks = sum;
    return any;
}
