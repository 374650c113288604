/* Isolation: what a port provides so that the runner (core/src/runner/runner.c)
 * can run each test apart from the probe, under a deadline, and survive a
 * test that hangs, spins or crashes. The runner keeps the policy (which
 * tests, in what order, what record to write, the exit code); the port
 * provides the mechanism (a child process, a thread, an RTOS task).
 *
 * Nothing here names a process, a file descriptor or a signal number: a
 * port on an RTOS implements it with fresh tasks and a watchdog task at
 * the highest priority. The POSIX port (core/osal/posix/isolate.c) forks
 * a child per test; the ISO C11 port (core/osal/c11/isolate.c) runs the
 * test in a thread. docs/porting.md describes both.
 *
 * Call order: rtg_isolate_begin once, then rtg_isolate_run per test (never
 * two at once), then rtg_isolate_end once, on every path. */
#ifndef RTG_OSAL_ISOLATE_H
#define RTG_OSAL_ISOLATE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "rtg/json.h" /* the end record the port adds to: rtg_isolate_end_record */
#include "rtg/stop.h" /* the stop request the port sets: rtg_stop_set, rtg_stop_clear */

/* ---- the run ---- */

/* What the port changed for the run and holds until rtg_isolate_end. */
struct rtg_isolate_run {
    bool cpu_dma_latency; /* CPUs kept out of deep idle states (held at 0) */
    bool watchdog_rt;     /* the watchdog side runs above every test thread */
    void *port;           /* the port's own saved state */
};

/* Starts the run, before the first test. The port:
 * - makes an interrupt by the user (Ctrl-C, a termination request) set the
 *   flag rtg_isolate_interrupted() reports, instead of ending the probe;
 * - may watch `out` (where the records go): when its reader goes away,
 *   the run counts as interrupted (nobody would see further results);
 * - may hold settings that help every test (e.g. CPUs out of deep idle)
 *   and, when rt is true (the probe may use real-time priorities), raises
 *   the watchdog side above every test thread; it records what it obtained
 *   in *run.
 * Every setting changed is saved first and restored by rtg_isolate_end.
 * Returns 0 (what could not be obtained is only absent from *run). */
int rtg_isolate_begin(struct rtg_isolate_run *run, FILE *out, bool rt);

/* Ends the run: restores every setting rtg_isolate_begin changed. Safe to
 * call when rtg_isolate_begin obtained nothing. */
void rtg_isolate_end(struct rtg_isolate_run *run);

/* What only the port knows of the run once it ended, written by the port
 * into the end record (j: the record's open object) as keys of their own,
 * through the emitter; called once, after rtg_isolate_end. FreeRTOS:
 * "board": {"stacks": ...}, each task's stack and its deepest use
 * (docs/schema.md). A port with nothing to add writes nothing. */
void rtg_isolate_end_record(struct rtg_json *j);

/* Whether the user interrupted the run (or its output reader went away)
 * since rtg_isolate_begin. The runner starts no further test once true. */
bool rtg_isolate_interrupted(void);

/* ---- one test ---- */

/* The isolated side's way back to the runner: bytes appended to what the
 * outcome carries (the test's record line). Provided by the port. */
struct rtg_isolate_channel;
/* Appends len bytes; 0, or an errno when the runner can no longer get
 * them (the record will then be incomplete and reported as such). */
int rtg_isolate_write(struct rtg_isolate_channel *ch, const char *buf, size_t len);
/* The same for a record already whole in a malloc'd buffer (NUL at len),
 * which the port takes and frees: a port that keeps records in memory (an
 * RTOS's) keeps this one as it is, so a board's heap never holds it twice. */
int rtg_isolate_give(struct rtg_isolate_channel *ch, char *buf, size_t len);

/* What the runner asks the port to run isolated. body runs in the
 * isolated context (a fresh process, thread or task), writes the test's
 * record through ch and returns 0 when it wrote all of it, non-zero
 * otherwise (reported as RTG_ISO_EXITED with that status). It may run in
 * the same address space as the runner (threads, RTOS tasks) or not
 * (a forked process): it must not rely on either. */
struct rtg_isolated_test {
    const char *id; /* the test's id, for the port's diagnostics */
    int (*body)(void *arg, struct rtg_isolate_channel *ch);
    void *arg;
};

/* How the isolated context ended. */
enum rtg_isolate_end {
    RTG_ISO_COMPLETED,   /* body returned 0; record holds what it wrote */
    RTG_ISO_EXITED,      /* body returned (or the context exited) with status != 0 */
    RTG_ISO_OVERRAN,     /* a stop request, then the grace passed: ended by force */
    RTG_ISO_ABANDONED,   /* a stop request, then the grace passed, and the port
                            cannot end the context: the run must end now */
    RTG_ISO_CRASHED,     /* the context faulted; fault names how */
    RTG_ISO_NOT_STARTED, /* the port could not create the context; fault says why */
};

struct rtg_isolated_outcome {
    enum rtg_isolate_end end;
    int status;        /* RTG_ISO_EXITED: the body's status */
    char fault[64];    /* RTG_ISO_CRASHED: "SIGSEGV", "HardFault"...; NOT_STARTED: why */
    bool interrupted;  /* the user interrupted the run while this test ran (its
                          stop request was RTG_STOP_INTERRUPTED) */
    char *record;      /* what body wrote, NUL-terminated (malloc'd; the runner
                          frees it); NULL when nothing arrived */
    size_t len;
};

/* Runs t->body isolated under a deadline of bound_s seconds, collects what
 * it writes and reports how it ended. The contract, for every port:
 * - the body starts with no stop requested (rtg_stop_requested() false);
 * - when the deadline passes, the port asks the test to stop
 *   (rtg_stop_set(RTG_STOP_OVERRAN) in the isolated context: the test
 *   keeps what it measured and writes its record); when the run is
 *   interrupted, it does the same with RTG_STOP_INTERRUPTED;
 * - a test still running RTG_ISOLATE_GRACE_S seconds after a stop request
 *   is ended by force (RTG_ISO_OVERRAN), or, where the port cannot end it,
 *   left behind (RTG_ISO_ABANDONED) and the runner ends the run;
 * - a fault in the test (bad access, abort) ends only the test
 *   (RTG_ISO_CRASHED) where the OS can contain it;
 * - the watchdog side must outrank every test thread (real-time priority
 *   where the run has one) so that a spinning test cannot starve it.
 * Returns 0; *o is always filled. */
#define RTG_ISOLATE_GRACE_S 3.0
int rtg_isolate_run(const struct rtg_isolated_test *t, double bound_s,
                    struct rtg_isolated_outcome *o);

#endif
