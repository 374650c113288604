/* Fresh pages and locking state (rtg/osal_mem.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "rtg/osal_mem.h"

size_t rtg_page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

int rtg_map_fresh(void **out, size_t len, bool no_huge)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return errno;
#ifdef MADV_NOHUGEPAGE
    if (no_huge)
        madvise(p, len, MADV_NOHUGEPAGE);
#else
    (void)no_huge;
#endif
    *out = p;
    return 0;
}

int rtg_unmap(void *p, size_t len)
{
    return munmap(p, len) ? errno : 0;
}

uint64_t rtg_locked_bytes(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmLck: %llu kB", &kb) == 1)
            break;
    fclose(f);
    return (uint64_t)kb * 1024u;
}

int rtg_page_faults(uint64_t *minor, uint64_t *major)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru))
        return errno;
    if (minor)
        *minor = (uint64_t)ru.ru_minflt;
    if (major)
        *major = (uint64_t)ru.ru_majflt;
    return 0;
}
