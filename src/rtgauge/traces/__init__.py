"""Traces in other tools' formats (docs/traces.md): a trace-cmd recording of
cyclictest read in and explained (tracecmd.py reads `trace-cmd report`,
tracecmd_events.py maps its events, cyclictest_trace.py finds the breaking
sample and makes its window, explain_trace.py renders the explanation), and
the kept windows written out in the Chrome/Perfetto trace-event format
(perfetto.py)."""
