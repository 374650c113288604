/* The firmware's runner: what the board support and the isolation share. */
#ifndef RTG_FR_FW_H
#define RTG_FR_FW_H
#include <stdbool.h>
#include <stddef.h>

#include "rtg/config.h"
#include "rtg/json.h"

/* Every line to the host starts with this (the Linux guests' framing). */
#define FW_FRAME "@RTG@ "

/* What the host said about the board it started (--fw-qemu). */
struct fw_board_facts {
    const char *qemu; /* NULL: not said; "tcg"; "icount" */
    int icount_shift;
};

void fw_emit_line(const char *body, size_t len);  /* framed, one line */
void fw_emit_json(struct rtg_json *j);            /* framed, one line */
void fw_sysinfo_emit(struct rtg_json *j, int argc, char **argv, const struct rtg_config *cfg,
                     const struct fw_board_facts *b);

#endif
