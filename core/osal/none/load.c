/* Load generator processes: a topic this port does not offer (docs/porting.md): every call returns
 * ENOTSUP (or nothing), never a made-up success; rtg_osal_offers() of
 * the port says so and the runner skips the tests that need it. Shared by
 * the ports without it (c11, freertos). */
#include <errno.h>

#include "rtg/load.h"

const char *rtg_load_name(enum rtg_load_kind kind)
{
    (void)kind;
    return "none";
}
const char *rtg_load_op_unit(enum rtg_load_kind kind, enum rtg_load_tool tool)
{
    (void)kind, (void)tool;
    return "none";
}
int rtg_load_start(struct rtg_load_set **set, enum rtg_load_kind kind, const int *cpus, size_t n,
                   const struct rtg_load_cfg *cfg)
{
    (void)set, (void)kind, (void)cpus, (void)n, (void)cfg;
    return ENOTSUP;
}
uint64_t rtg_load_ops_now(const struct rtg_load_set *set)
{
    (void)set;
    return 0;
}
int rtg_load_stop(struct rtg_load_set *set, uint64_t *ops, bool *known)
{
    (void)set;
    *ops = 0;
    *known = false;
    return ENOTSUP;
}
bool rtg_load_tool_present(enum rtg_load_tool tool)
{
    (void)tool;
    return false;
}
const char *rtg_load_tool_name(enum rtg_load_tool tool)
{
    (void)tool;
    return "none";
}
int rtg_scratch_create(char *path, size_t n)
{
    (void)path, (void)n;
    return ENOTSUP;
}
int rtg_scratch_remove(const char *path)
{
    (void)path;
    return ENOTSUP;
}
