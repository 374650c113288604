/* Load processes: start (fork, SCHED_OTHER, pinned, dies with its parent),
 * count, stop (kill, reap); delegation to stress-ng; scratch directories. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

static const char *const names[RTG_LOAD_KINDS] = {"cpu",     "memory", "fileio", "fork",
                                                  "syscall", "proc",   "net",    "timer"};
static const char *const units[RTG_LOAD_KINDS] = {
    "10000 arithmetic iterations",
    "page faulted, written and read (4 KiB)",
    "256 KiB written, fsync'ed, read back and unlinked",
    "fork + exit + wait",
    "system call (getppid, getuid, getpriority, close)",
    "/proc file opened, read and closed",
    "64-byte TCP round trip on 127.0.0.1",
    "1 us relative sleep (timer expiry)"};
/* stress-ng's stressor for each phase */
static const char *const sng[RTG_LOAD_KINDS] = {"cpu",  "vm",     "hdd",  "fork",
                                                "get",  "procfs", "sock", "timer"};

const char *rtg_load_name(enum rtg_load_kind k)
{
    return (unsigned)k < RTG_LOAD_KINDS ? names[k] : "?";
}

const char *rtg_load_op_unit(enum rtg_load_kind k, enum rtg_load_tool tool)
{
    if ((unsigned)k >= RTG_LOAD_KINDS)
        return "?";
    return tool == RTG_LOAD_STRESS_NG ? "stress-ng bogo op" : units[k];
}

const char *rtg_load_tool_name(enum rtg_load_tool tool)
{
    return tool == RTG_LOAD_STRESS_NG ? "stress-ng" : "builtin";
}

struct ctr {
    uint64_t ops;
    char pad[56]; /* one cache line each */
};

struct rtg_load_set {
    enum rtg_load_kind kind;
    enum rtg_load_tool tool;
    size_t n;
    pid_t *pids;
    struct ctr *ctrs;
    char yaml[4200];
};

/* In the new process: never outlive the parent, SCHED_OTHER, pinned, no
 * inherited descriptors (the probe's result pipe), quiet. */
static void child_setup(pid_t parent, int cpu)
{
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    if (getppid() != parent) /* the parent died before prctl */
        _exit(0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int s = 1; s < 32; s++)
        if (s != SIGKILL && s != SIGSTOP)
            signal(s, SIG_DFL);
    /* The test runs SCHED_FIFO and fork inherits it. */
    struct sched_param sp = {.sched_priority = 0};
    pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
#ifdef __linux__
    if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        sched_setaffinity(0, sizeof set, &set);
    }
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
#endif
#endif
        for (int fd = 3; fd < 1024; fd++)
            close(fd);
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
        if (null > 2)
            close(null);
    }
}

static void reap(pid_t pid, int first_sig, long grace_ms)
{
    if (pid <= 0)
        return;
    kill(pid, first_sig);
    if (first_sig != SIGKILL) {
        for (long waited = 0; waited < grace_ms; waited += 10) {
            pid_t r = waitpid(pid, NULL, WNOHANG);
            if (r == pid || (r < 0 && errno == ECHILD))
                return;
            struct timespec ts = {0, 10000000L};
            nanosleep(&ts, NULL);
        }
        kill(pid, SIGKILL);
    }
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
}

static void free_set(struct rtg_load_set *s)
{
    if (s->ctrs)
        munmap(s->ctrs, s->n * sizeof *s->ctrs);
    free(s->pids);
    free(s);
}

static int start_builtin(struct rtg_load_set *s, const int *cpus, const struct rtg_load_cfg *cfg)
{
    pid_t self = getpid();
    for (size_t i = 0; i < s->n; i++) {
        pid_t p = fork();
        if (p < 0) {
            int e = errno;
            for (size_t k = 0; k < i; k++)
                reap(s->pids[k], SIGKILL, 0);
            return e;
        }
        if (p == 0) {
            child_setup(self, cpus[i]);
            rtg_load_body(s->kind, &s->ctrs[i].ops, cfg);
        }
        s->pids[i] = p;
    }
    return 0;
}

