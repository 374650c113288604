"""Traces in other tools' formats (docs/traces.md): the kept windows written
out in the Chrome/Perfetto trace-event format (perfetto.py)."""
