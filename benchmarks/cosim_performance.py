"""Speed of the co-simulation master.

Run: ``python benchmarks/cosim_performance.py [--repeat 7]``. Prints medians (and the
spread) of several runs:

* per-communication-step overhead of the in-process master with trivial subsystems
  (two subsystems, one relation each way; with and without a monitored power bond);
* B1 wall time for the 4 s run at H = 1 ms for ZOH, linear and quadratic glue, beside
  the seed's figures (0.73 s interpolated, 7.91 s not). ZOH and linear diverge at this
  step; they are run to the end with divergence downgraded to a warning.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import numpy as np

from bondgraph.cosim import (Cosimulation, CosimulationWarning, ErrorPolicy, Glue, Relations,
                             Subsystem, TimeManager)
from bondgraph.cosim import examples as ex


class Trivial(Subsystem):
    """Does nothing: one input, one output."""

    def __init__(self, name):
        super().__init__(name, [("u", "1")], [("y", "1")], direct_feedthrough=False)
        self.y = np.zeros(1)

    def set_inputs(self, t, values, derivatives):
        pass

    def get_outputs(self):
        return self.y

    def do_step(self, t, h):
        return None


def timed(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times), max(times)


def overhead(repeat: int) -> None:
    n = 50_000
    print(f"Master overhead per communication step, trivial subsystems, {n} steps "
          f"(median of {repeat}; min..max)")
    for glue in ("zoh", "quadratic"):
        for bonds in ((), (("a.y", "b.y"),)):
            sim = Cosimulation([Trivial("a"), Trivial("b")],
                               Relations(["a.y -> b.u", "b.y -> a.u"], bonds=bonds),
                               TimeManager(step=1.0 / n, end=1.0), Glue(glue))
            med, lo, hi = timed(sim.run, repeat)
            label = f"{glue}, {'1 power bond' if bonds else 'no bond'}"
            print(f"  {label:<24} {med / n * 1e6:6.2f} us/step  ({lo / n * 1e6:.2f}.."
                  f"{hi / n * 1e6:.2f})")
    print()


def b1_wall(repeat: int) -> None:
    print(f"B1 at H = 1 ms, 4 s simulated (4000 steps), wall time (median of {repeat}; "
          "min..max)")
    seed = {"zoh": "7.91 s (seed, not interpolated)", "linear": "",
            "quadratic": "0.73 s (seed, interpolated)"}
    policy = ErrorPolicy(divergence="warning", non_finite="warning")
    for glue in ("zoh", "linear", "quadratic"):
        def go(glue=glue):
            sim = Cosimulation(list(ex.b1_subsystems()), ex.B1_RELATIONS,
                               TimeManager(step=1e-3, end=4.0), Glue(glue), policy)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", CosimulationWarning)
                return sim.run()
        med, lo, hi = timed(go, repeat)
        res = go()
        err = float(np.abs(res["mass.x"] - ex.b1_reference(res.time)).max())
        print(f"  {glue:<10} {med:7.3f} s  ({lo:.3f}..{hi:.3f})  max error {err:9.3e} m  "
              f"{seed[glue]}")
    print()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    overhead(args.repeat)
    b1_wall(args.repeat)


if __name__ == "__main__":
    from conditions import announce

    announce()
    main()
