#ifndef RTG_FR_FW_RUNNER_H
#define RTG_FR_FW_RUNNER_H
#include "fw.h"
#include "rtg/config.h"

struct fw_run {
    struct rtg_config cfg;
    int argc;
    char **argv;
    struct fw_board_facts board;
};

/* The runner task: runs every selected test isolated, writes the records
 * and ends the board with the run's exit code. */
void fw_runner_task(void *arg);

#endif
