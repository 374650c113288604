/* The raw cost of one clock read, for comparison with the probe's floor. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static uint64_t ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(void)
{
    enum { N = 1000000 };
    volatile uint64_t sink = 0;
    uint64_t t0 = ns();
#if defined(__x86_64__)
    for (int i = 0; i < N; i++) {
        uint32_t lo, hi;
        __asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
        sink += lo;
    }
#endif
    double tsc = (double)(ns() - t0) / N;
    t0 = ns();
    for (int i = 0; i < N; i++)
        sink += ns();
    double cg = (double)(ns() - t0) / N;
    printf("{\"rdtsc_ns\": %.2f, \"clock_gettime_ns\": %.2f}\n", tsc, cg);
    return (int)(sink & 0);
}
