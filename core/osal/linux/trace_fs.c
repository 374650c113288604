/* tracefs and the recorder's instances (trace_fs.h). */
#define _GNU_SOURCE
#include "trace_fs.h"
#include "process_state.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const roots[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};

/* A probe that mounted tracefs says so in a file of its own, removed when
 * it unmounts: a probe killed with SIGKILL leaves it, and the next run's
 * janitor unmounts what that probe mounted (once no instance is left). */
#define MARK_DIR "/run"
#define MARK_PREFIX "rtgauge-tracefs-mounted."

static void mark_path(char *p, size_t n, long pid)
{
    snprintf(p, n, "%s/%s%ld", MARK_DIR, MARK_PREFIX, pid);
}

static void mark_set(void)
{
    char p[96];
    mark_path(p, sizeof p, (long)getpid());
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0)
        close(fd); /* without it a SIGKILL leaves tracefs mounted, as before */
}

static void mark_clear(long pid)
{
    char p[96];
    mark_path(p, sizeof p, pid);
    unlink(p);
}

static bool is_tracefs(const char *dir)
{
    char p[RTG_TRACEFS_PATH + 32];
    snprintf(p, sizeof p, "%s/trace_clock", dir);
    return access(p, F_OK) == 0;
}

int rtg_tracefs_open(struct rtg_tracefs *fs, char *why, size_t n)
{
    memset(fs, 0, sizeof *fs);
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++)
        if (is_tracefs(roots[i])) {
            snprintf(fs->root, sizeof fs->root, "%s", roots[i]);
            return 0;
        }
    if (mount("tracefs", roots[0], "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) {
        int e = errno;
        snprintf(why, n, "tracefs is not mounted and cannot be mounted at %s: %s", roots[0],
                 strerror(e));
        return e == ENODEV ? ENOTSUP : e;
    }
    snprintf(fs->root, sizeof fs->root, "%s", roots[0]);
    fs->mounted_here = true;
    mark_set();
    return 0;
}

/* Whether instances/ holds anything (another tool's, or ours not removed). */
static bool instances_left(const struct rtg_tracefs *fs)
{
    char p[RTG_TRACEFS_PATH + 16];
    snprintf(p, sizeof p, "%s/instances", fs->root);
    DIR *d = opendir(p);
    if (!d)
        return false;
    bool any = false;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (e->d_name[0] != '.')
            any = true;
    closedir(d);
    return any;
}

void rtg_tracefs_close(struct rtg_tracefs *fs)
{
    if (fs->mounted_here && !instances_left(fs) && umount2(fs->root, MNT_DETACH) == 0)
        mark_clear((long)getpid());
    fs->mounted_here = false;
}

/* A mount of a probe that is gone becomes this one's: unmounted when this
 * one closes, if nothing is left in it then (another tool's instance keeps
 * it mounted). */
static void adopt_left_behind(struct rtg_tracefs *fs)
{
    DIR *d = opendir(MARK_DIR);
    if (!d)
        return;
    const size_t plen = strlen(MARK_PREFIX);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, MARK_PREFIX, plen) != 0)
            continue;
        char *end;
        long pid = strtol(e->d_name + plen, &end, 10);
        if (end == e->d_name + plen || *end != '\0' || pid <= 0 || !rtg_linux_pid_gone(pid))
            continue;
        mark_clear(pid);
        if (!fs->mounted_here) {
            fs->mounted_here = true;
            mark_set();
        }
    }
    closedir(d);
}

/* dir/file into p; ENAMETOOLONG when it does not fit. */
static int join(char *p, size_t n, const char *dir, const char *file)
{
    size_t a = strlen(dir), b = strlen(file);
    if (a + 1 + b + 1 > n)
        return ENAMETOOLONG;
    memcpy(p, dir, a);
    p[a] = '/';
    memcpy(p + a + 1, file, b + 1);
    return 0;
}

int rtg_tracefs_write(const char *dir, const char *file, const char *s)
{
    char p[RTG_TRACEFS_PATH * 4];
    if (join(p, sizeof p, dir, file))
        return ENAMETOOLONG;
    int fd = open(p, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    size_t len = strlen(s);
    ssize_t w = write(fd, s, len);
    int e = w == (ssize_t)len ? 0 : (w < 0 ? errno : EIO);
    close(fd);
    return e;
}

long rtg_tracefs_read(const char *dir, const char *file, char *buf, size_t n)
{
    char p[RTG_TRACEFS_PATH * 4];
    if (join(p, sizeof p, dir, file))
        return -1;
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got + 1 < n) {
        ssize_t r = read(fd, buf + got, n - 1 - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    buf[got] = '\0';
    return (long)got;
}

int rtg_tracefs_instance_new(const struct rtg_tracefs *fs, int index, char *path, size_t n)
{
    snprintf(path, n, "%s/instances/" RTG_TRACE_INSTANCE_PREFIX "%ld-%d", fs->root,
             (long)getpid(), index);
    if (mkdir(path, 0700) != 0) {
        if (errno != EEXIST)
            return errno;
        /* ours from an earlier test of this process that did not end well */
        rtg_tracefs_instance_remove(path);
        if (mkdir(path, 0700) != 0)
            return errno;
    }
    /* a new instance records at once; nothing is enabled yet, but off first */
    return rtg_tracefs_write(path, "tracing_on", "0");
}

int rtg_tracefs_instance_remove(const char *path)
{
    rtg_tracefs_write(path, "tracing_on", "0");
    /* the buffer may still be held a moment by a reader being closed */
    for (int i = 0; i < 50; i++) {
        if (rmdir(path) == 0 || errno == ENOENT)
            return 0;
        if (errno != EBUSY)
            return errno;
        usleep(2000);
    }
    return EBUSY;
}

void rtg_tracefs_janitor(struct rtg_tracefs *fs)
{
    char dir[RTG_TRACEFS_PATH + 16];
    snprintf(dir, sizeof dir, "%s/instances", fs->root);
    DIR *d = opendir(dir);
    if (!d)
        return;
    const size_t plen = strlen(RTG_TRACE_INSTANCE_PREFIX);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strncmp(e->d_name, RTG_TRACE_INSTANCE_PREFIX, plen) != 0)
            continue;
        char *end;
        long pid = strtol(e->d_name + plen, &end, 10);
        if (end == e->d_name + plen || *end != '-' || pid <= 0)
            continue;
        if (!rtg_linux_pid_gone(pid))
            continue; /* its probe is alive (or not ours to judge) */
        char p[RTG_TRACEFS_PATH + 16 + sizeof e->d_name + 2];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        rtg_tracefs_instance_remove(p);
    }
    closedir(d);
    adopt_left_behind(fs);
}
