"""Tune results in a database store (`rtgauge tune --store postgresql://…`,
or pushed to `rtgauge serve`): one row per result, named tune-<time> as its
file is, its JSON kept whole.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tune_results",
        sa.Column("name", sa.String(100), primary_key=True),
        sa.Column("sha256", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("host", sa.Text, nullable=False),
        sa.Column("target", sa.Text, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("received_at", sa.DateTime, nullable=False),
        sa.Column("pushed_by", sa.Text),
    )
    op.create_index("ix_tune_results_created_at", "tune_results", ["created_at"])


def downgrade() -> None:
    op.drop_table("tune_results")
