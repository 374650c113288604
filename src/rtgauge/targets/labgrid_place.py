"""A board in a labgrid lab: `--target labgrid://[COORDINATOR/]PLACE`.

The place is acquired through labgrid's coordinator (waiting up to
--acquire-timeout while someone else holds it) and powered on where it has a
power resource. A place with a NetworkService is a board with an OS, reached
over SSH by labgrid's SSHDriver: the run is the SSH target's (the static
probe of the board's architecture copied, run, its lines streamed back),
riding on the SSHDriver's connection. A place with a serial console and a
debug probe and no network is a microcontroller board: the FreeRTOS firmware
of --board is flashed through labgrid's OpenOCDDriver and read from the
console (labgrid_mcu.py). The place is released on every way out; a
coordinator lost during the run stops the run (exit 3): the place is no
longer known to be ours, so the board must not keep running for us.
"""

from __future__ import annotations

import argparse
import re
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rtgauge.errors import RunError, UsageError
from rtgauge.model import Record
from rtgauge.probe import repo_root
from rtgauge.targets.base import Target, target_record
from rtgauge.targets.firmware import DEFAULT_PROFILE, find_firmware, profile_named
from rtgauge.targets.labgrid_link import Coordinator, coordinator_address
from rtgauge.targets.labgrid_mcu import CONSOLES, PROBES, McuBoard, McuParts, mcu_parts
from rtgauge.targets.ssh import SshRun, SshTarget, run_over_ssh, stop_remote

_URL = re.compile(r"labgrid://(?:(?P<coordinator>[^/\s]+)/)?(?P<place>[A-Za-z0-9._+:-]+)/?")

# labgrid's remote power resources and the driver that switches each (as
# labgrid-client's `power` command pairs them).
POWER_DRIVERS = {
    "NetworkPowerPort": "NetworkPowerDriver",
    "NetworkUSBPowerPort": "USBPowerDriver",
    "NetworkSiSPMPowerPort": "SiSPMPowerDriver",
    "PDUDaemonPort": "PDUDaemonDriver",
    "TasmotaPowerPort": "TasmotaPowerDriver",
    "NetworkYKUSHPowerPort": "YKUSHPowerDriver",
}


def parse_labgrid_url(spec: str) -> tuple[str | None, str]:
    """labgrid://[COORDINATOR/]PLACE → (coordinator or None, place)."""
    m = _URL.fullmatch(spec)
    if not m:
        raise UsageError(f"--target {spec!r}: expected labgrid://[COORDINATOR/]PLACE")
    return m["coordinator"], m["place"]


