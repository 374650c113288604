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

#endif
