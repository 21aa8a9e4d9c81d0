"""``hydrobond analyse`` and ``hydrobond sweep``: design studies from the command line.

``analyse`` runs one analysis of a machine file and writes its table
(``<analysis>.csv``, units in the header) and its chart (``<analysis>.png``);
``sweep`` runs one over a grid or a sample of parameter values and writes
``sweep.csv`` and ``sweep.png``. Both are subcommands of :mod:`mechanisms.machine.cli`.

Examples
--------
>>> from mechanisms.machine.cli import main
>>> main(["analyse", "excavator", "--analysis", "working-range", "--n", "12", "--out",
...       "/tmp/hydrobond-doctest-wr", "--quiet"])
0
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from bondgraph.errors import ParameterError

__all__ = ["add_subcommands", "parse_grid"]

_ANALYSES = ("working-range", "tool-forces", "lift-capacity", "breakout-forces", "cycle-energy")

_ANALYSE_HELP = """\
Run one design analysis of a machine and write its table (CSV, units in the header)
and its chart (PNG) to --out:

  working-range  ISO 7135 dimensions (reach, reach at ground, digging depth, cutting
                 and dump height, pin height) with the posture of each, lettered as a
                 spec sheet, and the working-range chart; a loader's ISO 7131 dump
                 height and reach at 45°
  tool-forces    ISO 6015 tool forces of an excavator's arm and bucket cylinders at the
                 tool point (and the arm's SAE J1179 one), hydraulic limit at the relief
                 pressure and (with [base]) the tipping limit, on a stroke grid and at
                 the optimum pose
  lift-capacity  rated lift capacity over the front and over the side, ISO 10567 style
                 (needs [base]): min(87 % hydraulic, 75 % tipping) per height x radius
  breakout-forces
                 a loader's ISO 14397-2 breakout forces (lift and tilt), 100 mm behind
                 the cutting edge, the bucket level on the ground
  cycle-energy   where the pump work of a valves cycle goes (needs [circuit])
"""

_SWEEP_HELP = """\
Run an analysis over a grid (or a sample) of parameter values and write sweep.csv
(one row per point: the parameters in SI, the analysis's headline numbers, what the
point rebuilt, its error if it failed) and sweep.png.

  --set-grid "boom_cylinder.bore=120..160 mm:5"   five values from 120 to 160 mm
  --set-grid "bucket.mass=700, 900 kg"            a list
  --set-grid "arm.points.G.x=0.45..0.55 m:3"      one coordinate of a point
Several --set-grid make a grid of every combination; --sample N draws N points over
their ranges instead (Latin hypercube). Points run in local processes (--processes),
or on a Dask cluster (--scheduler ADDRESS, needs the 'dask' extra).
"""


def parse_grid(items: list[str]) -> dict[str, str]:
    """``["key=spec", ...]`` → ``{key: spec}``.

    Examples
    --------
    >>> parse_grid(["boom_cylinder.bore=120..160 mm:5"])
    {'boom_cylinder.bore': '120..160 mm:5'}
    """
    out, problems = {}, []
    for item in items:
        if "=" not in item:
            problems.append(f"--set-grid {item!r}: expected KEY=VALUES, e.g. \"boom_cylinder.bore=120..160 mm:5\"")
            continue
        k, v = (x.strip() for x in item.split("=", 1))
        if not k or not v:
            problems.append(f"--set-grid {item!r}: empty key or values")
            continue
        if k in out:
            problems.append(f"--set-grid {k!r}: given twice")
            continue
        out[k] = v
    if problems:
        raise ParameterError(problems)
    return out


def _options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--set", metavar="KEY=VALUE", action="append", default=[],
                     help="override a value of the file, with its unit (repeatable)")
    sub.add_argument("--n", type=int, default=None, metavar="N",
                     help="lengths per stroke of the pose grid (working range, tool forces: 50; "
                          "lift capacity: 60)")
    sub.add_argument("--relief", metavar="PRESSURE", help="relief pressure, e.g. \"320 bar\" (default: the "
                     "circuit's relief cracking pressure)")
    sub.add_argument("--functions", metavar="F,G",
                     help="tool forces: the functions (default the ISO 6015 ones: an excavator's arm and "
                          "bucket)")
    sub.add_argument("--point", metavar="NAME", help="tool point ([outputs] points; default the first); "
                     "lift capacity: the load point, an [outputs] point or \"part.point\" (default the "
                     "tool's pin, or the tool point when one function alone moves that pin)")
    sub.add_argument("--cycle", metavar="NAME", help="cycle energy: a cycle of the file (default its default)")
    sub.add_argument("--held", metavar="F=WHERE", action="append", default=[],
                     help="lift capacity: where a function that does not move the load point stays: "
                          "extend, retract or a length with its unit (repeatable; default: extend)")
    sub.add_argument("--heights", metavar="H,H,...", help="lift capacity: load-point heights above ground, "
                     "with units (\"0 m, 1.5 m, 3 m\")")
    sub.add_argument("--radii", metavar="R,R,...", help="lift capacity: radii from the swing axis, with "
                     "units (\"4.5 m, 6 m, 7.5 m\")")
    sub.add_argument("--generic", action="store_true",
                     help="tool forces of a loader or a crane (no ISO 6015 quantity: every function)")
    sub.add_argument("--out", metavar="DIR", default=None,
                     help="output folder (default out/<analysis>, as hydrobond run writes out/run)")
    sub.add_argument("--quiet", action="store_true", help="print only errors")


def _formatter():
    from ..machine.cli import _Formatter as Base

    class Formatter(Base):
        """Defaults shown where there is one (not "None", "[]" or "False")."""

        def _get_help_string(self, action):
            if action.default is None or action.default == [] or action.default is False:
                return action.help
            return super()._get_help_string(action)

    return Formatter


def add_subcommands(sub) -> None:
    """Add ``analyse`` and ``sweep`` to the ``hydrobond`` parser's subcommands."""
    _Formatter = _formatter()
    an = sub.add_parser("analyse", help="working range, tool forces, lift capacity or cycle energy",
                        description=_ANALYSE_HELP, formatter_class=_Formatter)
    an.add_argument("machine", metavar="MACHINE", help="machine file (TOML) or shipped machine name")
    an.add_argument("--analysis", choices=_ANALYSES, required=True)
    _options(an)
    sw = sub.add_parser("sweep", help="an analysis over a grid or a sample of parameters",
                        description=_SWEEP_HELP, formatter_class=_Formatter)
    sw.add_argument("machine", metavar="MACHINE", help="machine file (TOML) or shipped machine name")
    sw.add_argument("--analysis", choices=_ANALYSES, default="tool-forces")
    sw.add_argument("--set-grid", metavar="KEY=VALUES", action="append", default=[], required=True,
                    help="a swept parameter and its values (repeatable)")
    sw.add_argument("--sample", type=int, metavar="N", help="N Latin-hypercube points over the ranges "
                    "instead of the grid")
    sw.add_argument("--seed", type=int, default=0, help="seed of --sample")
    sw.add_argument("--scheduler", metavar="ADDRESS", help="run on this Dask scheduler (tcp://host:8786)")
    sw.add_argument("--processes", type=int, metavar="N", help="local worker processes (default: the CPU "
                    "count)")
    _options(sw)


def _analysis_options(args) -> dict[str, Any]:
    opts: dict[str, Any] = {}
    a = args.analysis
    if args.n is not None:
        if a == "cycle-energy":
            raise ParameterError("--n: the cycle energy has no pose grid")
        opts["n"] = args.n
    if args.relief is not None:
        if a in ("working-range", "cycle-energy"):
            raise ParameterError(f"--relief: not an option of {a}")
        opts["relief"] = args.relief
    if args.functions is not None:
        if a != "tool-forces":
            raise ParameterError(f"--functions: only for tool-forces (not {a})")
        opts["functions"] = [f.strip() for f in args.functions.split(",") if f.strip()]
    if args.point is not None:
        if a == "cycle-energy":
            raise ParameterError("--point: not an option of cycle-energy")
        opts["point"] = args.point
    if args.cycle is not None:
        if a != "cycle-energy":
            raise ParameterError(f"--cycle: only for cycle-energy (not {a})")
        opts["cycle"] = args.cycle
    for name in ("held", "heights", "radii"):
        v = getattr(args, name, None)
        if v and a != "lift-capacity":
            raise ParameterError(f"--{name}: only for lift-capacity (not {a})")
    if getattr(args, "held", None):
        held: dict[str, str] = {}
        for item in args.held:
            f, sep, where = item.partition("=")
            if not sep or not f.strip() or not where.strip():
                raise ParameterError(f"--held {item!r}: expected FUNCTION=extend|retract|LENGTH, e.g. "
                                     "bucket=extend or bucket=\"2.9 m\"")
            held[f.strip()] = where.strip().strip('"')
        opts["held"] = held
    for name in ("heights", "radii"):
        v = getattr(args, name, None)
        if v:
            opts[name] = [x.strip() for x in v.split(",") if x.strip()]
    if getattr(args, "generic", False):
        if a != "tool-forces":
            raise ParameterError(f"--generic: only for tool-forces (not {a})")
        opts["generic"] = True
    return opts


def run_analyse(args) -> int:
    import matplotlib

    matplotlib.use("Agg")
    from ..machine.names import parse_sets, resolve_machine
    from ..machine.description import MachineDescription
    from .study import Study
    from .sweeps import run_analysis

    opts = _analysis_options(args)
    T = time.perf_counter()
    study = Study(MachineDescription.load(resolve_machine(args.machine), parse_sets(args.set)))
    from .progress import reporting

    with reporting(not args.quiet, args.analysis):     # a bar on stderr after a second of work
        res = run_analysis(study, args.analysis, opts)
    out = args.out or f"out/{args.analysis}"
    files = res.write(out)
    if not args.quiet:
        import pandas as pd

        with pd.option_context("display.width", 160, "display.max_columns", 20):
            print(res.table_text() if hasattr(res, "table_text") else res.table().to_string(index=False))
        print(f"\n{args.analysis} of {study.description.name} in {time.perf_counter() - T:.2f} s; wrote "
              f"{', '.join(f.name for f in files)} to {Path(out).resolve()}")
    return 0


def run_sweep(args) -> int:
    import matplotlib

    matplotlib.use("Agg")
    from ..machine.names import parse_sets, resolve_machine
    from ..machine.description import MachineDescription
    from ..machine.files import check_output_dir
    from .result import write_table
    from .sweeps import sweep

    out = check_output_dir(args.out or "out/sweep")
    opts = _analysis_options(args)
    grid = parse_grid(args.set_grid)
    desc = MachineDescription.load(resolve_machine(args.machine), parse_sets(args.set))
    client = None
    if args.scheduler:
        try:
            from distributed import Client
        except ImportError:
            raise ParameterError("--scheduler: Dask is not installed; pip install 'hydrobond[dask]'") from None
        try:
            client = Client(args.scheduler, timeout="10s")
        except (OSError, TimeoutError, ValueError) as exc:
            raise ParameterError(f"--scheduler {args.scheduler!r}: cannot connect ({exc})") from None
    T = time.perf_counter()
    try:
        df = sweep(desc, grid, args.analysis, options=opts, sample=args.sample, seed=args.seed, client=client,
                   processes=args.processes, progress=not args.quiet)
    finally:
        if client is not None:
            client.close()
    files = [write_table(df, out / "sweep.csv")]
    fig = plot_sweep(df, list(grid), out / "sweep.png")
    import matplotlib.pyplot as plt

    plt.close(fig)
    files.append(out / "sweep.png")
    failed = int((df["error"] != "").sum())
    if not args.quiet:
        import pandas as pd

        with pd.option_context("display.width", 160, "display.max_columns", 12):
            print(df.drop(columns=["error"]).to_string(index=False))
        print(f"\n{len(df)} points ({failed} failed) in {time.perf_counter() - T:.2f} s; wrote "
              f"{', '.join(f.name for f in files)} to {out.resolve()}")
    if failed:
        first = df.loc[df["error"] != "", "error"].iloc[0]
        print(f"hydrobond: {failed} of {len(df)} points failed; the first: {first}", file=sys.stderr)
    return 0


def plot_sweep(df, keys: list[str], path=None):
    """Each headline number against the first parameter (one line per value of the others)."""
    import matplotlib.pyplot as plt
    import numpy as np

    from .result import save_figure

    units = df.attrs.get("units", {})
    results = [c for c in df.columns if c not in keys and c not in ("rebuilt", "error")
               and np.issubdtype(df[c].dtype, np.number) and np.isfinite(df[c]).any()][:6]
    n = max(1, len(results))
    fig, axes = plt.subplots(1, n, figsize=(4.6 * n, 4.0), squeeze=False)
    x = keys[0]
    others = keys[1:]
    groups = [((), df)] if not others else list(df.groupby(others, sort=True))
    from bondgraph.units import display_unit

    def shown(name):      # engineering units on the axes (kN, kJ, bar, mm...); the CSV stays SI
        u = units.get(name, "")
        if u == "m" and name.endswith(("bore", "rod")):
            return 1e3, "mm"
        return display_unit(u) if u else (1.0, "unit unknown")

    fx, ux = shown(x)
    for ax, col in zip(axes[0], results):
        fy, uy = shown(col)
        for label, g in groups:
            g = g.sort_values(x)
            lab = ", ".join(f"{k} = {v:.4g}" for k, v in zip(others, np.atleast_1d(label))) if others else None
            ax.plot(g[x] * fx, g[col] * fy, "o-", ms=3, label=lab)
        ax.set_xlabel(f"{x} [{ux}]")
        ax.set_ylabel(f"{col} [{uy}]")
        ax.grid(True, alpha=0.3)
        if others and len(groups) <= 8:
            ax.legend(fontsize="x-small")
    fig.suptitle(f"sweep of {df.attrs.get('analysis', 'analysis')} over {', '.join(keys)}", fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path)
