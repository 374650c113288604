"""The shell side of `rtgauge tune` on an ssh target: each change as the
POSIX sh lines that apply and restore it (the shell equivalents of
writes.apply_one and writes.restore_one), the holder that applies them and
restores them on a "restore" line or when its connection ends, and the
janitor that restores what a holder killed outright left.

The target needs a POSIX sh and coreutils or busybox, nothing more; flock(1)
when it has it (util-linux, busybox), else the holder's pid and the marker
in its command line say whether it lives. Every value is quoted for sh."""

from __future__ import annotations

import json
import shlex
import time
from collections.abc import Sequence

from rtgauge.targets.ssh_janitor import MARKER
from rtgauge.tune.knobs import Change

HOLD_FDS = (3, 4, 5, 6, 7)  # one per held device; 9 holds the state file's lock
PID_MARK = "@PID@"  # replaced by the holder's own pid in the state file


def _q(text: str) -> str:
    return shlex.quote(text)


def _write(path: str, value: str, *, append: bool = False) -> str:
    return f"printf '%s\\n' {_q(value)} {'>>' if append else '>'} {_q(path)}"


def _task_gone(task: str) -> str:
    """True when the task exited meanwhile: nothing to move (as writes._gone)."""
    return f"[ ! -e /proc/{_q(task)} ]"


def apply_line(c: Change, fd: int | None = None) -> str:
    """The sh line that applies one change; non-zero status and a message on
    stderr when it cannot. A held device is held on `fd` of the holder."""
    kind, _, rest = c.path.partition(":")
    if kind == "cpuset":
        fields = dict(part.partition("=")[::2] for part in c.new.split())
        made = [_write(f"{rest}/cpuset.cpus", fields.get("cpus", ""))]
        if fields.get("mems"):
            made.append(_write(f"{rest}/cpuset.mems", fields["mems"]))
        # not applied: not left half made
        return f"mkdir {_q(rest)} && {{ {' && '.join(made)} || {{ rmdir {_q(rest)}; false; }}; }}"
    if kind == "cpuset-task":
        return f"{_write(c.new, rest, append=True)} || {_task_gone(rest)}"
    if kind == "pid-affinity":
        return f"taskset -pc {_q(c.new)} {_q(rest)} >/dev/null || {_task_gone(rest)}"
    if kind == "hold":
        if fd is None:
            raise ValueError("a held device needs a descriptor")
        # 8 hex digits and a newline: never the 4 bytes the kernel takes as binary
        value = f"$(printf '%08x' {_q(c.new)})"
        return (
            f"command exec {fd}>{_q(rest)} && "
            f"{{ printf '%s\\n' {value} >&{fd} || {{ exec {fd}>&-; false; }}; }}"
        )
    return _write(c.path, c.new)


def restore_line(c: Change, fd: int | None = None) -> str:
    """The sh line that puts one change back. A task is moved back only if it
    is still in the shield; a held device is closed (fd None: the janitor's,
    the kernel let go when the holder died)."""
    kind, _, rest = c.path.partition(":")
    if kind == "cpuset":
        d = _q(rest)
        parent = rest.rstrip("/").rsplit("/", 1)[0] or "/"
        moves = " ".join(
            f"for i in $(cat {d}/{name} 2>/dev/null); do "
            f"printf '%s\\n' $i >> {_q(f'{parent}/{name}')} 2>/dev/null; done;"
            for name in ("tasks", "cgroup.procs")
        )
        return f"if [ -d {d} ]; then {moves} rmdir {d}; fi"
    if kind == "cpuset-task":
        return (
            f"if grep -qx {_q(rest)} {_q(c.new)} 2>/dev/null; then "
            f"{_write(c.old, rest, append=True)} || {_task_gone(rest)}; fi"
        )
    if kind == "pid-affinity":
        return f"taskset -pc {_q(c.old)} {_q(rest)} >/dev/null || {_task_gone(rest)}"
    if kind == "hold":
        return ":" if fd is None else f"exec {fd}>&-"
    return _write(c.path, c.old)


def hold_fds(changes: Sequence[Change]) -> dict[int, int]:
    """The holder's descriptor of each held device, by change index."""
    held = [i for i, c in enumerate(changes) if c.path.startswith("hold:")]
    if len(held) > len(HOLD_FDS):
        raise ValueError(f"at most {len(HOLD_FDS)} devices can be held")
    return dict(zip(held, HOLD_FDS, strict=False))


def janitor_restore_script(changes: Sequence[Change]) -> str:
    """The file the janitor runs for a holder that is gone: every change put
    back, newest first; its last line says how many were, of how many."""
    lines = ["ok=0 bad=0"]
    for c in reversed(changes):
        lines.append(f"if {{ {restore_line(c)}; }}; then ok=$((ok+1)); else bad=$((bad+1)); fi")
    held = " ".join(_q(c.path[5:]) for c in changes if c.path.startswith("hold:"))
    lines.append(f'echo "$ok $bad" {held}'.rstrip())
    lines.append('[ "$bad" = 0 ]')
    return "\n".join(lines) + "\n"


