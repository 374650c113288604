"""Changes applied on an ssh target for as long as a `with` lasts, as
state.Applied does here: a holder shell on the target (remote_shell.py),
over one ssh connection per `with`, writes the state file, applies each
change, and restores them all when told to, when its connection ends (this
process killed, the link gone) or on SIGTERM. A holder killed outright
leaves its state file: the janitor, run before the target is read, puts
those values back; so does this side at once when it finds its holder gone."""

from __future__ import annotations

import secrets
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from typing import IO

from rtgauge.errors import RunError, UsageError
from rtgauge.targets.ssh import SshTarget, ssh_argv, ssh_output
from rtgauge.targets.ssh_janitor import (
    MARKER,
    janitor_lines,
    janitor_script,
    remote_command,
    remote_state_dir,
)
from rtgauge.tune import state
from rtgauge.tune.knobs import Change
from rtgauge.tune.remote_shell import holder_bootstrap, holder_script


def run_janitor(t: SshTarget) -> list[str]:
    """The janitor on its own (the snapshot script runs it too)."""
    raw = ssh_output(t, remote_command(janitor_script(remote_state_dir()), t.sudo), timeout=120)
    return janitor_lines(raw.splitlines(), t.label)


class RemoteApplied:
    """with RemoteApplied(target, changes): ... — the holder applies them in
    order; if one fails, it restores those applied and this raises
    UsageError naming it. On every way out they are restored in reverse
    order and the state file removed; a value the holder could not restore
    is said on stderr and its file kept for the janitor."""

    def __init__(self, target: SshTarget, changes: Sequence[Change]) -> None:
        self.target = target
        self.changes = list(changes)
        self.state_path: str | None = None
        self._proc: subprocess.Popen[str] | None = None
        self._err: IO[bytes] | None = None
        self._applied = 0

    def __enter__(self) -> RemoteApplied:
        before = state._block()
        try:
            self._start()
        except BaseException:
            self._finish()
            state._unblock(before)
            raise
        try:
            state._unblock(before)
        except BaseException:  # a signal held back while the holder applied
            self._finish()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        failed = self._finish()
        if failed and exc[0] is None:
            raise RunError(
                f"could not restore {len(failed)} settings on {self.target.label} (said above)"
            )

    def _start(self) -> None:
        token = secrets.token_hex(6)
        script = holder_script(self.changes, remote_state_dir(), token, self.target.label)
        command, end = holder_bootstrap(remote_state_dir(), token)
        self._err = tempfile.TemporaryFile()
        argv = ssh_argv(self.target, remote_command(command, self.target.sudo, MARKER))
        try:
            # its own session: a ^C here is this side's to handle, the
            # connection stays up until the values are restored
            self._proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._err,
                text=True,
                start_new_session=True,
            )
        except FileNotFoundError as exc:
            raise UsageError("ssh is not installed (apt-get install openssh-client)") from exc
        assert self._proc.stdin is not None and self._proc.stdout is not None
        try:
            self._proc.stdin.write(f"{script}\n{end}\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass  # it ended before reading all: its stdout and stderr say why
        for line in self._proc.stdout:
            word, _, rest = line.rstrip("\n").partition(" ")
            if word == "S":
                self.state_path = rest
            elif word == "A":
                self._applied = int(rest) + 1
            elif word == "READY":
                return
            elif word == "E":
                i_text, _, why = rest.partition(" ")
                i = int(i_text)
                done, failed = self._drain()  # the holder restored those before it
                self._applied = 0 if done else i
                for f in failed:
                    print(f"rtgauge: {f}", file=sys.stderr)
                raise UsageError(
                    f"could not apply `{self.changes[i].command()}` on {self.target.label}: "
                    f"{why.strip() or 'failed'}; the {i} settings applied before it are restored"
                )
            elif word == "X":
                raise UsageError(f"{self.target.label}: {rest}")
        raise UsageError(f"{self.target.label}: {self._ended()}")

    def _ended(self) -> str:
        """Why the holder's connection ended: ssh's last word."""
        assert self._proc is not None and self._err is not None
        code = self._proc.wait()
        self._err.seek(0)
        said = self._err.read().decode(errors="replace").strip().splitlines()
        return said[-1] if said else f"the holder ended (exit {code})"

    def _drain(self) -> tuple[bool, list[str]]:
        """The holder's last lines: whether it said it restored (DONE or
        KEPT), and what it could not restore."""
        assert self._proc is not None and self._proc.stdout is not None
        done, failed = False, []
        for line in self._proc.stdout:
            word, _, rest = line.rstrip("\n").partition(" ")
            if word in ("DONE", "KEPT"):
                done = True
            elif word == "F":
                i_text, _, why = rest.partition(" ")
                c = self.changes[int(i_text)]
                failed.append(f"could not restore {c.path} to {c.old!r}: {why.strip()}")
        return done, failed

    def _finish(self) -> list[str]:
        """Tell the holder to restore and wait until it has; idempotent.
        Returns what could not be restored."""
        if self._proc is None:
            return []
        before = state._block()
        try:
            proc = self._proc
            try:
                assert proc.stdin is not None
                proc.stdin.write("restore\n")
                proc.stdin.close()
            except (BrokenPipeError, OSError):
                pass  # the holder is gone, or restores on the connection's end
            done, failed = self._drain()
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            if not done and self._applied:
                failed += self._holder_lost()
            self._proc = None
            if self._err is not None:
                self._err.close()
                self._err = None
            self._applied = 0
            for line in failed:
                print(f"rtgauge: {line}", file=sys.stderr)
            return failed
        finally:
            state._unblock(before)

    def _holder_lost(self) -> list[str]:
        """The holder ended without saying it restored: killed, or the link
        lost. The janitor restores what a dead holder left; over a lost link
        the holder restores on its own once it sees the connection close."""
        try:
            lines = run_janitor(self.target)
        except UsageError as exc:
            return [
                f"the holder on {self.target.label} ended before it restored, and the target "
                f"cannot be reached ({exc}); it restores on its own if it lives, else the next "
                f"`rtgauge tune --target {self.target.label}` does"
            ]
        for line in lines:
            print(f"rtgauge: {line}", file=sys.stderr)
        return [line for line in lines if line.startswith("kept ")]