class LabgridPlace(Target):
    """A labgrid place, acquired for the run and released after it."""

    kind, usage = "labgrid", "labgrid://[COORDINATOR/]PLACE"

    def __init__(
        self, coordinator: str, place: str, args: argparse.Namespace, root: Path | None
    ) -> None:
        self.address = coordinator
        self.place = place
        self.acquire_timeout = float(args.acquire_timeout)
        self._identity: Path | None = args.identity
        self._ssh_options: list[str] = list(args.ssh_option)
        self._sudo: bool = args.sudo
        self._board: str | None = getattr(args, "board", None)
        self._profile = profile_named(getattr(args, "profile", None) or DEFAULT_PROFILE)
        self._openocd: str | None = getattr(args, "openocd", None)
        self._mcu: McuBoard | None = None  # a microcontroller board: no SSH
        self._root = root
        self._run = SshRun()
        self._link: Coordinator | None = None
        self._acquired = False
        self._lg_target: Any = None  # labgrid's Target holding the place's resources
        self._ssh: SshTarget | None = None
        self.powered: bool | None = None  # None: the place has no power resource
        self.lost = threading.Event()
        self.problems: list[str] = []  # what went wrong around the run (release, loss)

    @classmethod
    def matches(cls, spec: str) -> bool:
        return spec.startswith("labgrid://")

    @classmethod
    def from_args(cls, spec: str, args: argparse.Namespace) -> LabgridPlace:
        coordinator, place = parse_labgrid_url(spec)
        if args.acquire_timeout < 0:
            raise UsageError("--acquire-timeout: must be 0 or more seconds")
        return cls(coordinator_address(coordinator), place, args, repo_root())

    @classmethod
    def add_options(cls, parser: argparse.ArgumentParser) -> None:
        g = parser.add_argument_group("labgrid target (uses the ssh target's options too)")
        g.add_argument(
            "--acquire-timeout",
            type=float,
            default=60.0,
            metavar="SECONDS",
            help="how long to wait for a place someone else holds (default 60; then exit 3)",
        )
        g.add_argument(
            "--openocd",
            metavar="PATH",
            help="a microcontroller place: OpenOCD on the exporter's host (default: its PATH's)",
        )

    def prepare(self) -> None:
        if self._root is None:
            raise UsageError("the labgrid target needs the source tree's static probes")
        self._link = Coordinator(self.address)
        self._link.acquire(self.place, self.acquire_timeout)
        self._acquired = True
        self._link.on_lost(self._coordinator_lost)
        resources = self._link.resources(self.place)
        if not any(cls == "NetworkService" for _, cls in resources):
            self._mcu = self._mcu_board(resources)  # bad places found before power
        else:
            self._lg_target = _labgrid_target(self.place, resources)
        self.powered = _power_on(self._lg_target, resources)
        if self._mcu is not None:
            self._mcu.activate()
        else:
            self._ssh = self._connect(resources)

    def _mcu_board(self, resources: dict[tuple[str, str], Any]) -> McuBoard:
        assert self._link is not None and self._root is not None
        tags = dict(getattr(self._link.places()[self.place], "tags", {}) or {})
        console, probe, board = mcu_parts(self.place, resources, tags, self._board, self._root)
        # The probe is a resource labgrid manages (its exporter's USB device):
        # the target is labgrid's own for the place, a RemotePlace.
        self._lg_target = _remote_target(self._link, self.place)
        parts = McuParts(
            console=console,
            probe=probe,
            board=board,
            firmware=find_firmware(self._root, board, profile=self._profile),
            openocd_config=self._root / "core" / "boards" / board / "openocd.cfg",
            openocd=self._openocd,
        )
        return McuBoard(self.place, self._lg_target, parts)

    def _connect(self, resources: dict[tuple[str, str], Any]) -> SshTarget:
        """SSH through labgrid's SSHDriver: its connection, proxies and all,
        carries the SSH target's commands (ControlPath)."""
        from labgrid import target_factory

        services = sorted(name for name, cls in resources if cls == "NetworkService")
        if not services:
            raise UsageError(
                f"labgrid place {self.place} has no NetworkService: rtgauge reaches a board "
                "over SSH (see docs/lab.md)"
            )
        args = {"keyfile": str(self._identity)} if self._identity else {}
        driver = target_factory.make_driver(self._lg_target, "SSHDriver", None, args)
        try:
            self._lg_target.activate(driver)
        except Exception as exc:  # labgrid raises its own ExecutionError and plain ones
            raise RunError(f"labgrid place {self.place}: ssh: {exc}") from exc
        service = driver.networkservice
        options = [f"ControlPath={driver.control}", "ControlMaster=no", *self._ssh_options]
        return SshTarget(
            user=driver._get_username(),
            host=service.address,
            port=int(service.port),
            options=options,
            identity=self._identity,
            sudo=self._sudo,
        )

    def _coordinator_lost(self) -> None:
        """From labgrid's thread: the place may no longer be ours, stop the board's run."""
        self.lost.set()
        what = (
            "reading the board was stopped" if self._mcu else "the probe on the board was stopped"
        )
        self.problems.append(
            f"lost the labgrid coordinator {self.address} during the run: {what}; "
            f"place {self.place} could not be released (a restarted coordinator starts with "
            "every place free)"
        )
        if self._mcu is not None:
            self._mcu.stop.set()
        if self._ssh is not None:
            threading.Thread(target=stop_remote, args=(self._ssh, self._run), daemon=True).start()

    def run(self, probe_args: list[str]) -> Iterator[str]:
        if self._mcu is not None:
            self.stream = self._mcu.run(probe_args)
            return self.stream
        assert self._ssh is not None and self._root is not None, "prepare() first"
        self.stream = run_over_ssh(self._ssh, self._root, probe_args, self._run)
        return self.stream

    def stop(self) -> None:
        if self._mcu is not None:  # the board finishes its test; we stop reading
            self._mcu.stop.set()
        if self._ssh is not None:  # from a signal handler: the remote stop runs aside
            threading.Thread(target=stop_remote, args=(self._ssh, self._run), daemon=True).start()

    def cleanup(self) -> None:
        super().cleanup()  # the stream's own finally stops and removes the probe
        if self._lg_target is not None:
            try:
                self._lg_target.deactivate_all_drivers()
            except Exception as exc:  # a broken link must not keep the place
                print(f"rtgauge: warning: labgrid drivers: {exc}", file=sys.stderr)
            self._lg_target = None
        if self._link is None:
            return
        if self._acquired:
            try:
                self._link.release(self.place)
                self._acquired = False
            except RunError as exc:
                if not self.lost.is_set():  # a loss has been said already
                    print(f"rtgauge: warning: {exc}", file=sys.stderr)
        self._link.close()
        self._link = None

    def outcome(self) -> tuple[int | None, str | None]:
        run = self._mcu.parts.run if self._mcu is not None else self._run
        notes = [*self.problems, *([run.error] if run.error else [])]
        code = run.exit_code
        if self.lost.is_set() and code in (0, 1):
            code = 3  # cut short by the loss, however the probe ended
        return code, "; ".join(dict.fromkeys(notes)) or None

    @property
    def probe_command(self) -> str:
        return "rtgauge-fw" if self._mcu is not None else "rtgauge-probe"

    def describe(self) -> Record:
        mcu: dict[str, object] = {}
        if self._mcu is not None:
            p = self._mcu.parts
            mcu = {"board": p.board, "profile": self._profile, "firmware": str(p.firmware),
                   "console": p.console,
                   "bootstrap": f"OpenOCDDriver on {p.probe}", "boots": p.run.boots}  # fmt: skip
        return target_record(
            "labgrid",
            f"labgrid://{self.address}/{self.place}",
            None,
            None,
            coordinator=self.address,
            place=self.place,
            address=self._ssh.label if self._ssh else None,
            arch=self._run.arch if self._mcu is None else "arm",
            powered=self.powered,
            **mcu,
        )