def state_body(changes: Sequence[Change], label: str) -> str:
    """The state file, as state.py writes it (pid, written, changes, note),
    its pid the holder's own, and which holder wrote it."""
    body = {
        "pid": PID_MARK,
        "written": time.time(),
        "changes": [{"path": c.path, "old": c.old, "new": c.new} for c in changes],
        "note": None,
        "holder": MARKER,
        "target": label,
    }
    return json.dumps(body, indent=1).replace(json.dumps(PID_MARK), PID_MARK)


def _case(name: str, bodies: Sequence[str]) -> str:
    arms = "".join(f"  {i}) {b} ;;\n" for i, b in enumerate(bodies))
    return f"{name}() {{\n case $1 in\n{arms} esac\n}}\n" if bodies else f"{name}() {{ :; }}\n"


def holder_script(changes: Sequence[Change], state_dir: str, token: str, label: str) -> str:
    """The holder: writes the janitor's restore file and the state file
    (locked while it lives), applies each change saying `A i` (or `E i why`,
    then restores and ends), says READY and waits on stdin; on a "restore"
    line, on EOF (the connection gone, the caller killed) or on SIGTERM it
    restores newest first (`R i`, or `F i why`), removes the files and says
    DONE (KEPT when a value could not be restored)."""
    fds = hold_fds(changes)
    head, _, tail = state_body(changes, label).partition(PID_MARK)
    return "\n".join(
        [
            "trap '' PIPE HUP INT",  # a lost connection must not stop a restore
            "quit=0; trap 'quit=1' TERM",
            "umask 077",
            f"D={_q(state_dir)}",
            f'N="$$-{token}"; F="$D/$N.json"; R="$D/$N.restore"; E="$D/.$N.err"',
            'rm -f "$D/.$N.sh"',  # the copy holder_bootstrap made: read already
            'mkdir -p "$D" 2>"/dev/null" && [ -w "$D" ] || '
            '{ echo "X cannot write the state directory $D"; exit 1; }',
            f'printf %s {_q(janitor_restore_script(changes))} > "$D/.$N.restore.tmp" && '
            'mv -f "$D/.$N.restore.tmp" "$R" || { echo "X cannot write $R"; exit 1; }',
            'command exec 9>"$D/.$N.json.tmp" || { rm -f "$R"; echo "X cannot write $F"; exit 1; }',
            "command -v flock >/dev/null 2>&1 && flock -x 9",
            f'printf %s%s%s {_q(head)} "$$" {_q(tail)} >&9 && mv -f "$D/.$N.json.tmp" "$F" || '
            '{ rm -f "$R" "$D/.$N.json.tmp"; echo "X cannot write $F"; exit 1; }',
            'echo "S $F"',
            _case("ap", [apply_line(c, fds.get(i)) for i, c in enumerate(changes)]),
            _case("un", [restore_line(c, fds.get(i)) for i, c in enumerate(changes)]),
            "why() { tr '\\n' ' ' < \"$E\"; }",
            "undo() {",
            " bad=0",
            " while [ $n -gt 0 ]; do n=$((n-1))",
            '  if un $n 2>"$E"; then echo "R $n"; else bad=1; echo "F $n $(why)"; fi',
            " done",
            ' rm -f "$E"',
            ' if [ $bad = 0 ]; then rm -f "$F"; rm -f "$R"; echo DONE; else echo "KEPT $F"; fi',
            "}",
            "n=0; i=0",
            f"while [ $i -lt {len(changes)} ] && [ $quit = 0 ]; do",
            ' if ap $i 2>"$E"; then n=$((i+1)); echo "A $i"; '
            'else echo "E $i $(why)"; undo; exit 1; fi',
            " i=$((i+1))",
            "done",
            'if [ $quit = 1 ]; then echo "Q"; undo; exit 1; fi',
            "echo READY",
            'while [ $quit = 0 ] && IFS= read -r line; do [ "$line" = restore ] && break; done',
            "undo",
        ]
    )


def holder_bootstrap(state_dir: str, token: str) -> tuple[str, str]:
    """The holder's command line, and the line that ends its script: the
    script (holder_script) comes on stdin before the control lines, since a
    shield of many tasks makes it larger than one argument may be (128 KiB).
    It is copied into the state directory, read, and run by this shell."""
    end = f"#rtgauge-tune-end-{token}"
    command = "\n".join(
        [
            "umask 077",
            f"D={_q(state_dir)}",
            'mkdir -p "$D" 2>/dev/null && [ -w "$D" ] || '
            '{ echo "X cannot write the state directory $D"; exit 1; }',
            f'B="$D/.$$-{token}.sh"',
            f'while IFS= read -r l && [ "$l" != {_q(end)} ]; do printf \'%s\\n\' "$l"; done '
            '> "$B" || { echo "X cannot write $B"; exit 1; }',
            '. "$B"',
        ]
    )
    return command, end
