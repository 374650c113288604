/* The stop request: set when the running test must stop (the user
 * interrupted the run, or the test overran its bound), read by the test's
 * loops. The port sets it from the isolated context (a signal handler on
 * POSIX, the watchdog on a thread or task port) and clears it between tests
 * that share memory; the runner reads why the test stopped. It sits in the
 * base library (core/src/base/stop.c), below both the port and the runner, so
 * that neither calls up into the other for it. */
#ifndef RTG_STOP_H
#define RTG_STOP_H
#include <stdbool.h>

enum { RTG_STOP_NONE = 0, RTG_STOP_INTERRUPTED = 1, RTG_STOP_OVERRAN = 2 };

/* Requests a stop; the first reason given is kept. Async-signal-safe. */
void rtg_stop_set(int why);
/* Forgets a stop request: a port whose tests share the runner's memory
 * calls it before starting the next test. */
void rtg_stop_clear(void);
/* Whether a stop was requested: loops must check it and stop, keeping what
 * they measured. */
bool rtg_stop_requested(void);
/* RTG_STOP_NONE, RTG_STOP_INTERRUPTED or RTG_STOP_OVERRAN. */
int rtg_stop_reason(void);

#endif
