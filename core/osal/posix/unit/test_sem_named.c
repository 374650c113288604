/* The named-semaphore OSAL: unique names, exclusive creation, and the
 * sweep that leaves no name behind. */
#include <errno.h>
#include <string.h>

#include "rtg/osal_named.h"
#include "unit.h"

int main(void)
{
    char a[RTG_NAMED_SEM_NAME_MAX], b[RTG_NAMED_SEM_NAME_MAX];
    CHECK_EQ_U(rtg_named_sem_name(a, sizeof a, "t"), 0);
    CHECK_EQ_U(rtg_named_sem_name(b, sizeof b, "t"), 0);
    CHECK(strcmp(a, b) != 0);
    CHECK(strncmp(a, "/rtg-", 5) == 0);
    char tiny[8];
    CHECK_EQ_U(rtg_named_sem_name(tiny, sizeof tiny, "t"), ENAMETOOLONG);

    rtg_sem_t *s = NULL, *s2 = NULL;
    int rc = rtg_named_sem_create(&s, a, 1);
    if (rc == ENOSYS || rc == ENOTSUP || rc == EACCES || rc == ENOENT) {
        printf("named semaphores unavailable here (%s): skipped\n", strerror(rc));
        return unit_report("test_sem_named");
    }
    CHECK_EQ_U(rc, 0);
    CHECK_EQ_U(rtg_named_sem_create(&s2, a, 1), EEXIST); /* exclusive */
    int v = -1;
    CHECK_EQ_U(rtg_sem_trywait(s), 0);
    CHECK_EQ_U(rtg_sem_value(s, &v), 0);
    CHECK_EQ_U(v, 0);
    CHECK_EQ_U(rtg_sem_post(s), 0);
    CHECK_EQ_U(rtg_named_sem_close(s), 0);
    /* Left behind on purpose (as a crash would): the sweep removes it. */
    CHECK_EQ_U(rtg_named_sem_create(&s2, b, 0), 0);
    CHECK_EQ_U(rtg_named_sem_close(s2), 0);
    int removed = -1;
    CHECK_EQ_U(rtg_named_sem_sweep(&removed), 0);
    CHECK(removed >= 2); /* and any name a dead probe process left */
    CHECK_EQ_U(rtg_named_sem_unlink(a), ENOENT);
    CHECK_EQ_U(rtg_named_sem_sweep(&removed), 0);
    CHECK_EQ_U(removed, 0);
    return unit_report("test_sem_named");
}
