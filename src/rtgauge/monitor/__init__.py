"""rtgauge monitor: a target measured without end, interval by interval
(docs/monitor.md). intervals.py builds an interval from one probe run's
records, store.py keeps them on disk, outbox.py sends them to a result
server, metrics_http.py serves the newest as OpenMetrics, loop.py drives it."""
