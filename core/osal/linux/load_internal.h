/* Shared between load.c (process management) and load_gen.c (bodies). */
#ifndef RTG_LOAD_INTERNAL_H
#define RTG_LOAD_INTERNAL_H
#include "rtg/load.h"

/* Runs the load until killed; never returns. */
void rtg_load_body(enum rtg_load_kind kind, volatile uint64_t *ctr, const struct rtg_load_cfg *cfg)
    __attribute__((noreturn));

#endif
