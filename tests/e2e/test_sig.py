"""SIG family end to end: real-time signals queue, lowest number first, in
order within a number, with their value; standard signals (the negative
control) merge. No timing thresholds: counts, verdicts and evidence only."""

from __future__ import annotations

import pytest
from probe_run import ProbeRun, metric, run_probe, verdict

FAMILY = "SIG-*"


def test_the_family_run_succeeds(quick: ProbeRun) -> None:
    assert quick.code == 0, quick.stderr


def test_signals(quick: ProbeRun) -> None:
    sig = quick.tests["SIG-P-LAT"]
    assert sig["status"] == "ok", sig["reason"]
    m = metric(sig, "sig.latency.rt")
    assert m["count"] == sig["options"]["count"] == 500
    for name in ("signals_queue", "lowest_number_first", "fifo_within_number", "value_delivered"):
        assert verdict(sig, name)["pass"], verdict(sig, name)
    ev = verdict(sig, "signals_queue")["evidence"]
    assert ev["sent"] == ev["received"] == 4 * sig["options"]["per_signal"]
    assert ev["received_order"][0] == "0:0" and ev["sent_order"][0] == "2:0"
    assert ev["latency_wrong_values"] == 0


def test_signals_negative_control_standard() -> None:
    """Standard signals merge: the queueing verdict must fail."""
    run = run_probe("--quick", "--tests", "SIG-P-LAT", "--opt", "SIG-P-LAT.signals=standard")
    sig = run.tests["SIG-P-LAT"]
    assert run.code == 1 and sig["status"] == "fail"
    v = verdict(sig, "signals_queue")
    assert not v["pass"]
    assert v["evidence"]["received"] < v["evidence"]["sent"]
    assert metric(sig, "sig.latency.standard")["count"] == 500


# Each order verdict and the hooks-build fault under which it must fail
# (signals_queue's control is the OS's own: standard signals, above).
SIG_CONTROLS = {
    "lowest_number_first": "wait_highest_first",
    "fifo_within_number": "requeue_first",
    "value_delivered": "no_value",
}


@pytest.mark.parametrize("name", list(SIG_CONTROLS))
def test_each_order_verdict_fails_under_its_fault(name: str) -> None:
    fault = SIG_CONTROLS[name]
    run = run_probe(
        "--quick", "--tests", "SIG-P-LAT",
        "--opt", "SIG-P-LAT.count=50", "--opt", f"SIG-P-LAT.fault={fault}",
        hooks=True,
    )  # fmt: skip
    sig = run.tests["SIG-P-LAT"]
    assert run.code == 1 and sig["status"] == "fail"
    assert not verdict(sig, name)["pass"], verdict(sig, name)
    assert any(f"fault={fault}" in n for n in sig["notes"])
