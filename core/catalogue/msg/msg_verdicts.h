/* The MSG verdict (core/catalogue/msg/msg_verdicts.c): a pure function of
 * the recorded evidence (what was received, in which order) and nothing
 * else, so the unit test (core/unit/test_msg_verdicts.c) can hand it
 * evidence that must fail. */
#ifndef RTG_MSG_VERDICTS_H
#define RTG_MSG_VERDICTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One received message of MSG-P-FIL's urgent phase. */
struct rtg_msg_rx {
    bool urgent;  /* sent with the urgent priority */
    uint32_t seq; /* send order within its class (0, 1, ...) */
};

struct rtg_urgent_result {
    bool pass;
    size_t first_violation; /* index of the first out-of-place message, or n */
    size_t urgent_seen, normal_seen;
    const char *why; /* short reason when failing ("" when passing) */
};

/* Urgent messages are received first: every urgent message before every
 * normal one, each class in its send order (FIFO), nothing lost or
 * repeated: n_urgent urgent and n_normal normal messages received. */
struct rtg_urgent_result rtg_msg_urgent_first(const struct rtg_msg_rx *rx, size_t n,
                                              size_t n_urgent, size_t n_normal);

/* The order a queue gives when each urgent message is put at its front
 * (FreeRTOS's xQueueSendToFront): every urgent message first, in reverse
 * send order (last in, first out), then the normal ones in send order,
 * nothing lost or repeated. What a failed urgent-first verdict saw is told
 * by it, so that only this order, and no other, can be an OS's documented
 * difference. */
bool rtg_msg_urgent_lifo(const struct rtg_msg_rx *rx, size_t n, size_t n_urgent,
                         size_t n_normal);
/* A round of the urgent phase is one last-in-first-out among the urgent
 * messages explains: a failed round in that order, or a passed one with a
 * single urgent message (one message has no order: FIFO and LIFO agree). */
bool rtg_msg_round_as_lifo(bool passed, const struct rtg_msg_rx *rx, size_t n, size_t n_urgent,
                           size_t n_normal);
/* What MSG-P-FIL saw, in a word, over its judged rounds: "urgent_fifo"
 * (none failed), "urgent_lifo" (some failed and LIFO explains every
 * round), else "other". */
const char *rtg_msg_urgent_seen(size_t judged, size_t failed, size_t as_lifo);

#endif
