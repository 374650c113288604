/* The table of every test, expanded from core/catalogue/catalogue.def. */
#ifndef RTG_REGISTRY_H
#define RTG_REGISTRY_H
#include <stdbool.h>
#include <stddef.h>

#include "rtg/test.h"

extern const struct rtg_test_desc *const rtg_registry[];
extern const size_t rtg_registry_len;

const struct rtg_test_desc *rtg_registry_find(const char *id);
/* Why this build cannot run the test (its .unavailable, or the first of its
 * .needs the OSAL does not offer), or NULL when it can. */
const char *rtg_test_unavailable(const struct rtg_test_desc *d);
const struct rtg_option *rtg_test_option(const struct rtg_test_desc *d, const char *key);
/* Whether this build shows and accepts the option (hooks-only options
 * exist in the hooks build alone). */
bool rtg_option_in_build(const struct rtg_option *o);
/* The title of the test's family (core/catalogue/families.def), NULL when
 * the family has none. */
const char *rtg_family_title(const char *test_id);
/* What the host needs to know of a test and must not keep a list of: its
 * family's title and which of its figures are latencies from a release
 * instant (keys "family_title", "release_latency"). Written once, into the
 * --list-json line and into the test record alike. */
void rtg_test_facts_emit(const struct rtg_test_desc *d, struct rtg_json *j);

#endif
