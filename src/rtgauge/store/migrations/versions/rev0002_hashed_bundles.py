"""Content-hashed bundles with run ids, their tests, a database store's
bundle bytes, and access tokens. The v1 index stays until the store has
indexed the bundles it names (rtgauge.store.migrate), then 0003 drops it.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "indexed_runs",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("sha256", sa.String(64), nullable=False, unique=True),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("path", sa.Text, unique=True),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("pushed_by", sa.Text),
        sa.Column("received_at", sa.DateTime, nullable=False),
        sa.Column("created_at", sa.Text, nullable=False),
        sa.Column("run_time", sa.DateTime, nullable=False),
        sa.Column("host", sa.Text, nullable=False),
        sa.Column("target", sa.Text, nullable=False),
        sa.Column("target_kind", sa.String(32), nullable=False),
        sa.Column("place", sa.Text),
        sa.Column("label", sa.Text),
        sa.Column("kernel", sa.Text),
        sa.Column("preempt", sa.String(32)),
        sa.Column("tests", sa.Integer, nullable=False),
        sa.Column("passed", sa.Integer, nullable=False),
        sa.Column("failed", sa.Integer, nullable=False),
        sa.Column("errors", sa.Integer, nullable=False),
        sa.Column("skipped", sa.Integer, nullable=False),
        sa.Column("complete", sa.Boolean, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("worst_ns", sa.Float),
        sa.Column("audit", sa.Text),
        sa.Column("probe_version", sa.Text),
    )
    for column in ("run_time", "host", "label", "status"):
        op.create_index(f"ix_indexed_runs_{column}", "indexed_runs", [column])
    op.create_table(
        "run_tests",
        sa.Column(
            "run_id",
            sa.Integer,
            sa.ForeignKey("indexed_runs.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("test_id", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("verdicts_passed", sa.Integer, nullable=False),
        sa.Column("verdicts_failed", sa.Integer, nullable=False),
        sa.Column("metric", sa.Text),
        sa.Column("max_ns", sa.Float),
        sa.Column("tail_ns", sa.Float),
        sa.Column("samples", sa.Integer),
    )
    op.create_index("ix_run_tests_test_id", "run_tests", ["test_id"])
    op.create_table(
        "bundle_blobs",
        sa.Column("sha256", sa.String(64), primary_key=True),
        sa.Column("body", sa.LargeBinary, nullable=False),
    )
    op.create_table(
        "tokens",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(100), nullable=False, unique=True),
        sa.Column("role", sa.String(8), nullable=False),
        sa.Column("token_sha256", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("revoked_at", sa.DateTime),
        sa.Column("last_used_at", sa.DateTime),
    )


def downgrade() -> None:
    for table in ("tokens", "bundle_blobs", "run_tests", "indexed_runs"):
        op.drop_table(table)
