/* The system record: what the target is and what the probe obtained. The
 * OS-specific facts come from the port (rtg/osal_sys.h). */
#ifndef RTG_SYSINFO_H
#define RTG_SYSINFO_H
#include <stdbool.h>

#include "rtg/json.h"
#include "rtg/osal_sys.h"
#include "rtg_private/config.h"

/* Probes what the process can obtain for this configuration, keeping none. */
void rtg_privileges_probe(const struct rtg_config *cfg, struct rtg_privileges *p);
void rtg_sysinfo_emit(struct rtg_json *j, int argc, char **argv, const struct rtg_config *cfg,
                      const struct rtg_privileges *p);

#endif
