"""Causal bond graph vs stiff joints vs Cartesian DAE: cost at equal tip accuracy.

For every case (boom, four-bar, chains of N = 3, 10, 30 bodies, the excavator
on its 10 s dig–lift–dump cycle), see
:func:`mechanisms.formulations.metrics.compare`:

1. the causal formulation's inverse dynamics of the case's smooth motion
   (rtol 1e-11) gives every cylinder's force history;
2. those forces drive all three formulations forward (``simulate_forces``;
   the inputs are one vectorised spline, the same cost for all) — and, in the
   ``extensions`` mode, all three follow the prescribed lengths themselves;
3. the reference tip trajectory is the causal forward run at rtol 1e-12
   (DOP853), cross-checked against the Cartesian one;
4. for each formulation and integrator (LSODA, CVODE, Radau, BDF, DOP853,
   RK45; the explicit two not on the stiff joints, whose step they bound to
   about √(m/k)) the loosest rtol of a half-decade ladder (1e-3 … 1e-10) whose tip
   error is ≤ ``--tip-tol`` (1e-4 m) is found; the stiff-joint form also climbs
   a stiffness ladder (1e8 … 1e12 N/m) until its deflection lets it reach the
   accuracy at all; the fastest passing configuration is kept;
5. it is run ``--repeats`` times: median integration wall time; RHS and
   Jacobian evaluations; stiffness ratio at t = 0 (largest/smallest eigenvalue
   magnitude of the Jacobian, exact zeros of redundant coordinates left out).

Usage::

    python benchmarks/formulations_benchmark.py [--cases boom,four-bar,chain3]
        [--repeats 5] [--tip-tol 1e-4] [--deadline 120] [--json out.json]

Prints one Markdown table on stdout, the search log on stderr.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import asdict

from mechanisms.formulations.cases import Case, boom_case, chain_case, excavator_case, four_bar_case
from mechanisms.formulations.metrics import Comparison, compare


#: Forward runs of an unstable machine drift off the path; the long chain leaves its strokes
#: (a dead centre) after about 0.8 s, so its forward run is shortened to this window (s).
FORWARD_WINDOW = {"chain N=30": 0.5}


def cases(names: list[str]) -> list[Case]:
    table = {"boom": boom_case, "four-bar": four_bar_case}
    out = []
    for n in names:
        if n in table:
            out.append(table[n]())
        elif n.startswith("chain"):
            out.append(chain_case(int(n[5:])))
        elif n == "excavator":
            try:
                out.append(excavator_case())
            except ImportError as exc:
                print(f"# excavator: not available ({exc}); skipped", file=sys.stderr)
        else:
            raise SystemExit(f"unknown case {n!r} (boom, four-bar, chainN, excavator)")
    return out


def table(rows: list[Comparison]) -> str:
    head = ["case", "drive", "formulation", "states", "method", "rtol", "k [N/m]", "tip error [m]",
            "wall [s]", "RHS", "Jac", "stiffness ratio", "max abs eig [1/s]", "wall / causal"]
    out = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] * len(head)) + "|"]
    causal = {(r.case, r.mode): r.wall for r in rows if r.formulation == "causal"}
    for r in rows:
        if r.note:
            out.append(f"| {r.case} | {r.mode} | {r.formulation} | {r.states} | "
                       + " | ".join(["-"] * 9) + f" | {r.note} |")
            continue
        k = f"{r.stiffness:.0e}" if not math.isnan(r.stiffness) else ""
        rel = r.wall / causal.get((r.case, r.mode), float("nan"))
        out.append(f"| {r.case} | {r.mode} | {r.formulation} | {r.states} | {r.method} "
                   f"| {r.rtol:.0e} | {k} "
                   f"| {r.tip_error:.1e} | {r.wall:.4f} | {r.nfev} | {r.njev} | {r.ratio:.2g} "
                   f"| {r.eig_max:.2g} | {rel:.1f} |")
    return "\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", default="boom,four-bar,chain3,chain10,chain30,excavator")
    p.add_argument("--modes", default="forces,extensions",
                   help="forward runs driven by forces, and/or inverse runs following lengths")
    p.add_argument("--forward-window", type=float, default=None,
                   help="shorten forward runs to this many seconds (default: the whole motion)")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--tip-tol", type=float, default=1e-4)
    p.add_argument("--deadline", type=float, default=120.0)
    p.add_argument("--json", default=None)
    p.add_argument("--quiet", action="store_true")
    a = p.parse_args(argv)
    log = (lambda s: None) if a.quiet else (lambda s: print(s, file=sys.stderr, flush=True))
    rows: list[Comparison] = []
    for case in cases(a.cases.split(",")):
        for mode in a.modes.split(","):
            t_end = None
            if mode == "forces":
                t_end = a.forward_window or FORWARD_WINDOW.get(case.name)
            try:
                rows += compare(case, a.tip_tol, mode=mode, t_end=t_end, repeats=a.repeats,
                                deadline=a.deadline, log=log)
            except Exception as exc:  # noqa: BLE001 - e.g. the reference itself fails
                rows.append(Comparison(case.name, mode, "(all)", 0,
                                       note=f"reference run failed: {str(exc).splitlines()[0]}"))
            print(table(rows), file=sys.stderr, flush=True)
    print(table(rows))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump([asdict(r) for r in rows], fh, indent=1)
    return 0


if __name__ == "__main__":
    from conditions import announce

    announce()
    raise SystemExit(main())
