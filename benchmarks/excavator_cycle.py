"""Benchmark (issue 5): the excavator's build and 10 s hydraulic dig–lift–dump cycle.

Prints, medians of ``--repeat`` runs (the machine is shared and noisy):

* build time — cold (empty compile cache: derive + generate + gcc) and warm
  (an identical model built before: the cache skips derivation and compilation);
* the 10 s valve-driven cycle at matched tip accuracy (≈1e-4 m against a tight
  reference): integration wall time, whole run (start-pose closure and static
  equilibrium included), RHS and Jacobian evaluations, located events, ×real time;
* the split co-simulation (mechanical | hydraulic at H = 1 ms) for ZOH, linear and
  quadratic glue: wall time and the largest tip gap to the monolithic model.

With ``--stiff``, the cycle of cylinder lengths in the three formulations of
:mod:`mechanisms.formulations` (causal, stiff joints, Cartesian DAE) at equal tip
accuracy, as ratios to the causal one.

Run: ``python benchmarks/excavator_cycle.py [--repeat 5] [--stiff] [--cosim]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import numpy as np


def build_times(repeat: int) -> tuple[float, float]:
    from mechanisms.excavator import Excavator

    cold, warm = [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as cache:
            os.environ["BONDGRAPH_CACHE"] = cache
            t0 = time.perf_counter()
            Excavator(mode="valves")
            cold.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            Excavator(mode="valves")
            warm.append(time.perf_counter() - t0)
    os.environ.pop("BONDGRAPH_CACHE", None)
    return statistics.median(cold), statistics.median(warm)


def tip_error(tab, ref) -> float:
    return float(np.max(np.hypot(tab["tip_x"] - ref["tip_x"], tab["tip_y"] - ref["tip_y"])))


def cycle(repeat: int) -> None:
    from mechanisms.excavator import Cycle, Excavator

    exc = Excavator(mode="valves")
    cyc = Cycle.default("valves")
    ref = exc.run(cyc, rtol=1e-10, atol=1e-12, progress=False, energy=False).table()
    print(f"{'solver':>6} {'rtol':>6} {'integrate':>10} {'whole run':>10} {'RHS':>7} {'Jac':>5} "
          f"{'events':>6} {'× real time':>11} {'tip error':>10}")
    for method, rtol in (("CVODE", 1e-6), ("CVODE", 1e-5), ("LSODA", 1e-5), ("LSODA", 1e-6)):
        integ, whole = [], []
        for _ in range(repeat):
            run = exc.run(cyc, rtol=rtol, atol=rtol * 1e-2, method=method, progress=False, energy=False)
            integ.append(run.results.stats["wall_time"])
            whole.append(run.timings["start"] + run.timings["integration"])
        st = run.results.stats
        err = tip_error(run.table(), ref)
        mi = statistics.median(integ)
        print(f"{method:>6} {rtol:>6.0e} {mi:>9.3f}s {statistics.median(whole):>9.3f}s {st['nfev']:>7} "
              f"{st['njev']:>5} {len(run.results.events[0]):>6} {10.0 / mi:>10.0f}× {err:>9.1e}m")


def stiff(repeat: int) -> None:
    """The excavator's 10 s cycle of lengths in the three formulations at equal tip accuracy
    (:func:`mechanisms.formulations.metrics.compare`, as the formulations benchmark does)."""
    from mechanisms.formulations.cases import excavator_case
    from mechanisms.formulations.metrics import compare

    rows = compare(excavator_case(), 1e-4, mode="extensions", repeats=repeat, deadline=120.0)
    causal = next((r.wall for r in rows if r.formulation == "causal" and not r.note), float("nan"))
    print(f"\n# formulations, prescribed lengths, tip within 1e-4 m (medians of {repeat})")
    print(f"{'formulation':>12} {'method':>7} {'rtol':>6} {'k [N/m]':>8} {'wall':>8} {'RHS':>7} "
          f"{'Jac':>5} {'stiffness':>10} {'/ causal':>9}")
    for r in rows:
        if r.note:
            print(f"{r.formulation:>12} {r.note}")
            continue
        k = f"{r.stiffness:.0e}" if r.formulation == "stiff" else "-"
        print(f"{r.formulation:>12} {r.method:>7} {r.rtol:>6.0e} {k:>8} {r.wall:>7.3f}s {r.nfev:>7} "
              f"{r.njev:>5} {r.ratio:>10.2g} {r.wall / causal:>8.1f}×")


def cosim() -> None:
    from bondgraph import CosimulationError
    from mechanisms.excavator.split import ExcavatorSplit

    split = ExcavatorSplit()
    print(f"{'glue':>9} {'wall (10 s)':>12} {'largest tip gap':>16}")
    for glue in ("zoh", "linear", "quadratic"):
        t0 = time.perf_counter()
        try:
            res = split.cosimulation(1e-3, 10.0, glue=glue).run()
            note = ""
        except CosimulationError as exc:
            res, note = exc.results, f" (aborted: {exc.problems[0][:60]})"
        wall = time.perf_counter() - t0

        class Every:
            time = res.time[::50]

            def __getitem__(self, k):
                return res[k][::50]
        t, x, y = split.tip_path(Every())
        mono = split.monolithic.run(split.cycle, t_end=float(t[-1]), t_eval=t, rtol=1e-9, atol=1e-11,
                                    progress=False).table()
        gap = float(np.max(np.hypot(x - mono["tip_x"], y - mono["tip_y"])))
        print(f"{glue:>9} {wall:>11.2f}s {gap * 1e3:>14.3f}mm{note}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--stiff", action="store_true")
    ap.add_argument("--cosim", action="store_true")
    args = ap.parse_args()
    cold, warm = build_times(max(1, args.repeat // 2))
    print(f"# excavator with hydraulics: build {cold:.2f} s cold, {warm:.3f} s warm (cached)")
    print("\n# 10 s dig–lift–dump, medians of", args.repeat)
    cycle(args.repeat)
    if args.stiff:
        print("\n# stiff spring–damper joints (k = 1e8 N/m), same cycle")
        stiff(args.repeat)
    if args.cosim:
        print("\n# co-simulation mechanical | hydraulic, H = 1 ms")
        cosim()


if __name__ == "__main__":
    from conditions import announce

    announce()
    main()
