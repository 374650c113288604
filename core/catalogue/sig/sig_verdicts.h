/* The SIG verdict (core/catalogue/sig/sig_verdicts.c): a pure function of
 * the recorded evidence (which signals arrived, in which order, carrying
 * what) and nothing else, so the unit test (core/unit/test_sig_verdicts.c)
 * can hand it evidence that must fail. */
#ifndef RTG_SIG_VERDICTS_H
#define RTG_SIG_VERDICTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
