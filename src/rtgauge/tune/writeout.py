"""The configuration that helped, written out for a person to review and
install: never applied. Five files: the kernel command line, a sysctl.d
file, a systemd oneshot unit for the other run-time settings, a tuned
profile, and a README that says what each holds and which boot-time items
were not tried, and why."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from rtgauge.tune.knobs import Candidate, Change

SYSCTL_LINE = re.compile(r"^[a-z_][\w.]* = \S")
FILES = ("cmdline.txt", "90-rtgauge.conf", "rtgauge-tune.service", "tuned.conf", "README.txt")


def write_out(
    helped: Sequence[Candidate], not_tried: Sequence[Candidate], folder: Path
) -> list[Path]:
    """Write the five files into folder (made if missing); their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    sysctl, shell = _persistent(helped)
    texts = {
        "cmdline.txt": _cmdline(helped),
        "90-rtgauge.conf": _sysctl_conf(sysctl),
        "rtgauge-tune.service": _service(shell),
        "tuned.conf": _tuned(helped, sysctl),
        "README.txt": _readme(helped, not_tried),
    }
    out = []
    for name in FILES:
        path = folder / name
        path.write_text(texts[name])
        out.append(path)
    return out


def _persistent(helped: Sequence[Candidate]) -> tuple[list[str], list[str]]:
    """The run-time forms: sysctl.d lines, and shell lines for the unit."""
    sysctl: list[str] = []
    shell: list[str] = []
    for c in helped:
        for line in (c.persistent or "").splitlines():
            (sysctl if SYSCTL_LINE.match(line) else shell).append(line)
    return sysctl, shell


def merge_boot(items: Sequence[str]) -> str:
    """Boot strings as one command line: a parameter given twice keeps the
    last value, but isolcpus' flags are joined (the kernel reads only the
    last isolcpus=)."""
    params: dict[str, str | None] = {}
    for word in " ".join(items).split():
        name, eq, value = word.partition("=")
        if name == "isolcpus" and params.get(name):
            value = _join_isolcpus(str(params[name]), value)
        params.pop(name, None)
        params[name] = value if eq else None
    return " ".join(k if v is None else f"{k}={v}" for k, v in params.items())


def _join_isolcpus(a: str, b: str) -> str:
    flags: list[str] = []
    cpus = ""
    for value in (a, b):
        for part in value.split(","):
            if part in ("domain", "managed_irq", "nohz"):
                if part not in flags:
                    flags.append(part)
            else:
                cpus = f"{cpus},{part}" if cpus and part not in cpus.split(",") else cpus or part
    return ",".join([*flags, cpus])


def _cmdline(helped: Sequence[Candidate]) -> str:
    boots = [c.boot for c in helped if c.boot]
    head = (
        "# The kernel command-line equivalents of the settings that helped: add them to\n"
        "# GRUB_CMDLINE_LINUX in /etc/default/grub (or your boot loader's entry), then\n"
        "# update-grub and reboot. Written by rtgauge tune, never applied.\n"
    )
    for c in helped:
        if c.boot:
            head += f"#   {c.knob}: {c.boot}\n"
    return head + (merge_boot(boots) + "\n" if boots else "# (none of them has one)\n")


def _sysctl_conf(lines: list[str]) -> str:
    head = (
        "# Kernel settings that helped, for /etc/sysctl.d/90-rtgauge.conf (applied at every\n"
        "# boot by systemd-sysctl). Written by rtgauge tune, never applied.\n"
    )
    return head + ("\n".join(lines) + "\n" if lines else "# (no sysctl helped)\n")


def _unit_quote(line: str) -> str:
    """A shell line as one ExecStart= argument: systemd's double quotes,
    with its own $ and % specifiers escaped."""
    escaped = line.replace("\\", "\\\\").replace('"', '\\"').replace("$", "$$")
    return '"' + escaped.replace("%", "%%") + '"'


