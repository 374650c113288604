"""The index says what time a run's figures are in: "virtual" (an emulator
counting instructions), "emulated" (an emulator's own pace), or NULL (the
target's real time, or a run indexed before this revision). The runs page
marks a worst latency that is not in real time, so an emulated board's
figure is never ranked as if it were µs of silicon.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("indexed_runs", sa.Column("timing", sa.String(16)))


def downgrade() -> None:
    op.drop_column("indexed_runs", "timing")
