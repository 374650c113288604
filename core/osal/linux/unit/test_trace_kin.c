/* Whose an ended task was: trace_pipe's fork lines read (comms with
 * spaces, lost events), the pid set grown past its first size, and the
 * run's and kthreadd's descendants told from strangers. */
#include <string.h>
#include <unistd.h>

#include "trace_kin.h"
#include "unit.h"

static void test_parse(void)
{
    long p = 0, c = 0;
    CHECK_EQ_U(rtg_kin_parse("  rtgauge-probe-4242  [001] d..1.  12.345678: sched_process_fork: "
                             "comm=rtgauge-probe pid=4242 child_comm=rtgauge-probe child_pid=4250",
                             &p, &c),
               RTG_KIN_FORK);
    CHECK_EQ_U(p, 4242);
    CHECK_EQ_U(c, 4250);
    /* a comm that holds spaces and the keys' own words */
    CHECK_EQ_U(rtg_kin_parse("  my pid=9 prog-77 [000] ..... 1.000000: sched_process_fork: "
                             "comm=my pid=9 prog pid=77 child_comm=my pid=9 prog child_pid=78",
                             &p, &c),
               RTG_KIN_FORK);
    CHECK_EQ_U(p, 77);
    CHECK_EQ_U(c, 78);
    CHECK_EQ_U(rtg_kin_parse("CPU:1 [LOST 12 EVENTS]", &p, &c), RTG_KIN_LOST);
    CHECK_EQ_U(rtg_kin_parse("  bash-1 [000] ..... 1.0: sched_switch: prev_comm=bash", &p, &c),
               RTG_KIN_OTHER);
    CHECK_EQ_U(rtg_kin_parse("x: sched_process_fork: comm=a pid= child_comm=b child_pid=3", &p, &c),
               RTG_KIN_OTHER);
}

static void test_set_grows(void)
{
    struct rtg_pid_set s = {0};
    for (int32_t pid = 1; pid <= 5000; pid += 2)
        CHECK(rtg_pid_set_add(&s, pid));
    CHECK(rtg_pid_set_add(&s, 4999)); /* twice: counted once */
    CHECK_EQ_U(s.n, 2500);
    int misses = 0;
    for (int32_t pid = 1; pid <= 5000; pid++)
        misses += rtg_pid_set_has(&s, pid) != (pid % 2 == 1);
    CHECK_EQ_U(misses, 0);
    CHECK(!rtg_pid_set_add(&s, 0));
    rtg_pid_set_free(&s);
    CHECK(!rtg_pid_set_has(&s, 1));
}

static void test_whose(void)
{
    struct rtg_trace_kin k;
    memset(&k, 0, sizeof k);
    k.fd = 99; /* followed (never read here) */
    CHECK(rtg_pid_set_add(&k.run, 100));
    CHECK(rtg_pid_set_add(&k.kernel, 2));
    rtg_kin_fork(&k, 100, 101); /* the run's thread */
    rtg_kin_fork(&k, 101, 102); /* and its child */
    rtg_kin_fork(&k, 2, 300);   /* a kernel thread */
    rtg_kin_fork(&k, 500, 501); /* another program's */
    CHECK_STR(rtg_kin_of(&k, 102), "run");
    CHECK_STR(rtg_kin_of(&k, 300), "kernel");
    CHECK_STR(rtg_kin_of(&k, 501), "ended");
    CHECK_STR(rtg_kin_of(&k, 999), "ended");
    k.lost = true; /* a fork unread: a stranger may be the run's */
    CHECK_STR(rtg_kin_of(&k, 501), "");
    CHECK_STR(rtg_kin_of(&k, 102), "run");
    k.fd = -1; /* not followed */
    k.lost = false;
    CHECK_STR(rtg_kin_of(&k, 501), "");
    rtg_pid_set_free(&k.run);
    rtg_pid_set_free(&k.kernel);
}

int main(void)
{
    test_parse();
    test_set_grows();
    test_whose();
    return unit_report("trace_kin");
}
