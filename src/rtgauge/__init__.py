"""rtgauge: evaluate and compare how well operating systems serve real-time work."""

from __future__ import annotations

from functools import cache


@cache
def _version() -> str:
    """The one version string is the repository's VERSION file, via the package
    metadata (importlib.metadata is read only when the version is asked for)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rtgauge")
    except PackageNotFoundError:  # run from a tree that was never installed
        return "unknown"


def __getattr__(name: str) -> str:
    if name == "__version__":
        return _version()
    raise AttributeError(f"module 'rtgauge' has no attribute {name!r}")
