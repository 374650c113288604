/* The verdict of MSG-P-FIL (msg_verdicts.h): a pure function of the evidence. */
#include "msg_verdicts.h"

struct rtg_urgent_result rtg_msg_urgent_first(const struct rtg_msg_rx *rx, size_t n,
                                              size_t n_urgent, size_t n_normal)
{
    struct rtg_urgent_result r = {.pass = true, .first_violation = n, .why = ""};
    bool normal_started = false;
    uint32_t next_u = 0, next_n = 0;
    for (size_t i = 0; i < n; i++) {
        const char *why = NULL;
        if (rx[i].urgent) {
            if (normal_started)
                why = "an urgent message came after a normal one";
            else if (rx[i].seq != next_u)
                why = "urgent messages out of send order";
            next_u = rx[i].seq + 1;
            r.urgent_seen++;
        } else {
            normal_started = true;
            if (rx[i].seq != next_n)
                why = "normal messages out of send order";
            next_n = rx[i].seq + 1;
            r.normal_seen++;
        }
        if (why && r.pass) {
            r.pass = false;
            r.first_violation = i;
            r.why = why;
        }
    }
    if (r.pass && (r.urgent_seen != n_urgent || r.normal_seen != n_normal)) {
        r.pass = false;
        r.why = "messages lost or repeated";
    }
    if (r.pass && n_urgent == 0) {
        r.pass = false;
        r.why = "no urgent message was sent: nothing to judge";
    }
    return r;
}

bool rtg_msg_urgent_lifo(const struct rtg_msg_rx *rx, size_t n, size_t n_urgent,
                         size_t n_normal)
{
    if (n_urgent < 2 || n != n_urgent + n_normal)
        return false; /* one urgent message has no order of its own */
    for (size_t i = 0; i < n; i++) {
        bool urgent = i < n_urgent;
        uint32_t want = (uint32_t)(urgent ? n_urgent - 1 - i : i - n_urgent);
        if (rx[i].urgent != urgent || rx[i].seq != want)
            return false;
    }
    return true;
}

bool rtg_msg_round_as_lifo(bool passed, const struct rtg_msg_rx *rx, size_t n, size_t n_urgent,
                           size_t n_normal)
{
    return passed ? n_urgent < 2 : rtg_msg_urgent_lifo(rx, n, n_urgent, n_normal);
}

const char *rtg_msg_urgent_seen(size_t judged, size_t failed, size_t as_lifo)
{
    if (failed == 0)
        return "urgent_fifo";
    return as_lifo == judged ? "urgent_lifo" : "other";
}