static int start_stress_ng(struct rtg_load_set *s, const int *cpus, const struct rtg_load_cfg *cfg)
{
    char workers[16], cpulist[512], timeout[32], vmbytes[32], opt[32];
    snprintf(workers, sizeof workers, "%zu", s->n);
    size_t len = 0;
    cpulist[0] = '\0';
    for (size_t i = 0; i < s->n && len < sizeof cpulist - 16; i++)
        len += (size_t)snprintf(cpulist + len, sizeof cpulist - len, "%s%d", i ? "," : "", cpus[i]);
    snprintf(timeout, sizeof timeout, "%us", cfg->max_s ? cfg->max_s : 3600);
    snprintf(vmbytes, sizeof vmbytes, "%zuk", cfg->memory_bytes / 1024);
    snprintf(opt, sizeof opt, "--%s", sng[s->kind]);
    const char *dir = cfg->scratch_dir ? cfg->scratch_dir : "/tmp";
    snprintf(s->yaml, sizeof s->yaml, "%s/stress-ng-%s.yaml", dir, names[s->kind]);
    const char *argv[32];
    int a = 0;
    argv[a++] = "stress-ng";
    argv[a++] = opt;
    argv[a++] = workers;
    if (s->kind == RTG_LOAD_MEMORY) {
        argv[a++] = "--vm-bytes";
        argv[a++] = vmbytes;
    } else if (s->kind == RTG_LOAD_FILEIO) {
        argv[a++] = "--hdd-bytes";
        argv[a++] = "16m";
        argv[a++] = "--hdd-opts";
        argv[a++] = "fsync";
    } else if (s->kind == RTG_LOAD_NET) {
        argv[a++] = "--sock-domain";
        argv[a++] = "ipv4";
    }
    argv[a++] = "--taskset";
    argv[a++] = cpulist;
    argv[a++] = "--temp-path";
    argv[a++] = dir;
    argv[a++] = "--timeout";
    argv[a++] = timeout;
    argv[a++] = "--metrics-brief";
    argv[a++] = "--yaml";
    argv[a++] = s->yaml;
    argv[a] = NULL;

    pid_t self = getpid();
    pid_t p = fork();
    if (p < 0)
        return errno;
    if (p == 0) {
        child_setup(self, -1);
        setpgid(0, 0); /* its workers share the group: killed together */
        execvp("stress-ng", (char *const *)argv);
        _exit(127);
    }
    setpgid(p, p);
    s->pids[0] = p;
    return 0;
}

int rtg_load_start(struct rtg_load_set **out, enum rtg_load_kind kind, const int *cpus, size_t n,
                   const struct rtg_load_cfg *cfg)
{
    *out = NULL;
    if ((unsigned)kind >= RTG_LOAD_KINDS || n == 0)
        return EINVAL;
    struct rtg_load_set *s = calloc(1, sizeof *s);
    if (!s)
        return ENOMEM;
    s->kind = kind;
    s->tool = cfg->tool;
    s->n = n;
    s->pids = calloc(n, sizeof *s->pids);
    void *m = mmap(NULL, n * sizeof *s->ctrs, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                   -1, 0);
    if (!s->pids || m == MAP_FAILED) {
        s->ctrs = NULL;
        free_set(s);
        return ENOMEM;
    }
    s->ctrs = m;
    int rc = cfg->tool == RTG_LOAD_STRESS_NG ? start_stress_ng(s, cpus, cfg)
                                             : start_builtin(s, cpus, cfg);
    if (rc) {
        free_set(s);
        return rc;
    }
    *out = s;
    return 0;
}

uint64_t rtg_load_ops_now(const struct rtg_load_set *s)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < s->n; i++)
        sum += __atomic_load_n(&s->ctrs[i].ops, __ATOMIC_RELAXED);
    return sum;
}

/* Sum of the "bogo-ops:" values of stress-ng's YAML metrics. */
static bool yaml_ops(const char *path, uint64_t *ops)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[512];
    bool found = false;
    *ops = 0;
    while (fgets(line, sizeof line, f)) {
        const char *k = strstr(line, "bogo-ops:");
        if (!k)
            continue;
        *ops += strtoull(k + strlen("bogo-ops:"), NULL, 10);
        found = true;
    }
    fclose(f);
    unlink(path);
    return found;
}

