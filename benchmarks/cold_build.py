"""Benchmark (issue 22): the cold build of the N-mass chain, stage by stage, in a fresh process.

Each build runs in a new Python process with an empty compile cache, so the figure
is what a user meets the first time: imports, assemble, causality, collect, derive,
generate, compile (C compiler subprocesses) and load. Printed per stage: wall time,
and the CPU time of the process and of its children (the compiler) — on a shared
machine the CPU time is the steadier figure. With ``--against DIR`` (another checkout,
e.g. ``git archive main | tar -x -C /tmp/before``) the two are built alternately and
printed side by side (medians of ``--repeat``).

Goal of issue 22: N = 200 ≤ 2 s, N = 1000 ≤ 10 s (cold, wall).

Run: ``python benchmarks/cold_build.py [--sizes 200 1000] [--repeat 3] [--against DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
STAGES = ("imports", "assemble", "causality", "collect", "derive", "generate", "compile", "load")

#: run in the child: one cold build, its stages and CPU times as JSON on the last line
CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
import numpy, scipy, sympy, symengine, networkx
import bondgraph as bg
sys.path.insert(0, sys.argv[2])
from core_chain import mass_chain
imports = time.perf_counter() - t0
t1 = time.perf_counter()
m = bg.build(mass_chain(int(sys.argv[1])))
total = time.perf_counter() - t0
me = resource.getrusage(resource.RUSAGE_SELF)
ch = resource.getrusage(resource.RUSAGE_CHILDREN)
out = {s: m.build_times.get(s, 0.0) for s in ("assemble", "causality", "collect", "derive",
                                               "generate", "compile", "load")}
out.update(imports=imports, total=total, cpu_self=me.ru_utime + me.ru_stime,
           cpu_children=ch.ru_utime + ch.ru_stime, cached=m.build_times.get("cached", 0.0))
print(json.dumps(out))
"""


def cold(root: Path, n: int) -> dict[str, float]:
    """One cold build of the N-chain with the packages of checkout ``root``."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, BONDGRAPH_CACHE=cache, PYTHONPATH=str(root))
        proc = subprocess.run([sys.executable, "-c", CHILD, str(n), str(HERE)], cwd=root, env=env,
                              capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    from conditions import ROOT, load

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[200, 1000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--against", type=Path, help="another checkout, built alternately")
    args = ap.parse_args()
    roots = {"this": ROOT}
    if args.against:
        roots = {"before": args.against.resolve(), "this": ROOT}
    print("checkouts built (PYTHONPATH of each build): "
          + ", ".join(f"{k} = {root}" for k, root in roots.items()))
    for n in args.sizes:
        runs: dict[str, list[dict]] = {k: [] for k in roots}
        loads = []
        for _ in range(args.repeat):
            for k, root in roots.items():
                runs[k].append(cold(root, n))
                loads.append(os.getloadavg()[0])
        med = {k: {s: statistics.median(r[s] for r in v) for s in v[0]} for k, v in runs.items()}
        print(f"\nN = {n}: cold build in a fresh process, medians of {args.repeat} "
              f"(load average 1 min during the runs: {min(loads):.2f}–{max(loads):.2f}; {load()} now)")
        head = "".join(f"{k:>12}" for k in roots)
        print(f"  {'stage (s)':<22}{head}" + ("   this/before" if args.against else ""))
        rows = [(s, s) for s in STAGES] + [("total wall", "total"), ("CPU of the process", "cpu_self"),
                                             ("CPU of the compilers", "cpu_children")]
        for label, s in rows:
            vals = [med[k][s] for k in roots]
            ratio = f"   {vals[-1] / vals[0]:10.2f}×" if args.against and vals[0] > 0 else ""
            print(f"  {label:<22}" + "".join(f"{v:12.3f}" for v in vals) + ratio, flush=True)
        cpu = {k: med[k]["cpu_self"] + med[k]["cpu_children"] for k in roots}
        print(f"  {'CPU total':<22}" + "".join(f"{cpu[k]:12.3f}" for k in roots))


if __name__ == "__main__":
    from conditions import announce

    announce()
    main()
