"""What inverting a law costs at build time, side by side in one run (medians).

A flow source feeds an orifice, so the orifice must give its pressure drop from its
flow (its law inverted). Four ways, each built ``--repeat`` times with the compiled
code cached (so the figures are the derivation, where the inversion happens):

* ``linear``    — a linear resistor (no inversion at all): the baseline;
* ``declared``  — the library's :class:`components.hydraulics.Orifice`, whose law
  carries its closed-form inverse (checked numerically, no solver);
* ``found``     — the same square-root law as a plain callable: sympy inverts it in a
  child process under the time limit, and the candidate is verified;
* ``refused``   — the nominal-flow law as a plain callable, which sympy cannot invert:
  refused at the time limit (``--limit`` seconds; the others run under the default).

Run: ``python benchmarks/laws_inversion.py [--repeat 5] [--limit 1]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import sympy as sp


def model(kind: str):
    import bondgraph as bg
    from components.hydraulics import Orifice, nominal_flow

    M = bg.BondGraph(f"inv_{kind}")
    if kind == "linear":
        part = Orifice("or", conductance=1e-9)
    elif kind == "declared":
        part = Orifice("or", area=1e-5, cd=0.7, density=870.0, p_tr=1e5)
    else:
        k = 0.7 * 1e-5 * (2 / 870.0) ** 0.5
        law = ((lambda dp: k * sp.sign(dp) * sp.sqrt(sp.Abs(dp))) if kind == "found"
               else (lambda dp: nominal_flow(dp, 1.0, 1e-3, 3e5, 1e4)))
        part = bg.BondGraph("or")
        part.add(bg.One("q"), bg.R("R", flow=law))
        part.connect("q", "R")
        part.expose("A", "q")
        part.expose("B", "q")
    M.add(bg.MSf("Q", 1e-3 * sp.sin(bg.t)), part, bg.Zero("tank"), bg.Se("p_t", 0.0))
    M.connect("Q", "or/A")
    M.connect("or/B", "tank")
    M.connect("p_t", "tank")
    return M


def timed_builds(kind: str, repeat: int) -> list[float]:
    import bondgraph as bg

    out = []
    for i in range(repeat + 1):
        M = model(kind)
        t0 = time.perf_counter()
        try:
            bg.build(M)
        except bg.EquationError:
            if kind != "refused":
                raise
        if i:  # the first build compiles; the rest reuse the code
            out.append(time.perf_counter() - t0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--limit", type=float, default=1.0, help="inversion time limit (s)")
    args = ap.parse_args()
    from bondgraph.laws import time_limit

    with tempfile.TemporaryDirectory() as cache:
        os.environ["BONDGRAPH_CACHE"] = cache
        med = {kind: statistics.median(timed_builds(kind, args.repeat))
               for kind in ("linear", "declared", "found")}
        with time_limit(args.limit):
            med["refused"] = statistics.median(timed_builds("refused", args.repeat))
    base = med["linear"]
    print(f"build of a flow source into an orifice (inverted causality), median of {args.repeat}:")
    for kind, t in med.items():
        print(f"  {kind:9s} {t * 1e3:8.1f} ms   {t / base:6.2f} × linear")
    print(f"  found / declared = {med['found'] / med['declared']:.2f}")


if __name__ == "__main__":
    from conditions import announce

    announce()
    main()
