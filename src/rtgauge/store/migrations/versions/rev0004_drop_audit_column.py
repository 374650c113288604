"""The index no longer keeps the system's audit facts: it held them cut at
4,000 characters (no longer JSON), and nothing read them. The bundle keeps
the facts whole; a run's audit is judged from them.

On SQLite the column is dropped in place (ALTER TABLE ... DROP COLUMN,
SQLite 3.35 and later): a batch migration would copy indexed_runs into a new
table and drop the old one, whose rows run_tests deletes with them under the
store's foreign keys. An older SQLite keeps the column, emptied.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlite3

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def _drops_columns() -> bool:
    return op.get_bind().dialect.name != "sqlite" or sqlite3.sqlite_version_info >= (3, 35, 0)


def upgrade() -> None:
    if _drops_columns():
        op.drop_column("indexed_runs", "audit")
    else:
        op.execute("UPDATE indexed_runs SET audit = NULL")


def downgrade() -> None:
    if _drops_columns():
        op.add_column("indexed_runs", sa.Column("audit", sa.Text))
