/* The parsers behind the Linux audit's facts, fed the lines the kernel
 * writes: /proc/interrupts (a header naming the online CPUs, device rows,
 * per-CPU rows, the totals ERR and MIS), /proc/stat's steal time, and the
 * kernel configuration's set and unset options. */
#include <stdint.h>
#include <string.h>

#include "unit.h"

#if defined(__linux__)
#include "../../linux/sys_read.h"

static void interrupts(void)
{
    int cols[8];
    /* CPU1 offline: the columns are CPU0 and CPU2. */
    CHECK_EQ_U(rtg_lx_irq_header("           CPU0       CPU2       \n", cols, 8), 2);
    CHECK_EQ_U(cols[0], 0);
    CHECK_EQ_U(cols[1], 2);

    char label[32], rest[128];
    uint64_t sum = 99;
    const int measured[] = {2};
    CHECK(rtg_lx_irq_row(" 24:          1          7  IO-APIC   5-edge      ACPI:Ged\n", cols, 2,
                         measured, 1, label, sizeof label, &sum, rest, sizeof rest));
    CHECK(strcmp(label, "24") == 0);
    CHECK_EQ_U(sum, 7);
    CHECK(strcmp(rest, "IO-APIC 5-edge ACPI:Ged") == 0);

    const int both[] = {0, 2};
    CHECK(rtg_lx_irq_row("LOC:    5185198    3913657   Local timer interrupts\n", cols, 2, both, 2,
                         label, sizeof label, &sum, rest, sizeof rest));
    CHECK(strcmp(label, "LOC") == 0);
    CHECK_EQ_U(sum, 5185198ull + 3913657ull);
    CHECK(strcmp(rest, "Local timer interrupts") == 0);

    /* A total, not a count per CPU; and lines that are no row at all. */
    CHECK(!rtg_lx_irq_row("ERR:          0\n", cols, 2, both, 2, label, sizeof label, &sum, rest,
                          sizeof rest));
    CHECK(!rtg_lx_irq_row("\n", cols, 2, both, 2, label, sizeof label, &sum, rest, sizeof rest));
    CHECK(!rtg_lx_irq_row("a b: 1 2\n", cols, 2, both, 2, label, sizeof label, &sum, rest,
                          sizeof rest));
}

static void steal(void)
{
    int cpu = -1;
    uint64_t v = 0;
    CHECK(rtg_lx_stat_steal("cpu1 262852 239 87068 248503 3452 0 3501 563 0 0\n", &cpu, &v));
    CHECK_EQ_U(cpu, 1);
    CHECK_EQ_U(v, 563);
    CHECK(!rtg_lx_stat_steal("cpu  509699 520 168126 520831 5736 0 5692 1065 0 0\n", &cpu, &v));
    CHECK(!rtg_lx_stat_steal("intr 1 2 3\n", &cpu, &v));
    CHECK(!rtg_lx_stat_steal("cpu3 1 2\n", &cpu, &v)); /* no steal column */
}

static void kconfig(void)
{
    char v[64];
    CHECK(rtg_lx_kconfig_line("CONFIG_PREEMPT_RT=y\n", "PREEMPT_RT", v, sizeof v));
    CHECK(strcmp(v, "y") == 0);
    CHECK(rtg_lx_kconfig_line("# CONFIG_KASAN is not set\n", "KASAN", v, sizeof v));
    CHECK(strcmp(v, "n") == 0);
    CHECK(rtg_lx_kconfig_line("CONFIG_HZ=250\n", "HZ", v, sizeof v));
    CHECK(strcmp(v, "250") == 0);
    CHECK(rtg_lx_kconfig_line("CONFIG_LOCALVERSION=\"-rt\"\n", "LOCALVERSION", v, sizeof v));
    CHECK(strcmp(v, "-rt") == 0);
    /* A longer name with the same start is another option. */
    CHECK(!rtg_lx_kconfig_line("CONFIG_PREEMPT_RT=y\n", "PREEMPT", v, sizeof v));
    CHECK(!rtg_lx_kconfig_line("# CONFIG_PREEMPT_RT is not set\n", "PREEMPT", v, sizeof v));
}
#endif

int main(void)
{
#if defined(__linux__)
    interrupts();
    steal();
    kconfig();
#endif
    return unit_report("test_linux_facts");
}
