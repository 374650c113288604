/* MUT behaviour verdicts: pure functions of the evidence MUT-B-ARC records
 * (core/catalogue/mut/mut_verdicts.c), unit-tested in
 * core/unit/test_mut_verdicts.c. */
#ifndef RTG_MUT_VERDICTS_H
#define RTG_MUT_VERDICTS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One MUT-B-ARC round: time stamps in ns from the round's start (0 means
 * "not seen": every stamp is taken after the start, so it is > 0). */
struct rtg_mut_arc_round {
    uint64_t l_lock;  /* L owns the mutex */
    uint64_t h_req;   /* H calls lock */
    uint64_t h_acq;   /* H's lock returned */
    uint64_t h_done;  /* H unlocked and finished its work */
    uint64_t l_rel;   /* L calls unlock */
    uint64_t m_start; /* M's busy window begins */
    uint64_t m_end;   /* M's busy window ends */
};

enum rtg_mut_arc_outcome {
    RTG_MUT_NO_INVERSION, /* M ran only after H had finished */
    RTG_MUT_INVERSION,    /* M's whole window lies between H's request and H's acquisition */
    RTG_MUT_INCONCLUSIVE, /* a stamp is missing or the stamps contradict each other */
    RTG_MUT_UNCONTENDED,  /* H asked only once L had released: H never waited */
};

enum rtg_mut_arc_outcome rtg_mut_arc_classify(const struct rtg_mut_arc_round *r);
const char *rtg_mut_arc_outcome_name(enum rtg_mut_arc_outcome o);
/* Only rounds where H really waited for the mutex count: uncontended ones
 * are left out (and counted by rtg_mut_arc_uncontended). */
/* Every contended round (at least one) shows no inversion. */
bool rtg_mut_arc_prevents(const struct rtg_mut_arc_round *r, size_t n);
/* Every contended round (at least one) shows the inversion: the negative
 * control. */
bool rtg_mut_arc_shows_inversion(const struct rtg_mut_arc_round *r, size_t n);
size_t rtg_mut_arc_uncontended(const struct rtg_mut_arc_round *r, size_t n);

#endif
