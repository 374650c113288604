#!/usr/bin/env python3
"""rtgauge's FreeRTOS figures beside Thread-Metric's (Eclipse ThreadX's RTOS
benchmark, MIT), both on the same board under QEMU with the same
instruction counting (-icount shift, sleep=off), so both count the same
virtual time and every figure is deterministic, whatever else the machine
runs.

Thread-Metric counts how many times its test loop ran in each interval;
its source is the peer's and is not in this repository:

    git clone --depth 1 https://github.com/eclipse-threadx/threadx
    .venv/bin/python bench/peer_thread_metric.py \\
        --thread-metric-src threadx/utility/benchmarks/thread_metric

(or THREAD_METRIC_SRC=...). The script builds rtgauge's firmware for the
board, then Thread-Metric with this repository's FreeRTOS porting layer
(bench/peer/thread_metric/: the same kernel sources and FreeRTOSConfig.h),
runs each Thread-Metric test for --intervals intervals of --seconds,
takes the last interval's count, turns it into ns per operation, runs the
matching rtgauge tests (rtgauge run --target freertos-qemu --icount SHIFT
--quick, once as given and once --no-explain) and writes the table into
its section of bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from op_trace import Windows, interrupt_windows, labelled_loads, symbol_address, trace, windows
from results_file import write_section

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
from rtgauge.targets.freertos_qemu import (  # noqa: E402
    ICOUNT_DEFAULT_SHIFT,
    BoardOptions,
    qemu_command,
)

BEGIN = "<!-- peer-thread-metric: begin (bench/peer_thread_metric.py) -->"
END = "<!-- peer-thread-metric: end -->"
RTGAUGE = ROOT / ".venv" / "bin" / "rtgauge"
TOOLCHAIN = ROOT / "cmake" / "toolchain-arm-none-eabi.cmake"
TOTAL = re.compile(r"Time Period Total:\s+(\d+)")
TIMER_EXCEPTION = 16 + 8  # mps2-an385's TIMER0, IRQ 8: IRQ-P-LAT's interrupt
TRACE_OPTS = {"MSG-P-SND": ["--opt", "MSG-P-SND.size=16"]}  # only the size compared


@dataclass(frozen=True)
class Pair:
    op: str  # the operation, as the table names it
    peer_test: str  # Thread-Metric's test (tm_<name>_test.c)
    counts_per_op: float  # what its printed count grows by per operation
    peer_includes: str
    rtg_test: str  # "" when rtgauge has no figure for it
    rtg_metrics: tuple[str, ...]  # summed: one operation is one of each
    rtg_includes: str
    peer_boundary: str = ""  # called once per operation (--trace)
    rtg_markers: tuple[tuple[str, ...], ...] = ()  # per metric, in order (--trace)


PAIRS = (
    Pair(
        "message send + receive, 16 B",
        "message_processing",
        1.0,
        "tm_queue_send + tm_queue_receive of one 16-byte message on a 16-deep queue "
        "(xQueueSend, xQueueReceive, no wait, no switch), the check of the message and "
        "the loop's counter",
        "MSG-P-SND",
        ("msg.send.mq.s16", "msg.receive.mq.s16"),
        "msg.send.mq.s16 + msg.receive.mq.s16: rtg_msg_send and rtg_msg_recv of a 16-byte "
        "message (the OSAL's channel: a mutex around a scratch item with a length/priority "
        "header, its deadline, xQueueSendToBack / xQueueReceive), each timed alone, "
        "nobody waiting, no switch; plus two clock reads",
        "tm_queue_send",
        (("rtg_msg_port_send",), ("rtg_msg_port_recv",)),
    ),
    Pair(
        "semaphore get + put",
        "synchronization_processing",
        1.0,
        "tm_semaphore_get + tm_semaphore_put of an available binary semaphore "
        "(xSemaphoreTake no wait, xSemaphoreGive), no switch, and the loop's counter",
        "SEM-P-ARN",
        ("sem.acquire.uncontended", "sem.release.uncontended"),
        "sem.acquire.uncontended + sem.release.uncontended: rtg_sem_wait and rtg_sem_post "
        "of a free counting semaphore (xSemaphoreTake, xSemaphoreGive), each timed alone, "
        "no switch; plus two clock reads",
        "tm_semaphore_get",
        (("rtg_sem_wait",), ("rtg_sem_post",)),
    ),
    Pair(
        "resume a higher task + it suspends itself",
        "preemptive_scheduling",
        5 / 4,  # each round: 5 counts, 4 resume/suspend pairs
        "vTaskResume of a suspended higher-priority task (one switch to it) and that "
        "task's vTaskSuspend of itself (one switch back); a round of 5 tasks is 4 such "
        "pairs and 5 counts, so ns/op = interval / (count x 4/5)",
        "THR-P-SUS",
        ("thread.resume.ping", "thread.suspend.ping"),
        "thread.resume.ping + thread.suspend.ping: the low thread's post of the high "
        "thread's own semaphore until the high thread runs (one switch), and the high "
        "thread's wait on it until the low one runs again (one switch): rtgauge suspends "
        "through a per-thread semaphore (POSIX has none), not vTaskSuspend; plus two clock "
        "reads",
        "tm_thread_resume",
        (("rtg_sem_post", "PendSV_Handler"), ("rtg_sem_wait_until", "PendSV_Handler")),
    ),
    Pair(
        "yield (5 tasks of one priority)",
        "cooperative_scheduling",
        1.0,
        "tm_thread_relinquish (taskYIELD) and the switch to the next of 5 ready tasks of "
        "the same priority, and that task's counter",
        "THR-P-YLD",
        ("thread.yield.alone",),
        "thread.yield.alone: rtg_thread_yield with no other task ready, so no switch "
        "(the peer's yield switches every time); plus one clock read",
        "tm_thread_relinquish",
        (("rtg_thread_yield",),),
    ),
    Pair(
        "hand-over between two tasks of one priority",
        "cooperative_scheduling",
        1.0,
        "as above: one yield and one switch to the next task of the same priority",
        "SEM-P-PNG",
        ("sem.handover.pingpong",),
        "sem.handover.pingpong: a post of the other task's semaphore, the poster's own "
        "blocking wait, one switch and the woken task's return from its wait; plus one "
        "clock read",
        "tm_thread_relinquish",
        (("rtg_sem_post", "PendSV_Handler"),),
    ),
    Pair(
        "interrupt, no switch",
        "interrupt_processing",
        1.0,
        "the SVC trap (exception entry and return), its handler's counter and "
        "xSemaphoreGiveFromISR (no task waits), then the thread's tm_semaphore_get "
        "(xSemaphoreTake, available) and its counter",
        "IRQ-P-LAT",
        ("irq.service.isr",),
        "irq.service.isr: from the timer's programmed expiry to the handler's first clock "
        "read: the interrupt's entry and the board's handler up to its read, not the "
        "return, the give or a take",
        "svc_trap",
        (),
    ),
    Pair(
        "interrupt that wakes a higher task",
        "interrupt_preemption_processing",
        1.0,
        "the SVC trap, its handler's xTaskResumeFromISR of a higher task, the PendSV "
        "switch to it, that task's counter and vTaskSuspend of itself (one switch back), "
        "the return to the trapping thread and its counter",
        "IRQ-P-LAT",
        ("irq.task.sem_post_wake",),
        "irq.task.sem_post_wake: from the timer's programmed expiry to the woken task's "
        "first clock read: the interrupt, the handler's clock read and "
        "xSemaphoreGiveFromISR, the PendSV switch, the task's return from its wait; not "
        "the way back",
        "svc_trap",
        (),
    ),
    Pair(
        "allocate + free 128 B",
        "memory_allocation",
        1.0,
        "tm_memory_pool_allocate + tm_memory_pool_deallocate of 128 bytes: pvPortMalloc "
        "and vPortFree of heap_5 (FreeRTOS has no block pools; ThreadX's port uses one), "
        "the only block in use",
        "MEM-P-ALC",
        ("mem.malloc.small", "mem.free.small"),
        "mem.malloc.small + mem.free.small: malloc and free of quasi-random sizes 1 B..16 KB "
        "with 256 blocks live (the OSAL's malloc: an 8-byte size header on pvPortMalloc), "
        "each timed alone; plus two clock reads",
        "tm_memory_pool_allocate",
        (("malloc",), ("free",)),
    ),
    Pair(
        "basic processing (no RTOS call)",
        "basic_processing",
        1.0,
        "one pass of its loop over 1024 words (add, xor, store): no kernel call; the "
        "baseline that checks both sides run at the same speed (its instructions per "
        "pass are known)",
        "",
        (),
        "—",
        "",
        (),
    ),
)


def fail(msg: str) -> None:
    print(f"peer_thread_metric: {msg}", file=sys.stderr)
    sys.exit(2)


def run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, text=True, capture_output=True, check=False, **kw)  # type: ignore[call-overload]


def build_rtgauge_firmware(board: str) -> Path:
    """Builds rtgauge's firmware for the board (incremental) and returns the
    kernel directory it was built with."""
    out = ROOT / "build-freertos" / board
    for cmd in (
        ["cmake", "-S", str(ROOT / "core" / "boards"), "-B", str(out), f"-DRTG_BOARD={board}",
         f"-DCMAKE_TOOLCHAIN_FILE={TOOLCHAIN}"],
        ["cmake", "--build", str(out), "-j", "2"],
    ):  # fmt: skip
        r = run(cmd)
        if r.returncode:
            fail(
                f"rtgauge's firmware did not build ({' '.join(cmd)}):\n{r.stdout[-2000:]}{r.stderr}"
            )
    m = re.search(r"^FREERTOS_KERNEL:PATH=(.*)$", (out / "CMakeCache.txt").read_text(), re.M)
    if not m:
        fail(f"no FREERTOS_KERNEL in {out}/CMakeCache.txt")
    return Path(m.group(1))


def build_peer(src: Path, kernel: Path, board: str, seconds: int, intervals: int) -> Path:
    out = ROOT / "build-peer" / f"thread_metric-{board}"
    for cmd in (
        ["cmake", "-S", str(ROOT / "bench" / "peer" / "thread_metric"), "-B", str(out),
         f"-DCMAKE_TOOLCHAIN_FILE={TOOLCHAIN}", f"-DTHREAD_METRIC_SRC={src}",
         f"-DFREERTOS_KERNEL={kernel}", f"-DRTG_BOARD={board}",
         f"-DTM_TEST_DURATION={seconds}", f"-DTM_PORT_INTERVALS={intervals}"],
        ["cmake", "--build", str(out), "-j", "2"],
    ):  # fmt: skip
        r = run(cmd)
        if r.returncode:
            fail(f"Thread-Metric did not build ({' '.join(cmd)}):\n{r.stdout[-2000:]}{r.stderr}")
    return out


def run_peer(elf: Path, board: str, shift: int, timeout_s: float) -> list[int]:
    """One Thread-Metric firmware under QEMU as rtgauge's target starts its
    own; the counts it printed, one per interval."""
    cmd = qemu_command("qemu-system-arm", BoardOptions(firmware=elf, icount=shift, board=board))
    try:
        r = run(cmd, timeout=timeout_s, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        fail(f"{elf.name} did not end within {timeout_s:.0f} s")
    errors = [ln for ln in r.stdout.splitlines() if "ERROR" in ln or "FAULT" in ln]
    if r.returncode or errors:
        fail(f"{elf.name}: exit {r.returncode} {errors or r.stderr.strip()[-300:]}")
    return [int(m.group(1)) for m in TOTAL.finditer(r.stdout)]


def run_rtgauge(tests: list[str], shift: int, board: str, explain: bool) -> tuple[dict, list[str]]:
    """rtgauge's figures: {(test, metric): metric record} and the command."""
    with tempfile.TemporaryDirectory() as store:
        cmd = [str(RTGAUGE), "run", "--target", "freertos-qemu", "--board", board,
               "--icount", str(shift), "--quick", "--tests", ",".join(tests),
               "--store", store, "--no-report"]  # fmt: skip
        if not explain:
            cmd.append("--no-explain")
        r = run(cmd)
        bundles = sorted(Path(store).glob("*/*.json"))
        if r.returncode or not bundles:
            fail(f"rtgauge run failed ({r.returncode}): {r.stderr.strip()[-500:]}")
        bundle = json.loads(bundles[-1].read_text())
    figures = {(t["id"], m["name"]): m for t in bundle["tests"] for m in t["metrics"]}
    floor = bundle["system"]["clock"]["floor_ns"]["mean"]
    figures[("", "clock.floor")] = {"mean": floor}
    shown = ["rtgauge", *cmd[1:]]
    shown[shown.index("--store") + 1] = "DIR"
    return figures, shown


