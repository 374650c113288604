/* Message channels on FreeRTOS queues (copy semantics). One mechanism:
 * RTG_MSG_MQ is a FreeRTOS queue whose items carry the length; priority 0
 * is sent to the back (xQueueSendToBack), any higher priority to the front
 * (xQueueSendToFront), so "urgent first" is FreeRTOS's own. Pipes, System
 * V queues and sockets do not exist here: ENOTSUP. Peers are tasks. The
 * calls tests make are core/src/runner/msg_calls.c's, over the one send and one
 * receive here.
 *
 * The queue is the only lock: a send or a receive takes no lock of ours,
 * and its first call is the kernel's own with no deadline worked out
 * before it (first_slice; queue_op_blocked only if it has to wait). What
 * the OSAL adds is the item's header: each message is copied into an
 * item behind its length and priority, and out of it again, on the
 * caller's stack up to STACK_ITEM_MAX bytes, else in the channel's
 * scratch item of that direction (a second caller at the same moment
 * takes a heap item of its own: the scratch item is never waited for). */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "fr_internal.h"
#include "queue.h"
#include "rtg/osal_msg.h"
#include "rtg/test.h"

#define MSG_SIZE_MAX (16u * 1024u)
#define DEFAULT_CAPACITY 16u
#define CAPACITY_MAX 256u
#define POLL_TICKS 10u /* a blocked call looks at the abort flag this often */
#define STACK_ITEM_MAX 136u /* header and up to 128 bytes: on the caller's stack */

struct item_head {
    uint32_t len, prio;
};

/* One direction's scratch item, taken without waiting (claim_item). */
struct scratch {
    uint8_t *item;
    atomic_flag busy;
};

struct rtg_msg_chan {
    QueueHandle_t q;
    struct rtg_msg_caps caps;
    size_t item_size;
    TickType_t wait_ticks; /* the bound of a blocking call (portMAX_DELAY: none) */
    volatile bool aborted;
    struct scratch tx, rx;
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
    struct rtg_msg_caps c = {
        .msg_size = msg_size,
        .capacity = capacity ? capacity : default_capacity(msg_size),
        .priorities = true,
        .prio_max = 1,
        .size_limit = MSG_SIZE_MAX,
        .limit_name = "FreeRTOS OSAL: messages copied, up to 16 KB",
        .port_adds = "a copy of each message into a queue item behind its length and "
                     "priority (8 bytes), and out of it on receipt: FreeRTOS queue items "
                     "have one fixed size; no lock, and no deadline unless the call blocks"};
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
    ch->item_size = sizeof(struct item_head) + msg_size;
    rtg_msg_set_wait_ns(ch, 5000000000ull);
    atomic_flag_clear(&ch->tx.busy);
    atomic_flag_clear(&ch->rx.busy);
    ch->q = xQueueCreate((UBaseType_t)c.capacity, ch->item_size);
    if (ch->item_size > STACK_ITEM_MAX) {
        ch->tx.item = malloc(ch->item_size);
        ch->rx.item = malloc(ch->item_size);
    }
    if (!ch->q || (ch->item_size > STACK_ITEM_MAX && (!ch->tx.item || !ch->rx.item))) {
        rtg_msg_close(ch);
        return ENOMEM;
    }
    *out = ch;
    return 0;
}

const struct rtg_msg_caps *rtg_msg_caps(const struct rtg_msg_chan *c) { return &c->caps; }

/* The bound in ticks, worked out here once rather than in each call. */
void rtg_msg_set_wait_ns(struct rtg_msg_chan *c, uint64_t ns)
{
    uint64_t ticks = ns / (1000000000ull / configTICK_RATE_HZ);
    c->wait_ticks = ticks >= portMAX_DELAY ? portMAX_DELAY : (TickType_t)ticks;
}

/* An item too large for the stack: the direction's scratch item if no
 * other call holds it, else one from the heap (NULL: none left). */
static uint8_t *claim_item(const struct rtg_msg_chan *c, struct scratch *s)
{
    if (!atomic_flag_test_and_set_explicit(&s->busy, memory_order_acquire))
        return s->item;
    return malloc(c->item_size);
}

static void release_item(struct scratch *s, uint8_t *item)
{
    if (item == s->item)
        atomic_flag_clear_explicit(&s->busy, memory_order_release);
    else
        free(item);
}

static BaseType_t queue_call(struct rtg_msg_chan *c, bool receive, bool front, uint8_t *item,
                             TickType_t t)
{
    return receive ? xQueueReceive(c->q, item, t)
           : front ? xQueueSendToFront(c->q, item, t)
                   : xQueueSendToBack(c->q, item, t);
}

