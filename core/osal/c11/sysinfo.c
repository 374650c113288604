/* System facts in ISO C11 (rtg/osal_sys.h): ISO C cannot ask the OS about
 * itself, so the host is "unknown", every kernel fact is null (left
 * unknown), and no privilege is obtained (the port offers no real-time
 * priority, no memory locking, no affinity), each with the reason. */
#include <stdio.h>

#include "rtg/osal.h"
#include "rtg/osal_sys.h"

#define NOT_IN_ISO_C "the c11 OSAL offers none (ISO C)"

void rtg_sys_privileges(int prio, bool no_rt, int cpu, struct rtg_privileges *p)
{
    (void)prio;
    *p = (struct rtg_privileges){.euid = -1};
    snprintf(p->sched_fifo_reason, sizeof p->sched_fifo_reason, "%s",
             no_rt ? "--no-rt given" : "real-time priorities: " NOT_IN_ISO_C);
    snprintf(p->mlockall_reason, sizeof p->mlockall_reason, "memory locking: " NOT_IN_ISO_C);
    p->affinity = rtg_pin_self(cpu) == 0;
}

bool rtg_sys_virtualized(void) { return false; }

bool rtg_sys_steal_ns(uint64_t *ns)
{
    (void)ns;
    return false;
}
bool rtg_sys_emulated(void) { return false; }

bool rtg_sys_cpu_flag(const char *flag)
{
    (void)flag;
    return false;
}

void rtg_sys_hypervisor_vendor(char *out, size_t n)
{
    if (n)
        out[0] = '\0';
}

double rtg_sys_tick_hz(int cpu, const char **source)
{
    (void)cpu;
    *source = "unknown"; /* ISO C has no word on a kernel tick */
    return 0;
}

/* Only what the port itself knows: its name as the machine, and the CPUs
 * it was told of. Everything else stays unknown. */
void rtg_sys_facts(const int *cpus, size_t n_cpus, struct rtg_sys_facts *f)
{
    (void)cpus;
    (void)n_cpus;
    rtg_sys_text_set(&f->host.machine, RTG_OSAL_NAME);
    f->cpu.online = rtg_cpu_count_configured();
    f->cpu.configured = rtg_cpu_count_configured();
    rtg_sys_warning(&f->warnings, "ISO C11 port: the host, kernel and virtualisation are unknown "
                                  "(a hypervisor is reported as absent)");
}

/* ISO C reads nothing at the run's end either: the audit says it cannot judge. */
void rtg_sys_end_facts(const int *cpus, size_t n_cpus, struct rtg_sys_extra *x)
{
    (void)cpus;
    (void)n_cpus;
    (void)x;
}
