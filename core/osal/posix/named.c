/* Named POSIX semaphores (sem_open), see rtg/osal_named.h. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rtg/osal_named.h"

#define PREFIX "rtg-"

static unsigned name_seq;

int rtg_named_sem_name(char *buf, size_t len, const char *tag)
{
    int n = snprintf(buf, len, "/" PREFIX "%ld-%s-%u", (long)getpid(), tag, name_seq++);
    return n < 0 || (size_t)n >= len ? ENAMETOOLONG : 0;
}

int rtg_named_sem_create(rtg_sem_t **s, const char *name, unsigned value)
{
    sem_t *p = sem_open(name, O_CREAT | O_EXCL, 0600, value);
    if (p == SEM_FAILED)
        return errno;
    /* rtg_sem_t is a struct whose only member is the sem_t. */
    *s = (rtg_sem_t *)(void *)p;
    return 0;
}

int rtg_named_sem_close(rtg_sem_t *s)
{
    return sem_close(&s->sem) ? errno : 0;
}

int rtg_named_sem_unlink(const char *name)
{
    return sem_unlink(name) ? errno : 0;
}

int rtg_named_sem_sweep(int *removed)
{
    if (removed)
        *removed = 0;
#ifdef __linux__
    /* glibc and musl keep named semaphores as /dev/shm/sem.<name>. */
    DIR *d = opendir("/dev/shm");
    if (!d)
        return errno == ENOENT ? 0 : errno;
    long self = (long)getpid();
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (strncmp(n, "sem." PREFIX, 4 + strlen(PREFIX)) != 0)
            continue;
        char *end;
        long pid = strtol(n + 4 + strlen(PREFIX), &end, 10);
        if (end == n + 4 + strlen(PREFIX) || *end != '-' || pid <= 0)
            continue;
        if (pid != self && !(kill((pid_t)pid, 0) != 0 && errno == ESRCH))
            continue; /* another live process's */
        char name[300];
        snprintf(name, sizeof name, "/%s", n + 4);
        if (sem_unlink(name) == 0 && removed)
            (*removed)++;
    }
    closedir(d);
    return 0;
#else
    return 0;
#endif
}
