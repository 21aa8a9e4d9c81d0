"""Benchmark (issue 22): the start state and integration `hydrobond run` reports, fresh.

Each probe is ``hydrobond run MACHINE`` (the 10 s valves cycle, energy on, as the command
runs it) in a fresh interpreter with a warm cache (one unmeasured run first), read from
the command's own timings line: ``start state X s, integration Y s`` — the figure a user
sees, which includes what the run imports the first time it needs it (scipy.optimize for
Brent's root finding before issue 22's state-event work, tqdm for a progress bar). The
command's wall and CPU time (user + system of it and its children) are printed beside.
``--against DIR`` runs each probe in another checkout too (an export of the commit before
a change), interleaved with this one; medians of ``--repeat``. ``--light`` skips the
bond-graph figure and the animation (the outputs do not change the figures read).
``--bytecode`` lets the runs write and read ``.pyc`` files even when
``PYTHONDONTWRITEBYTECODE`` is set, as an installed package has them (without them the
modules a run imports on its way are compiled from source inside the timed stages).

Run: ``PYTHONPATH=. python benchmarks/cli_run.py [--repeat 5] [--machine excavator]
[--against DIR] [--light] [--bytecode]``.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: whether the runs may use .pyc files (``--bytecode``)
BYTECODE = [False]

_TIMINGS = re.compile(r"start state ([\d.]+) s, integration ([\d.]+) s")


def probe(root: Path, machine: str, light: bool) -> dict[str, float]:
    """One ``hydrobond run`` in checkout ``root``: the start state and integration it
    reports, its wall and CPU time (s)."""
    extra = ["--no-bond-graph", "--no-animation"] if light else []
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=str(root))
    if BYTECODE[0]:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as out:
        t0, c0 = time.perf_counter(), os.times()
        proc = subprocess.run([sys.executable, "-m", "mechanisms.machine", "run", machine, "--out", out, *extra],
                              cwd=root, env=env, capture_output=True, text=True)
        c1, wall = os.times(), time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"hydrobond run {machine} failed in {root}:\n{proc.stderr[-2000:]}")
    found = _TIMINGS.search(proc.stdout + proc.stderr)
    if found is None:
        raise SystemExit(f"no timings line in the output of hydrobond run {machine} in {root}")
    cpu = (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system)
    return {"start": float(found.group(1)), "integration": float(found.group(2)), "wall": wall, "cpu": cpu}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--machine", default="excavator")
    ap.add_argument("--against", type=Path, help="another checkout, measured interleaved with this one")
    ap.add_argument("--light", action="store_true", help="no bond-graph figure, no animation")
    ap.add_argument("--bytecode", action="store_true", help="let the runs use .pyc files")
    args = ap.parse_args(argv)
    BYTECODE[0] = args.bytecode
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from conditions import announce, load

    announce()
    roots = {"this": ROOT} if args.against is None else {"before": args.against.resolve(), "after": ROOT}
    for r in roots.values():
        probe(r, args.machine, args.light)                  # the warm cache for each source
    rows: dict[str, list[dict]] = {k: [] for k in roots}
    for _ in range(args.repeat):
        for k, r in roots.items():
            rows[k].append(probe(r, args.machine, args.light))
    med = statistics.median
    print(f"\nhydrobond run {args.machine}{' (light)' if args.light else ''}"
          f"{', .pyc files used' if args.bytecode else ''}: each in a fresh interpreter, "
          f"interleaved, medians of {args.repeat}; load now {load()}")
    print(f"{'':<8} {'start state':>12} {'integration':>12} {'start + int.':>13} {'command wall / CPU':>20}")
    for k, rs in rows.items():
        print(f"{k:<8} {med(r['start'] for r in rs):>11.3f}s {med(r['integration'] for r in rs):>11.3f}s "
              f"{med(r['start'] + r['integration'] for r in rs):>12.3f}s "
              f"{med(r['wall'] for r in rs):>10.2f} / {med(r['cpu'] for r in rs):.2f} s")
    run = med(r["start"] + r["integration"] for r in rows[list(roots)[-1]])
    print(f"goal (issue 22): the valves run (start state + integration) ≤ 0.03 s: "
          f"{'met' if run <= 0.03 else 'not met'} ({run:.3f} s)")


if __name__ == "__main__":
    main()
