/* A test's period adapted to the OS's tick (tick_period.h). */
#include "common/tick_period.h"

#include <stdio.h>

#include "rtg/json.h"
#include "rtg/osal.h"

uint64_t rtg_tick_round(uint64_t ns, uint32_t tick_hz)
{
    if (tick_hz == 0)
        return ns;
    uint64_t tick_ns = 1000000000u / tick_hz;
    uint64_t ticks = (ns + tick_ns / 2) / tick_ns;
    return (ticks ? ticks : 1) * tick_ns;
}

uint64_t rtg_tick_adapt(struct rtg_ctx *ctx, const char *what, uint64_t ns)
{
    uint32_t hz = rtg_wait_tick_hz();
    uint64_t adapted = rtg_tick_round(ns, hz);
    struct rtg_json *info = rtg_info(ctx);
    char key[48];
    snprintf(key, sizeof key, "%s_requested_ns", what);
    rtg_json_kuint(info, key, ns);
    rtg_json_kuint(info, "wait_tick_hz", hz);
    if (adapted != ns)
        rtg_note(ctx,
                 "%s %llu us rounded to %llu us: the OS's timed waits end on its %u Hz tick",
                 what, (unsigned long long)(ns / 1000u), (unsigned long long)(adapted / 1000u),
                 (unsigned)hz);
    return adapted;
}
