/* The tracepoints that take a wake-up apart, mapped to the recorder's
 * vocabulary (trace_events.h). Fields are read by the names the format
 * files give, so a kernel that moves a field still decodes. */
#include "trace_events.h"

#include <string.h>

/* Each event on by default is one the explanation reads (docs/recorder.md,
 * "Events"). The others cost their writer and explain nothing: off unless
 * the development switch RTGAUGE_TRACE_ADD names them. sched_waking:
 * sched_wakeup follows it in the same wake-up, and only sched_wakeup is
 * written on the woken task's CPU when another CPU wakes it; softirq_raise
 * and the IPIs sent: no rule reads them (a softirq is read from its entry
 * and exit, an IPI from the receiver's vector). */
const struct rtg_tp rtg_tp_wanted[] = {
    {"sched", "sched_switch", RTG_TEV_SWITCH, true},
    {"sched", "sched_waking", RTG_TEV_WAKING, false},
    {"sched", "sched_wakeup", RTG_TEV_WAKEUP, true},
    {"irq", "irq_handler_entry", RTG_TEV_IRQ_ENTRY, true},
    {"irq", "irq_handler_exit", RTG_TEV_IRQ_EXIT, true},
    {"irq", "softirq_raise", RTG_TEV_SOFTIRQ_RAISE, false},
    {"irq", "softirq_entry", RTG_TEV_SOFTIRQ_ENTRY, true},
    {"irq", "softirq_exit", RTG_TEV_SOFTIRQ_EXIT, true},
    {"timer", "hrtimer_expire_entry", RTG_TEV_TIMER_ENTRY, true},
    {"timer", "hrtimer_expire_exit", RTG_TEV_TIMER_EXIT, true},
    {"power", "cpu_idle", RTG_TEV_IDLE_ENTRY, true}, /* state -1: the exit */
    {"workqueue", "workqueue_execute_start", RTG_TEV_WORK_START, true},
    {"workqueue", "workqueue_execute_end", RTG_TEV_WORK_END, true},
    {"ipi", "ipi_send_cpu", RTG_TEV_IPI_SEND, false},
    {"ipi", "ipi_send_cpumask", RTG_TEV_IPI_SEND, false},
    {"ipi", "ipi_raise", RTG_TEV_IPI_SEND, false},
    {"ipi", "ipi_entry", RTG_TEV_IPI_ENTRY, true},
    {"ipi", "ipi_exit", RTG_TEV_IPI_EXIT, true},
};
const size_t rtg_tp_n_wanted = sizeof rtg_tp_wanted / sizeof rtg_tp_wanted[0];

/* The kernel's softirq vectors, by number (<linux/interrupt.h>). */
static const char *const softirq_names[] = {"HI",      "TIMER", "NET_TX",  "NET_RX",
                                            "BLOCK",   "IRQ_POLL", "TASKLET", "SCHED",
                                            "HRTIMER", "RCU"};

int rtg_tp_type(const uint8_t *rec, size_t len)
{
    if (len < 2)
        return -1;
    uint16_t t;
    memcpy(&t, rec, 2);
    return t;
}

static bool same(const char *a, size_t n, const char *b)
{
    return strlen(b) == n && !strncmp(a, b, n);
}

bool rtg_tp_listed(const char *list, const char *system, const char *event)
{
    for (const char *p = list; p && *p;) {
        size_t n = strcspn(p, ",");
        const char *slash = memchr(p, '/', n);
        if (slash ? same(p, (size_t)(slash - p), system) &&
                        same(slash + 1, n - (size_t)(slash - p) - 1, event)
                  : same(p, n, event) || same(p, n, system))
            return true;
        p += n + (p[n] == ',');
    }
    return false;
}

static int32_t get(const struct rtg_fmt *f, const char *name, const uint8_t *rec, size_t len)
{
    return (int32_t)rtg_fmt_int(rtg_fmt_field(f, name), rec, len);
}

static void str(const struct rtg_fmt *f, const char *name, const uint8_t *rec, size_t len,
                char *out, size_t n)
{
    rtg_fmt_str(rtg_fmt_field(f, name), rec, len, out, n);
}

