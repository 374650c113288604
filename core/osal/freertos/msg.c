/* Message channels on FreeRTOS queues (copy semantics). One mechanism:
 * RTG_MSG_MQ is a FreeRTOS queue whose items carry the length; priority 0
 * is sent to the back (xQueueSendToBack), any higher priority to the front
 * (xQueueSendToFront), so "urgent first" is FreeRTOS's own. Pipes, System
 * V queues and sockets do not exist here: ENOTSUP. Peers are tasks. The
 * calls tests make are core/src/runner/msg_calls.c's, over the one send and one
 * receive here. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fr_internal.h"
#include "queue.h"
#include "semphr.h"
#include "rtg/osal_msg.h"
#include "rtg/test.h"

#define MSG_SIZE_MAX (16u * 1024u)
#define DEFAULT_CAPACITY 16u
#define CAPACITY_MAX 256u
#define POLL_TICKS 10u /* a blocked call looks at the abort flag this often */

struct item_head {
    uint32_t len, prio;
};

struct rtg_msg_chan {
    QueueHandle_t q;
    struct rtg_msg_caps caps;
    uint64_t wait_ns;
    volatile bool aborted;
    uint8_t *item, *rx_item; /* one item of scratch per direction */
    SemaphoreHandle_t item_lock, rx_lock;
};

/* The default capacity, fewer where the heap is small: the queue takes at
 * most an eighth of the largest free block (a test opens two channels and
 * keeps samples beside them), and holds 2 items at least (the channel's
 * caps say what was granted). */
static size_t default_capacity(size_t msg_size)
{
    size_t free_bytes, largest, item = sizeof(struct item_head) + msg_size;
    size_t cap = DEFAULT_CAPACITY;
    if (rtg_mem_available(&free_bytes, &largest) == 0 && cap * item > largest / 8)
        cap = largest / 8 / item;
    return cap < 2 ? 2 : cap;
}

int rtg_msg_open(struct rtg_msg_chan **out, enum rtg_msg_mech mech, size_t msg_size,
                 size_t capacity, bool want_prio, struct rtg_msg_caps *caps)
{
    (void)want_prio; /* the front of the queue is always there */
    struct rtg_msg_caps c = {.msg_size = msg_size,
                             .capacity = capacity ? capacity : default_capacity(msg_size),
                             .priorities = true,
                             .prio_max = 1,
                             .size_limit = MSG_SIZE_MAX,
                             .limit_name = "FreeRTOS OSAL: messages copied, up to 16 KB"};
    if (caps)
        *caps = c;
    if (mech != RTG_MSG_MQ)
        return ENOTSUP;
    if (msg_size == 0 || msg_size > MSG_SIZE_MAX)
        return EMSGSIZE;
    if (c.capacity > CAPACITY_MAX)
        return EINVAL;
    struct rtg_msg_chan *ch = calloc(1, sizeof *ch);
    if (!ch)
        return ENOMEM;
    ch->caps = c;
    ch->wait_ns = 5000000000ull;
    ch->item = malloc(sizeof(struct item_head) + msg_size);
    ch->q = xQueueCreate((UBaseType_t)c.capacity, sizeof(struct item_head) + msg_size);
    ch->rx_item = malloc(sizeof(struct item_head) + msg_size);
    ch->item_lock = xSemaphoreCreateMutex();
    ch->rx_lock = xSemaphoreCreateMutex();
    if (!ch->item || !ch->rx_item || !ch->q || !ch->item_lock || !ch->rx_lock) {
        rtg_msg_close(ch);
        return ENOMEM;
    }
    *out = ch;
    return 0;
}

const struct rtg_msg_caps *rtg_msg_caps(const struct rtg_msg_chan *c) { return &c->caps; }

void rtg_msg_set_wait_ns(struct rtg_msg_chan *c, uint64_t ns) { c->wait_ns = ns; }

/* One queue operation, retried in slices of POLL_TICKS until it succeeds,
 * the channel is aborted or the deadline passes (blocking); once
 * otherwise. item is what to send, or where to receive. */
