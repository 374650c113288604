"""The store on both engines, SQLite (a directory) and a real PostgreSQL
(a throwaway cluster): bundles kept whole and content-hashed, the same bytes
one run, the index's filters, sorting and pages, tokens, and the schema
migrations."""

from __future__ import annotations

import hashlib
import json
import threading
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from bundle_bytes import bundle_bytes
from sqlalchemy import inspect, text

from rtgauge.errors import UsageError
from rtgauge.store import RunFilter, open_store
from rtgauge.store.migrate import HEAD, current, script_head
from rtgauge.store.query import FilterError


def test_the_head_constant_is_the_scripts_head() -> None:
    assert script_head() == HEAD


def test_a_bundle_is_kept_whole_and_stored_once(
    sample_records: list[dict[str, Any]], store_spec: str
) -> None:
    raw = bundle_bytes(sample_records, host="board-7", label="rt-6.12")
    with open_store(store_spec) as store:
        first = store.add(raw, pushed_by="ci")
        again = store.add(raw, pushed_by="ci")
        assert first.new and not again.new and first.id == again.id
        assert first.sha256 == hashlib.sha256(raw).hexdigest()
        row = store.get(first.id)
        assert row is not None
        assert store.raw(row) == raw  # byte for byte
        assert (row.host, row.label, row.kernel, row.preempt) == (
            "board-7", "rt-6.12", "6.18.44-fc-v657", "none",
        )  # fmt: skip
        assert (row.tests, row.passed, row.failed, row.status, row.complete) == (
            3,
            3,
            0,
            "ok",
            True,
        )
        assert row.worst_ns is not None and row.worst_ns > 0  # TMR-P-LAT's maximum
        assert row.pushed_by == "ci" and row.size == len(raw)
        assert store.test_ids([first.id]) == {first.id: ["CLK-P-RES", "TMR-P-LAT", "SEM-B-LCK"]}
        assert store.bundle(row).host == "board-7"
        assert [b.run_label for b in store.bundles([row, row])] == ["rt-6.12", "rt-6.12"]
        assert store.runs().total == 1


def _columns(conn: Any, table: str) -> set[str]:
    return {c["name"] for c in inspect(conn).get_columns(table)}


def test_the_index_keeps_no_audit_facts_and_the_bundle_keeps_them_whole(
    sample_records: list[dict[str, Any]], store_spec: str
) -> None:
    """The facts run past what an index column held: the bundle is where they are."""
    records = json.loads(json.dumps(sample_records))
    records[0]["audit"] = {"kconfig": {"source": "/boot/config", "CONFIG_LONG": "y" * 5000}}
    with open_store(store_spec) as store:
        stored = store.add(bundle_bytes(records))
        row = store.get(stored.id)
        assert row is not None and "audit" not in row.to_json()
        with store.engine.connect() as conn:
            assert "audit" not in _columns(conn, "indexed_runs")
        assert store.bundle(row).system["audit"] == records[0]["audit"]


def _downgrade(store: Any, revision: str) -> None:
    from alembic import command

    from rtgauge.store.migrate import config

    cfg = config()
    with store.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, revision)


def test_the_audit_column_goes_and_the_runs_stay(
    sample_records: list[dict[str, Any]], store_spec: str
) -> None:
    """A store of the revision before (its audit column holding the cut
    facts) upgrades in place: the column goes, every run and test stays."""
    with open_store(store_spec) as store:
        stored = store.add(bundle_bytes(sample_records))
        _downgrade(store, "0003")
        with store.engine.begin() as conn:
            assert "audit" in _columns(conn, "indexed_runs")
            conn.execute(text("UPDATE indexed_runs SET audit = :a"), {"a": '{"kconfig":{"x...'})
    with open_store(store_spec) as store:
        with store.engine.connect() as conn:
            assert current(conn) == HEAD
            assert "audit" not in _columns(conn, "indexed_runs")
        row = store.get(stored.id)
        assert row is not None and row.tests == 3
        assert store.test_ids([stored.id]) == {stored.id: ["CLK-P-RES", "TMR-P-LAT", "SEM-B-LCK"]}


