"""The index as the release before the shared store wrote it: one `runs` row
per bundle file, keyed by its path. A store from that release already has
it (a store from before labels lacks the label column, added here); a new
store gets it empty, so every store walks the same history.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if "runs" not in inspector.get_table_names():
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
    elif "label" not in {c["name"] for c in inspector.get_columns("runs")}:
        op.add_column("runs", sa.Column("label", sa.Text))


def downgrade() -> None:
    op.drop_table("runs")
