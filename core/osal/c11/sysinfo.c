/* System facts in ISO C11 (rtg/osal_sys.h): ISO C cannot ask the OS about
 * itself, so the host is "unknown", every kernel fact is null, and no
 * privilege is obtained (the port offers no real-time priority, no memory
 * locking, no affinity), each with the reason. */
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

void rtg_sys_emit_host(struct rtg_json *j)
{
    rtg_json_key(j, "host");
    rtg_json_obj_begin(j);
    rtg_json_kstr(j, "hostname", "unknown");
    rtg_json_kstr(j, "os", "unknown");
    rtg_json_knull(j, "os_pretty_name");
    rtg_json_kstr(j, "release", "unknown");
    rtg_json_kstr(j, "version", "unknown");
    rtg_json_kstr(j, "machine", RTG_OSAL_NAME);
    rtg_json_obj_end(j);
}

double rtg_sys_tick_hz(int cpu, const char **source)
{
    (void)cpu;
    *source = "unknown"; /* ISO C has no word on a kernel tick */
    return 0;
}

void rtg_sys_emit_kernel(struct rtg_json *j, int cpu)
{
    (void)cpu;
    static const char *const keys[] = {"preempt_model", "preempt_dynamic", "preempt_source",
                                       "realtime",      "hz_config",       "hz_measured",
                                       "cmdline",       "isolcpus",        "nohz_full",
                                       "rt_runtime_us", "rt_period_us"};
    rtg_json_key(j, "kernel");
    rtg_json_obj_begin(j);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        rtg_json_knull(j, keys[i]);
    rtg_json_obj_end(j);
}

void rtg_sys_emit_cpu_facts(struct rtg_json *j)
{
    rtg_json_knull(j, "model");
    rtg_json_kint(j, "online", rtg_cpu_count_configured());
    rtg_json_kint(j, "configured", rtg_cpu_count_configured());
    rtg_json_knull(j, "governor");
}

void rtg_sys_emit_clock_facts(struct rtg_json *j)
{
    rtg_json_knull(j, "kernel_clocksource");
}

void rtg_sys_emit_warnings(struct rtg_json *j)
{
    rtg_json_str(j, "ISO C11 port: the host, kernel and virtualisation are unknown (a hypervisor is reported as absent)");
}
