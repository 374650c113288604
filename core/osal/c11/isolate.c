/* Isolation in ISO C11 (rtg/osal_isolate.h): each test runs in a thread of
 * its own; the runner's thread is the watchdog and waits with a deadline.
 * An overrun test gets the stop request; one still running a grace period
 * later cannot be ended (ISO C has no way to kill a thread), so it is
 * left behind, reported RTG_ISO_ABANDONED, and the runner ends the run
 * (the process exit ends the thread). A fault in a test ends the whole
 * probe: ISO C cannot contain it. User interrupts (SIGINT, SIGTERM,
 * through ISO C signal()) become stop requests, as on POSIX. */
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "c11_internal.h"
#include "rtg/osal.h"
#include "rtg/osal_isolate.h"

#define GRACE_NS ((uint64_t)(RTG_ISOLATE_GRACE_S * 1e9))
#define POLL_NS 1000000u /* how often the watchdog looks: 1 ms */

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    interrupted = 1;
}

int rtg_isolate_begin(struct rtg_isolate_run *run, FILE *out, bool rt)
{
    (void)out; /* ISO C cannot tell when the reader of a stream went away */
    (void)rt;  /* nor raise a priority: the port offers none */
    memset(run, 0, sizeof *run);
    signal(SIGINT, on_interrupt);
    signal(SIGTERM, on_interrupt);
    return 0;
}

void rtg_isolate_end(struct rtg_isolate_run *run)
{
    (void)run;
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
}

/* Nothing only this port knows: the end record is the runner's alone. */
void rtg_isolate_end_record(struct rtg_json *j) { (void)j; }

bool rtg_isolate_interrupted(void)
{
    return interrupted != 0;
}

struct rtg_isolate_channel {
    mtx_t lock;
    char *buf;
    size_t len, cap;
};

int rtg_isolate_write(struct rtg_isolate_channel *ch, const char *p, size_t n)
{
    int rc = 0;
    mtx_lock(&ch->lock);
    if (ch->len + n + 1 > ch->cap) {
        size_t c = ch->cap ? ch->cap : 65536;
        while (ch->len + n + 1 > c)
            c *= 2;
        char *nb = realloc(ch->buf, c);
        if (!nb)
            rc = ENOMEM;
        else {
            ch->buf = nb;
            ch->cap = c;
        }
    }
    if (!rc) {
        memcpy(ch->buf + ch->len, p, n);
        ch->len += n;
        ch->buf[ch->len] = '\0';
    }
    mtx_unlock(&ch->lock);
    return rc;
}

int rtg_isolate_give(struct rtg_isolate_channel *ch, char *buf, size_t len)
{
    int rc = rtg_isolate_write(ch, buf, len);
    free(buf);
    return rc;
}

/* Lives on the heap: an abandoned test still uses it after run returns. */
struct job {
    const struct rtg_isolated_test *t;
    struct rtg_isolate_channel ch;
    atomic_int done;
    int status;
};

static int job_main(void *p)
{
    struct job *j = p;
    j->status = j->t->body(j->t->arg, &j->ch);
    atomic_store(&j->done, 1);
    return 0;
}

int rtg_isolate_run(const struct rtg_isolated_test *t, double bound_s,
                    struct rtg_isolated_outcome *o)
{
    memset(o, 0, sizeof *o);
    struct job *j = calloc(1, sizeof *j);
    if (!j || mtx_init(&j->ch.lock, mtx_plain) != thrd_success) {
        free(j);
        o->end = RTG_ISO_NOT_STARTED;
        strcpy(o->fault, "cannot allocate the test's context");
        return 0;
    }
    j->t = t;
    atomic_init(&j->done, 0);
    rtg_stop_clear(); /* the previous test's stop request shares this memory */
    thrd_t th;
    if (thrd_create(&th, job_main, j) != thrd_success) {
        mtx_destroy(&j->ch.lock);
        free(j);
        o->end = RTG_ISO_NOT_STARTED;
        strcpy(o->fault, "cannot create the test thread");
        return 0;
    }
    uint64_t deadline = rtg_mono_ns() + (uint64_t)(bound_s * 1e9);
    bool asked = false, forwarded = false;
    while (!atomic_load(&j->done)) {
        uint64_t now = rtg_mono_ns();
        if (interrupted && !forwarded) {
            rtg_stop_set(RTG_STOP_INTERRUPTED);
            forwarded = true;
            o->interrupted = true;
            if (now + GRACE_NS < deadline)
                deadline = now + GRACE_NS;
        }
        if (now >= deadline) {
            if (!asked) {
                rtg_stop_set(RTG_STOP_OVERRAN);
                asked = true;
                deadline = now + GRACE_NS;
                continue;
            }
            /* Cannot be ended: leave it (and its job) to the process exit. */
            thrd_detach(th);
            o->end = RTG_ISO_ABANDONED;
            return 0;
        }
        rtg_sleep_ns(POLL_NS);
    }
    thrd_join(th, NULL);
    mtx_destroy(&j->ch.lock);
    o->record = j->ch.buf;
    o->len = j->ch.len;
    o->status = j->status;
    o->end = j->status == 0 ? RTG_ISO_COMPLETED : RTG_ISO_EXITED;
    free(j);
    return 0;
}
