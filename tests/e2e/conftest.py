"""The family files' shared fixture: their family run once, quick."""

from __future__ import annotations

import pytest
from probe_run import ProbeRun, run_probe


@pytest.fixture(scope="module")
def quick(request: pytest.FixtureRequest) -> ProbeRun:
    """`--quick --tests FAMILY` plus the module's SHORT options, run once per file."""
    module = request.module
    return run_probe("--quick", "--tests", module.FAMILY, *getattr(module, "SHORT", ()))
