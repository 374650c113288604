/* The measuring clock: the fastest trustworthy counter of the target
 * (invariant TSC on x86-64, the virtual counter on aarch64), calibrated
 * against the port's monotonic time; that time otherwise; a mock for unit
 * tests. Read ticks in the hot path, convert deltas to ns afterwards. The
 * port provides the out-of-line functions: the CPU's counter
 * (core/osal/cpu_counter/clock.c) or its own (core/osal/freertos/clock.c),
 * as its port.cmake says. */
#ifndef RTG_CLOCK_H
#define RTG_CLOCK_H
#include <stdint.h>

/* RTG_CLOCK_HW_COUNTER: a board's free-running counter, read by the port
 * through rtg_clock_posix_ticks (the out-of-line read; see the RTOS ports). */
enum rtg_clock_source {
    RTG_CLOCK_POSIX,
    RTG_CLOCK_TSC,
    RTG_CLOCK_CNTVCT,
    RTG_CLOCK_MOCK,
    RTG_CLOCK_HW_COUNTER
};

struct rtg_clock_state {
    enum rtg_clock_source source;
    double ns_per_tick;
    double freq_hz;
    double calibration_error_ppm; /* disagreement of two calibration halves */
    uint64_t mock_now;            /* RTG_CLOCK_MOCK: current tick */
    uint64_t mock_step;           /* RTG_CLOCK_MOCK: added by every read */
};

extern struct rtg_clock_state rtg_clock_g;

/* Picks and calibrates the source (~100 ms). force_posix skips counters. */
void rtg_clock_init(int force_posix);
void rtg_clock_use_mock(uint64_t start, uint64_t step, double ns_per_tick);
const char *rtg_clock_source_name(void);

/* CLOCK_MONOTONIC in ns: the fallback source (out of line, so the tests
 * that include this header stay free of POSIX calls). */
uint64_t rtg_clock_posix_ticks(void);

static inline uint64_t rtg_clock_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    if (rtg_clock_g.source == RTG_CLOCK_TSC) {
        uint32_t lo, hi;
        /* lfence keeps the read from moving before earlier instructions */
        __asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
        return ((uint64_t)hi << 32) | lo;
    }
#elif defined(__aarch64__)
    if (rtg_clock_g.source == RTG_CLOCK_CNTVCT) {
        uint64_t v;
        __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v)::"memory");
        return v;
    }
#endif
    if (rtg_clock_g.source == RTG_CLOCK_MOCK) {
        rtg_clock_g.mock_now += rtg_clock_g.mock_step;
        return rtg_clock_g.mock_now;
    }
    return rtg_clock_posix_ticks();
}

/* Ticks between two reads as ns (0 if the counter went backwards). */
static inline uint64_t rtg_clock_delta_ns(uint64_t from, uint64_t to)
{
    if (to <= from)
        return 0;
    return (uint64_t)((double)(to - from) * rtg_clock_g.ns_per_tick + 0.5);
}

#endif
