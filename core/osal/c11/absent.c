/* What ISO C11 does not offer: the OSAL topics for processes, message
 * queues, signals, timers, fresh pages, named semaphores and load
 * generators. rtg_osal_offers() says so, and the runner skips the tests
 * that declare they need them; a test that reaches one of these anyway
 * gets ENOTSUP, never a made-up success. Message queues and timers are
 * here; the topics no port without POSIX has are in core/osal/none/. */
#include <errno.h>
#include <stdio.h>

#include "rtg/osal.h"
#include "rtg/osal_msg.h"
#include "rtg/osal_timer.h"

unsigned rtg_osal_offers(void) { return 0; }

/* ---- message channels and peers ---- */
int rtg_msg_open(struct rtg_msg_chan **c, enum rtg_msg_mech mech, size_t msg_size,
                 size_t capacity, bool want_prio, struct rtg_msg_caps *caps)
{
    (void)c, (void)mech, (void)msg_size, (void)capacity, (void)want_prio, (void)caps;
    return ENOTSUP;
}
const struct rtg_msg_caps *rtg_msg_caps(const struct rtg_msg_chan *c)
{
    (void)c;
    return NULL;
}
int rtg_msg_port_send(struct rtg_msg_chan *c, const void *buf, size_t len, unsigned prio,
                      enum rtg_msg_wait wait)
{
    (void)c, (void)buf, (void)len, (void)prio, (void)wait;
    return ENOTSUP;
}
int rtg_msg_port_recv(struct rtg_msg_chan *c, void *buf, size_t cap, size_t *len, unsigned *prio,
                      enum rtg_msg_wait wait, uint64_t deadline_ns)
{
    (void)c, (void)buf, (void)cap, (void)len, (void)prio, (void)wait, (void)deadline_ns;
    return ENOTSUP;
}
void rtg_msg_set_wait_ns(struct rtg_msg_chan *c, uint64_t ns) { (void)c, (void)ns; }
void rtg_msg_abort(struct rtg_msg_chan *c) { (void)c; }
void rtg_msg_close(struct rtg_msg_chan *c) { (void)c; }
int rtg_msg_sweep(int *removed)
{
    *removed = 0;
    return 0;
}
int rtg_peer_start(struct rtg_peer *p, bool process, const struct rtg_thread_attr *attr,
                   rtg_thread_fn fn, void *arg)
{
    (void)p, (void)process, (void)attr, (void)fn, (void)arg;
    return ENOTSUP;
}
int rtg_peer_wait(struct rtg_peer *p, uint64_t deadline_ns)
{
    (void)p, (void)deadline_ns;
    return ENOTSUP;
}
int rtg_peer_kill(struct rtg_peer *p)
{
    (void)p;
    return ENOTSUP;
}
void *rtg_shared_alloc(size_t len)
{
    (void)len;
    return NULL;
}
void rtg_shared_free(void *p, size_t len) { (void)p, (void)len; }

/* ---- timers ---- */
int rtg_timer_create(struct rtg_timer **t, enum rtg_timer_mode mode, void (*fn)(void *arg),
                     void *arg)
{
    (void)mode, (void)fn, (void)arg;
    *t = NULL;
    return ENOTSUP;
}
int rtg_timer_arm(struct rtg_timer *t, uint64_t first_abs_ns, uint64_t period_ns)
{
    (void)t, (void)first_abs_ns, (void)period_ns;
    return ENOTSUP;
}
int rtg_timer_arm_plan(struct rtg_timer *t, uint64_t first_abs_ns, uint64_t period_ns,
                       struct rtg_timer_plan *plan)
{
    (void)t, (void)first_abs_ns, (void)period_ns, (void)plan;
    return ENOTSUP;
}
uint64_t rtg_timer_stamp(void) { return rtg_mono_ns(); }
uint64_t rtg_timer_entry_stamp(void) { return rtg_mono_ns(); }
uint64_t rtg_timer_stamp_ns(uint64_t stamp) { return stamp; }
int rtg_timer_wait(struct rtg_timer *t, uint64_t *expirations)
{
    (void)t, (void)expirations;
    return ENOTSUP;
}
int rtg_timer_overrun(struct rtg_timer *t)
{
    (void)t;
    return 0;
}
void rtg_timer_delete(struct rtg_timer *t) { (void)t; }
const char *rtg_timer_handler_context(void) { return "none"; }
bool rtg_timerlat_available(char *why, size_t n)
{
    snprintf(why, n, "no kernel tracer in the c11 OSAL");
    return false;
}

