"""Every notebook's execution time, warm, beside issue 22's goal of 10 s.

Each notebook runs top to bottom in a fresh kernel (as ``tests/test_notebooks.py`` runs it),
with the packages of the measured checkout on the kernel's path. A first run per notebook
fills the caches (compiled models by key, units); then ``--repeat`` runs, interleaved over
the notebooks, give the medians. "cells" is the sum of the code cells' execution times as
the kernel reports them (what a user waits for after the kernel has started); "wall" adds
the kernel's start and the client's overhead. ``--cells N`` prints each notebook's N slowest
cells (median seconds, the cell's first line).

Run: ``python benchmarks/notebooks.py [--repeat 3] [--cells 3] [--only NAME ...]``
(``--root DIR`` measures another checkout's notebooks and packages).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from conditions import ROOT, announce

GOAL = 10.0                   # seconds of execution per notebook, warm (issue 22)


def _seconds(cell) -> float:
    """A code cell's execution time as nbclient recorded it (s)."""
    ex = cell.get("metadata", {}).get("execution", {})
    try:
        start = datetime.fromisoformat(ex["iopub.execute_input"].replace("Z", "+00:00"))
        end = datetime.fromisoformat(ex["shell.execute_reply"].replace("Z", "+00:00"))
    except KeyError:
        return 0.0
    return (end - start).total_seconds()


def run_once(path: Path, root: Path) -> tuple[float, float, list[float]]:
    """Run one notebook in a fresh kernel: (wall s, cells s, each code cell's s)."""
    nb = nbformat.read(path, as_version=4)
    env_before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(root) + (os.pathsep + env_before if env_before else "")
    os.environ.pop("MPLBACKEND", None)                 # the kernel uses its inline backend
    try:
        client = NotebookClient(nb, timeout=900, kernel_name="python3", record_timing=True,
                                resources={"metadata": {"path": str(path.parent)}})
        t0 = time.perf_counter()
        client.execute()
        wall = time.perf_counter() - t0
    finally:
        if env_before is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = env_before
    per = [_seconds(c) for c in nb.cells if c.cell_type == "code"]
    return wall, sum(per), per


def first_line(path: Path, index: int) -> str:
    """The first non-empty line of a notebook's code cell number ``index``."""
    code = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
    lines = [ln for ln in code[index].source.splitlines() if ln.strip()]
    return (lines[0] if lines else "")[:60]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cells", type=int, default=0, help="print each notebook's N slowest cells")
    ap.add_argument("--only", nargs="*", default=None, help="notebook names (stems) to measure")
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout to measure (default this one)")
    args = ap.parse_args(argv)
    announce()
    root = args.root.resolve()
    paths = sorted((root / "notebooks").glob("*.ipynb"))
    if args.only:
        paths = [p for p in paths if p.stem in args.only]
    print(f"measuring the notebooks and packages of {root}; warm-up run each, then {args.repeat} "
          f"interleaved runs, fresh kernel each", flush=True)
    for p in paths:                                    # fill the caches
        run_once(p, root)
    walls: dict[Path, list[float]] = {p: [] for p in paths}
    cells: dict[Path, list[float]] = {p: [] for p in paths}
    per: dict[Path, list[list[float]]] = {p: [] for p in paths}
    for _ in range(args.repeat):
        for p in paths:
            w, c, each = run_once(p, root)
            walls[p].append(w)
            cells[p].append(c)
            per[p].append(each)
    med = statistics.median
    print(f"\n{'notebook':<34} {'cells':>8} {'wall':>8}  goal ≤ {GOAL:.0f} s (cells)")
    for p in paths:
        c = med(cells[p])
        print(f"{p.stem:<34} {c:>7.2f}s {med(walls[p]):>7.2f}s  {'met' if c <= GOAL else 'NOT met'}"
              f"  (cells {min(cells[p]):.2f}–{max(cells[p]):.2f} s)")
        if args.cells:
            each = [med(run[i] for run in per[p]) for i in range(len(per[p][0]))]
            slow = sorted(range(len(each)), key=lambda i: -each[i])[:args.cells]
            for i in slow:
                print(f"    cell {i:>2} {each[i]:>6.2f}s  {first_line(p, i)}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