def test_an_sqlite_too_old_to_drop_a_column_empties_it(
    sample_records: list[dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlite3

    spec = str(tmp_path / "store")
    with open_store(spec) as store:
        stored = store.add(bundle_bytes(sample_records))
        _downgrade(store, "0003")
        with store.engine.begin() as conn:
            conn.execute(text("UPDATE indexed_runs SET audit = 'cut...'"))
    monkeypatch.setattr(sqlite3, "sqlite_version_info", (3, 31, 1))  # before DROP COLUMN
    with open_store(spec) as store:
        with store.engine.connect() as conn:
            assert current(conn) == HEAD
            audit = conn.execute(text("SELECT audit FROM indexed_runs")).scalars().all()
        assert audit == [None]
        assert store.get(stored.id) is not None  # and the code that has no such column reads it


def test_a_bad_bundle_stores_nothing(store_spec: str) -> None:
    with open_store(store_spec) as store:
        for raw in (b"{not json", b'{"bundle_version": 1}', "é".encode("latin-1"), b"[]"):
            with pytest.raises(UsageError):
                store.add(raw)
        assert store.runs().total == 0


def test_filters_sorting_and_pages(sample_records: list[dict[str, Any]], store_spec: str) -> None:
    with open_store(store_spec) as store:
        for day in range(1, 13):
            store.add(
                bundle_bytes(
                    sample_records,
                    host="a" if day % 2 else "b",
                    label="x" if day <= 6 else "y",
                    when=f"2026-11-{day:02d}T01:00:00+00:00",
                    failed=day == 5,
                    complete=day != 7,
                    target={"kind": "labgrid", "place": f"rpi-{day % 3}"} if day > 9 else None,
                )
            )

        def hosts(**params: str) -> list[str]:
            return [f"{r.host}{r.run_time.day}" for r in store.runs(RunFilter.parse(params)).rows]

        assert hosts(label="x", sort="time", order="asc") == ["a1", "b2", "a3", "b4", "a5", "b6"]
        assert hosts(status="failed") == ["a5"] and hosts(status="incomplete") == ["a7"]
        assert hosts(host="b", since="2026-11-08", until="2026-11-10T23:00") == ["b10", "b8"]
        assert hosts(host="b", since="2026-11-08", until="2026-11-10") == [
            "b10",
            "b8",
        ]  # a day, whole
        assert hosts(target="labgrid") == ["b12", "a11", "b10"]
        assert hosts(target="labgrid:rpi-2") == ["a11"]
        assert hosts(test="TMR-P-LAT", per_page="5", page="3") == ["b2", "a1"]
        assert hosts(test="NOPE-X") == []
        page = store.runs(RunFilter.parse({"per_page": "5"}))
        assert page.total == 12 and page.pages == 3 and len(page.rows) == 5
        facets = store.facets()
        assert facets.hosts == ["a", "b"] and facets.labels == ["x", "y"]
        assert facets.targets == ["labgrid", "local"]
        # SQL in a value is a value: it matches nothing and changes nothing.
        assert hosts(host="a' OR '1'='1") == [] and hosts(label="x'; DROP TABLE tokens; --") == []
        assert store.runs().total == 12


@pytest.mark.parametrize(
    "params",
    [
        {"sort": "run_time; DROP TABLE indexed_runs"},
        {"order": "desc; --"},
        {"since": "2026-01-01' OR 1=1 --"},
        {"page": "1 OR 1=1"},
        {"page": "²"},
        {"per_page": "100000"},
        {"status": "ok' --"},
        {"host": "a\x00b"},
    ],
)
def test_a_filter_that_is_not_one_is_refused(params: dict[str, str]) -> None:
    with pytest.raises(FilterError):
        RunFilter.parse(params)


def test_tokens_are_kept_hashed(store_spec: str) -> None:
    with open_store(store_spec) as store:
        assert store.token_list() == []  # no default token, ever
        push = store.add_token("lab-1", "push")
        read = store.add_token("viewer", "read")
        assert push != read and push.startswith("rtg_") and len(push) > 40
        assert store.token_role(push) == ("lab-1", "push")
        assert store.token_role(read) == ("viewer", "read")
        assert store.token_role(push + "x") is None and store.token_role("") is None
        with pytest.raises(UsageError, match="exists"):
            store.add_token("lab-1", "push")
        with store.engine.connect() as conn:
            dump = " ".join(str(r) for r in conn.execute(text("SELECT * FROM tokens")))
        assert push not in dump and read not in dump
        store.revoke_token("lab-1")
        assert store.token_role(push) is None
        with pytest.raises(UsageError, match="no active token"):
            store.revoke_token("lab-1")
        listed = {t.name: t for t in store.token_list()}
        assert listed["lab-1"].revoked_at is not None and listed["viewer"].revoked_at is None


def test_writers_at_once_store_each_bundle_once(
    sample_records: list[dict[str, Any]], store_spec: str
) -> None:
    bundles = [
        bundle_bytes(sample_records, when=f"2026-11-01T01:00:{i:02d}+00:00") for i in range(6)
    ]
    errors: list[BaseException] = []
    with open_store(store_spec) as store:

        def push_all() -> None:
            try:
                for raw in bundles:
                    store.add(raw)
            except BaseException as exc:  # noqa: BLE001 (reported below)
                errors.append(exc)

        threads = [threading.Thread(target=push_all) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert not errors
        assert store.runs().total == 6


def test_a_database_store_keeps_a_local_runs_bytes(
    sample_records: list[dict[str, Any]], store_spec: str, tmp_path: Path
) -> None:
    path = tmp_path / "elsewhere" / "run.json"
    path.parent.mkdir()
    raw = bundle_bytes(sample_records)
    path.write_bytes(raw)
    with open_store(store_spec) as store:
        stored = store.add_file(path)
        row = store.get(stored.id)
        assert row is not None and row.source == "run" and store.raw(row) == raw
        with store.engine.connect() as conn:
            assert current(conn) == HEAD
            assert "runs" not in inspect(conn).get_table_names()  # the v1 index is gone


def test_a_store_of_the_previous_release_upgrades_in_place(tmp_path: Path) -> None:
    """tests/data/store-v1 was written by the release before the shared store."""
    import shutil

    old = Path(__file__).parents[1] / "data" / "store-v1"
    root = tmp_path / "rtgauge-results"
    shutil.copytree(old, root)
    before = {p.relative_to(root): p.read_bytes() for p in root.rglob("*.json")}
    with open_store(root) as store:
        rows = store.runs(RunFilter(sort="time", descending=False)).rows
        with store.engine.connect() as conn:
            assert current(conn) == HEAD
            assert "runs" not in inspect(conn).get_table_names()
    assert [(r.path, r.label, r.status) for r in rows] == [
        ("vm/20261101T010000Z.json", "kvm-6.18", "ok"),
        ("vm/20261102T010000Z.json", None, "ok"),
        ("rpi-3/20261103T010000Z.json", "kvm-6.18", "ok"),
        ("vm/20261104T010000Z.json", "kvm-6.18", "incomplete"),
        ("vm/20261123T162246Z-import.json", "imported", "ok"),
    ]
    assert rows[2].target == "labgrid:rpi4-3" and rows[2].place == "rpi4-3"
    assert rows[4].source == "import" and rows[4].target_kind == "import"
    for r in rows:  # the bundles are untouched, and the index knows their hashes
        assert r.path is not None
        assert hashlib.sha256(before[Path(r.path)]).hexdigest() == r.sha256
    assert {p.relative_to(root): p.read_bytes() for p in root.rglob("*.json")} == before
    # Opened again: nothing to do, nothing changes.
    with open_store(root) as store:
        assert [r.id for r in store.runs().rows] == [r.id for r in reversed(rows)]
    assert isinstance(rows[0].run_time, datetime)


def test_a_labels_calibrated_limits_are_kept(store_spec: str) -> None:
    """The newest calibration per label, as the text it was given."""
    with open_store(store_spec) as store:
        assert store.limits("rt-6.12") is None
        store.set_limits("rt-6.12", '{"first": 1}')
        store.set_limits("rt-6.12", '{"second": 2}')  # a new calibration replaces it
        store.set_limits("other", '{"other": 3}')
    with open_store(store_spec) as store:  # kept across opening
        assert store.limits("rt-6.12") == '{"second": 2}'
        assert store.limits("other") == '{"other": 3}'
