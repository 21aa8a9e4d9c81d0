"""Benchmark (issue 22): how soon commands answer, and how fast a run writes its files.

Part 1, each command in a fresh interpreter (what a user waits for), medians of
``--repeat`` after one unmeasured warm-up (compile and unit caches filled): ``import``
of the packages, ``hydrobond --help``, ``list``, ``check wheel_loader``, ``run excavator``
with every default output and the ``make demo`` command. Each is printed beside the
goal of issue 22 and the figure the issue measured before the change.

Part 2, on a run of the excavator's 10 s valves cycle, each in a fresh interpreter as the
command meets it: the output stage of ``hydrobond run`` (trajectory, time series, bond
graph, animation) one file after the other against the bond graph and animation in a
forked process while the plots are drawn (:mod:`mechanisms.machine.background`),
interleaved, medians of ``--repeat``.

The commands run as ``python -m mechanisms.machine`` (what the ``hydrobond`` script
runs) with this checkout first on ``PYTHONPATH``. ``--against DIR`` runs each command of
part 1 in another checkout too (an export of the commit before a change), interleaved with
this one, and prints both with their CPU time (user + system of the command and of any
process it forked), which a busy machine disturbs less than the wall time.
``--bytecode`` lets the commands write and read ``.pyc`` files even when
``PYTHONDONTWRITEBYTECODE`` is set (an installed package has them; without them every
command compiles the packages' source again, about 0.25 s).

Part 3, the output stage in one process file by file (as a run at a load of 1 or more
writes it), each in a fresh interpreter with warm caches: the CPU of each file and the
scipy packages the stage itself imports; with ``--against DIR`` that checkout too,
interleaved.

Run: ``python benchmarks/startup.py [--repeat 5] [--skip-outputs] [--skip-files] [--against DIR] [--bytecode]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))     # this checkout, as in the commands' PYTHONPATH

#: (label, arguments after ``python``, goal in s or None, the issue's figure before)
COMMANDS = [
    ("import bondgraph", ["-c", "import bondgraph"], None, "(part of the next)"),
    ("import mechanisms", ["-c", "import mechanisms"], 0.5, "1.3–1.45 s"),
    ("import the model stack", ["-c", "from mechanisms.machine import Machine; Machine"], None, "—"),
    ("hydrobond --help", ["-m", "mechanisms.machine", "--help"], 0.3, "1.4–2.7 s"),
    ("hydrobond list", ["-m", "mechanisms.machine", "list"], None, "2.0 s"),
    ("hydrobond check wheel_loader", ["-m", "mechanisms.machine", "check", "wheel_loader"], None, "5.1 s"),
    ("hydrobond run excavator", ["-m", "mechanisms.machine", "run", "excavator", "--quiet", "--out", "{out}"],
     2.0, "4.5 s"),
    ("make demo (excavator run --mode valves)",
     ["-m", "mechanisms.excavator", "run", "--mode", "valves", "--quiet", "--out", "{out}"], 3.0, "6.4 s"),
]


#: whether the commands may use .pyc files (``--bytecode``)
BYTECODE = [False]


def _env(root: Path = ROOT) -> dict[str, str]:
    path = os.environ.get("PYTHONPATH")
    env = dict(os.environ, MPLBACKEND="Agg",
               PYTHONPATH=str(root) + (os.pathsep + path if path else ""))
    if BYTECODE[0]:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def time_command(args: list[str], out: str, root: Path = ROOT) -> float:
    """Wall time of one ``python ARGS`` in a fresh interpreter (s); a failure stops the benchmark."""
    return run_command(args, out, root)[0]


def run_command(args: list[str], out: str, root: Path = ROOT) -> tuple[float, float]:
    """Wall and CPU time (user + system, its children included) of one ``python ARGS`` in a
    fresh interpreter in checkout ``root`` (s); a failure stops the benchmark."""
    import resource

    cmd = [sys.executable] + [a.format(out=out) for a in args]
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=_env(root), cwd=root, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return dt, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def against(repeat: int, other: Path) -> None:
    """Part 1 in this checkout and ``other``, interleaved: medians of wall and CPU time."""
    med = statistics.median
    print(f"\nPart 1: commands in a fresh interpreter, this checkout against {other}, interleaved, "
          f"medians of {repeat} (after one warm-up each); wall / CPU")
    print(f"{'command':<42} {'before':>15} {'after':>15} {'CPU ratio':>9} {'goal':>7}")
    with tempfile.TemporaryDirectory() as d:
        for label, args, goal, _ in COMMANDS:
            out = os.path.join(d, "out")
            run_command(args, out, other)
            run_command(args, out)
            b, a = [], []
            for _ in range(repeat):
                b.append(run_command(args, out, other))
                a.append(run_command(args, out))
            bw, bc, aw, ac = (med(x[k] for x in rs) for rs in (b, a) for k in (0, 1))
            verdict = "" if goal is None else ("  met" if aw <= goal else "  NOT met")
            print(f"{label:<42} {bw:>6.2f} / {bc:>5.2f}s {aw:>6.2f} / {ac:>5.2f}s {bc / ac:>8.2f}× "
                  f"{'' if goal is None else f'≤{goal:g} s':>7}{verdict}  (load {os.getloadavg()[0]:.2f})",
                  flush=True)


def commands(repeat: int) -> None:
    print(f"\nPart 1: commands in a fresh interpreter, medians of {repeat} (after one warm-up)")
    print(f"{'command':<42} {'median':>8} {'min':>7} {'goal':>7}  {'issue 22 (before)':>18}")
    with tempfile.TemporaryDirectory() as d:
        for label, args, goal, before in COMMANDS:
            out = os.path.join(d, "out")
            time_command(args, out)
            ts = [time_command(args, out) for _ in range(repeat)]
            med = statistics.median(ts)
            verdict = "" if goal is None else ("  met" if med <= goal else "  NOT met")
            print(f"{label:<42} {med:>7.2f}s {min(ts):>6.2f}s "
                  f"{'' if goal is None else f'≤{goal:g} s':>7}  {before:>18}{verdict}", flush=True)


#: one output stage of `hydrobond run excavator` in a fresh interpreter (as the command
#: meets it: fonts, caches and the drawing code cold), one process or two
_STAGE = """
import os, sys, tempfile, time
import matplotlib; matplotlib.use("Agg")
from mechanisms.machine import DATA, Machine
from mechanisms.machine.background import Background
from mechanisms.machine.plots import animate, plot_bond_graph, plot_timeseries, plot_trajectory
machine = Machine.from_file(DATA / "excavator.toml", mode="valves")
run = machine.run(progress=False); run.table()
d = tempfile.mkdtemp()
def other():
    plot_bond_graph(machine, os.path.join(d, "bond_graph.png"))
    animate(run, os.path.join(d, "cycle.gif"), progress=False)
