/* Whether the kernel offers the timerlat tracer (IRQ-P-LAT uses the
 * kernel's own IRQ-context figure where it does). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "rtg/osal_timer.h"

static bool file_has(const char *path, const char *word)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    for (char *p = strtok(buf, " \n"); p; p = strtok(NULL, " \n"))
        if (!strcmp(p, word))
            return true;
    return false;
}

bool rtg_timerlat_available(char *why, size_t n)
{
    static const char *const dirs[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
    for (size_t i = 0; i < 2; i++) {
        char p[128];
        snprintf(p, sizeof p, "%s/available_tracers", dirs[i]);
        if (access(p, R_OK) == 0) {
            bool ok = file_has(p, "timerlat");
            snprintf(why, n, ok ? "timerlat listed in %s" : "tracefs at %s lists no timerlat tracer"
                                                            " (CONFIG_TIMERLAT_TRACER not set)",
                     ok ? p : dirs[i]);
            return ok;
        }
    }
    /* Not mounted: mount it for the check only, then unmount. */
    if (mount("tracefs", dirs[0], "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0) {
        bool ok = file_has("/sys/kernel/tracing/available_tracers", "timerlat");
        umount2(dirs[0], MNT_DETACH);
        snprintf(why, n,
                 ok ? "timerlat listed by tracefs (mounted for the check)"
                    : "tracefs (mounted for the check, unmounted) lists no timerlat tracer"
                      " (CONFIG_TIMERLAT_TRACER not set)");
        return ok;
    }
    snprintf(why, n, "tracefs is not mounted and cannot be mounted: %s", strerror(errno));
    return false;
}