def _labgrid_target(place: str, resources: dict[tuple[str, str], Any]) -> Any:
    """A labgrid Target holding the place's resources, as labgrid's client builds it."""
    from labgrid import Target as LabgridTarget
    from labgrid import target_factory

    target = LabgridTarget(place)
    driven = {"NetworkService", *CONSOLES, *PROBES, *POWER_DRIVERS}
    for (name, cls), entry in resources.items():
        if cls not in driven:
            continue  # only what rtgauge drives
        resource = target_factory.make_resource(target, cls, name, entry.args)
        resource.avail = entry.avail
        resource.extra = entry.extra
    return target


def _remote_target(link: Coordinator, place: str) -> Any:
    """labgrid's Target for an acquired place as its client builds it: a
    RemotePlace, whose resources labgrid expands and keeps up to date through
    its RemotePlaceManager. The manager is given our session (and its loop,
    running in its own thread) rather than opening a second one."""
    from labgrid import Target as LabgridTarget
    from labgrid import target_factory
    from labgrid.resource.remote import RemotePlaceManager

    manager = RemotePlaceManager.get()
    if manager.session is not link.session:
        manager.session, manager.loop, manager.url = link.session, link.loop, link.address
    target = LabgridTarget(place)
    try:
        target_factory.make_resource(target, "RemotePlace", place, {})
    except Exception as exc:  # labgrid raises its own errors
        raise RunError(f"labgrid place {place}: {exc}") from exc
    return target


def _power_on(target: Any, resources: dict[tuple[str, str], Any]) -> bool | None:
    """Switches the place's first power resource on; None if it has none."""
    from labgrid import target_factory

    for name, cls in sorted(resources):
        if cls in POWER_DRIVERS:
            driver = target_factory.make_driver(target, POWER_DRIVERS[cls], name, {})
            try:
                target.activate(driver)
                driver.on()
            except Exception as exc:  # labgrid's drivers raise their own errors
                raise RunError(f"labgrid power {name}: {exc}") from exc
            return True
    return None
