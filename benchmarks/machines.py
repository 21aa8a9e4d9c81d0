"""Benchmark: every shipped machine, every mode — build (cold and warm), start state,
integration, table, report and animation, medians of ``--repeat`` runs side by side.

Run: ``python benchmarks/machines.py [--repeat 5] [--machines excavator wheel_loader]``.
"Warm" is a second build in a fresh process-level state with the compile cache and the
unit cache filled (what a user sees from the second run on); "cold" empties both.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

MODES = ("extensions", "forces", "valves")


def _build_in_subprocess(machine: str, mode: str, cache: str) -> dict[str, float]:
    code = ("import time; t0=time.perf_counter(); from mechanisms.machine import Machine, DATA; t1=time.perf_counter();"
            f"m=Machine.from_file(DATA/'{machine}.toml', mode='{mode}'); t2=time.perf_counter();"
            "import sys; print(t1-t0, t2-t1, 'pint' in sys.modules)")
    env = dict(os.environ, BONDGRAPH_CACHE=cache)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    imp, build, pint = out.stdout.split()
    return {"import": float(imp), "build": float(build), "pint": pint == "True"}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--machines", nargs="*", default=["excavator", "wheel_loader", "knuckle_crane", "excavator_mini"])
    args = ap.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    from mechanisms.machine import DATA, Machine
    from mechanisms.machine.plots import animate

    print(f"{'machine':<15} {'mode':<10} {'cold':>6} {'warm':>6} {'pint':>5} {'start':>7} {'integr.':>8} "
          f"{'×real':>6} {'table':>6} {'report':>7} {'gif':>6}")
    for name in args.machines:
        for mode in MODES:
            cold, warm, pint = [], [], []
            for _ in range(max(1, args.repeat // 2)):
                with tempfile.TemporaryDirectory() as cache:
                    cold.append(_build_in_subprocess(name, mode, cache)["build"])
                    w = _build_in_subprocess(name, mode, cache)
                    warm.append(w["build"])
                    pint.append(w["pint"])
            m = Machine.from_file(DATA / f"{name}.toml", mode=mode)
            cyc = m.cycle()
            start, integ, table, report = [], [], [], []
            for _ in range(args.repeat):
                run = m.run(cyc, progress=False)
                start.append(run.timings["start"])
                integ.append(run.timings["integration"])
                table.append(run.timings["output"])
                t0 = time.perf_counter()
                run.report()
                report.append(time.perf_counter() - t0)
            with tempfile.TemporaryDirectory() as d:
                gifs = []
                for _ in range(max(1, args.repeat // 2)):
                    t0 = time.perf_counter()
                    animate(run, os.path.join(d, "a.gif"), progress=False)
                    gifs.append(time.perf_counter() - t0)
            span = float(run.t[-1] - run.t[0])
            med = statistics.median
            print(f"{name:<15} {mode:<10} {med(cold):>6.2f} {med(warm):>6.3f} {str(any(pint)):>5} {med(start):>7.3f} "
                  f"{med(integ):>8.3f} {span / med(integ):>6.0f} {med(table):>6.3f} {med(report):>7.3f} {med(gifs):>6.2f}")


if __name__ == "__main__":
    from conditions import announce

    announce()
    main()