def fmt(x: float) -> str:
    return f"{x / 1000:,.2f}"


def table(
    peer: dict[str, float],
    ours: dict,
    lean: dict,
    shift: int,
) -> list[str]:
    floor = ours[("", "clock.floor")]["mean"]
    lines = [
        "| operation | Thread-Metric µs/op (instr.) | rtgauge min / mean / max µs | ratio mean/peer "
        "| rtgauge --no-explain mean µs | ratio | mean less clock reads, ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    for p in PAIRS:
        ns = peer[p.peer_test]
        insns = ns / (1 << shift)
        if not p.rtg_test:
            lines.append(f"| {p.op} | {fmt(ns)} ({insns:,.0f}) | — | — | — | — | — |")
            continue
        ms = [ours[(p.rtg_test, m)] for m in p.rtg_metrics]
        mn, mean, mx = (sum(m[k] for m in ms) for k in ("min", "mean", "max"))
        lean_mean = sum(lean[(p.rtg_test, m)]["mean"] for m in p.rtg_metrics)
        # The IRQ figures start at the expiry, not at a read of the clock: one read.
        reads = 1 if p.rtg_test == "IRQ-P-LAT" else len(ms)
        net = mean - reads * floor
        lines.append(
            f"| {p.op} | {fmt(ns)} ({insns:,.0f}) | {fmt(mn)} / {fmt(mean)} / {fmt(mx)} "
            f"| {mean / ns:.2f} | {fmt(lean_mean)} | {lean_mean / ns:.2f} "
            f"| {fmt(net)}, {net / ns:.2f} |"
        )
    return lines


def includes() -> list[str]:
    out = ["What one operation includes on each side:", ""]
    for p in PAIRS:
        rtg = f"{p.rtg_test} {p.rtg_includes}" if p.rtg_test else "no figure of its own"
        out.append(
            f"- **{p.op}**: Thread-Metric tm_{p.peer_test}_test: {p.peer_includes}. rtgauge: {rtg}."
        )
    return out


def summary(w: Windows, k: int = 7) -> str:
    top = ", ".join(f"{sym} {n:.0f}" for sym, n in w.top(k))
    return f"{w.mean():,.0f} instr. ({top})"


def trace_ops(out: Path, board: str, shift: int, lean: dict) -> list[str]:
    """One operation's instructions on each side, from QEMU's instruction
    trace: Thread-Metric's loop between two calls of its operation's first
    function; rtgauge's figures between the two clock reads that bound them
    (--no-explain), IRQ-P-LAT's from the interrupt's entry."""
    lines = [
        "Where the instructions go (`--trace`: QEMU's instruction trace, "
        f"{1 << shift} ns each; one operation's mean over 100 and the functions it ran "
        "in, most first; windows a tick fell into left out):",
        "",
    ]
    fw = ROOT / "build-freertos" / board / "rtgauge-fw.elf"
    fw_cmd = qemu_command("qemu-system-arm", BoardOptions(firmware=fw, icount=shift, board=board))
    read = symbol_address(fw, "rtg_clock_posix_ticks")
    rtg: dict[tuple[str, str], Windows] = {}
    for test in dict.fromkeys(p.rtg_test for p in PAIRS if p.rtg_markers):
        specs = {
            m: mk
            for p in PAIRS
            if p.rtg_test == test
            for m, mk in zip(p.rtg_metrics, p.rtg_markers, strict=True)
        }
        argv = ["--tests", test, "--quick", "--no-explain", *TRACE_OPTS.get(test, [])]
        args = f"ARGS {' '.join(argv)} --fw-qemu icount:{shift}\n".encode()
        for metric, w in windows(trace(fw_cmd, args), read, specs).items():
            rtg[(test, metric)] = w
    args = f"ARGS --tests IRQ-P-LAT --quick --no-explain --fw-qemu icount:{shift}\n".encode()
    counter = labelled_loads(fw, "board_clock_read_")  # each clock read is one labelled load
    # the clock's loads after the interrupt: its entry stamp (the service
    # figure's end), that stamp made 64-bit in the handler, the task's read
    irq = interrupt_windows(trace(fw_cmd, args), TIMER_EXCEPTION, counter, reads=3)
    for p in PAIRS:
        if not p.peer_boundary:
            continue
        elf = out / f"tm_{p.peer_test}.elf"
        cmd = qemu_command("qemu-system-arm", BoardOptions(firmware=elf, icount=shift, board=board))
        peer = windows(trace(cmd), symbol_address(elf, p.peer_boundary), {"op": ()})["op"]
        # Preemptive scheduling: 4 calls of tm_thread_resume a round, one per operation.
        text = f"- **{p.op}**: Thread-Metric {summary(peer)}; rtgauge"
        if p.rtg_test == "IRQ-P-LAT":
            k = 0 if p.rtg_metrics == ("irq.service.isr",) else 2
            fig = lean[(p.rtg_test, p.rtg_metrics[0])]["mean"] / (1 << shift)
            text += (
                f" {p.rtg_metrics[0]}: from the interrupt's entry to the "
                f"{'handler' if k == 0 else 'task'}'s counter read {summary(irq[k])}; the "
                f"figure is {fig:,.0f} instr., so {fig - irq[k].mean():,.0f} of them lie "
                "between the programmed expiry and the interrupt's entry"
            )
        else:
            parts = [f"{m} {summary(rtg[(p.rtg_test, m)])}" for m in p.rtg_metrics]
            total = sum(rtg[(p.rtg_test, m)].mean() for m in p.rtg_metrics)
            fig = sum(lean[(p.rtg_test, m)]["mean"] for m in p.rtg_metrics) / (1 << shift)
            text += " " + " + ".join(parts)
            text += f"; {total:,.0f} traced against the figures' {fig:,.0f} (--no-explain)"
        lines.append(text + ".")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--thread-metric-src", type=Path, default=os.environ.get("THREAD_METRIC_SRC"))
    ap.add_argument("--board", default="mps2-an385")
    ap.add_argument("--icount", type=int, default=ICOUNT_DEFAULT_SHIFT, metavar="SHIFT")
    ap.add_argument("--seconds", type=int, default=2, help="Thread-Metric's interval (s)")
    ap.add_argument("--intervals", type=int, default=2, help="the last one is taken")
    ap.add_argument("--trace", action="store_true", help="where each side's instructions go")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    src = args.thread_metric_src
    if not src or not (Path(src) / "tm_api.h").is_file():
        fail(
            "Thread-Metric's source is needed (it is the peer's, not in this repository): "
            "git clone --depth 1 https://github.com/eclipse-threadx/threadx, then give "
            "--thread-metric-src threadx/utility/benchmarks/thread_metric "
            "(or THREAD_METRIC_SRC)"
        )
    if not RTGAUGE.is_file():
        fail(f"{RTGAUGE} is missing: make venv")
    if args.board != "mps2-an385":
        fail("--board: only mps2-an385 is done (its porting layer is Cortex-M3 generic, but "
             "its counts were checked only there)")  # fmt: skip
    src = Path(src).resolve()
    kernel = build_rtgauge_firmware(args.board)
    out = build_peer(src, kernel, args.board, args.seconds, args.intervals)
    # Virtual time: an interval is seconds x 1e9 ns of the board, whatever it takes here.
    timeout = 120.0 + 60.0 * args.seconds * args.intervals
    peer: dict[str, float] = {}
    counts: dict[str, list[int]] = {}
    for test in dict.fromkeys(p.peer_test for p in PAIRS):
        c = run_peer(out / f"tm_{test}.elf", args.board, args.icount, timeout)
        if len(c) < args.intervals:
            fail(f"tm_{test}: {len(c)} intervals reported, {args.intervals} asked")
        counts[test] = c
        counts_per_op = next(p.counts_per_op for p in PAIRS if p.peer_test == test)
        peer[test] = args.seconds * 1e9 * counts_per_op / c[-1]
    tests = list(dict.fromkeys(p.rtg_test for p in PAIRS if p.rtg_test))
    ours, cmd = run_rtgauge(tests, args.icount, args.board, explain=True)
    lean, _ = run_rtgauge(tests, args.icount, args.board, explain=False)
    commit = run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"]).stdout.strip()
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    shift = args.icount
    lines = [
        BEGIN,
        "## FreeRTOS: rtgauge beside Thread-Metric (bench/peer_thread_metric.py)",
        "",
        f"Run {when} at {commit}: board {args.board} under QEMU `-icount shift={shift},"
        f"sleep=off` on both sides (one instruction = {1 << shift} ns of the board's time, "
        "so every figure is deterministic and machine load does not enter). Thread-Metric: "
        f"its 8 tests, one firmware each, {args.intervals} intervals of {args.seconds} s, "
        "the last interval's count taken; the ns per operation are the interval over the "
        "operations counted (its figures include its own loop, counters, and the 1 kHz "
        "tick's share, ~0.1 %). rtgauge: "
        f"`{' '.join(cmd)}` (its flight recorder on, as by default), and the same "
        "with `--no-explain`. Its figures each include one read of its clock (the floor, "
        f"{ours[('', 'clock.floor')]['mean']:.0f} ns mean in the system record): the last "
        "column takes those out. Command: `.venv/bin/python bench/peer_thread_metric.py "
        "--thread-metric-src <threadx>/utility/benchmarks/thread_metric`.",
        "",
        *table(peer, ours, lean, shift),
        "",
        "Thread-Metric's counts per interval: "
        + ", ".join(f"{t} {'/'.join(map(str, c))}" for t, c in counts.items())
        + ".",
        "",
        *includes(),
        *(["", *trace_ops(out, args.board, shift, lean)] if args.trace else []),
        END,
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        write_section(ROOT / "bench" / "RESULTS.md", BEGIN, END, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
