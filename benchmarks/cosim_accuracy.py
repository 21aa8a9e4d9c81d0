"""Accuracy of the co-simulation glue on B1, B2, B3 (and B1 through FMUs).

Run: ``python benchmarks/cosim_accuracy.py [--no-fmu]``. Every error is measured against
an independent reference (analytic for B1, matrix exponential for B2, a monolithic
``solve_ivp`` at rtol 1e-12 for B3). The last tables show when the divergence watch
stops the unstable couplings (and the error at that point), and the energy the coupling
created on B3's bond beside the energy balance computed from B3's states.
"""

from __future__ import annotations

import argparse
import math
import tempfile
import warnings

import numpy as np

from bondgraph.cosim import (Cosimulation, CosimulationWarning, ErrorPolicy, FmuSubsystem, Glue,
                             TimeManager, export_fmu)
from bondgraph.cosim import examples as ex
from bondgraph.errors import CosimulationError

GLUES = ("zoh", "linear", "quadratic")


def run(subs, rel, step, end, glue, start="derivatives", scheme="jacobi"):
    """Results, or the aborted partial results with the reason."""
    sim = Cosimulation(list(subs), rel, TimeManager(step=step, end=end, scheme=scheme),
                       Glue(glue, start))
    try:
        return sim.run(), ""
    except CosimulationError as exc:
        return exc.results, exc.results.events[-1].kind if exc.results.events else "aborted"


def b1_table(fmus=None):
    print("B1  Elliott's (MDI) co-simulation paper oscillator, max |x - x_exact| over 4 s [m] (Jacobi)")
    print(f"{'H [s]':>8} " + " ".join(f"{g:>22}" for g in GLUES))
    errs = {}
    for step in (1e-3, 5e-4, 2.5e-4, 1e-4, 5e-5):
        cells = []
        for g in GLUES:
            res, why = run(ex.b1_subsystems(), ex.B1_RELATIONS, step, 4.0, g)
            if why:
                cells.append(f"{why} at t={res.time[-1]:.3g} s")
            else:
                e = float(np.abs(res["mass.x"] - ex.b1_reference(res.time)).max())
                errs[(g, step)] = e
                cells.append(f"{e:.3e}")
        print(f"{step:8.2g} " + " ".join(f"{c:>22}" for c in cells))
    if ("quadratic", 1e-4) in errs:
        print(f"  quadratic error ratio H=0.1 ms / 50 us: "
              f"{errs[('quadratic', 1e-4)] / errs[('quadratic', 5e-5)]:.2f}")
    if fmus:
        for step, end in ((1e-3, 4.0), (1e-4, 4.0)):
            res, _ = run([FmuSubsystem(fmus[0], "mass"), FmuSubsystem(fmus[1], "spring")],
                         ex.B1_RELATIONS, step, end, "quadratic")
            e_fmu = float(np.abs(res["mass.x"] - ex.b1_reference(res.time)).max())
            print(f"  through two FMUs, quadratic, H={step:g} s: {e_fmu:.6e} "
                  f"(in-process {errs[('quadratic', step)]:.6e}, difference "
                  f"{abs(e_fmu - errs[('quadratic', step)]):.1e})")
    print()


def b2_table():
    print("B2  two-mass oscillator, max |x - x_ref| / max |x_ref| over 2 s")
    print(f"{'H [s]':>8} {'scheme':>13} " + " ".join(f"{g:>22}" for g in GLUES))
    for scheme in ("jacobi", "gauss-seidel"):
        for step in (1e-3, 5e-4, 2.5e-4):
            cells = []
            for g in GLUES:
                res, why = run(ex.b2_subsystems(), ex.B2_RELATIONS, step, 2.0, g, scheme=scheme)
                cells.append(f"{why} at t={res.time[-1]:.3g} s" if why
                             else f"{ex.b2_error(res):.3e}")
            print(f"{step:8.2g} {scheme:>13} " + " ".join(f"{c:>22}" for c in cells))
    print()


def b3_table():
    ref = ex.b3_reference()
    x, v, p = ref(1.0)
    print(f"B3  cylinder lifting a mass; reference at T = 1 s: x = {x:.6f} m, v = {v:.6f} m/s, "
          f"p = {p / 1e6:.6f} MPa (quoted {ex.B3_QUOTED[0]}, {ex.B3_QUOTED[1]}, "
          f"{ex.B3_QUOTED[2] / 1e6})")
    print("    relative velocity error max |v - v_ref| / max |v_ref|, quadratic, Jacobi")
    print(f"{'H [s]':>8} {'derivative start':>18} {'reduced start':>16}")
    rows = {}
    for step in (1e-3, 5e-4, 2.5e-4):
        cells = []
        for start in ("derivatives", "reduced"):
            res, _ = run(ex.b3_subsystems(), ex.B3_RELATIONS, step, 1.0, "quadratic", start)
            vr = ref(res.time)[1]
            e = float(np.abs(res["mech.v"] - vr).max() / np.abs(vr).max())
            rows.setdefault(start, []).append(e)
            cells.append(e)
        print(f"{step:8.2g} {cells[0]:18.3e} {cells[1]:16.3e}")
    for start, e in rows.items():
        orders = [math.log2(e[i] / e[i + 1]) for i in range(len(e) - 1)]
        print(f"    observed order, {start} start: " + ", ".join(f"{o:.2f}" for o in orders))
    print()


