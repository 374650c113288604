"""A label's calibrated limits (`rtgauge history --label L --calibrate`):
one row per label, the newest calibration, kept as the JSON of the limits
file so that `history --check` gates on them wherever the store is read.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "label_limits",
        sa.Column("label", sa.String(100), primary_key=True),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("calibrated_at", sa.DateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("label_limits")
