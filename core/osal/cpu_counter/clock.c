/* The measuring clock read from the CPU's counter (the invariant TSC on
 * x86, the virtual counter on aarch64): choosing and calibrating it. A part
 * shared by the ports that name it in their port.cmake (posix, c11); a port
 * with a clock of its own provides these functions itself (freertos). The
 * calibration reference, the fallback, the sleeps and the CPU's flags come
 * from the port's OSAL calls, so this file is as portable as the tests. */
#include <math.h>
#include <stdbool.h>

#include "rtg/clock.h"
#include "rtg/osal.h"
#include "rtg/osal_sys.h"
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

struct rtg_clock_state rtg_clock_g = {.source = RTG_CLOCK_POSIX, .ns_per_tick = 1.0, .freq_hz = 1e9};

uint64_t rtg_clock_posix_ticks(void)
{
    return rtg_mono_ns();
}

/* The calibration reference: CLOCK_MONOTONIC_RAW (not slewed by NTP) where
 * the OS has it, CLOCK_MONOTONIC otherwise. */
static __attribute__((unused)) uint64_t raw_ns(void)
{
    uint64_t ns;
    return rtg_clock_read_ns(RTG_CLK_MONOTONIC_RAW, &ns) == 0 ? ns : rtg_mono_ns();
}

#if defined(__x86_64__) || defined(__i386__)
/* CPUID 0x80000007 EDX bit 8: the TSC ticks at a constant rate in every
 * P-, C- and T-state. Hypervisors often hide the leaf while the kernel
 * still trusts the TSC, so /proc/cpuinfo's flags count as well. */
static int tsc_invariant(void)
{
    unsigned a, b, c, d;
    if (__get_cpuid(0x80000007, &a, &b, &c, &d) && (d & (1u << 8)))
        return 1;
    return rtg_sys_cpu_flag("constant_tsc") && rtg_sys_cpu_flag("nonstop_tsc");
}
#endif

/* One (counter, ns) pair, taken where the two reads were closest. */
__attribute__((unused)) static void paired_read(uint64_t *ticks, uint64_t *ns)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 16; i++) {
        uint64_t a = raw_ns();
        uint64_t t = rtg_clock_ticks();
        uint64_t b = raw_ns();
        if (b - a < best) {
            best = b - a;
            *ticks = t;
            *ns = a + (b - a) / 2;
        }
    }
}

__attribute__((unused)) static void sleep_ms(long ms)
{
    rtg_sleep_ns((uint64_t)ms * 1000000u);
}

/* Frequency over two 50 ms halves: their disagreement bounds the error. */
__attribute__((unused)) static void calibrate(void)
{
    uint64_t t0, n0, t1, n1, t2, n2;
    paired_read(&t0, &n0);
    sleep_ms(50);
    paired_read(&t1, &n1);
    sleep_ms(50);
    paired_read(&t2, &n2);
    double f1 = (double)(t1 - t0) * 1e9 / (double)(n1 - n0);
    double f2 = (double)(t2 - t1) * 1e9 / (double)(n2 - n1);
    double f = (double)(t2 - t0) * 1e9 / (double)(n2 - n0);
    rtg_clock_g.freq_hz = f;
    rtg_clock_g.ns_per_tick = 1e9 / f;
    rtg_clock_g.calibration_error_ppm = fabs(f1 - f2) / f * 1e6;
}

void rtg_clock_init(int force_posix)
{
    rtg_clock_g.source = RTG_CLOCK_POSIX;
    rtg_clock_g.ns_per_tick = 1.0;
    rtg_clock_g.freq_hz = 1e9;
    rtg_clock_g.calibration_error_ppm = 0.0;
    if (force_posix)
        return;
#if defined(__x86_64__) || defined(__i386__)
    if (tsc_invariant()) {
        rtg_clock_g.source = RTG_CLOCK_TSC;
        calibrate();
    }
#elif defined(__aarch64__)
    rtg_clock_g.source = RTG_CLOCK_CNTVCT;
    calibrate();
#endif
    /* A counter that disagrees with itself by > 1000 ppm is not trusted. */
    if (rtg_clock_g.source != RTG_CLOCK_POSIX && rtg_clock_g.calibration_error_ppm > 1000.0) {
        rtg_clock_g.source = RTG_CLOCK_POSIX;
        rtg_clock_g.ns_per_tick = 1.0;
        rtg_clock_g.freq_hz = 1e9;
    }
}

void rtg_clock_use_mock(uint64_t start, uint64_t step, double ns_per_tick)
{
    rtg_clock_g.source = RTG_CLOCK_MOCK;
    rtg_clock_g.mock_now = start;
    rtg_clock_g.mock_step = step;
    rtg_clock_g.ns_per_tick = ns_per_tick;
    rtg_clock_g.freq_hz = 1e9 / ns_per_tick;
    rtg_clock_g.calibration_error_ppm = 0.0;
}

const char *rtg_clock_source_name(void)
{
    switch (rtg_clock_g.source) {
    case RTG_CLOCK_TSC: return "tsc";
    case RTG_CLOCK_CNTVCT: return "cntvct";
    case RTG_CLOCK_MOCK: return "mock";
    default: return "clock_gettime";
    }
}
