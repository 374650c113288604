/* The verdict of SIG-P-LAT (sig_verdicts.h): a pure function of the evidence. */
#include "sig_verdicts.h"

#include <stdlib.h>

struct rtg_sig_order rtg_sig_judge_order(const struct rtg_sig_tx *tx, size_t n_tx,
                                         const struct rtg_sig_rx *rx, size_t n_rx)
{
    struct rtg_sig_order o = {.none_lost = true, .lowest_first = true, .fifo_per_number = true,
                              .values_carried = true, .received = n_rx, .sent = n_tx,
                              .first_violation = n_rx};
    bool *used = calloc(n_tx ? n_tx : 1, sizeof *used);
    long *last_idx = NULL; /* per signal number: the send index last seen */
    int max_sig = 0;
    for (size_t i = 0; i < n_tx; i++)
        if (tx[i].sig > max_sig)
            max_sig = tx[i].sig;
    for (size_t i = 0; i < n_rx; i++)
        if (rx[i].sig > max_sig)
            max_sig = rx[i].sig;
    last_idx = malloc(((size_t)max_sig + 1) * sizeof *last_idx);
    if (!used || !last_idx) {
        free(used);
        free(last_idx);
        o.none_lost = o.lowest_first = o.fifo_per_number = o.values_carried = false;
        return o;
    }
    for (int s = 0; s <= max_sig; s++)
        last_idx[s] = -1;
    for (size_t i = 0; i < n_rx; i++) {
        if (i > 0 && rx[i].sig < rx[i - 1].sig && o.lowest_first) {
            o.lowest_first = false;
            if (i < o.first_violation)
                o.first_violation = i;
        }
        long match = -1;
        for (size_t k = 0; k < n_tx; k++)
            if (!used[k] && tx[k].sig == rx[i].sig && tx[k].value == rx[i].value) {
                match = (long)k;
                break;
            }
        if (match < 0) {
            /* a value nobody sent with that number, or one received twice */
            bool sent = false;
            for (size_t k = 0; k < n_tx; k++)
                if (tx[k].sig == rx[i].sig && tx[k].value == rx[i].value)
                    sent = true;
            if (!sent)
                o.values_carried = false;
            o.none_lost = false;
            continue;
        }
        used[match] = true;
        if (rx[i].sig >= 0) {
            if (match < last_idx[rx[i].sig] && o.fifo_per_number) {
                o.fifo_per_number = false;
                if (i < o.first_violation)
                    o.first_violation = i;
            }
            last_idx[rx[i].sig] = match;
        }
    }
    for (size_t k = 0; k < n_tx; k++)
        if (!used[k])
            o.none_lost = false;
    if (n_rx != n_tx)
        o.none_lost = false;
    if (n_tx == 0)
        o.none_lost = o.lowest_first = o.fifo_per_number = o.values_carried = false;
    free(used);
    free(last_idx);
    return o;
}
