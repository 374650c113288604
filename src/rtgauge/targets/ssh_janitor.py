"""What every command that reaches an ssh target runs first: the janitor of
`rtgauge tune`'s holders there (tune/remote_shell.py). For each state file
a holder left when it was killed outright, it runs the restore script the
holder wrote beside it, removes both, and says so in one line. A file whose
lock is held (flock(1)), or whose pid still runs a holder (its marker in
the command line), is left alone. Here, beside the ssh target, so that
`run` and `check` run it without importing the tune."""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence

MARKER = "rtgauge-tune-holder"  # the holder's $0: in its /proc/PID/cmdline
DEFAULT_DIR = "/run/rtgauge/tune"  # as tune/state.py's here


def remote_state_dir() -> str:
    """The target's state directory: /run/rtgauge/tune there, or
    $RTGAUGE_TARGET_TUNE_STATE_DIR (tests keep theirs apart)."""
    return os.environ.get("RTGAUGE_TARGET_TUNE_STATE_DIR") or DEFAULT_DIR


def janitor_lines(raw: Sequence[str], label: str) -> list[str]:
    """The janitor's J and K lines as the user reads them, as
    state.restore_leftovers says them here."""
    out = []
    for line in raw:
        word, _, rest = line.partition(" ")
        if word == "J":
            words = rest.split()
            pid, ok, bad, *held = words + ["?", "0", "0"][len(words) :]
            n = int(ok) if ok.isdigit() else 0
            text = (
                f"restored {n} setting{'s' if n != 1 else ''} left on {label} by rtgauge tune "
                f"(holder pid {pid}, killed)"
            )
            if held:
                text += f"; the kernel let go of {', '.join(held)} when it ended"
            if bad not in ("0", ""):
                text += f"; {bad} could not be restored"
            out.append(text)
        elif word == "K":
            path, _, why = rest.partition(" ")
            out.append(f"kept {path} on {label}: {why}")
    return out


def janitor_script(state_dir: str) -> str:
    """Restores what each holder that is gone left, and says so: per state
    file `J <pid> <restored> <not restored> [held devices]`, or `K <file>
    <why>` when kept. A file whose lock is held, or (no flock(1)) whose pid
    still runs a holder, is left alone."""
    return "\n".join(
        [
            f"D={shlex.quote(state_dir)}",
            # the pattern matches the marker, not itself: this script's own command
            # line (the snapshot's) never passes for a holder
            "alive() { tr '\\0' ' ' < /proc/$1/cmdline 2>/dev/null | grep -q "
            + f"'{MARKER[:-2]}[{MARKER[-2]}]{MARKER[-1]}'; }}",
            "clean() {",  # $1 the state file, $2 its pid; the lock held, if any
            ' [ -f "$1" ] || return 0',
            ' r="${1%.json}.restore"',
            ' if [ ! -f "$r" ]; then echo "K $1 no restore script beside it"; return 0; fi',
            ' if out=$(sh "$r" 2>/dev/null); then rm -f "$1"; rm -f "$r"; echo "J $2 $out";',
            ' else echo "J $2 $out"; echo "K $1 kept for the next try"; fi',
            "}",
            'if [ -d "$D" ] && [ "$(id -u)" = 0 ]; then',
            ' for f in "$D"/*.json; do',
            '  [ -f "$f" ] || continue',
            "  b=${f##*/}; p=${b%%-*}",
            "  if command -v flock >/dev/null 2>&1; then",
            '   ( command exec 8<"$f" && flock -n -x 8 && ! alive "$p" && clean "$f" "$p" ) '
            "2>/dev/null",
            '  elif ! alive "$p"; then clean "$f" "$p"; fi',
            " done",
            # a gone holder's restore script (its state file removed), its copies
            ' for r in "$D"/*.restore "$D"/.[0-9]*; do',
            '  [ -f "$r" ] || continue',
            "  b=${r##*/}; b=${b#.}; p=${b%%-*}",
            '  case $r in *.restore) [ -f "${r%.restore}.json" ] && continue ;; esac',
            '  alive "$p" || rm -f "$r"',
            " done",
            "fi",
        ]
    )


def remote_command(script: str, sudo: bool, name: str = "sh") -> str:
    """The one command line ssh runs: the script given to sh as its -c, and
    `name` as its $0 (the holder's marker in its command line)."""
    return f"{'sudo -n ' if sudo else ''}sh -c {shlex.quote(script)} {shlex.quote(name)}"
