"""``excavator run``: simulate a work cycle of the excavator from files.

Examples
--------
>>> main(["run", "--mode", "extensions", "--t-end", "0.2", "--out", "/tmp/excavator-doctest",
...       "--no-animation", "--no-bond-graph", "--quiet"])
0
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bondgraph import BondGraphError

__all__ = ["main", "parser"]

_HELP = """\
Simulate a backhoe-excavator work cycle and write results.csv, plots and a report.

The machine is the reference excavator of mechanisms/data/excavator.toml
(boom, arm, bucket, bucket linkage and three cylinders, with hydraulics),
assembled from bond-graph templates. Choose how the cylinders are driven:

  extensions  you give pin-to-pin cylinder lengths (m) against time; the run
              computes the motion and the forces and pressures it needs
              (kinematics + inverse dynamics)
  forces      you give cylinder forces (N, total per function, + pushing);
              the run computes the motion (forward dynamics)
  valves      you give spool commands (-1 … 1) of the three directional valves;
              the hydraulics (pump, relief valve, valves, chambers) move the machine

The mechanism's dynamics come from the causal bond graph of the templates
(--formulation causal, the default). For comparison, modes extensions and forces
also run on the reference formulations: stiff virtual joints (the AMESim style)
or the Cartesian DAE with Lagrange multipliers (--formulation stiff|cartesian).

A cycle file is a CSV whose first column is `time` (s) and whose other columns
are `boom`, `arm`, `bucket`. Without --cycle, the 10 s dig-lift-dump cycle of
mechanisms/data/ is used (mode forces: forces computed from the lengths cycle).
"""


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="excavator", description=_HELP,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a cycle", description=_HELP,
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument("--params", metavar="FILE", help="machine parameters (TOML with units); "
                     "default: the reference machine")
    run.add_argument("--cycle", metavar="FILE", help="cycle CSV (time, boom, arm, bucket)")
    run.add_argument("--mode", choices=["extensions", "forces", "valves"], default="valves",
                     help="what the cycle file prescribes (default: valves)")
    run.add_argument("--formulation", choices=["causal", "stiff", "cartesian"], default="causal",
                     help="how the mechanism's equations are formulated (default: causal; "
                          "stiff and cartesian take modes extensions and forces)")
    run.add_argument("--t-end", metavar="SECONDS", type=float, help="stop time (default: end of the cycle)")
    run.add_argument("--out", metavar="DIR", default="out/excavator", help="output directory")
    run.add_argument("--no-animation", action="store_true", help="skip the GIF")
    run.add_argument("--no-bond-graph", action="store_true", help="skip the bond-graph drawing")
    run.add_argument("--quiet", action="store_true", help="print only errors")
    return ap


def _forces_from_lengths(t_end):
    """The default forces cycle: inverse dynamics of the default lengths cycle."""
    import numpy as np

    from .cycle import Cycle
    from .model import Excavator

    inv = Excavator(mode="extensions").run(Cycle.default("extensions"), t_end=t_end, progress=False)
    tab = inv.table()
    t = np.linspace(0.0, tab["time"][-1], 1001)
    return Cycle("forces", t, {f: np.interp(t, tab["time"], tab[f"{f}_force"]) for f in ("boom", "arm", "bucket")},
                 source="inverse dynamics of dig_lift_dump_lengths.csv")


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    from .cycle import Cycle
    from .model import Excavator
    from .plots import animate, plot_bond_graph, plot_timeseries, plot_trajectory
    from .report import text_report

    out = Path(args.out)
    exc = cycle = None
    try:
        if args.cycle:
            cycle = Cycle.from_csv(args.cycle, args.mode)
        elif args.mode == "forces":
            cycle = _forces_from_lengths(args.t_end)
        else:
            cycle = Cycle.default(args.mode)
        exc = Excavator(args.params, mode=args.mode, formulation=args.formulation)
        run = exc.run(cycle, t_end=args.t_end, progress=not args.quiet)
    except BondGraphError as exc_:
        print(f"excavator: {exc_}", file=sys.stderr)
        partial = getattr(exc_, "results", None)
        if partial is not None and len(partial.t) and exc is not None:
            from .model import ExcavatorRun

            path = ExcavatorRun(exc, partial, float("nan"), cycle).to_csv(out / "results_partial.csv")
            print(f"the results up to t = {partial.t[-1]:.6g} s are in {path}", file=sys.stderr)
        return 2
    import matplotlib.pyplot as plt

    before = set(plt.get_fignums())
    out.mkdir(parents=True, exist_ok=True)
    run.to_csv(out / "results.csv")
    plot_trajectory(run, out / "trajectory.png")
    plot_timeseries(run, out / "timeseries.png")
    written = ["results.csv", "trajectory.png", "timeseries.png"]
    if not args.no_animation:
        animate(run, out / "cycle.gif")
        written.append("cycle.gif")
    if not args.no_bond_graph and args.formulation == "causal":
        plot_bond_graph(exc, out / "bond_graph.png", out / "bond_graph_full.png")
        written += ["bond_graph.png", "bond_graph_full.png"]
    import matplotlib.pyplot as plt

    for num in set(plt.get_fignums()) - before:  # the figures this command drew
        plt.close(num)
    report = text_report(run)
    (out / "report.txt").write_text(report + "\n")
    written.append("report.txt")
    if not args.quiet:
        print(report)
        print(f"\nwrote {', '.join(written)} to {out.resolve()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
