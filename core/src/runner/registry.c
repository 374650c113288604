#include "rtg_private/registry.h"

#include <string.h>

#include "rtg/osal.h"
#include "rtg_private/version.h"

#define RTG_TEST(name) extern const struct rtg_test_desc rtg_test_##name;
#include "catalogue.def"
#undef RTG_TEST

#define RTG_TEST(name) &rtg_test_##name,
const struct rtg_test_desc *const rtg_registry[] = {
#include "catalogue.def"
};
#undef RTG_TEST

const size_t rtg_registry_len = sizeof rtg_registry / sizeof rtg_registry[0];

const struct rtg_test_desc *rtg_registry_find(const char *id)
{
    for (size_t i = 0; i < rtg_registry_len; i++)
        if (strcmp(rtg_registry[i]->id, id) == 0)
            return rtg_registry[i];
    return NULL;
}

const struct rtg_option *rtg_test_option(const struct rtg_test_desc *d, const char *key)
{
    for (size_t i = 0; i < d->n_options; i++)
        if (strcmp(d->options[i].key, key) == 0)
            return &d->options[i];
    return NULL;
}

bool rtg_option_in_build(const struct rtg_option *o)
{
    return RTG_TEST_HOOKS || !(o->flags & RTG_OPT_HOOKS);
}

static const struct {
    const char *id;
    const char *title;
} families[] = {
#define RTG_FAMILY(id, title) {#id, title},
#include "families.def"
#undef RTG_FAMILY
};

const char *rtg_family_title(const char *test_id)
{
    size_t n = strcspn(test_id, "-");
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (strlen(families[i].id) == n && strncmp(families[i].id, test_id, n) == 0)
            return families[i].title;
    return NULL;
}

void rtg_test_facts_emit(const struct rtg_test_desc *d, struct rtg_json *j)
{
    rtg_json_kstr(j, "family_title", rtg_family_title(d->id));
    rtg_json_kstr(j, "release_latency", d->release_latency);
}

/* Constant strings: the reason outlives every caller. */
#define LACKS(what) "needs " what ", which the " RTG_OSAL_NAME " OSAL does not offer"

const char *rtg_test_unavailable(const struct rtg_test_desc *d)
{
    static const struct {
        unsigned bit;
        const char *why;
    } lacks[] = {
        {RTG_OFFERS_PROCESSES, LACKS("processes")},
        {RTG_OFFERS_MSG_QUEUES, LACKS("message queues")},
        {RTG_OFFERS_SIGNALS, LACKS("queued signals")},
        {RTG_OFFERS_TIMERS, LACKS("timers")},
        {RTG_OFFERS_FRESH_PAGES, LACKS("fresh page mappings")},
        {RTG_OFFERS_RWLOCKS, LACKS("reader-writer locks")},
        {RTG_OFFERS_BARRIERS, LACKS("barriers")},
        {RTG_OFFERS_DEADLINE, LACKS("a deadline scheduler")},
        {RTG_OFFERS_AFFINITY_SETS, LACKS("thread affinity to a set of CPUs")},
    };
    if (d->unavailable)
        return d->unavailable;
    unsigned missing = d->needs & ~rtg_osal_offers();
    for (size_t i = 0; i < sizeof lacks / sizeof lacks[0]; i++)
        if (missing & lacks[i].bit)
            return lacks[i].why;
    return NULL;
}
