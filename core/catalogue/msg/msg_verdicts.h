/* Pure verdict functions of the MSG and SIG families: they judge recorded
 * evidence (what was received, in which order) and nothing else, so the
 * unit tests can hand them evidence that must fail. */
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

/* One real-time signal received in SIG-P-LAT's order phase. */
struct rtg_sig_rx {
    int sig;        /* offset from SIGRTMIN (0, 1, ...) */
    uint64_t value; /* the value it carried */
};
struct rtg_sig_tx {
    int sig;
    uint64_t value;
};

struct rtg_sig_order {
    bool none_lost;       /* every signal sent was received once */
    bool lowest_first;    /* signal numbers never decrease */
    bool fifo_per_number; /* within a number, values in send order */
    bool values_carried;  /* every value received is the value sent */
    size_t received, sent;
    size_t first_violation; /* for lowest_first / fifo: index, or received */
};

/* Judges a drain of queued signals against what was sent (in send order). */
struct rtg_sig_order rtg_sig_judge_order(const struct rtg_sig_tx *tx, size_t n_tx,
                                         const struct rtg_sig_rx *rx, size_t n_rx);

#endif
