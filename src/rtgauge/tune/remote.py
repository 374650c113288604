"""`rtgauge tune --target ssh://...`: the target read in one ssh command
(its janitor first), its candidates found by the knobs as here, and what
the target needs checked before anything is applied: root (or --sudo) and
a state directory it can write."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from rtgauge.errors import UsageError
from rtgauge.fmt import term
from rtgauge.targets.ssh import SshTarget, probe_for, ssh_output
from rtgauge.targets.ssh_janitor import janitor_lines, remote_command, remote_state_dir
from rtgauge.tune import knobs
from rtgauge.tune.knobs import Candidate
from rtgauge.tune.remote_read import (
    MAX_TASKS,
    cpu_count,
    parse_snapshot,
    snapshot_script,
    to_target,
)


def read_candidates(
    t: SshTarget,
    cpus_of: Callable[[int], frozenset[int]],
    movable: frozenset[int] | None,
    *,
    to_apply: bool,
    probes: Path | None = None,
) -> tuple[list[Candidate], frozenset[int]]:
    """The target's candidates, their paths the target's, and the measured
    CPUs (cpus_of is given the target's CPU count). to_apply: the target
    must let rtgauge change its settings (root, the state directory), and
    the source tree `probes` must hold the static probe of its architecture."""
    d = remote_state_dir()
    script = snapshot_script(d, movable, check_state=to_apply)
    raw = ssh_output(t, remote_command(script, t.sudo), timeout=120)
    with tempfile.TemporaryDirectory(prefix="rtgauge-target-") as tmp:
        root = Path(tmp)
        snap = parse_snapshot(raw.splitlines(), root, movable)
        for line in janitor_lines(snap.janitor, t.label):
            print(f"rtgauge: {term(line)}", file=sys.stderr)
        if snap.uid is None:
            raise UsageError(f"{t.label}: the target did not answer as a POSIX sh does")
        if to_apply and snap.uid != 0:
            raise UsageError(
                f"{t.label}: rtgauge tune changes kernel settings there: log in as root, "
                "or give --sudo (sudo -n must work)"
            )
        if to_apply and not snap.state_writable:
            raise UsageError(
                f"{t.label}: cannot write {d}, where rtgauge tune keeps what it changed "
                "until it is restored"
            )
        if to_apply:
            if probes is None:
                raise UsageError("the ssh target needs the source tree's static probes")
            probe_for(snap.arch or "?", probes)
        if snap.too_many is not None:
            raise UsageError(
                f"{t.label}: {snap.too_many} tasks, more than rtgauge tune reads "
                f"({MAX_TASKS}): give --movable"
            )
        cpus = cpus_of(cpu_count(root))
        found = knobs.candidates(cpus, movable=movable, root=root)
        return to_target(found, root), cpus