static int queue_op(struct rtg_msg_chan *c, bool receive, bool front, uint8_t *item, bool block,
                    uint64_t deadline)
{
    for (;;) {
        TickType_t t = 0;
        if (block) {
            t = rtg_fr_ticks_until(deadline);
            t = t > POLL_TICKS ? POLL_TICKS : t;
        }
        BaseType_t ok = receive ? xQueueReceive(c->q, item, t)
                        : front ? xQueueSendToFront(c->q, item, t)
                                : xQueueSendToBack(c->q, item, t);
        if (ok == pdPASS)
            return 0;
        if (!block)
            return EAGAIN;
        if (c->aborted)
            return ECANCELED;
        if (rtg_mono_ns() >= deadline)
            return ETIMEDOUT;
    }
}

/* An item is the length and priority, then the message: built in the
 * channel's send scratch item (under its lock), copied by the queue. */
int rtg_msg_port_send(struct rtg_msg_chan *c, const void *buf, size_t len, unsigned prio,
                      enum rtg_msg_wait wait)
{
    if (c->aborted)
        return ECANCELED;
    if (len > c->caps.msg_size)
        return EMSGSIZE;
    xSemaphoreTake(c->item_lock, portMAX_DELAY);
    struct item_head h = {(uint32_t)len, prio};
    memcpy(c->item, &h, sizeof h);
    memcpy(c->item + sizeof h, buf, len);
    int rc = queue_op(c, false, prio > 0, c->item, wait != RTG_MSG_NO_WAIT,
                      rtg_mono_ns() + c->wait_ns);
    xSemaphoreGive(c->item_lock);
    return rc;
}

/* A receive until a deadline is the channel's bounded receive with that
 * deadline instead of its bound. */
int rtg_msg_port_recv(struct rtg_msg_chan *c, void *buf, size_t cap, size_t *len, unsigned *prio,
                      enum rtg_msg_wait wait, uint64_t deadline_ns)
{
    if (c->aborted)
        return ECANCELED;
    if (cap < c->caps.msg_size)
        return EMSGSIZE;
    xSemaphoreTake(c->rx_lock, portMAX_DELAY);
    uint64_t deadline = wait == RTG_MSG_UNTIL ? deadline_ns : rtg_mono_ns() + c->wait_ns;
    int rc = queue_op(c, true, false, c->rx_item, wait != RTG_MSG_NO_WAIT, deadline);
    if (rc == 0) {
        struct item_head h;
        memcpy(&h, c->rx_item, sizeof h);
        memcpy(buf, c->rx_item + sizeof h, h.len);
        *len = h.len;
        *prio = h.prio;
    }
    xSemaphoreGive(c->rx_lock);
    return rc;
}

void rtg_msg_abort(struct rtg_msg_chan *c) { c->aborted = true; }

void rtg_msg_close(struct rtg_msg_chan *c)
{
    if (!c)
        return;
    if (c->q)
        vQueueDelete(c->q);
    if (c->item_lock)
        vSemaphoreDelete(c->item_lock);
    if (c->rx_lock)
        vSemaphoreDelete(c->rx_lock);
    free(c->item);
    free(c->rx_item);
    free(c);
}

int rtg_msg_sweep(int *removed)
{
    *removed = 0; /* nothing outlives a test on the board */
    return 0;
}

/* ---- peers: tasks only ---- */
static void *peer_trampoline(void *arg)
{
    struct rtg_peer *p = arg;
    void *r = p->fn(p->arg);
    rtg_sem_post(&p->done);
    return r;
}

int rtg_peer_start(struct rtg_peer *p, bool process, const struct rtg_thread_attr *attr,
                   rtg_thread_fn fn, void *arg)
{
    memset(p, 0, sizeof *p);
    if (process)
        return ENOTSUP;
    p->fn = fn;
    p->arg = arg;
    int rc = rtg_sem_init(&p->done, 0);
    if (rc)
        return rc;
    rc = rtg_thread_create(&p->thread, attr, peer_trampoline, p);
    if (rc)
        rtg_sem_destroy(&p->done);
    return rc;
}

int rtg_peer_wait(struct rtg_peer *p, uint64_t deadline_ns)
{
    if (p->joined)
        return 0;
    int rc = rtg_sem_wait_until(&p->done, deadline_ns);
    if (rc)
        return rc;
    rtg_thread_join(p->thread, NULL);
    rtg_sem_destroy(&p->done);
    p->joined = true;
    return 0;
}

int rtg_peer_kill(struct rtg_peer *p) { return p->joined ? 0 : EBUSY; }

void *rtg_shared_alloc(size_t len) { return calloc(1, len); }
void rtg_shared_free(void *p, size_t len)
{
    (void)len;
    free(p);
}
