"""The tracking operator's drive on the open centre: time and tracking, this checkout beside another.

On an open centre :class:`~mechanisms.machine.operator.TrackingOperator` solves the circuit's
steady balance (:class:`~mechanisms.machine.open_centre_law.OpenCentreLaw`) every sample, for
the command and for the pacing. This benchmark drives two cases:

* ``bite``: the dig bite (``excavator_dig.toml``, its own open-centre circuit) to 30 s;
* ``cycle``: the base excavator's 10 s cycle on ``circuit.type = "open-centre"``.

Each drive runs in a fresh process (``PYTHONPATH`` and the working folder set to the checkout
measured), ``--repeat`` times; the median wall time of the drive (the machine's build and the
reference run excluded) is printed with the tracking median and 95th percentile, which must agree
between the checkouts to solver noise.

Use::

    python benchmarks/operator.py                          # this checkout
    python benchmarks/operator.py --against /path/to/other # another checkout beside it
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conditions import ROOT, announce, load  # noqa: E402

CASES = {
    "bite": ("excavator_dig.toml", {}, 30.0),
    "cycle": ("excavator.toml", {"circuit.type": "open-centre"}, None),
}

_CHILD = """
import json, sys, time
from mechanisms.machine import DATA, Machine
from mechanisms.machine.operator import TrackingOperator
name, over, t_max = json.loads(sys.argv[1])
m = Machine.from_file(DATA / name, over or None, mode="valves")
ref = Machine.from_file(DATA / name, over or None, mode="extensions").cycle()
op = TrackingOperator(m, ref)
t0, c0 = time.perf_counter(), time.process_time()
run = op.drive(t_max=t_max, progress=False)
dt, dc = time.perf_counter() - t0, time.process_time() - c0
tr = op.tracking(run)
print(json.dumps({"time": dt, "cpu": dc, "median": tr.median, "p95": tr.p95, "cycle": tr.cycle_time}))
"""


def measure(checkout: Path, case: str) -> dict:
    """One drive of ``case`` with the packages of ``checkout``, in a fresh process."""
    env = dict(os.environ, PYTHONPATH=str(checkout), MPLBACKEND="Agg")
    out = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(CASES[case])], cwd=checkout, env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", type=Path, help="another checkout, measured beside this one")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    args = ap.parse_args()
    announce()
    checkouts = [("this", ROOT)] + ([("against", args.against.resolve())] if args.against else [])
    for case in args.cases:
        res = {}
        for label, path in checkouts:
            runs = []
            for _ in range(args.repeat):
                runs.append(measure(path, case))
                print(f"  {case} {label}: {runs[-1]['time']:.2f} s wall, {runs[-1]['cpu']:.2f} s CPU "
                      f"(load {load()})", flush=True)
            res[label] = runs
        print(f"{case}:")
        for label, path in checkouts:
            r = res[label]
            print(f"  {label:8s} {statistics.median(x['time'] for x in r):7.2f} s wall, "
                  f"{statistics.median(x['cpu'] for x in r):7.2f} s CPU (medians of {len(r)}), "
                  f"tracking median {r[0]['median'] * 1e3:.2f} mm, p95 {r[0]['p95'] * 1e3:.2f} mm, "
                  f"cycle {r[0]['cycle']:.2f} s  [{path}]")
        if args.against:
            ratio = [statistics.median(x[k] for x in res["against"]) / statistics.median(x[k] for x in res["this"])
                     for k in ("time", "cpu")]
            print(f"  against / this: {ratio[0]:.1f}× wall, {ratio[1]:.1f}× CPU", flush=True)


if __name__ == "__main__":
    main()
