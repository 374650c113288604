"""CPU sets as the kernel writes them: lists ("0-3,8", "2-N" on the command
line) and hexadecimal masks ("ff,ffffffff"). Pure; malformed text reads as
None (not known), never as an empty set."""

from __future__ import annotations


def parse_list(text: str | None, n_cpus: int | None = None) -> set[int] | None:
    """A CPU list: "0-3,8", "" (none), "1-7:2" (every other), "N" for the
    last CPU when n_cpus is known; "all" with n_cpus. None when malformed."""
    if text is None:
        return None
    text = text.strip()
    if text in ("", "(null)"):
        return set()
    last = n_cpus - 1 if n_cpus else None
    if text == "all":
        return set(range(n_cpus)) if n_cpus else None
    out: set[int] = set()
    for part in text.split(","):
        span, _, stride_text = part.partition(":")
        lo_text, dash, hi_text = span.partition("-")
        lo = _cpu(lo_text, last)
        hi = _cpu(hi_text, last) if dash else lo
        if stride_text and not (stride_text.isdigit() and int(stride_text) > 0):
            return None
        stride = int(stride_text) if stride_text else 1
        if lo is None or hi is None or hi < lo:
            return None
        out.update(range(lo, hi + 1, stride))
    return out


ISOLCPUS_FLAGS = ("domain", "managed_irq", "nohz")


def isolcpus_list(
    value: str | None, n_cpus: int | None = None
) -> tuple[set[int] | None, list[str]]:
    """isolcpus=[flags,]list ("domain,managed_irq,2-3"): its CPUs and its flags
    (none given: domain)."""
    if value is None:
        return None, []
    parts = value.split(",")
    flags = []
    while parts and parts[0] in ISOLCPUS_FLAGS:
        flags.append(parts.pop(0))
    return parse_list(",".join(parts), n_cpus), flags or ["domain"]


def _cpu(text: str, last: int | None) -> int | None:
    text = text.strip()
    if text.isdigit():
        return int(text)
    if text == "N" and last is not None:
        return last
    return None


def parse_mask(text: str | None) -> set[int] | None:
    """A hexadecimal CPU mask, 32-bit groups comma-separated ("3", "ff,ffffffff")."""
    if text is None:
        return None
    digits = text.strip().replace(",", "")
    try:
        value = int(digits, 16)
    except ValueError:
        return None
    return {bit for bit in range(value.bit_length()) if value >> bit & 1}


def format_list(cpus: set[int] | list[int]) -> str:
    """ "0-3,8"; "none" for the empty set."""
    ordered = sorted(set(cpus))
    if not ordered:
        return "none"
    parts: list[str] = []
    start = prev = ordered[0]
    for c in ordered[1:] + [-2]:
        if c == prev + 1:
            prev = c
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        start = prev = c
    return ",".join(parts)


def format_mask(cpus: set[int]) -> str:
    """A set as the hexadecimal mask /proc and /sys take."""
    return format(sum(1 << c for c in cpus), "x") if cpus else "0"