t0 = time.perf_counter()
job = Background(other, parallel=sys.argv[1] == "two")   # forced either way
plot_trajectory(run, os.path.join(d, "trajectory.png"))
plot_timeseries(run, os.path.join(d, "timeseries.png"))
job.wait()
print(time.perf_counter() - t0, len(run.t))
"""


def outputs(repeat: int) -> None:
    from mechanisms.machine.background import can_fork

    def stage(how: str) -> tuple[float, int]:
        proc = subprocess.run([sys.executable, "-c", _STAGE, how], env=_env(), cwd=ROOT,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"the output stage failed:\n{proc.stderr[-2000:]}")
        dt, n = proc.stdout.split()
        return float(dt), int(n)

    print(f"\nPart 2: the output stage of `hydrobond run excavator` (trajectory, time series, bond "
          f"graph, animation), each in a fresh interpreter, interleaved, medians of {repeat}")
    if not can_fork():
        print("  this machine cannot fork or has one core: the two ways are the same")
    seq, par = [], []
    for _ in range(repeat):
        seq.append(stage("one")[0])
        par.append(stage("two")[0])
    med = statistics.median
    print(f"{'one process':<42} {med(seq):>7.2f}s")
    print(f"{'bond graph + animation in a second one':<42} {med(par):>7.2f}s   "
          f"ratio {med(seq) / med(par):.2f}× (load average now {os.getloadavg()[0]:.2f})")


#: the output stage's files one after the other in one process, as `hydrobond run` writes
#: them at a load of 1 or more: the CPU of each and the scipy modules the stage imports
_FILES = """
import json, os, sys, tempfile, time
import matplotlib; matplotlib.use("Agg"); import matplotlib.pyplot as plt
from mechanisms.machine import DATA, Machine
import mechanisms.machine.plots as P
machine = Machine.from_file(DATA / "excavator.toml", mode="valves")
run = machine.run(progress=False); run.table()
d = tempfile.mkdtemp()
before = set(sys.modules)
bond_graph = getattr(P, "write_bond_graph", P.plot_bond_graph)   # the writer `hydrobond run` calls
cpu = {}
for name, write in [("trajectory", lambda: P.plot_trajectory(run, os.path.join(d, "trajectory.png"))),
                    ("time series", lambda: P.plot_timeseries(run, os.path.join(d, "timeseries.png"))),
                    ("bond graph", lambda: bond_graph(machine, os.path.join(d, "bond_graph.png"))),
                    ("animation", lambda: P.animate(run, os.path.join(d, "cycle.gif"), progress=False))]:
    c0 = time.process_time()
    write()
    cpu[name] = time.process_time() - c0
    plt.close("all")
