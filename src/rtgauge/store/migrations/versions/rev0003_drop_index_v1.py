"""The v1 index goes: the store has read the paths it named and indexes those
bundles once every revision has run (rtgauge.store.migrate), and the
bundles, not the index, are the authority.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_table("runs")


def downgrade() -> None:
    op.create_table(
        "runs",
        sa.Column("path", sa.Text, primary_key=True),
        sa.Column("host", sa.Text),
        sa.Column("created_at", sa.Text),
        sa.Column("target", sa.Text),
        sa.Column("kernel", sa.Text),
        sa.Column("preempt", sa.Text),
        sa.Column("tests", sa.Integer),
        sa.Column("passed", sa.Integer),
        sa.Column("failed", sa.Integer),
        sa.Column("errors", sa.Integer),
        sa.Column("complete", sa.Integer),
        sa.Column("label", sa.Text),
    )
