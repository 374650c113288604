/* What --list-json and every test record tell the host about a test: each
 * test's family has a title (a family missing from families.def would
 * leave the host with none), and release_latency names figures the test
 * can have. */
#include <string.h>

#include "rtg_private/registry.h"
#include "unit.h"

int main(void)
{
    /* the check must be able to fail: a made-up family has no title */
    CHECK(rtg_family_title("NOP-P-XYZ") == NULL);
    CHECK(rtg_family_title("TM") == NULL);
    CHECK_STR(rtg_family_title("TMR-P-LAT"), "Timers and wake-up latency");

    for (size_t i = 0; i < rtg_registry_len; i++) {
        const struct rtg_test_desc *d = rtg_registry[i];
        if (!rtg_family_title(d->id))
            fprintf(stderr, "%s: its family has no line in core/catalogue/families.def\n", d->id);
        CHECK(rtg_family_title(d->id) != NULL);
        /* a prefix of figure names: never empty, ends at a name part */
        if (d->release_latency) {
            size_t n = strlen(d->release_latency);
            CHECK(n > 1 && d->release_latency[n - 1] == '.');
        }
    }
    return unit_report("test_catalogue_facts");
}
