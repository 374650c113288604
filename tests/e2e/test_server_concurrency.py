"""Eight hosts pushing at once: 8 pushers (rtgauge push processes) × 50
bundles each, and each also sends five of its neighbour's, so the same bytes
race each other. Every answer is a success, the server says "stored" exactly
400 times, and 400 runs are stored, each once. On both engines."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bundle_bytes import bundle_bytes
from server_proc import running_server

PUSHERS, EACH, SHARED = 8, 50, 5


def test_eight_pushers_fifty_bundles_each(
    store_spec: str, sample_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    folders = []
    for p in range(PUSHERS):
        folder = tmp_path / f"host-{p}"
        folder.mkdir()
        for i in range(EACH):
            when = f"2026-11-{1 + i % 28:02d}T{p:02d}:{i // 28:02d}:00+00:00"
            raw = bundle_bytes(sample_records, host=f"lab-{p}", label=f"nightly-{p % 2}", when=when)
            (folder / f"{i:02d}.json").write_bytes(raw)
        folders.append(folder)
    with running_server(store_spec) as server:
        env = {
            **os.environ,
            "RTGAUGE_TOKEN": server.token("lab"),
            "RTGAUGE_QUEUE": str(tmp_path / "q"),
        }
        procs = []
        started = time.monotonic()
        for p, folder in enumerate(folders):
            mine = sorted(folder.glob("*.json"))
            theirs = sorted(folders[(p + 1) % PUSHERS].glob("*.json"))[:SHARED]
            procs.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "rtgauge.cli.main",
                        "push",
                        *map(str, mine + theirs),
                        "--server",
                        server.url,
                    ],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                    env=env,
                )  # fmt: skip
            )
        outs = [proc.communicate(timeout=600) for proc in procs]
        elapsed = time.monotonic() - started
        for proc, (out, err) in zip(procs, outs, strict=True):
            assert proc.returncode == 0, err
            assert err == "" and out.count("\n") == EACH + SHARED
        stored = sum(out.count(": stored as run") for out, _ in outs)
        again = sum(out.count(": already stored as run") for out, _ in outs)
        assert (stored, again) == (PUSHERS * EACH, PUSHERS * SHARED)
        listed = server.json("/api/runs?per_page=500")
        assert listed["total"] == PUSHERS * EACH
        assert len({r["sha256"] for r in listed["runs"]}) == PUSHERS * EACH
        assert len({r["id"] for r in listed["runs"]}) == PUSHERS * EACH
        assert {r["host"] for r in listed["runs"]} == {f"lab-{p}" for p in range(PUSHERS)}
        assert server.json("/api/runs?host=lab-3")["total"] == EACH
    # Not a threshold, a record: how long 440 pushes from 8 processes took here.
    engine = "postgresql" if store_spec.startswith("postgresql") else "sqlite"
    print(f"\n{engine}: {PUSHERS} pushers x {EACH + SHARED} pushes in {elapsed:.1f} s")
