/* The message channel OSAL on every mechanism: FIFO order, capacity and
 * EAGAIN when full or empty, priorities where offered, timeouts, an abort
 * that wakes a blocked receiver, and a forked peer sharing memory. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rtg/osal.h"
#include "rtg/osal_msg.h"
#include "rtg/osal_proc.h"
#include "unit.h"

struct blocked {
    struct rtg_msg_chan *c;
    int rc;
};

static void *recv_blocked(void *arg)
{
    struct blocked *b = arg;
    char buf[64];
    size_t len;
    b->rc = rtg_msg_recv(b->c, buf, sizeof buf, &len, NULL);
    return NULL;
}

static void one_mech(enum rtg_msg_mech m)
{
    const char *name = rtg_msg_mech_name(m);
    struct rtg_msg_chan *c;
    struct rtg_msg_caps caps;
    int rc = rtg_msg_open(&c, m, 16, 4, true, &caps);
    CHECK_EQ_U(rc, 0);
    if (rc) {
        fprintf(stderr, "%s: %s\n", name, strerror(rc));
        return;
    }
    CHECK(caps.capacity >= 1);
    CHECK_EQ_U(caps.msg_size, 16);
    char buf[16] = {0};
    size_t sent = 0;
    while (sent < 100000) {
        memcpy(buf, &sent, sizeof sent);
        if (rtg_msg_send_try(c, buf, 16, 0) != 0)
            break;
        sent++;
    }
    CHECK_EQ_U(sent, caps.capacity); /* exactly the announced capacity fits */
    CHECK_EQ_U(rtg_msg_send_try(c, buf, 16, 0), EAGAIN);
    size_t bad = 0;
    for (size_t i = 0; i < sent; i++) {
        size_t len = 0, v = 99;
        if (rtg_msg_recv_try(c, buf, sizeof buf, &len, NULL) != 0) {
            bad++;
            continue;
        }
        memcpy(&v, buf, sizeof v);
        bad += v != i || len != 16;
    }
    CHECK_EQ_U(bad, 0);
    size_t len;
    CHECK_EQ_U(rtg_msg_recv_try(c, buf, sizeof buf, &len, NULL), EAGAIN);
    if (caps.priorities) {
        CHECK(caps.prio_max >= 5);
        buf[0] = 'a';
        CHECK_EQ_U(rtg_msg_send(c, buf, 16, 0), 0);
        buf[0] = 'b';
        CHECK_EQ_U(rtg_msg_send(c, buf, 16, 5), 0);
        unsigned pr = 0;
        CHECK_EQ_U(rtg_msg_recv(c, buf, sizeof buf, &len, &pr), 0);
        CHECK(buf[0] == 'b' && pr == 5);
        CHECK_EQ_U(rtg_msg_recv(c, buf, sizeof buf, &len, &pr), 0);
        CHECK(buf[0] == 'a' && pr == 0);
    }
    if (m == RTG_MSG_MQ || m == RTG_MSG_UNIX) { /* native timeouts */
        rtg_msg_set_wait_ns(c, 50000000u);
        uint64_t t0 = rtg_mono_ns();
        CHECK_EQ_U(rtg_msg_recv(c, buf, sizeof buf, &len, NULL), ETIMEDOUT);
        CHECK(rtg_mono_ns() - t0 >= 40000000u);
    }
    /* abort wakes a receiver blocked on the empty channel, well before
     * its own wait bound */
    rtg_msg_set_wait_ns(c, 20ull * 1000000000u);
    struct blocked b = {.c = c, .rc = -1};
    rtg_thread_t t;
    struct rtg_thread_attr a = {.policy = RTG_SCHED_OTHER, .cpu = -1, .stack_size = 64 * 1024};
    CHECK_EQ_U(rtg_thread_create(&t, &a, recv_blocked, &b), 0);
    rtg_sleep_ns(50000000u);
    uint64_t t0 = rtg_mono_ns();
    rtg_msg_abort(c);
    rtg_thread_join(t, NULL);
    CHECK(rtg_mono_ns() - t0 < 2000000000u);
    CHECK_EQ_U(b.rc, ECANCELED);
    CHECK_EQ_U(rtg_msg_send_try(c, buf, 16, 0), ECANCELED);
    rtg_msg_close(c);
    printf("%s: capacity %zu of 16 B, priorities %d\n", name, caps.capacity, caps.priorities);
}

static void too_large(void)
{
    /* System V: msgmax is a hard limit for everyone */
    struct rtg_msg_chan *c = NULL;
    struct rtg_msg_caps caps;
    memset(&caps, 0, sizeof caps);
    int rc = rtg_msg_open(&c, RTG_MSG_SYSV, 16384, 0, false, &caps);
    CHECK(caps.size_limit > 0);
    if (caps.size_limit < 16384)
        CHECK_EQ_U(rc, EMSGSIZE);
    else
        CHECK_EQ_U(rc, 0);
    rtg_msg_close(c);
}

static void *child_fn(void *arg)
{
    volatile int *v = arg;
    *v = 42;
    return NULL;
}

static void process_peer(void)
{
    volatile int *v = rtg_shared_alloc(4096);
    CHECK(v != NULL);
    if (!v)
        return;
    struct rtg_peer p;
    struct rtg_thread_attr a = {.policy = RTG_SCHED_OTHER, .cpu = -1};
    CHECK_EQ_U(rtg_peer_start(&p, true, &a, child_fn, (void *)v), 0);
    CHECK_EQ_U(rtg_peer_wait(&p, rtg_mono_ns() + 5000000000u), 0);
    CHECK_EQ_U(*v, 42);
    CHECK_EQ_U(rtg_peer_start(&p, false, &a, child_fn, (void *)(v + 1)), 0);
    CHECK_EQ_U(rtg_peer_wait(&p, rtg_mono_ns() + 5000000000u), 0);
    CHECK_EQ_U(v[1], 42);
    rtg_shared_free((void *)v, 4096);
}

int main(void)
{
    for (int m = 0; m < RTG_MSG_NMECH; m++)
        one_mech((enum rtg_msg_mech)m);
    too_large();
    process_peer();
    int removed = -1;
    CHECK_EQ_U(rtg_msg_sweep(&removed), 0);
    CHECK_EQ_U(removed, 0); /* everything above was removed on close */
    return unit_report("test_msg_chan");
}
