"""Test-suite configuration: make the independent references importable as ``reference``."""

import os
import sys

import matplotlib

matplotlib.use("Agg")
sys.path.insert(0, os.path.dirname(__file__))


def pytest_sessionfinish(session, exitstatus):
    """Shut the local sweep workers kept between sweeps down before the interpreter
    finalizes (its atexit hook would too; here no pool outlives the session's own end)."""
    workers = sys.modules.get("mechanisms.analysis.workers")
    if workers is not None:
        workers.close_workers()
