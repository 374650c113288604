/* Which mechanisms and sizes a MSG test loops over (msg_select.c): every
 * test takes the mechanism and size options (all by default) and records
 * one figure set per pair the OS offers, named msg.<what>.<mechanism>.s<size>
 * with params {"mechanism", "size"}. */
#ifndef RTG_MSG_SELECT_H
#define RTG_MSG_SELECT_H
#include <stdbool.h>
#include <stddef.h>

#include "rtg/osal_msg.h"
#include "rtg/test.h"

static const size_t SIZES[] = {16, 1024, 5120, 16384};
#define NSIZES (sizeof SIZES / sizeof SIZES[0])

/* Selected by the mechanism option, and offered by the OS. */
bool rtg_msg_mech_selected(const struct rtg_ctx *ctx, enum rtg_msg_mech m);
/* A note per selected mechanism the OS does not offer. */
void rtg_msg_note_not_offered(struct rtg_ctx *ctx);
bool rtg_msg_size_selected(const struct rtg_ctx *ctx, size_t size);
/* The pairs of mechanism and size a run measures. */
size_t rtg_msg_n_combos(const struct rtg_ctx *ctx);
/* The watchdog bound of a test that passes `count` messages per pair. */
double rtg_msg_bound_x(const struct rtg_ctx *ctx);

/* The options every MSG test has. */
#define MECH_OPT                                                                                  \
    {"mechanism", RTG_OPT_ENUM, 0, 0, 0, 0, "all,mq,pipe,sysv,unix", 0,                           \
     "POSIX message queue, pipe, System V queue, UNIX domain socket, or all four"}
#define SIZE_OPT                                                                                  \
    {"size", RTG_OPT_ENUM, 0, 0, 0, 0, "all,16,1024,5120,16384", 0, "message size in bytes"}

#endif
