/* Removes the message queues a killed probe left behind (rtg_msg_sweep,
 * rtg/osal_msg.h), found through Linux's /proc: the POSIX port's System V
 * keys and POSIX queue names carry their creator's pid
 * (posix/msg_internal.h), and a queue whose creator is gone is removed. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <unistd.h>

#include "../posix/msg_internal.h"
#include "process_state.h"

/* The process no longer exists, or is a zombie (killed, not yet reaped). */
/* System V: keys tagged with the creator's pid. */
static int sweep_sysv(void)
{
    int n = 0;
    FILE *f = fopen("/proc/sysvipc/msg", "r");
    if (!f)
        return 0;
    char line[512];
    if (fgets(line, sizeof line, f)) { /* header */
        while (fgets(line, sizeof line, f)) {
            long key, id;
            if (sscanf(line, "%ld %ld", &key, &id) != 2)
                continue;
            unsigned long k = (unsigned long)key & 0xffffffffu;
            if ((k & 0xff000000u) != RTG_PX_SYSV_TAG)
                continue;
            long pid = (long)((k >> 2) & 0x3fffffu);
            if (pid == (long)getpid() || rtg_linux_pid_gone(pid))
                if (msgctl((int)id, IPC_RMID, NULL) == 0)
                    n++;
        }
    }
    fclose(f);
    return n;
}

/* POSIX: names are unlinked at once; a process killed between create and
 * unlink leaves one, listed where the mqueue fs is mounted. */
static int sweep_mq(void)
{
    int n = 0;
    DIR *d = opendir("/dev/mqueue");
    if (!d)
        return 0;
    struct dirent *e;
    size_t pl = strlen(RTG_PX_MQ_PREFIX) - 1;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, &RTG_PX_MQ_PREFIX[1], pl) != 0)
            continue;
        long pid = strtol(e->d_name + pl, NULL, 10);
        if (pid == (long)getpid() || rtg_linux_pid_gone(pid)) {
            char name[300];
            snprintf(name, sizeof name, "/%s", e->d_name);
            if (mq_unlink(name) == 0)
                n++;
        }
    }
    closedir(d);
    return n;
}

int rtg_msg_sweep(int *removed)
{
    int n = sweep_sysv();
    n += sweep_mq();
    if (removed)
        *removed = n;
    return 0;
}
