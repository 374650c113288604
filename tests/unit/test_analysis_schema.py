"""The analysed run's JSON against its schema (schema/analysis-v1.json): the
JSON of `report`, `explain` and `check` on stored runs of Linux (a FIFO hog,
an idle VM, golden runs, an imported cyclictest run) and FreeRTOS, with and
without a deadline; and the schema refuses what it must (the controls)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from rtgauge.analysis.analysed_run import AnalysedRun, Judging
from rtgauge.model import load_bundle
from rtgauge.report.audit_report import audit_view

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "schema" / "analysis-v1.json").read_text())
BUNDLES = [
    "tests/data/explain/hog_run.json",
    "tests/data/explain/idle_vm_run.json",
    "tests/data/explain/freertos_run.json",
    "tests/golden/local-vm.json",
    "tests/golden/qemu-tcg.json",
    "tests/data/store-v1/vm/20261123T162246Z-import.json",
]


def validator(ref: str = "") -> jsonschema.protocols.Validator:
    schema = SCHEMA if not ref else {**SCHEMA, "$ref": f"#/$defs/{ref}"}
    cls = jsonschema.validators.validator_for(SCHEMA)
    cls.check_schema(schema)
    return cls(schema)


@pytest.mark.parametrize("path", BUNDLES)
@pytest.mark.parametrize("deadline", [None, "250us"])
def test_report_json_is_an_analysed_run(cli: Any, path: str, deadline: str | None) -> None:
    extra = ["--deadline", deadline] if deadline else []
    code, out, err = cli("report", str(ROOT / path), "--format", "json", "--out", "-", *extra)
    assert code == 0, err
    data = json.loads(out)
    validator().validate(data)
    assert (data["deadline"] is None) == (deadline is None)
    assert data["judging"]["budget_ns"] == (250_000 if deadline else 100_000)


@pytest.mark.parametrize("path", [p for p in BUNDLES if "explain" in p])
def test_explain_json_is_the_analysed_runs_explained_tests(cli: Any, path: str) -> None:
    code, out, err = cli("explain", str(ROOT / path), "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    validator("explained_tests").validate(data)
    assert data and all(t["windows"] for t in data if t["state"] == "on")
    # the same objects as in the analysed run
    whole = AnalysedRun.of(load_bundle(ROOT / path)).to_json()
    explained = {t["id"]: t["explain"] for t in whole["tests"] if t["explain"]}
    for t in data:
        assert {k: v for k, v in t.items() if k != "test"} == explained[t["test"]]


def test_check_json_is_the_audit_view() -> None:
    a = AnalysedRun.of(load_bundle(ROOT / BUNDLES[0]), Judging(250_000.0))
    view = audit_view(a.audit)
    validator("audit").validate(view)
    assert view == a.to_json()["audit"] and view["budget_ns"] == 250_000


def _one_part() -> dict[str, Any]:
    data = AnalysedRun.of(load_bundle(ROOT / BUNDLES[0])).to_json()
    validator().validate(data)
    return data


def test_the_schema_refuses_a_label_without_its_data() -> None:
    """Controls: a part without its rule or subject, an unknown part kind, a
    subject of an unknown kind, and a judging without a budget all fail."""
    good = _one_part()
    part = next(t for t in good["tests"] if t["explain"])["explain"]["windows"][0]["parts"][0]
    for key, value in (("rule", None), ("kind", "blame"), ("subject", {"what": "someone"})):
        bad = copy.deepcopy(good)
        p = next(t for t in bad["tests"] if t["explain"])["explain"]["windows"][0]["parts"][0]
        if value is None:
            del p[key]
        else:
            p[key] = value
        with pytest.raises(jsonschema.ValidationError):
            validator().validate(bad)
    assert part["rule"] and part["kind"]
    bad = copy.deepcopy(good)
    del bad["judging"]["budget_ns"]
    with pytest.raises(jsonschema.ValidationError):
        validator().validate(bad)


def test_what_the_run_proved_is_in_the_analysed_run() -> None:
    """Every latency test's proof is there and valid; the key is additive (an
    analysed run written before it still validates); a proof without its
    bound, or with a bound above 1, fails."""
    good = _one_part()
    assert good["proved"] and all(p["budget_ns"] == 100_000 for p in good["proved"])
    for p in good["proved"]:
        validator("proof").validate(p)
    older = copy.deepcopy(good)
    del older["proved"]
    validator().validate(older)
    for change in ("drop", "above one"):
        bad = copy.deepcopy(good)
        proof = bad["proved"][0]
        if change == "drop":
            del proof["upper_bound_per_activation"]
        else:
            proof["upper_bound_per_activation"] = 1.5
        with pytest.raises(jsonschema.ValidationError):
            validator().validate(bad)
