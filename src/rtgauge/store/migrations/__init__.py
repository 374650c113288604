"""The store's schema history, run by Alembic (env.py); not imported by the host."""
