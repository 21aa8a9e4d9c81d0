"""Nightly-style run of the causality property test, and causality on big graphs (issue 10).

Part 1 runs the check of ``tests/core/test_causality_property.py`` on many more random
graphs than ``make test`` (default 20 000): every causal assignment enumerated, causality
must succeed exactly when one exists and return the best one in the documented order, and
the derived state derivatives must equal an independent solve of the element and junction
laws. It prints the count of each outcome and the time per graph (medians).

Part 2 times :func:`~bondgraph.causality.assign_causality` alone on big graphs, side by
side in this run (medians of ``--repeat``): chains of N mass–spring–dampers, many
independent junction loops with a gyrator (each needs the search), and the excavator's
global graphs (mechanical and hydraulic).

Run: ``python benchmarks/causality_property.py [--graphs 20000] [--seed 0] [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "core")]


class _Rng:
    """``random_spec``'s picker over a numpy generator."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng

    def int(self, lo: int, hi: int) -> int:
        return int(self.rng.integers(lo, hi + 1))

    def choice(self, seq):
        seq = list(seq)
        return seq[int(self.rng.integers(len(seq)))]


def property_run(n: int, seed: int) -> None:
    import bondgraph as bg
    import test_causality_property as prop
    from reference.bond_graph_laws import random_spec

    rng = np.random.default_rng(seed)
    outcomes: Counter = Counter()
    t_check, t_causality, failures = [], [], []
    for i in range(n):
        spec = random_spec(_Rng(rng))
        g = bg.assemble(prop.build(spec))
        t0 = time.perf_counter()
        try:
            bg.assign_causality(g)
        except bg.CausalityConflict:
            pass
        t_causality.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        try:
            outcomes[prop.check(spec, rng)] += 1
        except AssertionError as err:
            outcomes["FAILED"] += 1
            failures.append(f"graph {i}: {spec}\n    {str(err).splitlines()[0]}")
        t_check.append(time.perf_counter() - t0)
        if (i + 1) % 5000 == 0:
            print(f"  ... {i + 1} graphs", flush=True)
    valid = n - outcomes["conflict proved"] - outcomes["FAILED"]
    print(f"\nPart 1: {n} random graphs (seed {seed})")
    print(f"  valid assignment exists and found        {valid:7d}")
    for key in sorted(outcomes):
        if key.startswith("valid"):
            print(f"    {key:38s} {outcomes[key]:7d}")
    print(f"  no assignment exists, conflict raised    {outcomes['conflict proved']:7d}")
    print(f"  FAILED checks                            {outcomes['FAILED']:7d}")
    print(f"  causality per graph, median              {1e6 * statistics.median(t_causality):7.0f} µs")
    print(f"  whole check per graph, median            {1e3 * statistics.median(t_check):7.2f} ms")
    for f in failures[:10]:
        print("  " + f)


def _chain(n: int):
    import bondgraph as bg

    M = bg.BondGraph(f"chain{n}")
    M.add(bg.Sf("wall", 0.0), bg.Se("F", 1.0))
    prev = "wall"
    for i in range(n):
        M.add(bg.Zero(f"s{i}"), bg.C.spring(f"k{i}", 100.0), bg.One(f"v{i}"), bg.I(f"m{i}", 1.0),
              bg.R(f"c{i}", 0.5))
        for a, b in [(prev, f"s{i}"), (f"s{i}", f"k{i}"), (f"s{i}", f"v{i}"), (f"v{i}", f"m{i}"),
                     (f"v{i}", f"c{i}")]:
            M.connect(a, b)
        prev = f"v{i}"
    M.connect("F", prev)
    return bg.assemble(M)


def _loops(n: int):
    """n copies of Se→j1; j0→tf/1; tf/2→j1; j1→gy/1; gy/2→j0; j0→r, plus an inertia on each
    j0 so the search has a choice to revisit."""
    import bondgraph as bg

    M = bg.BondGraph(f"loops{n}")
    for i in range(n):
        M.add(bg.Se(f"E{i}", 1.0), bg.One(f"a{i}"), bg.Zero(f"b{i}"), bg.TF(f"t{i}", 2.0),
              bg.GY(f"g{i}", 0.5), bg.R(f"r{i}", 4.0), bg.C(f"c{i}", 1.0))
        for x, y in [(f"E{i}", f"a{i}"), (f"b{i}", f"t{i}/1"), (f"t{i}/2", f"a{i}"),
                     (f"a{i}", f"g{i}/1"), (f"g{i}/2", f"b{i}"), (f"b{i}", f"r{i}"),
                     (f"b{i}", f"c{i}")]:
            M.connect(x, y)
    return bg.assemble(M)


def _excavator(mode: str):
    from mechanisms.excavator import Excavator

    return Excavator(mode=mode).model.model.graph


def scaling(repeat: int) -> None:
    import bondgraph as bg

    cases = [(f"chain of {n} mass-spring-dampers", lambda n=n: _chain(n)) for n in (100, 1000)]
    cases += [(f"{n} gyrator loops with a compliance", lambda n=n: _loops(n)) for n in (10, 200)]
    cases += [(f"excavator, mode {m}", lambda m=m: _excavator(m)) for m in ("forces", "valves")]
    print(f"\nPart 2: assign_causality on big graphs (median of {repeat})")
    print(f"  {'graph':38s} {'bonds':>6s} {'states':>7s} {'time':>10s}")
    for label, make in cases:
        try:
            g = make()
        except Exception as err:  # noqa: BLE001 - a case that cannot be built is reported
            print(f"  {label:38s} not built: {type(err).__name__}: {err}")
            continue
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            rep = bg.assign_causality(g)
            times.append(time.perf_counter() - t0)
        print(f"  {label:38s} {g.number_of_edges():6d} {len(rep.states):7d} "
              f"{1e3 * statistics.median(times):8.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--skip-property", action="store_true")
    args = ap.parse_args()
    if not args.skip_property:
        property_run(args.graphs, args.seed)
    scaling(args.repeat)


if __name__ == "__main__":
    from conditions import announce

    announce()
    main()
