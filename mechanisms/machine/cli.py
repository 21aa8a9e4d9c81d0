"""``hydrobond``: run, compare and check machines described by TOML files.

Examples
--------
>>> main(["run", "excavator", "--mode", "extensions", "--t-end", "0.2", "--out",
...       "/tmp/hydrobond-doctest", "--no-animation", "--no-bond-graph", "--quiet"])
0
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import sys
import time
from pathlib import Path

from bondgraph import BondGraphError
from bondgraph.errors import ParameterError

from .names import parse_sets, resolve_machine

__all__ = ["main", "parser"]

_RUN_HELP = """\
Simulate a work cycle of a machine and write results.csv, plots and a report.

MACHINE is a machine description file (TOML with units; see the README) or the
name of a shipped machine in mechanisms/data/ (`hydrobond list` shows them).
Choose how the cylinders are driven:

  extensions  you give pin-to-pin cylinder lengths (m) against time; the run
              computes the motion and the forces and pressures it needs
              (kinematics + inverse dynamics). The cycle is checked against
              every stroke and against reachability before the run.
  forces      you give cylinder forces (N, total per function, + pushing: the
              net force on the rod); the run computes the motion (forward
              dynamics). The cylinders' end stops act.
  valves      you give spool commands (-1 … 1) of the directional valves; the
              hydraulic circuit of the file moves the machine, starting from the
              static equilibrium that holds the start pose.

A cycle (--cycle) is a name from the file's [cycles] or a CSV file whose first
column is `time` (s) and whose other columns are the machine's functions (the
`function` of each cylinder). A header may carry its unit (`time [ms]`,
`boom [mm]`, `boom [kN]`, `boom [-]`); a bare header is in SI. A run's
results.csv (or its folder) is a cycle too: mode extensions takes its
`boom_length` columns, forces its `boom_force`, valves its `boom_command`.
Without --cycle the file's default cycle is used (mode forces: the forces of an
inverse-dynamics run of its lengths).

