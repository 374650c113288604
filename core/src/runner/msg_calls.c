/* The message channel calls of rtg/osal_msg.h and rtg/osal_timed.h, the
 * same on every port: each is the port's one send or one receive
 * (rtg_msg_port_send, rtg_msg_port_recv) with how long it may wait. The
 * port never sees a NULL *len or *prio. */
#include "rtg/osal_msg.h"
#include "rtg/osal_timed.h"

int rtg_msg_send(struct rtg_msg_chan *c, const void *buf, size_t len, unsigned prio)
{
    return rtg_msg_port_send(c, buf, len, prio, RTG_MSG_WAIT);
}

int rtg_msg_send_try(struct rtg_msg_chan *c, const void *buf, size_t len, unsigned prio)
{
    return rtg_msg_port_send(c, buf, len, prio, RTG_MSG_NO_WAIT);
}

static int receive(struct rtg_msg_chan *c, void *buf, size_t cap, size_t *len, unsigned *prio,
                   enum rtg_msg_wait wait, uint64_t deadline_ns)
{
    size_t got = 0;
    unsigned pr = 0;
    int rc = rtg_msg_port_recv(c, buf, cap, &got, &pr, wait, deadline_ns);
    if (rc)
        return rc;
    if (len)
        *len = got;
    if (prio)
        *prio = pr;
    return 0;
}

int rtg_msg_recv(struct rtg_msg_chan *c, void *buf, size_t cap, size_t *len, unsigned *prio)
{
    return receive(c, buf, cap, len, prio, RTG_MSG_WAIT, 0);
}

int rtg_msg_recv_try(struct rtg_msg_chan *c, void *buf, size_t cap, size_t *len, unsigned *prio)
{
    return receive(c, buf, cap, len, prio, RTG_MSG_NO_WAIT, 0);
}

int rtg_msg_recv_until(struct rtg_msg_chan *c, void *buf, size_t cap, size_t *len,
                       unsigned *prio, uint64_t deadline_ns)
{
    return receive(c, buf, cap, len, prio, RTG_MSG_UNTIL, deadline_ns);
}
