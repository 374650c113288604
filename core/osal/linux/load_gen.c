/* The built-in load generators: the body of each load process. Each runs
 * until killed and adds what it did to its shared counter. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "../posix/janitor.h"
#include "load_internal.h"

static void add(volatile uint64_t *ctr, uint64_t n)
{
    __atomic_fetch_add(ctr, n, __ATOMIC_RELAXED);
}

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void load_cpu(volatile uint64_t *ctr)
{
    uint64_t x = 88172645463325252ull;
    double d = 1.0;
    for (;;) {
        for (int i = 0; i < 10000; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            d = sqrt(d * 1.000001 + (double)(x & 0xff));
        }
        if (d < 0) /* never: keeps the arithmetic alive */
            x++;
        add(ctr, 1);
    }
}

/* Where the memory load's reads go, so the compiler keeps them. */
static volatile uint64_t memory_load_sink;

static void load_memory(volatile uint64_t *ctr, size_t bytes)
{
    long pg = sysconf(_SC_PAGESIZE);
    size_t page = pg > 0 ? (size_t)pg : 4096;
    if (bytes < page)
        bytes = page;
    for (;;) {
        unsigned char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                                -1, 0);
        if (p == MAP_FAILED) {
            pause_ms(10);
            continue;
        }
        uint64_t pages = 0;
        for (size_t off = 0; off < bytes; off += page, pages++)
            memset(p + off, (int)(pages & 0xff), page); /* page fault, then write */
        uint64_t s = 0;
        for (size_t off = 0; off < bytes; off += 64)
            s += p[off];
        memory_load_sink += s;
        munmap(p, bytes);
        add(ctr, pages);
    }
}

static void load_fileio(volatile uint64_t *ctr, const char *dir)
{
    static char buf[65536];
    char path[4200];
    snprintf(path, sizeof path, "%s/fileio.%ld", dir, (long)getpid());
    memset(buf, 0x5a, sizeof buf);
    for (;;) {
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
        if (fd < 0) {
            pause_ms(10);
            continue;
        }
        bool ok = true;
        for (int i = 0; i < 4 && ok; i++) /* 256 KiB */
            ok = write(fd, buf, sizeof buf) == (ssize_t)sizeof buf;
        if (ok)
            ok = fsync(fd) == 0;
        close(fd);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            while (read(fd, buf, sizeof buf) > 0)
                ;
            close(fd);
        }
        unlink(path);
        if (ok)
            add(ctr, 1);
        else
            pause_ms(10); /* disk full: do not spin */
    }
}

static void load_fork(volatile uint64_t *ctr)
{
    for (;;) {
        pid_t p = fork();
        if (p == 0)
            _exit(0);
        if (p < 0) {
            pause_ms(1);
            continue;
        }
        while (waitpid(p, NULL, 0) < 0 && errno == EINTR)
            ;
        add(ctr, 1);
    }
}

static void load_syscall(volatile uint64_t *ctr)
{
    for (;;) {
        for (int i = 0; i < 100; i++) {
            (void)syscall(SYS_getppid);
            (void)syscall(SYS_getuid);
            (void)getpriority(PRIO_PROCESS, 0);
            (void)close(-1);
        }
        add(ctr, 400);
    }
}

static void load_proc(volatile uint64_t *ctr)
{
    static const char *files[] = {"/proc/self/stat", "/proc/self/status", "/proc/stat",
                                  "/proc/meminfo",   "/proc/interrupts",  "/proc/loadavg"};
    char buf[16384];
    for (;;) {
        for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
            int fd = open(files[i], O_RDONLY | O_CLOEXEC);
            if (fd < 0)
                continue;
            while (read(fd, buf, sizeof buf) > 0)
                ;
            close(fd);
            add(ctr, 1);
        }
    }
}

static void load_net(volatile uint64_t *ctr)
{
    for (;;) {
        int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a;
        memset(&a, 0, sizeof a);
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = 0; /* ephemeral */
        socklen_t al = sizeof a;
        if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof a) || listen(ls, 1) ||
            getsockname(ls, (struct sockaddr *)&a, &al)) {
            if (ls >= 0)
                close(ls);
            pause_ms(100);
            continue;
        }
        pid_t self = getpid();
        pid_t peer = fork();
        if (peer == 0) {
#ifdef __linux__
            prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
            if (getppid() != self)
                _exit(0);
            close(ls);
            int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof a))
                _exit(1);
            int one = 1;
            setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            char b[64];
            while (rtg_px_io_all(c, b, sizeof b, false) && rtg_px_io_all(c, b, sizeof b, true))
                ;
            _exit(0);
        }
        if (peer < 0) {
            close(ls);
            pause_ms(100);
            continue;
        }
        int s = accept(ls, NULL, NULL);
        close(ls);
        if (s >= 0) {
            int one = 1;
            setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            char b[64];
            memset(b, 1, sizeof b);
            while (rtg_px_io_all(s, b, sizeof b, true) && rtg_px_io_all(s, b, sizeof b, false))
                add(ctr, 1);
            close(s);
        }
        kill(peer, SIGKILL);
        waitpid(peer, NULL, 0);
        pause_ms(10);
    }
}

static void load_timer(volatile uint64_t *ctr)
{
#if defined(__linux__) && defined(PR_SET_TIMERSLACK)
    prctl(PR_SET_TIMERSLACK, 1UL); /* SCHED_OTHER's 50 us slack would merge the timers */
#endif
    struct timespec ts = {0, 1000};
    for (;;) {
        for (int i = 0; i < 10; i++)
            nanosleep(&ts, NULL);
        add(ctr, 10);
    }
}

void rtg_load_body(enum rtg_load_kind kind, volatile uint64_t *ctr, const struct rtg_load_cfg *cfg)
{
    switch (kind) {
    case RTG_LOAD_CPU: load_cpu(ctr); break;
    case RTG_LOAD_MEMORY: load_memory(ctr, cfg->memory_bytes); break;
    case RTG_LOAD_FILEIO: load_fileio(ctr, cfg->scratch_dir ? cfg->scratch_dir : "/tmp"); break;
    case RTG_LOAD_FORK: load_fork(ctr); break;
    case RTG_LOAD_SYSCALL: load_syscall(ctr); break;
    case RTG_LOAD_PROC: load_proc(ctr); break;
    case RTG_LOAD_NET: load_net(ctr); break;
    case RTG_LOAD_TIMER: load_timer(ctr); break;
    default: break;
    }
    _exit(0);
}