int rtg_load_stop(struct rtg_load_set *s, uint64_t *ops, bool *known)
{
    if (!s)
        return EINVAL;
    if (s->tool == RTG_LOAD_STRESS_NG) {
        /* SIGINT: stress-ng stops its workers and writes its metrics. */
        reap(s->pids[0], SIGINT, 5000);
        kill(-s->pids[0], SIGKILL); /* any straggling worker */
        *known = yaml_ops(s->yaml, ops);
        if (!*known)
            *ops = 0;
    } else {
        for (size_t i = 0; i < s->n; i++)
            kill(s->pids[i], SIGKILL);
        for (size_t i = 0; i < s->n; i++)
            reap(s->pids[i], SIGKILL, 0);
        *ops = rtg_load_ops_now(s);
        *known = true;
    }
    free_set(s);
    return 0;
}

bool rtg_load_tool_present(enum rtg_load_tool tool)
{
    if (tool == RTG_LOAD_BUILTIN)
        return true;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    char dir[4096];
    while (*path) {
        size_t n = strcspn(path, ":");
        if (n && n < sizeof dir - 16) {
            memcpy(dir, path, n);
            snprintf(dir + n, sizeof dir - n, "/stress-ng");
            if (access(dir, X_OK) == 0)
                return true;
        }
        path += n;
        if (*path == ':')
            path++;
    }
    return false;
}

static void remove_tree(const char *path, int depth);

/* A scratch directory outlives a SIGKILL of the whole probe unless someone
 * else removes it: a janitor (janitor.h), the test side's child, removes it
 * when the test side and the load processes it forked are gone. */
#define SCRATCH_MAX 4
static struct {
    char path[4096];
    struct rtg_px_janitor janitor;
} scratch[SCRATCH_MAX];

static void remove_scratch(void *path)
{
    remove_tree(path, 0);
}

static int make_scratch(void *path)
{
    return mkdtemp(path) ? 0 : errno;
}

/* The janitor makes the directory itself, in its own session: a SIGKILL
 * of the probe's group at any instant finds either no directory or one
 * whose janitor survives it. */
int rtg_scratch_create(char *path, size_t n)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    if ((size_t)snprintf(path, n, "%s/rtgauge-load.XXXXXX", tmp) >= n)
        return ENAMETOOLONG;
    size_t slot = 0;
    while (slot < SCRATCH_MAX && scratch[slot].path[0])
        slot++;
    const struct rtg_px_janitor_job job = {.cleanup = remove_scratch, .state = path,
                                           .create = make_scratch, .reply_size = strlen(path) + 1};
    if (slot < SCRATCH_MAX && !rtg_px_janitor_start(&scratch[slot].janitor, &job, false)) {
        snprintf(scratch[slot].path, sizeof scratch[slot].path, "%s", path);
        return 0;
    }
    /* no janitor: a SIGKILL may leave the directory behind */
    return make_scratch(path);
}

static void remove_tree(const char *path, int depth)
{
    DIR *d = depth < 4 ? opendir(path) : NULL;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char f[4400];
            snprintf(f, sizeof f, "%s/%s", path, e->d_name);
            struct stat st;
            if (lstat(f, &st) == 0 && S_ISDIR(st.st_mode))
                remove_tree(f, depth + 1); /* stress-ng's own temporary directories */
            else
                unlink(f);
        }
        closedir(d);
    }
    rmdir(path);
}

int rtg_scratch_remove(const char *path)
{
    remove_tree(path, 0);
    for (size_t i = 0; i < SCRATCH_MAX; i++)
        if (scratch[i].path[0] && strcmp(scratch[i].path, path) == 0) {
            scratch[i].path[0] = '\0';
            /* Bounded: it exits as soon as the last holder of the pipe, a
             * load process, is gone. */
            rtg_px_janitor_release(&scratch[i].janitor, 10000);
        }
    return access(path, F_OK) == 0 ? EBUSY : 0;
}
