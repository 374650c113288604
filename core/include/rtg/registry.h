/* The table of every test, expanded from core/tests/tests.def. */
#ifndef RTG_REGISTRY_H
#define RTG_REGISTRY_H
#include <stddef.h>

#include "rtg/test.h"

extern const struct rtg_test_desc *const rtg_registry[];
extern const size_t rtg_registry_len;

const struct rtg_test_desc *rtg_registry_find(const char *id);
const struct rtg_option *rtg_test_option(const struct rtg_test_desc *d, const char *key);

#endif
