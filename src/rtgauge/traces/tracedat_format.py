"""The trace-cmd data file, version 6 (trace-cmd.dat.v6(5)), written by hand:
what `trace-cmd report` and KernelShark read. No library writes it from
events that were not recorded by a kernel (docs/traces.md says why), so
this module lays out the file from the format's documentation: the initial
format, the kernel's ring-buffer headers, every event's format file, the
symbols, the task names, then each CPU's data as ring-buffer pages.

Little endian, 64-bit longs, 4096-byte pages, as an x86-64 or arm64 kernel
writes them. Events are written as the ring buffer holds them: a 32-bit
header (type_len: 5 bits, time_delta: 27 bits), then the record; a gap too
long for 27 bits is a time-extend entry first.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass

PAGE = 4096
_PAGE_HEADER = 16  # u64 timestamp, local_t commit (a long)
_PAGE_DATA = PAGE - _PAGE_HEADER
_TYPE_TIME_EXTEND = 30
_MAX_DELTA = (1 << 27) - 1
_MAX_SMALL = 28 * 4  # longer records give their length in a 32-bit word

# the kernel's own descriptions of its ring buffer (events/header_page and
# events/header_event), as every trace.dat carries them
HEADER_PAGE = (
    "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
    "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
    "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
    f"\tfield: char data;\toffset:16;\tsize:{_PAGE_DATA};\tsigned:0;\n"
)
HEADER_EVENT = (
    "# compressed entry header\n"
    "\ttype_len    :    5 bits\n"
    "\ttime_delta  :   27 bits\n"
    "\tarray       :   32 bits\n\n"
    "\tpadding     : type == 29\n"
    "\ttime_extend : type == 30\n"
    "\ttime_stamp : type == 31\n"
    "\tdata max type_len  == 28\n"
)


@dataclass(frozen=True)
class Field:
    """One field of an event's record, as its format file declares it."""

    ctype: str  # "int", "char", "unsigned long" …
    name: str  # "prev_comm[16]" for an array
    size: int
    signed: bool
    pack: str  # struct's letter(s) for the value: "i", "Q", "16s"


@dataclass(frozen=True)
class EventType:
    """An event's format file: its system, name, id, fields and print format."""

    system: str
    name: str
    id: int
    fields: tuple[Field, ...]
    print_fmt: str

    def offsets(self) -> list[int]:
        out, at = [], 8  # after the common fields
        for f in self.fields:
            align = 1 if "[" in f.name else min(f.size, 8) or 1
            at = (at + align - 1) // align * align
            out.append(at)
            at += f.size
        return out

    def format_text(self) -> str:
        lines = [f"name: {self.name}", f"ID: {self.id}", "format:"]
        common = [("unsigned short", "common_type", 0, 2, 0),
                  ("unsigned char", "common_flags", 2, 1, 0),
                  ("unsigned char", "common_preempt_count", 3, 1, 0),
                  ("int", "common_pid", 4, 4, 1)]  # fmt: skip
        for ctype, name, off, size, signed in common:
            lines.append(f"\tfield:{ctype} {name};\toffset:{off};\tsize:{size};\tsigned:{signed};")
        lines.append("")
        for f, off in zip(self.fields, self.offsets(), strict=True):
            lines.append(
                f"\tfield:{f.ctype} {f.name};\toffset:{off};\tsize:{f.size};\tsigned:{int(f.signed)};"
            )
        lines += ["", f"print fmt: {self.print_fmt}", ""]
        return "\n".join(lines)

    def record(self, pid: int, values: Sequence[object]) -> bytes:
        """The record of one event: common fields, then the values in order."""
        out = bytearray(struct.pack("<HBBi", self.id, 0, 0, pid))
        for f, off, v in zip(self.fields, self.offsets(), values, strict=True):
            out += b"\0" * (off - len(out))
            if f.pack == "*":  # a trailing char buf[]: the rest of the record
                out += v if isinstance(v, bytes) else str(v).encode()
            else:
                out += struct.pack("<" + f.pack, v)
        return bytes(out)


