/* The system record: what the target is and what the probe obtained. The
 * OS-specific facts come from the port (rtg/osal_sys.h); every key of the
 * record is written in core/src/runner/system_record.c. */
#ifndef RTG_SYSTEM_RECORD_H
#define RTG_SYSTEM_RECORD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtg/json.h"
#include "rtg/osal_sys.h"
#include "rtg_private/config.h"

/* Probes what the process can obtain for this configuration, keeping none. */
void rtg_privileges_probe(const struct rtg_config *cfg, struct rtg_privileges *p);
/* Asks the port for the target's facts (rtg_sys_facts) and writes the
 * whole system record (one object) into j. */
void rtg_system_record_emit(struct rtg_json *j, int argc, char **argv,
                            const struct rtg_config *cfg, const struct rtg_privileges *p);
/* The same from facts already gathered (the unit tests give their own). */
void rtg_system_record_write(struct rtg_json *j, int argc, char **argv,
                             const struct rtg_config *cfg, const struct rtg_privileges *p,
                             const struct rtg_sys_facts *f);
/* Writes into the open object j (the end record) the facts of the run's
 * end (rtg_sys_end_facts) under "audit"; a fact of any other group is left
 * out. */
void rtg_end_facts_write(struct rtg_json *j, const struct rtg_sys_extra *x);
/* Writes t (seconds since 1970-01-01 UTC) into out as "%Y-%m-%dT%H:%M:%SZ"
 * of gmtime: "2026-11-22T21:32:36Z". False (out undefined) when the year
 * does not fit a struct tm or out is too small. */
bool rtg_utc_format(int64_t t, char *out, size_t n);

#endif
