"""The price of stopping with the truth: the step loop against the bare integrators.

:func:`bondgraph.simulate` drives every integrator one accepted step at a time
(:mod:`bondgraph.stepping`) to apply its rules after each step: blow-up bound, divisor
monitor (singular points), events with extremum checks, failure bookkeeping. This prints,
side by side in one run, medians of ``--repeat`` runs on the same compiled model and
tolerances:

* ``bare``: scipy's ``solve_ivp`` or scikit-sundae's ``CVODE.solve`` calling the compiled
  right-hand side and Jacobian directly (what ``simulate`` did before);
* ``simulate``: the step loop with its default checks (``singular="error"``);
* ``no monitor``: the same with ``singular="ignore"`` (what the divisor monitor costs);

with the ratio ``simulate / bare``, steps and right-hand-side calls. Models: a stiff
oscillator (no divisors: the loop's own overhead per step), the crank driven through the
transformer ``n(θ)`` (one modulus and one block monitored) and the excavator's 10 s valve
cycle (27 states, 14 divisors).

Run: ``python benchmarks/step_loop.py [--repeat 5] [--no-excavator]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import numpy as np
import sympy as sp


def oscillator():
    import bondgraph as bg

    M = bg.BondGraph("osc")
    M.add(bg.One("v"), bg.I("m", 1.0, initial=1.0), bg.C.spring("k", 1e4), bg.R("b", 0.1))
    for a in ("m", "k", "b"):
        M.connect("v", a)
    return bg.build(M), (0.0, 5.0), {}


def crank():
    import bondgraph as bg

    M = bg.BondGraph("crank")
    w = bg.One("w", displacement="theta", initial=0.5)
    th = w.displacement
    n = 0.3 * sp.sin(th) / sp.sqrt(1.09 - 0.6 * sp.cos(th))
    M.add(bg.I("J", 0.5, initial=8.0), w, bg.One("v"), bg.I("m", 2.0), bg.Se("F", 100.0),
          bg.MTF("rod", n))
    for a, b in [("w", "J"), ("w", "rod/1"), ("rod/2", "v"), ("v", "m"), ("F", "v")]:
        M.connect(a, b)
    return bg.build(M), (0.0, 3.0), {}


def bare(model, span, method, rtol, atol, inputs):
    """The integrator alone on the compiled functions (constant inputs only)."""
    from scipy.integrate import solve_ivp
    from sksundae.cvode import CVODE

    sysm = model.system
    x0 = model.initial_state()
    t0 = time.perf_counter()
    if method == "CVODE":
        def rf(t, y, yp):
            sysm.rhs(t, y, out=yp)

        def jf(t, y, yp, J):
            J[:, :] = sysm.jac(t, y)
        sol = CVODE(rf, rtol=rtol, atol=atol, jacfn=jf, max_num_steps=500_000).solve(
            np.array(span, dtype=float), x0)
        n = len(sol.t)
    else:
        kw = {"jac": lambda t, y: sysm.jac(t, y)} if method in ("LSODA", "BDF", "Radau") else {}
        sol = solve_ivp(lambda t, y: sysm.rhs(t, y), span, x0, method=method, rtol=rtol,
                        atol=atol, **kw)
        n = len(sol.t)
    return time.perf_counter() - t0, n


def looped(model, span, method, rtol, atol, singular):
    import bondgraph as bg

    t0 = time.perf_counter()
    res = bg.simulate(model, span, method=method, rtol=rtol, atol=atol, singular=singular,
                      progress=False)
    return time.perf_counter() - t0, res.stats["steps"], res.stats["nfev"]


def excavator_runs(repeat: int) -> None:
    from mechanisms.excavator import Cycle, Excavator

    exc = Excavator(mode="valves")
    cyc = Cycle.default("valves")
    import importlib

    hyd = importlib.import_module("mechanisms.excavator.hydraulics")
    sim = importlib.import_module("bondgraph.simulate").simulate
    print("\nexcavator 10 s valve cycle (1001 output times, 43 restarts)")
    print(f"{'method':>6} {'simulate':>10} {'no monitor':>11} {'monitor share':>14} {'steps':>6}")
    for method in ("CVODE", "LSODA"):
        rows = {}
        for singular in ("error", "ignore"):
            hyd.simulate = lambda *a, _s=singular, **k: sim(*a, singular=_s, **k)
            ts = []
            for _ in range(repeat):
                run = exc.run(cyc, rtol=1e-6, atol=1e-8, method=method, progress=False, energy=False)
                ts.append(run.results.stats["wall_time"])
            rows[singular] = (statistics.median(ts), run.results.stats["steps"])
        hyd.simulate = sim
        on, off = rows["error"][0], rows["ignore"][0]
        print(f"{method:>6} {on * 1e3:>8.0f}ms {off * 1e3:>9.0f}ms {(on - off) / on:>13.0%} "
              f"{rows['error'][1]:>6}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-excavator", action="store_true")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    print(f"{'model':>6} {'method':>6} {'bare':>9} {'simulate':>9} {'no monitor':>10} "
          f"{'ratio':>6} {'steps':>6} {'µs/step extra':>13}")
    for make in (oscillator, crank):
        model, span, inputs = make()
        for method in ("LSODA", "BDF", "RK45", "CVODE"):
            b, l_, u = [], [], []
            for _ in range(args.repeat):
                b.append(bare(model, span, method, 1e-8, 1e-10, inputs)[0])
                tl, steps, _n = looped(model, span, method, 1e-8, 1e-10, "error")
                l_.append(tl)
                u.append(looped(model, span, method, 1e-8, 1e-10, "ignore")[0])
            mb, ml, mu = (statistics.median(v) for v in (b, l_, u))
            print(f"{model.name:>6} {method:>6} {mb * 1e3:>7.1f}ms {ml * 1e3:>7.1f}ms {mu * 1e3:>8.1f}ms "
                  f"{ml / mb:>6.2f} {steps:>6} {(ml - mb) / steps * 1e6:>13.1f}")
    if not args.no_excavator:
        excavator_runs(args.repeat)


if __name__ == "__main__":
    from conditions import announce

    announce()
    main()
