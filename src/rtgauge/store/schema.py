"""The store's tables as the current code reads and writes them (SQLAlchemy
Core). How an older store becomes this is the migrations' business
(migrations/versions/): they spell their tables out and never import this.

indexed_runs  one row per stored run: what pages filter and sort on
run_tests     one row per test of a run: status, verdicts, headline figure
bundle_blobs  a database store's bundles, the exact bytes received
              (a directory store keeps them as files)
tokens        who may push and read: names and hashes, never the tokens
label_limits  a label's calibrated limits (rtgauge history --calibrate), the
              newest per label, as the JSON the limits file holds
intervals     one row per interval `rtgauge monitor` pushed: (host, label, test,
              start) unique, its maximum and its worst sample's explanation
interval_figures  one row per figure of an interval: its summary and histogram
interval_days one row per host, label, test and UTC day: the day's histograms
              merged, so that a long span's histogram is read in days
incidents     the alerts' incidents: open until clear_after clean intervals
tune_results  a database store's tune results (`rtgauge tune`, or pushed), one
              row each: its name (tune-<time>), what lists show and its JSON
              (a directory store keeps them as files, tune-<time>.json)
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
)

metadata = MetaData()

runs = Table(
    "indexed_runs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("sha256", String(64), nullable=False, unique=True),
    Column("size", Integer, nullable=False),
    Column("path", Text, unique=True),  # a directory store's file, relative to it
    Column("source", String(16), nullable=False),  # run, import, push, file
    Column("pushed_by", Text),
    Column("received_at", DateTime, nullable=False),  # naive UTC
    Column("created_at", Text, nullable=False),  # as the bundle says it
    Column("run_time", DateTime, nullable=False, index=True),  # the same, naive UTC
    Column("host", Text, nullable=False, index=True),
    Column("target", Text, nullable=False),  # kind, or kind:place for a board
    Column("target_kind", String(32), nullable=False),
    Column("place", Text),
    Column("label", Text, index=True),
    Column("kernel", Text),
    Column("preempt", String(32)),
    Column("tests", Integer, nullable=False),
    Column("passed", Integer, nullable=False),
    Column("failed", Integer, nullable=False),
    Column("errors", Integer, nullable=False),
    Column("skipped", Integer, nullable=False),
    Column("complete", Boolean, nullable=False),
    Column("status", String(16), nullable=False, index=True),
    Column("worst_ns", Float),
    Column("probe_version", Text),
    Column("timing", String(16)),  # "virtual", "emulated"; NULL: real time (or not known)
)

run_tests = Table(
    "run_tests",
    metadata,
    Column("run_id", Integer, ForeignKey("indexed_runs.id", ondelete="CASCADE"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("test_id", String(64), nullable=False, index=True),
    Column("status", String(16), nullable=False),
    Column("verdicts_passed", Integer, nullable=False),
    Column("verdicts_failed", Integer, nullable=False),
    Column("metric", Text),
    Column("max_ns", Float),
    Column("tail_ns", Float),
    Column("samples", Integer),
)

bundle_blobs = Table(
    "bundle_blobs",
    metadata,
    Column("sha256", String(64), primary_key=True),
    Column("body", LargeBinary, nullable=False),
)

tokens = Table(
    "tokens",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(100), nullable=False, unique=True),
    Column("role", String(8), nullable=False),  # push (also reads) or read
    Column("token_sha256", String(64), nullable=False, unique=True),
    Column("created_at", DateTime, nullable=False),
    Column("revoked_at", DateTime),
    Column("last_used_at", DateTime),
)

label_limits = Table(
    "label_limits",
    metadata,
    Column("label", String(100), primary_key=True),  # a run label: 1 to 100 characters
    Column("body", Text, nullable=False),  # the limits file's JSON (schema/limits-v1.json)
    Column("calibrated_at", DateTime, nullable=False),  # naive UTC
)


# A monitored interval. `label` is "" when the monitor gave none (a pushed
# label is never empty), so that the unique key holds for unlabelled hosts
# too: SQL counts NULLs as distinct.
intervals = Table(
    "intervals",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("host", Text, nullable=False),
    Column("label", String(100), nullable=False),
    Column("test", String(64), nullable=False),
    Column("start", DateTime, nullable=False),  # naive UTC
    Column("end", DateTime, nullable=False),
    Column("gap_ms", Float, nullable=False),
    Column("rt", Boolean, nullable=False),
    Column("max_ns", Float),  # the largest of its figures' maxima; NULL: no sample
    Column("worst", Text),  # the worst sample's explanation, JSON as pushed; NULL: none
    Column("received_at", DateTime, nullable=False),
    Column("pushed_by", Text),
    Index("intervals_key", "host", "label", "test", "start", unique=True),
    Index("intervals_start", "start"),
)

interval_figures = Table(
    "interval_figures",
    metadata,
    Column(
        "interval_id", Integer, ForeignKey("intervals.id", ondelete="CASCADE"), primary_key=True
    ),
    Column("seq", Integer, primary_key=True),
    Column("name", Text, nullable=False),
    Column("count", Integer, nullable=False),
    Column("min_ns", Float),
    Column("max_ns", Float),
    Column("p99_99_ns", Float),  # from the histogram, when its count backs it
    Column("p99_9_ns", Float),
    Column("p99_ns", Float),
    Column("p90_ns", Float),
    Column("p50_ns", Float),
    Column("mean_ns", Float),
    Column("hist", Text, nullable=False),  # the interval_figure's histogram, JSON
    # its samples count in the interval's histogram: false for a per-CPU
    # figure beside its .all, which holds the same samples
    Column("counted", Boolean, nullable=False),
)

interval_days = Table(
    "interval_days",
    metadata,
    Column("host", Text, primary_key=True),
    Column("label", String(100), primary_key=True),
    Column("test", String(64), primary_key=True),
    Column("day", DateTime, primary_key=True),  # midnight UTC: the intervals starting that day
    Column("intervals", Integer, nullable=False),
    Column("hist", Text, nullable=False),  # their figures' histograms merged, JSON
)

incidents = Table(
    "incidents",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("rule", String(32), nullable=False),  # max_above, tail_worse
    Column("host", Text, nullable=False),
    Column("label", String(100), nullable=False),
    Column("test", String(64), nullable=False),
    Column("fired_interval", Integer, nullable=False),  # no foreign key: retention may drop it
    Column("fired_at", DateTime, nullable=False),  # the interval's start, naive UTC
    Column("value", Float, nullable=False),
    Column("detail", Text, nullable=False),  # what the webhook was told, JSON
    Column("clean", Integer, nullable=False),  # clean intervals in a row since the last bad one
    Column("last_interval", Integer, nullable=False),
    Column("cleared_at", DateTime),  # NULL: open
    Index("incidents_key", "host", "label", "test", "rule"),
)


tune_results = Table(
    "tune_results",
    metadata,
    Column("name", String(100), primary_key=True),  # tune-<time>, -2… for the same second
    Column("sha256", String(64), nullable=False, unique=True),  # of the body: stored once
    Column("created_at", DateTime, nullable=False, index=True),  # when it started, naive UTC
    Column("host", Text, nullable=False),
    Column("target", Text, nullable=False),
    Column("body", Text, nullable=False),  # the result's JSON as written or pushed
    Column("received_at", DateTime, nullable=False),
    Column("pushed_by", Text),  # the push token's name; NULL: stored by rtgauge tune
)
