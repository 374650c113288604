"""The plain-text summary printed after a run: worst case first."""

from __future__ import annotations

from rtgauge.model import Bundle
from rtgauge.report.fmt import us, worst_value


def summary_text(bundle: Bundle, per_test: int = 4) -> str:
    s = bundle.system
    lines = [
        f"{s['host']['hostname']}  {s['host']['release']}  preempt={s['kernel']['preempt_model']}"
        f"  clock={s['clock']['source']}  floor={s['clock']['floor_ns']['mean']:.0f} ns",
    ]
    lines += [f"  warning: {w}" for w in s.get("warnings", [])]
    if not bundle.complete:
        lines.append("  warning: the run is incomplete (interrupted or cut short)")
    lines.append(
        f"\n{'test':<11} {'status':<11} {'metric':<40} {'max µs':>11} {'p99.99':>9} "
        f"{'p99':>9} {'mean':>9} {'count':>8}"
    )
    for t in bundle.tests:
        status = t["status"]
        metrics = sorted(t["metrics"], key=worst_value, reverse=True)[:per_test]
        if not metrics:
            reason = f"  {t['reason']}" if t.get("reason") else ""
            lines.append(f"{t['id']:<11} {status:<11}{reason}")
        for i, m in enumerate(metrics):
            head = f"{t['id']:<11} {status:<11}" if i == 0 else " " * 23
            lines.append(
                f"{head} {m['name'][:40]:<40} {us(m['max']):>11} {us(m['p99_99']):>9} "
                f"{us(m['p99']):>9} {us(m['mean']):>9} {m['count']:>8}"
            )
        for v in t["verdicts"]:
            mark = "PASS" if v["pass"] else "FAIL"
            lines.append(f"{'':23} {mark} {v['name']}: {v['observed'][:80]}")
        if t.get("reason") and metrics:
            lines.append(f"{'':23} {t['reason']}")
    if bundle.end:
        e = bundle.end
        lines.append(
            f"\n{e['tests']} tests: {e['passed']} passed, {e['failed']} failed, {e['errors']} errors,"
            f" {e['skipped']} skipped ({e['elapsed_ms'] / 1000:.1f} s)"
        )
    return "\n".join(lines)
