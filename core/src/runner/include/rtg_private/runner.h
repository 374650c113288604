#ifndef RTG_RUNNER_H
#define RTG_RUNNER_H
#include <stdio.h>

#include "rtg_private/config.h"

/* Runs the selected tests, one child process each, under the watchdog,
 * writing JSON lines to out. Returns the process exit code. */
int rtg_run(struct rtg_config *cfg, int argc, char **argv, FILE *out);

#endif
