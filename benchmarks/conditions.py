"""The conditions a benchmark ran in, printed beside its figures.

A time means little without the machine it was taken on: every benchmark calls
:func:`announce` before it starts, which prints the core count (and a cgroup CPU quota,
if any), the load average, the Python and the checkout being measured, and prints the
load average again when the benchmark ends. A figure taken at a load near or above the
core count is a figure of a shared machine: compare ratios measured in the same run, not
absolute times across runs.

Use: ``from conditions import announce`` (the benchmarks' folder is on ``sys.path`` when a
benchmark runs as ``python benchmarks/NAME.py``), then ``announce()`` first thing.
"""

from __future__ import annotations

import atexit
import os
import platform
import time
from pathlib import Path

__all__ = ["announce", "conditions", "load", "cores", "ROOT"]

#: the checkout the benchmarks belong to (its packages are the ones measured)
ROOT = Path(__file__).resolve().parents[1]


def cores() -> str:
    """The core count, and the cgroup CPU quota when one caps it (``"2"``, ``"8 (quota 2.0)"``)."""
    n = os.cpu_count() or 1
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()
        if quota != "max":
            return f"{n} (cgroup quota {int(quota) / int(period):.1f})"
    except (OSError, ValueError):
        pass
    return str(n)


def load() -> str:
    """The load average over 1, 5 and 15 minutes (``"1.43 1.72 1.79"``), or ``"n/a"``."""
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except (OSError, AttributeError):
        return "n/a"


def conditions() -> str:
    """One line: date, cores, load average, Python, and where the measured packages live."""
    try:
        import mechanisms

        where = str(Path(mechanisms.__file__).resolve().parents[1])
    except ImportError:
        where = "not importable"
    return (f"{time.strftime('%Y-%m-%d %H:%M:%S %Z')}: {cores()} cores, load average {load()} "
            f"(1/5/15 min); Python {platform.python_version()}; packages from {where}")


def announce() -> None:
    """Print :func:`conditions` now and the load average again when the process ends.

    The line names the checkout whose packages are imported: the installed one, unless
    ``PYTHONPATH`` names another (``PYTHONPATH=. python benchmarks/NAME.py`` measures the
    checkout of the current folder).
    """
    print(f"[conditions] {conditions()}", flush=True)
    start = time.perf_counter()
    atexit.register(lambda: print(f"[conditions] at the end ({time.perf_counter() - start:.0f} s later): "
                                  f"load average {load()} on {cores()} cores", flush=True))