@dataclass(frozen=True)
class Entry:
    """One event at an absolute time (ns) on a CPU."""

    ts: int
    cpu: int
    record: bytes


def _event_bytes(record: bytes, delta: int) -> bytes:
    padded = record + b"\0" * (-len(record) % 4)
    if len(padded) <= _MAX_SMALL:
        return struct.pack("<I", (delta << 5) | (len(padded) // 4)) + padded
    return struct.pack("<II", delta << 5, len(padded) + 4) + padded


def cpu_pages(entries: Sequence[Entry]) -> bytes:
    """One CPU's entries (in time order) as ring-buffer pages."""
    pages: list[bytes] = []
    data, page_ts, last = bytearray(), 0, 0
    for e in entries:
        if not data:
            page_ts = last = e.ts
        delta = e.ts - last
        ext = b""
        if delta > _MAX_DELTA:
            ext = struct.pack("<II", ((delta & _MAX_DELTA) << 5) | _TYPE_TIME_EXTEND, delta >> 27)
            delta = 0
        chunk = ext + _event_bytes(e.record, delta)
        if data and len(data) + len(chunk) > _PAGE_DATA:  # a new page starts at this event
            pages.append(_page(page_ts, data))
            data, page_ts = bytearray(), e.ts
            chunk = _event_bytes(e.record, 0)
        if len(chunk) > _PAGE_DATA:
            raise ValueError(f"an event of {len(chunk)} bytes does not fit in a page")
        data += chunk
        last = e.ts
    if data:
        pages.append(_page(page_ts, data))
    return b"".join(pages)


def _page(ts: int, data: bytes | bytearray) -> bytes:
    head = struct.pack("<Qq", ts, len(data))
    return head + bytes(data) + b"\0" * (_PAGE_DATA - len(data))


def _sized64(text: str | bytes) -> bytes:
    b = text.encode() if isinstance(text, str) else text
    return struct.pack("<Q", len(b)) + b


def _sized32(text: str) -> bytes:
    b = text.encode()
    return struct.pack("<I", len(b)) + b


def trace_dat(
    ftrace: Sequence[EventType],
    events: Sequence[EventType],
    kallsyms: str,
    cmdlines: str,
    entries: Sequence[Entry],
) -> bytes:
    """The whole file: headers and formats, then every CPU's pages."""
    head = bytearray(b"\x17\x08\x44tracing6\0")
    head += struct.pack("<BBI", 0, 8, PAGE)  # little endian, 8-byte longs
    head += b"header_page\0" + _sized64(HEADER_PAGE)
    head += b"header_event\0" + _sized64(HEADER_EVENT)
    head += struct.pack("<I", len(ftrace))
    for ev in ftrace:
        head += _sized64(ev.format_text())
    systems: dict[str, list[EventType]] = {}
    for ev in events:
        systems.setdefault(ev.system, []).append(ev)
    head += struct.pack("<I", len(systems))
    for name, evs in systems.items():
        head += name.encode() + b"\0" + struct.pack("<I", len(evs))
        for ev in evs:
            head += _sized64(ev.format_text())
    head += _sized32(kallsyms)
    head += _sized32("")  # printk formats: none
    head += _sized64(cmdlines)
    ncpus = max((e.cpu for e in entries), default=0) + 1
    head += struct.pack("<I", ncpus)
    head += b"options  \0" + struct.pack("<H", 0)  # no option
    head += b"flyrecord\0"
    per_cpu = [
        cpu_pages(sorted((e for e in entries if e.cpu == c), key=lambda e: e.ts))
        for c in range(ncpus)
    ]
    at = len(head) + 16 * ncpus
    at = (at + PAGE - 1) // PAGE * PAGE
    table, body = bytearray(), bytearray()
    for data in per_cpu:
        table += struct.pack("<QQ", at + len(body), len(data))
        body += data
    out = head + table
    out += b"\0" * (at - len(out))
    return bytes(out + body)
