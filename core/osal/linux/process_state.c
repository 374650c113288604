/* Whether a process is gone (process_state.h). */
#define _POSIX_C_SOURCE 200809L
#include "process_state.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

bool rtg_linux_pid_gone(long pid)
{
    if (pid <= 0)
        return false;
    if (kill((pid_t)pid, 0) != 0)
        return errno == ESRCH;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *rp = strrchr(buf, ')'); /* the state follows "(comm)" */
    return rp && rp[1] == ' ' && rp[2] == 'Z';
}