static void copy(char *out, size_t n, const char *s)
{
    size_t k = strlen(s);
    if (k >= n)
        k = n - 1;
    memcpy(out, s, k);
    out[k] = '\0';
}

void rtg_tp_decode(const struct rtg_tp_decoder *d, const uint8_t *rec, size_t len, uint64_t ts,
                   int cpu, struct rtg_tev *ev)
{
    const struct rtg_fmt *f = &d->fmt;
    memset(ev, 0, sizeof *ev);
    ev->t_ns = (int64_t)ts;
    ev->cpu = (uint16_t)cpu;
    ev->kind = (uint8_t)d->kind;
    ev->cur = get(f, "common_pid", rec, len);
    ev->num = -1;
    switch (d->kind) {
    case RTG_TEV_SWITCH:
        ev->pid = get(f, "prev_pid", rec, len);
        ev->prio = get(f, "prev_prio", rec, len);
        ev->state = rtg_fmt_int(rtg_fmt_field(f, "prev_state"), rec, len);
        str(f, "prev_comm", rec, len, ev->name, sizeof ev->name);
        ev->pid2 = get(f, "next_pid", rec, len);
        ev->prio2 = get(f, "next_prio", rec, len);
        str(f, "next_comm", rec, len, ev->name2, sizeof ev->name2);
        break;
    case RTG_TEV_WAKING:
    case RTG_TEV_WAKEUP:
        ev->pid = get(f, "pid", rec, len);
        ev->prio = get(f, "prio", rec, len);
        ev->num = get(f, "target_cpu", rec, len);
        str(f, "comm", rec, len, ev->name, sizeof ev->name);
        break;
    case RTG_TEV_IRQ_ENTRY:
        ev->num = get(f, "irq", rec, len);
        str(f, "name", rec, len, ev->name, sizeof ev->name);
        break;
    case RTG_TEV_IRQ_EXIT:
        ev->num = get(f, "irq", rec, len);
        break;
    case RTG_TEV_SOFTIRQ_RAISE:
    case RTG_TEV_SOFTIRQ_ENTRY:
    case RTG_TEV_SOFTIRQ_EXIT: {
        int32_t v = get(f, "vec", rec, len);
        ev->num = v;
        if (v >= 0 && (size_t)v < sizeof softirq_names / sizeof softirq_names[0])
            copy(ev->name, sizeof ev->name, softirq_names[v]);
        break;
    }
    case RTG_TEV_TIMER_ENTRY:
        ev->arg = (uint64_t)rtg_fmt_int(rtg_fmt_field(f, "now"), rec, len);
        ev->addr = (uint64_t)rtg_fmt_int(rtg_fmt_field(f, "function"), rec, len);
        break;
    case RTG_TEV_WORK_START:
    case RTG_TEV_WORK_END:
        ev->addr = (uint64_t)rtg_fmt_int(rtg_fmt_field(f, "function"), rec, len);
        break;
    case RTG_TEV_IDLE_ENTRY: {
        uint32_t s = (uint32_t)get(f, "state", rec, len);
        if (s == UINT32_MAX)
            ev->kind = RTG_TEV_IDLE_EXIT;
        else
            ev->num = (int32_t)s;
        break;
    }
    case RTG_TEV_VEC_ENTRY:
    case RTG_TEV_VEC_EXIT:
        ev->num = get(f, "vector", rec, len);
        copy(ev->name, sizeof ev->name, d->vector);
        break;
    case RTG_TEV_IPI_SEND: {
        const struct rtg_fmt_field *c = rtg_fmt_field(f, "cpu");
        ev->num = c ? (int32_t)rtg_fmt_int(c, rec, len) : -1;
        ev->addr = (uint64_t)rtg_fmt_int(rtg_fmt_field(f, "callback"), rec, len);
        str(f, "reason", rec, len, ev->name, sizeof ev->name);
        break;
    }
    case RTG_TEV_IPI_ENTRY:
    case RTG_TEV_IPI_EXIT:
        str(f, "reason", rec, len, ev->name, sizeof ev->name);
        break;
    default:
        break;
    }
}
