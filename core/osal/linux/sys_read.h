/* Reading Linux's /proc, /sys and the kernel's build configuration, for the
 * system facts (sysinfo.c) and the audit's (audit_facts.c). The parsers of
 * one line are pure, so the unit tests feed them lines
 * (core/osal/posix/unit/test_linux_facts.c). */
#ifndef RTG_LX_SYS_READ_H
#define RTG_LX_SYS_READ_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* First line of a file, trimmed; false if unreadable (true and "" when
 * readable and empty). */
bool rtg_lx_read_line(const char *path, char *buf, size_t n);
/* Value of "key: value" in /proc/cpuinfo-like files. */
bool rtg_lx_find_field(const char *path, const char *key, char *out, size_t n);
/* Whether s holds word, delimited by spaces or the ends. */
bool rtg_lx_has_word(const char *s, const char *word);

/* The kernel's build configuration: /boot/config-<release>, else
 * /proc/config.gz through gzip. Reads it once and looks up each of keys
 * (without "CONFIG_"): values[i] is its value ("y", "m", "250", a string
 * without its quotes) or "n" when the configuration leaves it unset.
 * Returns where it was read, or NULL when no configuration is readable
 * (values untouched). */
#define RTG_LX_KCONFIG_VALUE_MAX 64
const char *rtg_lx_kconfig(const char *release, const char *const *keys, size_t n,
                           char (*values)[RTG_LX_KCONFIG_VALUE_MAX]);
/* One line of a configuration: if it sets or unsets CONFIG_<key>, its
 * value ("n" for "# CONFIG_<key> is not set") into out. */
bool rtg_lx_kconfig_line(const char *line, const char *key, char *out, size_t n);

/* /proc/interrupts. The header names the CPU of each column ("CPU0 CPU2"
 * when CPU1 is offline): fills cpu_of_col, returns the column count. */
#define RTG_LX_IRQ_COLS 1024
size_t rtg_lx_irq_header(const char *line, int *cpu_of_col, size_t max);
/* One row ("  24:  1  0  IO-APIC 5-edge ACPI:Ged"): its label ("24",
 * "LOC"), the sum of its counts in the columns of the CPUs in cpus, and
 * the rest (the chip, the line, the handlers), spaces squeezed. false when
 * the line is not a row with a count for every column (ERR and MIS have
 * one total). */
bool rtg_lx_irq_row(const char *line, const int *cpu_of_col, size_t ncols, const int *cpus,
                    size_t n_cpus, char *label, size_t label_n, uint64_t *sum, char *rest,
                    size_t rest_n);

/* One line of /proc/stat: for "cpuN ...", N and its steal time (the
 * eighth value, in USER_HZ ticks); false for any other line. */
bool rtg_lx_stat_steal(const char *line, int *cpu, uint64_t *steal);

/* Whether cpu is among cpus. */
bool rtg_lx_cpu_in(int cpu, const int *cpus, size_t n_cpus);

/* The steal time of cpus (all CPUs when cpus is NULL) summed from
 * /proc/stat, in USER_HZ ticks; false when no CPU line had it. */
bool rtg_lx_steal_ticks(const int *cpus, size_t n_cpus, uint64_t *ticks);

#endif
