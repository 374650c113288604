"""rtgauge: evaluate and compare how well operating systems serve real-time work."""

__version__ = "0.1.0"