def divergence_table():
    print("Divergence watch: when each coupling is stopped (default policy), error then")
    print(f"{'case':<34} {'stopped at':>11} {'by':<28} {'error then':>11}")
    cases = [
        ("B1 zoh H=1 ms", ex.b1_subsystems, ex.B1_RELATIONS, 1e-3, 4.0, "zoh", "jacobi", None),
        ("B1 zoh H=50 us", ex.b1_subsystems, ex.B1_RELATIONS, 5e-5, 4.0, "zoh", "jacobi", None),
        ("B1 quadratic H=10 ms", ex.b1_subsystems, ex.B1_RELATIONS, 1e-2, 4.0, "quadratic",
         "jacobi", None),
        ("B1 quadratic, mass holds F, 0.1 ms", ex.b1_subsystems, ex.B1_RELATIONS, 1e-4, 4.0,
         "quadratic", "jacobi", "hold"),
        ("B2 zoh gauss-seidel H=1 ms", ex.b2_subsystems, ex.B2_RELATIONS, 1e-3, 2.0, "zoh",
         "gauss-seidel", None),
        ("B2 zoh jacobi H=0.25 ms", ex.b2_subsystems, ex.B2_RELATIONS, 2.5e-4, 2.0, "zoh",
         "jacobi", None),
        ("B3 zoh H=1 ms", ex.b3_subsystems, ex.B3_RELATIONS, 1e-3, 1.0, "zoh", "jacobi", None),
        ("B3 quadratic H=5 ms", ex.b3_subsystems, ex.B3_RELATIONS, 5e-3, 1.0, "quadratic",
         "jacobi", None),
        ("B1 quadratic H=1 ms (sound)", ex.b1_subsystems, ex.B1_RELATIONS, 1e-3, 4.0,
         "quadratic", "jacobi", None),
        ("B2 quadratic H=1 ms (sound)", ex.b2_subsystems, ex.B2_RELATIONS, 1e-3, 2.0,
         "quadratic", "jacobi", None),
    ]
    for label, make, rel, step, end, glue, scheme, hold in cases:
        subs = list(make())
        if hold:
            subs[0].input_derivative_order = 0
        sim = Cosimulation(subs, rel, TimeManager(step=step, end=end, scheme=scheme), Glue(glue))
        try:
            res, why = sim.run(), "runs to the end"
        except CosimulationError as exc:
            res = exc.results
            ev = res.events[-1]
            why = f"{ev.kind}: {ev.subject}"
        if rel is ex.B1_RELATIONS:
            e = float(np.abs(res["mass.x"] - ex.b1_reference(res.time)).max())
        elif rel is ex.B2_RELATIONS:
            e = ex.b2_error(res)
        else:
            vr = ex.b3_reference()(res.time)[1]
            e = float(np.abs(res["mech.v"] - vr).max() / np.abs(vr).max())
        print(f"{label:<34} {res.time[-1]:9.4g} s {why:<28} {e:11.3e}")
    print()


def b3_energy_table():
    print("B3: energy created by the coupling (bond residual) vs the energy balance from the "
          "states")
    print(f"{'H [s]':>8} {'glue':>10} {'created [J]':>13} {'balance [J]':>13} {'difference':>11}")
    for step, glue, end in ((1e-4, "zoh", 1.0), (2e-4, "zoh", 1.0), (5e-4, "zoh", 0.3),
                            (1e-3, "linear", 1.0), (1e-3, "quadratic", 1.0)):
        sim = Cosimulation(list(ex.b3_subsystems()), ex.B3_RELATIONS,
                           TimeManager(step=step, end=end), Glue(glue),
                           ErrorPolicy(divergence="off"))
        created, bal = ex.b3_energy_balance(sim.run())
        print(f"{step:8.2g} {glue:>10} {created[-1]:13.5g} {bal[-1]:13.5g} "
              f"{created[-1] - bal[-1]:11.3g}")
    print()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--no-fmu", action="store_true", help="skip the FMU round trip")
    args = ap.parse_args()
    warnings.simplefilter("ignore", CosimulationWarning)
    fmus = None
    if not args.no_fmu:
        tmp = tempfile.mkdtemp(prefix="cosim_bench_")
        fmus = (export_fmu("bondgraph.cosim.examples:b1_mass", tmp, model_name="B1Mass"),
                export_fmu("bondgraph.cosim.examples:b1_spring", tmp, model_name="B1Spring"))
    b1_table(fmus)
    b2_table()
    b3_table()
    divergence_table()
    b3_energy_table()


if __name__ == "__main__":
    from conditions import announce

    announce()
    main()