print(json.dumps({"cpu": cpu, "scipy": sorted(m for m in set(sys.modules) - before
                                              if m.startswith("scipy.") and m.count(".") == 1)}))
"""


def files(repeat: int, other: Path | None) -> None:
    """Part 3: the output stage's CPU file by file in a fresh interpreter (warm caches), this
    checkout (and ``other``, interleaved), medians; the scipy packages the stage imports."""
    import json

    def stage(root: Path) -> dict:
        proc = subprocess.run([sys.executable, "-c", _FILES], env=_env(root), cwd=root, capture_output=True,
                              text=True)
        if proc.returncode != 0:
            raise SystemExit(f"the output stage failed in {root}:\n{proc.stderr[-2000:]}")
        return json.loads(proc.stdout.strip().splitlines()[-1])

    roots = ([other] if other else []) + [ROOT]
    for root in roots:
        stage(root)                                   # warm-up: caches filled
    got: dict[Path, list[dict]] = {root: [] for root in roots}
    for _ in range(repeat):
        for root in roots:
            got[root].append(stage(root))
    med = statistics.median
    print(f"\nPart 3: the output stage in one process, CPU by file, fresh interpreters, interleaved, "
          f"medians of {repeat} (load average now {os.getloadavg()[0]:.2f})")
    names = list(got[ROOT][0]["cpu"])
    print(f"{'checkout':<28} " + " ".join(f"{n:>12}" for n in names) + f" {'total':>8}  scipy imported by the stage")
    for root in roots:
        rows = got[root]
        per = [med(r["cpu"][n] for r in rows) for n in names]
        label = "this checkout" if root == ROOT else str(root)
        print(f"{label[:28]:<28} " + " ".join(f"{v:>11.3f}s" for v in per) +
              f" {med(sum(r['cpu'].values()) for r in rows):>7.3f}s  {', '.join(rows[-1]['scipy']) or 'none'}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--skip-outputs", action="store_true", help="only part 1")
    ap.add_argument("--skip-commands", action="store_true", help="only parts 2 and 3")
    ap.add_argument("--skip-files", action="store_true", help="without part 3")
    ap.add_argument("--against", type=Path, help="another checkout to measure part 1 in, interleaved")
    ap.add_argument("--bytecode", action="store_true", help="let the commands use .pyc files")
    args = ap.parse_args(argv)
    BYTECODE[0] = args.bytecode
    if not args.skip_commands:
        if args.against:
            against(args.repeat, args.against.resolve())
        else:
            commands(args.repeat)
    if not args.skip_outputs:
        outputs(args.repeat)
    if not args.skip_files:
        files(args.repeat, args.against.resolve() if args.against else None)


if __name__ == "__main__":
    from conditions import announce

    announce()
    main()