def _service(lines: list[str]) -> str:
    head = (
        "# The run-time settings that helped, applied at boot: copy to\n"
        "# /etc/systemd/system/rtgauge-tune.service, then systemctl enable rtgauge-tune.\n"
        "# Written by rtgauge tune, never applied. Check each line: an IRQ's number,\n"
        "# a task's pid may differ after a reboot.\n"
        "[Unit]\n"
        "Description=Run-time real-time settings found by rtgauge tune\n"
        "After=sysinit.target\n\n"
        "[Service]\n"
        "Type=oneshot\n"
        "RemainAfterExit=yes\n"
    )
    body = "".join(f"ExecStart=/bin/sh -c {_unit_quote(line)}\n" for line in lines)
    if not body:
        body = "# (no run-time setting beyond the sysctls helped)\nExecStart=/bin/true\n"
    return head + body + "\n[Install]\nWantedBy=multi-user.target\n"


def _tuned(helped: Sequence[Candidate], sysctl: list[str]) -> str:
    cpu: list[str] = []
    sysfs: list[str] = []
    other: list[str] = []
    for c in helped:
        lines = [_tuned_line(ch) for ch in c.changes]
        if any(line is None for line in lines):
            # tuned has no form for part of it: the whole knob is the unit's
            other += [x for x in (c.persistent or "").splitlines() if not SYSCTL_LINE.match(x)]
            continue
        for section, line in (x for x in lines if x is not None):
            if section == "cpu":
                cpu.append(line)
            elif section == "sysfs":
                sysfs.append(line)
    out = [
        "# A tuned profile of the settings that helped: /etc/tuned/rtgauge/tuned.conf, then",
        "# tuned-adm profile rtgauge. Written by rtgauge tune, never applied.",
        "[main]",
        "summary=Settings found by rtgauge tune",
        "include=latency-performance",
    ]
    if cpu:
        out += ["", "[cpu]", *dict.fromkeys(cpu)]
    if sysctl:
        out += ["", "[sysctl]", *(line.replace(" = ", "=") for line in sysctl)]
    if sysfs:
        out += ["", "[sysfs]", *sysfs]
    boots = [c.boot for c in helped if c.boot]
    if boots:
        out += ["", "[bootloader]", f"cmdline_rtgauge={merge_boot(boots)}"]
    if other:
        out += [
            "",
            "# No tuned form here (tuned's cpu-partitioning profile, isolated_cores=, comes",
            "# closest); the unit rtgauge-tune.service does these:",
        ]
        out += [f"#   {line}" for line in dict.fromkeys(other)]
    return "\n".join(out) + "\n"


def _tuned_line(ch: Change) -> tuple[str, str] | None:
    """A change's line in a tuned section; ("sysctl", "") for one that
    [sysctl] holds already; None: tuned has no form for it."""
    if ch.path.startswith("hold:"):
        return "cpu", f"force_latency={ch.new}"
    if ch.path.endswith("/cpufreq/scaling_governor"):
        return "cpu", f"governor={ch.new}"
    if ":" in ch.path:
        return None  # a task moved, a cpuset made
    if "/proc/sys/" in ch.path:
        return "sysctl", ""
    if "/sys/" in ch.path and "/proc/" not in ch.path:
        return "sysfs", f"{ch.path}={ch.new}"
    return None


def _readme(helped: Sequence[Candidate], not_tried: Sequence[Candidate]) -> str:
    out = [
        "What rtgauge tune found to help, written out and never applied.",
        "",
        "  cmdline.txt            kernel command-line equivalents (need a reboot)",
        "  90-rtgauge.conf        sysctl.d lines (/etc/sysctl.d/)",
        "  rtgauge-tune.service   a systemd oneshot unit for the other run-time settings",
        "  tuned.conf             the same as a tuned profile",
        "",
        "Settings that helped:",
    ]
    out += [f"  {c.knob}: {c.title} ({c.why})" for c in helped] or ["  (none)"]
    holds = sorted({ch.path[5:] for c in helped for ch in c.changes if ch.path.startswith("hold:")})
    for device in holds:
        out += [
            "",
            f"{device} was held open at 0: no file can do that at boot. The real-time",
            "program holds it itself while it runs (open it, write a 32-bit 0, keep it",
            "open), or tuned does (force_latency in tuned.conf).",
        ]
    boot_only = [c for c in not_tried if c.boot]
    out += ["", "Boot-time items not tried, and why:"]
    out += [f"  {c.knob} [{c.state}]: {c.boot} ({c.why})" for c in boot_only] or ["  (none)"]
    return "\n".join(out) + "\n"
