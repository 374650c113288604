"""Renders stored bundles through the CLI, so that two revisions of the host
can be compared report by report: a refactoring of the analysis or the
renderers must leave every report as it was, but where it means to change it.

    python bench/report_sameness.py OUTDIR [BUNDLE ...]
    diff -r BEFORE AFTER

With no bundles it takes the tree's stored ones: the golden runs (a Linux VM
and a QEMU guest), the explained runs (a FIFO hog, an idle VM, FreeRTOS) and
the history store's runs; and one comparison of a Linux run, a QEMU guest and
FreeRTOS (the shape of a lab comparison). The rtgauge that runs is the one
the Python path finds first (PYTHONPATH=src picks a work tree's). Each output
file is named after the bundle and the command; the command's exit code is
written beside it, so a command that starts failing shows in the diff too.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BUNDLES = [
    "tests/golden/local-vm.json",
    "tests/golden/qemu-tcg.json",
    "tests/data/explain/hog_run.json",
    "tests/data/explain/idle_vm_run.json",
    "tests/data/explain/freertos_run.json",
    "tests/data/store-v1/vm/20261101T010000Z.json",
    "tests/data/store-v1/vm/20261123T162246Z-import.json",
]
LAB = ["tests/golden/local-vm.json", "tests/golden/qemu-tcg.json"]
LAB_RTOS = "tests/data/explain/freertos_run.json"

# (output name, the command's words after the bundle)
PER_BUNDLE = [
    ("report.md", ["report", "{b}", "--format", "md", "--out", "-"]),
    ("report-250us.md", ["report", "{b}", "--format", "md", "--out", "-", "--deadline", "250us"]),
    ("explain.md", ["explain", "{b}", "--format", "md"]),
    ("explain.json", ["explain", "{b}", "--format", "json"]),
]


def rtgauge(words: list[str]) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-m", "rtgauge.cli.main", *words],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    return done.returncode, done.stdout


def write(out: Path, name: str, code: int, text: str) -> None:
    (out / name).write_text(text)
    (out / f"{name}.exit").write_text(f"{code}\n")


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip().splitlines()[3], file=sys.stderr)
        return 2
    out = Path(argv[0]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    bundles = argv[1:] or DEFAULT_BUNDLES
    for b in bundles:
        stem = Path(b).stem
        for name, words in PER_BUNDLE:
            code, text = rtgauge([w.replace("{b}", b) for w in words])
            write(out, f"{stem}.{name}", code, text)
    if not argv[1:]:
        for name, runs in (("lab", LAB), ("lab-rtos", [*LAB, LAB_RTOS])):
            stem = out / f"{name}-compare"
            code, _ = rtgauge(["compare", *runs, "--out", str(stem), "--deadline", "100us"])
            md = stem.with_suffix(".md")
            write(out, f"{name}.compare.md", code, md.read_text() if md.exists() else "")
            for f in (md, stem.with_suffix(".html")):
                f.unlink(missing_ok=True)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
