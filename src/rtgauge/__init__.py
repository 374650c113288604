"""rtgauge: evaluate and compare how well operating systems serve real-time work."""

from importlib.metadata import PackageNotFoundError, version

try:  # the one version string is the repository's VERSION file, via the package metadata
    __version__ = version("rtgauge")
except PackageNotFoundError:  # run from a tree that was never installed
    __version__ = "unknown"
