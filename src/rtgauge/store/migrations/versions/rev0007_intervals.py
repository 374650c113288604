"""Monitored intervals (`rtgauge monitor` pushing to `rtgauge serve`): one
row per interval, unique on (host, label, test, start), one per figure of
it, one per host, label, test and day holding that day's histograms merged,
and the alerts' incidents.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "intervals",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("host", sa.Text, nullable=False),
        sa.Column("label", sa.String(100), nullable=False),
        sa.Column("test", sa.String(64), nullable=False),
        sa.Column("start", sa.DateTime, nullable=False),
        sa.Column("end", sa.DateTime, nullable=False),
        sa.Column("gap_ms", sa.Float, nullable=False),
        sa.Column("rt", sa.Boolean, nullable=False),
        sa.Column("max_ns", sa.Float),
        sa.Column("worst", sa.Text),
        sa.Column("received_at", sa.DateTime, nullable=False),
        sa.Column("pushed_by", sa.Text),
    )
    op.create_index("intervals_key", "intervals", ["host", "label", "test", "start"], unique=True)
    op.create_index("intervals_start", "intervals", ["start"])
    op.create_table(
        "interval_figures",
        sa.Column(
            "interval_id",
            sa.Integer,
            sa.ForeignKey("intervals.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("count", sa.Integer, nullable=False),
        sa.Column("min_ns", sa.Float),
        sa.Column("max_ns", sa.Float),
        sa.Column("p99_99_ns", sa.Float),
        sa.Column("p99_9_ns", sa.Float),
        sa.Column("p99_ns", sa.Float),
        sa.Column("p90_ns", sa.Float),
        sa.Column("p50_ns", sa.Float),
        sa.Column("mean_ns", sa.Float),
        sa.Column("hist", sa.Text, nullable=False),
        sa.Column("counted", sa.Boolean, nullable=False),
    )
    op.create_table(
        "interval_days",
        sa.Column("host", sa.Text, primary_key=True),
        sa.Column("label", sa.String(100), primary_key=True),
        sa.Column("test", sa.String(64), primary_key=True),
        sa.Column("day", sa.DateTime, primary_key=True),
        sa.Column("intervals", sa.Integer, nullable=False),
        sa.Column("hist", sa.Text, nullable=False),
    )
    op.create_table(
        "incidents",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("rule", sa.String(32), nullable=False),
        sa.Column("host", sa.Text, nullable=False),
        sa.Column("label", sa.String(100), nullable=False),
        sa.Column("test", sa.String(64), nullable=False),
        sa.Column("fired_interval", sa.Integer, nullable=False),
        sa.Column("fired_at", sa.DateTime, nullable=False),
        sa.Column("value", sa.Float, nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
        sa.Column("clean", sa.Integer, nullable=False),
        sa.Column("last_interval", sa.Integer, nullable=False),
        sa.Column("cleared_at", sa.DateTime),
    )
    op.create_index("incidents_key", "incidents", ["host", "label", "test", "rule"])


def downgrade() -> None:
    op.drop_table("incidents")
    op.drop_table("interval_days")
    op.drop_table("interval_figures")
    op.drop_table("intervals")
