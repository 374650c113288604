"""Alembic's entry point for the store's migrations: the store hands over an
open connection (rtgauge.store.migrate), so they run in the caller's process
on either engine, with no alembic.ini."""

from __future__ import annotations

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
