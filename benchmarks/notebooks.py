"""Every notebook's execution time, warm, beside issue 22's goal of 10 s.

Each notebook runs top to bottom in a fresh kernel (as ``tests/test_notebooks.py`` runs it),
with the packages of the measured checkout on the kernel's path. A first run per notebook
fills the caches (compiled models by key, units); then ``--repeat`` runs, interleaved over
the notebooks, give the medians. "cells" is the sum of the code cells' execution times as
the kernel reports them (what a user waits for after the kernel has started); "wall" adds
the kernel's start and the client's overhead. ``--cells N`` prints each notebook's N slowest
cells (median seconds, the cell's first line).

``--against DIR`` measures a second checkout (its notebooks with its packages, e.g. an
export of the commit before a change) in the same run, interleaved notebook by notebook
with this one, so that both see the same load: the figures to compare are those side by
side.

Run: ``python benchmarks/notebooks.py [--repeat 3] [--cells 3] [--only NAME ...]
[--against DIR]`` (``--root DIR`` measures another checkout instead of this one).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
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
        client.execute(stderr=subprocess.DEVNULL)    # the kernel's own log lines
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
    ap.add_argument("--against", type=Path, default=None, help="a second checkout measured side by side")
    args = ap.parse_args(argv)
    roots = [args.root.resolve()] + ([args.against.resolve()] if args.against else [])
    sys.path.insert(0, str(roots[0]))                 # the conditions name the measured packages
    announce()
    names = sorted(p.stem for p in (roots[0] / "notebooks").glob("*.ipynb"))
    if args.only:
        names = [n for n in names if n in args.only]
    for r in roots[1:]:
        names = [n for n in names if (r / "notebooks" / f"{n}.ipynb").exists()]
    print(f"measuring {', '.join(map(str, roots))} (notebooks and packages of each); a warm-up run "
          f"each, then {args.repeat} interleaved runs, fresh kernel each", flush=True)
    runs = [(n, r) for n in names for r in roots]
    for n, r in runs:                                  # fill the caches
        run_once(r / "notebooks" / f"{n}.ipynb", r)
    walls: dict[tuple, list[float]] = {k: [] for k in runs}
    cells: dict[tuple, list[float]] = {k: [] for k in runs}
    per: dict[tuple, list[list[float]]] = {k: [] for k in runs}
    for _ in range(args.repeat):
        for n, r in runs:
            w, c, each = run_once(r / "notebooks" / f"{n}.ipynb", r)
            walls[n, r].append(w)
            cells[n, r].append(c)
            per[n, r].append(each)
    med = statistics.median
    print(f"\nmedians of {args.repeat}; 'cells': the code cells' execution (the goal's measure), "
          "'wall': with the kernel's start")
    head = f"{'notebook':<28}" + "".join(f" {'cells':>8} {'wall':>8}" for _ in roots)
    if len(roots) > 1:
        head += "   after/before"
        print(f"{'':<28} {'this checkout':>17}" + f" {'--against':>17}")
    print(head + f"   goal ≤ {GOAL:.0f} s")
    for n in names:
        line = f"{n:<28}" + "".join(f" {med(cells[n, r]):>7.2f}s {med(walls[n, r]):>7.2f}s" for r in roots)
        if len(roots) > 1:
            line += f"   {med(cells[n, roots[0]]) / med(cells[n, roots[1]]):>11.2f}×"
        c = med(cells[n, roots[0]])
        print(line + f"   {'met' if c <= GOAL else 'NOT met'} ({min(cells[n, roots[0]]):.2f}–"
              f"{max(cells[n, roots[0]]):.2f} s)")
        if args.cells:
            for r in roots:
                each = [med(run[i] for run in per[n, r]) for i in range(len(per[n, r][0]))]
                slow = sorted(range(len(each)), key=lambda i: -each[i])[:args.cells]
                for i in slow:
                    print(f"    {'' if r == roots[0] else '(against) '}cell {i:>2} {each[i]:>6.2f}s  "
                          f"{first_line(r / 'notebooks' / f'{n}.ipynb', i)}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
