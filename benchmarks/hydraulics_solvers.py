"""Stiff solvers on two hydraulic models, 10 s each: wall time, RHS calls, events.

Run: ``python benchmarks/hydraulics_solvers.py [--repeat 5]``. Prints medians of
``--repeat`` runs (the machine is shared and noisy); never timed inside tests.

* lifted mass: vertical single-chamber cylinder, 1 L/s flow step (no events);
* boom on valve: excavator boom on its cylinder pair, 4/3 valve with spool dynamics,
  valve mode Raise/Hold/Lower on a time schedule (4 located switches, restarts).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent))

from bondgraph import simulate  # noqa: E402
from bondgraph.hybrid import simulate_hybrid  # noqa: E402
from hydraulics_rigs import BOOM_PREFIX, boom_on_valve, lifted_mass  # noqa: E402

METHODS = ("LSODA", "BDF", "Radau", "CVODE")
RTOL, ATOL = 1e-6, 1e-6


def run_lifted(model, method, jac):
    t0 = time.perf_counter()
    res = simulate(model, (0.0, 10.0), method=method, rtol=RTOL, atol=ATOL, jacobian=jac,
                   progress=False)
    return time.perf_counter() - t0, res.stats["nfev"], 0, float(res["lift/cyl/piston.s"][-1])


def run_boom(hm, xe, method, jac):
    t0 = time.perf_counter()
    res = simulate_hybrid(hm, (0.0, 10.0), x0=xe, method=method, rtol=RTOL, atol=ATOL,
                          jacobian=jac)
    return (time.perf_counter() - t0, res.stats["nfev"], len(res.transitions),
            float(res[BOOM_PREFIX + "C_A.e"][-1]))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--methods", nargs="*", default=list(METHODS))
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    lift = lifted_mass()
    hm, xe = boom_on_valve()
    print(f"models built in {time.perf_counter() - t0:.2f} s "
          f"(lifted mass {len(lift.state_names)} states, boom {len(hm.model.state_names)} states); "
          f"rtol = {RTOL:g}, atol = {ATOL:g}; medians of {args.repeat} runs\n")
    print(f"{'model':<14} {'solver':<7} {'jacobian':<9} {'wall [s]':>9} {'RHS calls':>10} "
          f"{'events':>7} {'final value':>14}")
    for label, fn in (("lifted mass", lambda m, j: run_lifted(lift, m, j)),
                      ("boom on valve", lambda m, j: run_boom(hm, xe, m, j))):
        for method in args.methods:
            for jac in (True, False):
                runs = [fn(method, jac) for _ in range(args.repeat)]
                wall = statistics.median(r[0] for r in runs)
                nfev = int(statistics.median(r[1] for r in runs))
                print(f"{label:<14} {method:<7} {'analytic' if jac else 'FD':<9} {wall:>9.3f} "
                      f"{nfev:>10d} {runs[0][2]:>7d} {runs[0][3]:>14.8g}", flush=True)


if __name__ == "__main__":
    from conditions import announce

    announce()
    main()