results.csv is in SI units, each written in its header: `time [s]`,
`tip_x [m]`, `boom_force [N]`, `boom_cap_pressure [Pa]` (gauge)...
"""


def _positive_float(name: str):
    def conv(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} {text!r}: not a number") from None
        return v
    return conv


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="hydrobond", description="Machines from description files: "
                                 "run cycles, compare runs, check files, analyse and sweep designs.")
    sub = ap.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a cycle", description=_RUN_HELP,
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument("machine", metavar="MACHINE", help="machine file (TOML) or shipped machine name")
    _run_options(run)
    cmp_ = sub.add_parser("compare", help="overlay two runs and print a difference table",
                          description="Compare two runs: RUN_A and RUN_B are output folders of "
                                      "`hydrobond run` (or their results.csv files). Prints the largest "
                                      "difference of each quantity (point paths, cylinder lengths, forces, "
                                      "pressures, flows...) in engineering units and when it occurs; "
                                      "writes compare.png. When both folders have an energy.csv (mode "
                                      "valves), also the runs' pump figures and why they differ (pump work, "
                                      "relief, throttling, tip paths: e.g. the fixed and the load-sensing "
                                      "circuit of one machine, --set circuit.type=load-sensing) and "
                                      "circuits.png. --verbose adds every column's difference and the "
                                      "energy splits side by side.",
                          formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    cmp_.add_argument("run_a", metavar="RUN_A")
    cmp_.add_argument("run_b", metavar="RUN_B")
    cmp_.add_argument("--out", metavar="DIR", default="out/compare", help="where compare.png goes")
    cmp_.add_argument("-v", "--verbose", action="store_true",
                      help="also every column's difference (SI) and the energy splits side by side")
    chk = sub.add_parser("check", help="check a machine file: every section, every problem at once",
                         description="Read a machine file and build every section of it, reporting "
                                     "every problem at once: the linkage under the connection rules "
                                     "(causal report, Grübler mobility count, start pose checked against "
                                     "every stroke), the [circuit] (its model with the linkage and the "
                                     "start state that holds the start pose; the tables of the other "
                                     "circuit types the file carries) and every [cycles] file. Prints a "
                                     "summary (verdicts, start pose, the pressures that hold it, each "
                                     "cycle reachable or not); --verbose adds the mobility count, the causal "
                                     "report with its derivative-causality chains and the strokes. Every "
                                     "problem is reported with or without --verbose (exit status 2).")
    chk.add_argument("machine", metavar="MACHINE")
    chk.add_argument("--set", metavar="KEY=VALUE", action="append", default=[],
                     help="override a value with its unit, e.g. --set bucket.mass=\"900 kg\"")
    chk.add_argument("-v", "--verbose", action="store_true",
                     help="also the mobility count, the causal report with its derivative-causality "
                          "chains and each start length in its stroke")
    sub.add_parser("list", help="list the shipped machines")
    cache = sub.add_parser("cache", help="what the cache folder holds (compiled models, kept results); empty it",
                           description="Show the cache folder (~/.cache/bondgraph, or $BONDGRAPH_CACHE): its "
                                       "entries by kind and their size. Every entry is made again when it is "
                                       "missing (a cold build, a solve, a drawing), so deleting any is safe; "
                                       "files another process is writing are left.")
    cache.add_argument("--clear", action="store_true", help="delete the entries")
    cache.add_argument("--older-than", metavar="DAYS", type=_positive_float("--older-than"),
                       help="with --clear: only entries written more than DAYS days ago")
    fmu = sub.add_parser("export-fmu", help="write a standalone FMI 2.0 or 3.0 FMU of a machine (no Python inside)",
                         description="Write MACHINE as an FMI 2.0 (or, with --fmi-version 3, FMI 3.0) FMU for "
                                     "model exchange and co-simulation: "
                                     "the generated C equations compiled with the system C compiler, "
                                     "CVODE bundled for co-simulation; the importing host needs no Python. "
                                     "Inputs: the spool commands <function>.cmd (mode valves) or the "
                                     "cylinder forces and, with [swing], the swing motor's torque swing.torque "
                                     "(mode forces); outputs: the point positions (tip_x, tip_y), cylinder "
                                     "lengths, swing_angle and swing_rate with [swing] and, in mode valves, "
                                     "chamber pressures.",
                         formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    fmu.add_argument("machine", metavar="MACHINE", help="machine file (TOML) or shipped machine name")
    fmu.add_argument("--mode", choices=["forces", "valves"], default="valves", help="what the inputs are")
    fmu.add_argument("--set", metavar="KEY=VALUE", action="append", default=[],
                     help="override a value with its unit, e.g. --set bucket.mass=\"900 kg\"")
    fmu.add_argument("--out", metavar="FILE", help="the .fmu to write (default: <machine>_<mode>.fmu)")
    fmu.add_argument("--rtol", type=_positive_float("--rtol"), default=1e-6,
                     help="co-simulation relative tolerance (an importer's tolerance replaces it)")
    fmu.add_argument("--atol", type=_positive_float("--atol"), default=1e-8,
                     help="co-simulation absolute tolerance (pressures: times 1e8)")
    fmu.add_argument("--model-exchange-only", action="store_true",
                     help="no co-simulation interface (no SUNDIALS libraries bundled)")
    fmu.add_argument("--fmi-version", type=int, choices=[2, 3], default=2,
                     help="the FMI version: 2 (FMI 2.0) or 3 (FMI 3.0: Float64 variables, input "
                          "derivatives as variables der(<input>), binaries/x86_64-linux)")
    from ..analysis.cli import add_subcommands  # design studies: `analyse` and `sweep`

    add_subcommands(sub)
    return ap


def _run_options(run: argparse.ArgumentParser, *, default_out: str = "out/run") -> None:
    run.formatter_class = _Formatter
    run.add_argument("--mode", choices=["extensions", "forces", "valves"], default="valves",
                     help="what the cycle prescribes")
    run.add_argument("--cycle", metavar="NAME|FILE", help="a cycle of the file's [cycles] or a CSV file "
                     "(default: the file's default cycle)")
    run.add_argument("--set", metavar="KEY=VALUE", action="append", default=[],
                     help="override a value by its dotted key, with its unit: --set bucket.mass=\"900 kg\" "
                          "(repeatable)")
    run.add_argument("--operator", choices=["table", "track"], default="table",
                     help="mode valves: replay the cycle's spool table (table), or follow the cycle's "
                          "lengths with the tracking operator (track: feedforward and feedback per "
                          "function; the report says how closely the tip held the path)")
    run.add_argument("--t-end", metavar="SECONDS", type=_positive_float("--t-end"),
                     help="stop time (default: the end of the cycle)")
    run.add_argument("--dt", metavar="SECONDS", type=_positive_float("--dt"), default=0.01,
                     help="output step")
    run.add_argument("--rtol", type=_positive_float("--rtol"), default=1e-6, help="relative tolerance")
    run.add_argument("--atol", type=_positive_float("--atol"), default=1e-8,
                     help="absolute tolerance of every state in SI units; pressures (Pa) take it "
                          "times 1e8 (1 Pa at the default)")
    run.add_argument("--method", default="CVODE",
                     choices=["CVODE", "LSODA", "BDF", "Radau", "RK45", "RK23", "DOP853"],
                     help="integrator")
    run.add_argument("--formulation", choices=["causal", "stiff", "cartesian"], default="causal",
                     help="how the mechanism's equations are formulated (stiff and cartesian take modes "
                          "extensions and forces)")
    run.add_argument("--out", metavar="DIR", default=default_out, help="output folder")
    run.add_argument("--no-animation", action="store_true", help="skip the GIF")
    run.add_argument("--no-bond-graph", action="store_true", help="skip the part-level causal diagram")
    run.add_argument("--full-bond-graph", action="store_true",
                     help="also draw every element of the bond graph: bond_graph_full.pdf, one readable "
                          "page per part and one for the hydraulics (slow)")
    run.add_argument("--quiet", action="store_true", help="print only errors")


class _Formatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    pass


def main(argv: list[str] | None = None, *, shortcut: tuple[str, str] | None = None) -> int:
    """Entry point; returns the exit status (0 ok, 2 a named error, 130 interrupted).

    ``shortcut=(prog, machine_file)`` makes a command for one machine (``excavator run ...``
    = ``hydrobond run excavator ...``, with ``--params FILE`` for another file of it).
    Started as a program (``argv`` None), the command keeps OpenBLAS to one thread unless
    its size is set in the environment (:mod:`.blaspolicy`)."""
    if argv is None:
        from .blaspolicy import one_blas_thread_for_commands

        one_blas_thread_for_commands()
    if shortcut is None:
        args = parser().parse_args(argv)
        name = "hydrobond"
    else:
        name, machine_file = shortcut
        args = _shortcut_parser(name, machine_file).parse_args(argv)
        args.machine = args.params or machine_file
    try:
        if args.command == "list":
            return _list()
        if args.command == "cache":
            return _cache(args)
        if args.command == "check":
            return _check(args)
        if args.command == "compare":
            return _compare(args)
        if args.command == "export-fmu":
            return _export_fmu(args)
        if args.command in ("analyse", "sweep"):
            from ..analysis.cli import run_analyse, run_sweep

            return run_analyse(args) if args.command == "analyse" else run_sweep(args)
        from .gcpolicy import command_gc

        with command_gc():       # the collector off while the run imports and builds (gcpolicy)
            return _run(args, name)
    except BondGraphError as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:   # the reader left (`hydrobond list | head -1`): stop quietly, as Unix tools do
        try:   # and spare the interpreter a second error when it flushes stdout at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 141


def _shortcut_parser(prog: str, machine_file: str) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=prog, description=f"A shortcut for `hydrobond run {machine_file} ...`.")
    sub = ap.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a cycle", description=_RUN_HELP.replace(
        "MACHINE is a machine description file", f"The machine is {machine_file}, or\n"
        "--params FILE; MACHINE files are described"), formatter_class=_Formatter)
    run.add_argument("--params", metavar="FILE", help=f"machine file (default: {machine_file})")
    _run_options(run, default_out=f"out/{prog}")
    return ap


def _list() -> int:
    from .description import DATA, MachineDescription

    for p in sorted(DATA.glob("*.toml")):
        try:
            d = MachineDescription.load(p)
            print(f"{p.stem:<16} {d.title}  (functions: {', '.join(d.functions)}; cycles: "
                  f"{', '.join(d.cycles) or 'none'})")
        except BondGraphError as exc:
            print(f"{p.stem:<16} (does not load: {exc.problems[0]})")
    return 0


def _cache(args) -> int:
    from bondgraph.cachefolder import cache_usage, clear_cache, size_text

    if args.older_than is not None and not args.clear:
        raise ParameterError(f"cache: --older-than {args.older_than:g} deletes nothing without --clear")
    if args.clear:
        files, size = clear_cache(args.older_than)
        days = args.older_than
        which = "" if days is None else f" written more than {days:g} day{'s' * (days != 1)} ago"
        print(f"deleted {files} entr{'ies' if files != 1 else 'y'}{which} ({size_text(size)})")
    print(cache_usage())
    return 0


def _check(args) -> int:
    from .check import check_file

    print(check_file(resolve_machine(args.machine), parse_sets(args.set), verbose=args.verbose))
    return 0


def _export_fmu(args) -> int:
    from .fmu import export_machine_fmu
    from .machine import Machine

    path = resolve_machine(args.machine)
    machine = Machine.from_file(path, parse_sets(args.set), mode=args.mode)
    out = Path(args.out) if args.out else Path(f"{Path(path).stem}_{args.mode}.fmu")
    fmu = export_machine_fmu(machine, out, rtol=args.rtol, atol=args.atol,
                             co_simulation=not args.model_exchange_only, fmi_version=args.fmi_version)
    print(f"wrote {fmu.resolve()} (FMI {args.fmi_version}.0, model exchange"
          + ("" if args.model_exchange_only else " and co-simulation") + ")")
    return 0


def _compare(args) -> int:
    from .differences import differences
    from .files import check_output_dir
    from .table import read_csv

    def load(p):
        p = Path(p)
        if p.is_dir():
            p = p / "results.csv"
        return read_csv(p)

    a_cols, a_units = load(args.run_a)
    b_cols, b_units = load(args.run_b)
    out = check_output_dir(args.out)
    diff = differences(a_cols, a_units, b_cols, b_units)
    n_common = sum(1 for k in a_cols if k in b_cols and k != "time")
    print(f"compare {args.run_a} (A) with {args.run_b} (B): {n_common} common columns")
    print(diff.summary())
    if args.verbose:
        print()
        print("every common column (SI; the distances between the point paths first):")
        print(diff.table())
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .plots import plot_compare

    before = set(plt.get_fignums())
    try:
        plot_compare({"A": (a_cols, a_units), "B": (b_cols, b_units)}, out / "compare.png")
        written = ["compare.png"] + _compare_energy(args.run_a, args.run_b, out, args.verbose)
    finally:        # the figures are in the files: a session that calls main() again holds none
        for num in set(plt.get_fignums()) - before:
            plt.close(num)
    print(f"\nwrote {', '.join(written)} to {out.resolve()}")
    if not args.verbose:
        print("(--verbose: every column's largest difference" + (", the energy split side by side"
                                                                  if len(written) > 1 else "") + ")")
    return 0


def _compare_energy(run_a: str, run_b: str, out: Path, verbose: bool) -> list[str]:
    """Both folders with an energy.csv: the runs' pump figures, why they differ (and the
    energy splits side by side when ``verbose``), and circuits.png (:mod:`.compare`); the
    names of the files written."""
    from .compare import RunSummary, compare_runs

    a, b = (RunSummary.from_folder(p, label) for p, label in ((run_a, "A"), (run_b, "B")))
    if a.energy is None or b.energy is None:
        return []
    cmp = compare_runs({"A": a, "B": b})
    print()
    print(cmp.text(table=verbose))
    cmp.plot(out / "circuits.png")
    return ["circuits.png"]


def _validate_run_args(args) -> None:
    problems = []
    if args.t_end is not None and not (math.isfinite(args.t_end) and args.t_end > 0):
        problems.append(f"--t-end {args.t_end!r}: expected a finite time > 0 s")
    if not (math.isfinite(args.dt) and args.dt > 0):
        problems.append(f"--dt {args.dt!r}: expected a finite time step > 0 s")
    if not (math.isfinite(args.rtol) and 0 < args.rtol < 1):
        problems.append(f"--rtol {args.rtol!r}: expected 0 < rtol < 1")
    if not (math.isfinite(args.atol) and args.atol > 0):
        problems.append(f"--atol {args.atol!r}: expected a finite value > 0")
    if getattr(args, "operator", "table") == "track" and args.mode != "valves":
        problems.append(f"--operator track: drives the valves; expected --mode valves, found --mode {args.mode}")
    if problems:
        raise ParameterError(problems)


def _run(args, name: str) -> int:
    from .cycle import Cycle
    from .files import atomic_write, check_output_dir
    from .machine import Machine
    from .run import Interrupt

    _validate_run_args(args)
    out = check_output_dir(args.out)
    path = resolve_machine(args.machine)
    overrides = parse_sets(args.set)
    from .background import cpu_times

    T, cpu_at_start = time.perf_counter(), cpu_times()
    machine = Machine.from_file(path, overrides, mode=args.mode, formulation=args.formulation)
    track = getattr(args, "operator", "table") == "track"
    cycle_mode = "extensions" if track else args.mode      # the operator follows the lengths
    if args.cycle is None:
        cycle = machine.cycle(mode=cycle_mode)
    elif Path(args.cycle).exists() or args.cycle.endswith(".csv"):
        cycle = Cycle.from_csv(args.cycle, cycle_mode, machine.functions)
    else:
        cycle = machine.cycle(args.cycle, mode=cycle_mode)
    from .gcpolicy import settle

    settle()                     # the imports and the build frozen out of the collector's reach
    operator = None
    if track:
        from .operator import TrackingOperator

        operator = TrackingOperator(machine, cycle)
    interrupt = Interrupt()
    old = signal.getsignal(signal.SIGINT)

    def on_sigint(signum, frame):
        if interrupt.requested:  # a second Ctrl-C: stop now
            raise KeyboardInterrupt
        interrupt.requested = True
    in_main = _main_thread()
    if in_main:
        signal.signal(signal.SIGINT, on_sigint)
    try:
        if operator is not None:
            run = operator.drive(args.t_end, dt=args.dt, rtol=args.rtol, atol=args.atol, method=args.method,
                                 progress=not args.quiet, interrupt=interrupt)
        else:
            run = machine.run(cycle, args.t_end, dt=args.dt, rtol=args.rtol, atol=args.atol,
                              method=args.method, progress=not args.quiet, interrupt=interrupt)
    except BondGraphError as exc:
        partial = getattr(exc, "run", None)
        print(f"{name}: {exc}", file=sys.stderr)
        if partial is not None:
            partial.failed = getattr(exc, "time", None) or float(partial.t[-1])
            p = partial.to_csv(out / "results_partial.csv")
            try:
                atomic_write(out / "report.txt", partial.report() + "\n")
            except Exception:  # noqa: BLE001 - the partial report is a courtesy
                pass
            print(f"{name}: the results up to t = {partial.t[-1]:.6g} s are in {p}", file=sys.stderr)
        return 2
    finally:
        if in_main:
            signal.signal(signal.SIGINT, old)
    if run.interrupted:
        run.to_csv(out / "results.csv")
        atomic_write(out / "report.txt", run.report() + "\n")
        print(f"{name}: interrupted at t = {run.t[-1]:.4g} s; partial results and report written to "
              f"{out.resolve()}", file=sys.stderr)
        return 130
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .plots import animate, plot_timeseries, plot_trajectory, write_bond_graph

    settle()                     # and matplotlib, imported just now
    T_plots = time.perf_counter()
    before = set(plt.get_fignums())
    written = [run.to_csv(out / "results.csv").name]
    report = run.report()
    if operator is not None:
        report += f"\noperator: tracking the lengths of {cycle.source}: {operator.tracking(run).text()}"
    atomic_write(out / "report.txt", report + "\n")
    written.append("report.txt")
    if "source_work" in run.table():
        from .compare import write_energy_csv

        written.append(write_energy_csv(run, out / "energy.csv").name)
    bond_graph = not args.no_bond_graph and args.formulation == "causal"
    full = out / "bond_graph_full.pdf" if bond_graph and args.full_bond_graph else None

    def bond_graph_and_animation() -> list[str]:
        done = []
        if bond_graph:
            write_bond_graph(machine, out / "bond_graph.png", full)     # kept from the last run if the same
            done += ["bond_graph.png"] + (["bond_graph_full.pdf"] if full else [])
        if not args.no_animation:
            animate(run, out / "cycle.gif", progress=not args.quiet)
            done.append("cycle.gif")
        return done

    from .background import Background, spare_core

    # two halves of about equal time: in a second process (when a core stood idle while
    # this one built and ran) while this one draws the plots; each file is atomic in either
    other = Background(bond_graph_and_animation, parallel=spare_core(cpu_at_start))
    try:
        plot_trajectory(run, out / "trajectory.png")
        plot_timeseries(run, out / "timeseries.png")
        written += ["trajectory.png", "timeseries.png"]
        for num in set(plt.get_fignums()) - before:
            plt.close(num)
        written += other.wait()
        other = None
    except KeyboardInterrupt:
        print(f"{name}: interrupted while drawing; results.csv and report.txt are complete in "
              f"{out.resolve()}", file=sys.stderr)
        return 130
    finally:
        if other is not None:      # stopped before the other half was awaited: stop it too
            other.cancel()
        for num in set(plt.get_fignums()) - before:
            plt.close(num)
    plots = time.perf_counter() - T_plots
    if not args.quiet:
        print(report)
        tm = run.timings
        from .buildkey import build_origin

        origin = build_origin(run.machine)
        print(f"\ntimings: build {tm['build']:.2f} s{f' ({origin})' if origin else ''}, start state {tm['start']:.3f} s, integration "
              f"{tm['integration']:.3f} s ({run.real_time_factor:.0f}× real time), output "
              f"{tm.get('output', 0.0):.3f} s, files {plots:.2f} s; total {time.perf_counter() - T:.2f} s")
        print(f"wrote {', '.join(written)} to {out.resolve()}")
    return 0


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


if __name__ == "__main__":
    sys.exit(main())
