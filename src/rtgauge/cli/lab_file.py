"""The lab file: the targets of `rtgauge lab --file lab.toml`, with a label and
options each (docs/lab.md). Every mistake is found before anything runs, in
one line that names the file and the target."""

from __future__ import annotations

import argparse
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtgauge.errors import RunError, UsageError
from rtgauge.targets.labgrid_link import Coordinator, coordinator_address
from rtgauge.targets.registry import make_target
from rtgauge.targets.ssh import parse_ssh_url

# Per-target options: the lab file's key → (the run option's dest, its type).
OPTIONS: dict[str, tuple[str, type]] = {
    "tests": ("tests", str),
    "quick": ("quick", bool),
    "cpus": ("cpus", str),
    "duration_scale": ("duration_scale", str),
    "prio": ("prio", str),
    "opt": ("opt", list),
    "no_rt": ("no_rt", bool),
    "probe": ("probe", str),
    "identity": ("identity", str),
    "ssh_options": ("ssh_option", list),
    "sudo": ("sudo", bool),
    "acquire_timeout": ("acquire_timeout", float),
    "kernel": ("kernel", str),
    "kernel_package": ("kernel_package", str),
    "append": ("append", str),
    "accel": ("accel", str),
    "vcpus": ("vcpus", int),
    "mem": ("mem", int),
    "icount": ("icount", int),  # freertos-qemu: QEMU's instruction counting shift
    "board": ("board", str),  # the FreeRTOS firmware's board (freertos-qemu, an MCU place)
}
ENTRY_KEYS = {"name", "target", "label", "machine", "places", "coordinator"}
THIS_MACHINE = "this machine"
_LOOPBACK = {"localhost", "127.0.0.1", "::1", "ip6-localhost"}


@dataclass
class LabEntry:
    name: str
    target: str  # a --target string
    label: str | None = None
    machine: str = THIS_MACHINE  # runs on one machine never overlap
    options: dict[str, Any] = field(default_factory=dict)  # dest → value


def machine_key(spec: str) -> str:
    """Which machine a target's runs measure: two runs with one key never overlap.
    local and QEMU guests (and any target run on this host) share this machine;
    an SSH host is its address (loopback is this machine); a labgrid place is
    its own board."""
    if spec.startswith("ssh://"):
        host = parse_ssh_url(spec).host.lower()
        return THIS_MACHINE if host in _LOOPBACK else f"ssh:{host}"
    if spec.startswith("labgrid://"):
        return spec.rstrip("/")
    return THIS_MACHINE


def entries_from_set(entries: list[dict[str, Any]], where: str) -> list[LabEntry]:
    """A built-in set (data/labs.json): the same checks as a file."""
    return _entries({"target": entries}, where)


def load_lab_file(path: Path, args: argparse.Namespace) -> list[LabEntry]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"--file {path}: {exc.strerror}") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: not valid TOML: {exc}") from exc
    entries = _entries(data, str(path))
    for entry in entries:  # each target string is checked before anything runs
        make_target(entry.target, apply(args, entry))
    return entries


def _entries(data: dict[str, Any], where: str) -> list[LabEntry]:
    unknown = set(data) - {"target", "defaults"}
    if unknown:
        raise UsageError(f"{where}: unknown table {sorted(unknown)[0]!r} (expected [[target]])")
    defaults = _options(data.get("defaults", {}), f"{where}: [defaults]")
    raw = data.get("target")
    if not isinstance(raw, list) or not raw:
        raise UsageError(f"{where}: no targets (add [[target]] tables)")
    out: list[LabEntry] = []
    for i, item in enumerate(raw, 1):
        out += _entry(item, f"{where}: target {i}", defaults)
    names = [e.name for e in out]
    for name in names:
        if names.count(name) > 1:
            raise UsageError(f"{where}: two targets are named {name!r}: give each a name")
    return out


def _entry(item: Any, where: str, defaults: dict[str, Any]) -> list[LabEntry]:
    if not isinstance(item, dict):
        raise UsageError(f"{where}: expected a table")
    fields = {k: v for k, v in item.items() if k in ENTRY_KEYS}
    options = {
        **defaults,
        **_options({k: v for k, v in item.items() if k not in ENTRY_KEYS}, where),
    }
    for key in ("name", "target", "label", "machine", "coordinator"):
        if key in fields and not isinstance(fields[key], str):
            raise UsageError(f"{where}: {key} must be a string")
    label = fields.get("label")
    if "places" in fields:
        if "target" in fields:
            raise UsageError(f"{where}: give either target or places, not both")
        return _tagged(fields, where, label, options)
    if "target" not in fields:
        raise UsageError(f'{where}: no target (e.g. target = "local")')
    spec = fields["target"]
    return [
        LabEntry(
            name=fields.get("name") or label or spec,
            target=spec,
            label=label,
            machine=fields.get("machine") or machine_key(spec),
            options=options,
        )
    ]


def _tagged(
    fields: dict[str, Any], where: str, label: str | None, options: dict[str, Any]
) -> list[LabEntry]:
    """`places = { board = "rpi4" }`: every labgrid place carrying these tags."""
    tags = fields["places"]
    if not isinstance(tags, dict) or not tags or not all(isinstance(v, str) for v in tags.values()):
        raise UsageError(f'{where}: places must be a table of tags, e.g. {{ board = "rpi4" }}')
    address = coordinator_address(fields.get("coordinator"))
    try:
        link = Coordinator(address)
    except (RunError, UsageError) as exc:
        raise UsageError(f"{where}: {exc}") from exc
    try:
        names = link.tagged(tags)
    finally:
        link.close()
    wanted = ", ".join(f"{k}={v}" for k, v in tags.items())
    if not names:
        raise UsageError(f"{where}: no labgrid place at {address} is tagged {wanted}")
    return [
        LabEntry(
            name=name,
            target=f"labgrid://{address}/{name}",
            label=label,
            machine=f"labgrid://{address}/{name}",
            options=options,
        )
        for name in names
    ]


def _options(table: Any, where: str) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise UsageError(f"{where}: expected a table")
    out: dict[str, Any] = {}
    for key, value in table.items():
        if key not in OPTIONS:
            known = ", ".join(sorted([*ENTRY_KEYS, *OPTIONS]))
            raise UsageError(f"{where}: unknown key {key!r} (known: {known})")
        dest, kind = OPTIONS[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if kind is str and isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)  # prio = 80, duration_scale = 0.5
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise UsageError(f"{where}: {key} must be a {kind.__name__}")
        if isinstance(value, list) and not all(isinstance(v, str) for v in value):
            raise UsageError(f"{where}: {key} must be a list of strings")
        out[dest] = value
    return out


def apply(args: argparse.Namespace, entry: LabEntry) -> argparse.Namespace:
    """The run options of one target: the command's, then the file's."""
    ns = argparse.Namespace(**vars(args))
    ns.target = entry.target
    for dest, value in entry.options.items():
        setattr(ns, dest, Path(value).expanduser() if dest == "identity" else value)
    if entry.label is not None:
        ns.label = entry.label  # for a run command that stores labels
    return ns