/* The first call's ticks: RTG_MSG_WAIT's first slice, nothing worked out
 * (the bound counts in ticks: wait_ticks, the channel's wait_ns rounded
 * down); none for RTG_MSG_NO_WAIT, nor for RTG_MSG_UNTIL, which tries
 * first and works out its deadline only if it has to wait. */
static inline TickType_t first_slice(const struct rtg_msg_chan *c, enum rtg_msg_wait wait)
{
    if (wait != RTG_MSG_WAIT)
        return 0;
    return c->wait_ticks > POLL_TICKS ? POLL_TICKS : c->wait_ticks;
}

/* After a first call (of first ticks) that failed: EAGAIN for
 * RTG_MSG_NO_WAIT, else slices of POLL_TICKS until the call succeeds, the
 * channel is aborted or its bound passes. The first slice counts as its
 * ticks, the later ones by the tick count, so a call never waits longer
 * than its bound; RTG_MSG_UNTIL reads the clock once a slice. */
static int __attribute__((noinline)) queue_op_blocked(struct rtg_msg_chan *c, bool receive,
                                                      bool front, uint8_t *item,
                                                      enum rtg_msg_wait wait, uint64_t deadline_ns,
                                                      TickType_t first)
{
    if (wait == RTG_MSG_NO_WAIT)
        return EAGAIN;
    TickType_t from = xTaskGetTickCount();
    for (;;) {
        if (c->aborted)
            return ECANCELED;
        uint64_t left = POLL_TICKS;
        if (wait == RTG_MSG_UNTIL) {
            left = rtg_fr_ticks_until(deadline_ns);
        } else if (c->wait_ticks != portMAX_DELAY) { /* portMAX_DELAY: no bound */
            uint64_t spent = (uint64_t)first + (TickType_t)(xTaskGetTickCount() - from);
            left = spent >= c->wait_ticks ? 0 : c->wait_ticks - spent;
        }
        if (left == 0)
            return ETIMEDOUT;
        if (queue_call(c, receive, front, item, left > POLL_TICKS ? POLL_TICKS : (TickType_t)left) ==
            pdPASS)
            return 0;
    }
}

int rtg_msg_port_send(struct rtg_msg_chan *c, const void *buf, size_t len, unsigned prio,
                      enum rtg_msg_wait wait)
{
    if (c->aborted)
        return ECANCELED;
    if (len > c->caps.msg_size)
        return EMSGSIZE;
    union {
        struct item_head h;
        uint8_t bytes[STACK_ITEM_MAX];
    } local;
    uint8_t *item = c->item_size <= STACK_ITEM_MAX ? local.bytes : claim_item(c, &c->tx);
    if (!item)
        return ENOMEM;
    struct item_head h = {(uint32_t)len, prio};
    memcpy(item, &h, sizeof h);
    memcpy(item + sizeof h, buf, len);
    TickType_t first = first_slice(c, wait);
    int rc = queue_call(c, false, prio > 0, item, first) == pdPASS
                 ? 0
                 : queue_op_blocked(c, false, prio > 0, item, wait, 0, first);
    if (item != local.bytes)
        release_item(&c->tx, item);
    return rc;
}

int rtg_msg_port_recv(struct rtg_msg_chan *c, void *buf, size_t cap, size_t *len, unsigned *prio,
                      enum rtg_msg_wait wait, uint64_t deadline_ns)
{
    if (c->aborted)
        return ECANCELED;
    if (cap < c->caps.msg_size)
        return EMSGSIZE;
    union {
        struct item_head h;
        uint8_t bytes[STACK_ITEM_MAX];
    } local;
    uint8_t *item = c->item_size <= STACK_ITEM_MAX ? local.bytes : claim_item(c, &c->rx);
    if (!item)
        return ENOMEM;
    TickType_t first = first_slice(c, wait);
    int rc = xQueueReceive(c->q, item, first) == pdPASS
                 ? 0
                 : queue_op_blocked(c, true, false, item, wait, deadline_ns, first);
    if (rc == 0) {
        struct item_head h;
        memcpy(&h, item, sizeof h);
        memcpy(buf, item + sizeof h, h.len);
        *len = h.len;
        *prio = h.prio;
    }
    if (item != local.bytes)
        release_item(&c->rx, item);
    return rc;
}

void rtg_msg_abort(struct rtg_msg_chan *c) { c->aborted = true; }

void rtg_msg_close(struct rtg_msg_chan *c)
{
    if (!c)
        return;
    if (c->q)
        vQueueDelete(c->q);
    free(c->tx.item);
    free(c->rx.item);
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
