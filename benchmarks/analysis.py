"""Benchmark: the design studies of the excavator, and a 100-point sweep serially, in local
processes and on a Dask LocalCluster — medians of ``--repeat`` runs, ratios side by side.

Run: ``python benchmarks/analysis.py [--repeat 5] [--points 100] [--no-dask]``.

* working range and tool-force maps on a 50 × 50 × 50 stroke grid (125 000 poses): the
  position analysis, the batched bond-graph statics, the refinement of the extremes and
  the envelope (goal ≤ 1 s each);
* lift capacity (the default height × radius table, over the front and the side), the
  wheel loader's breakout forces and cycle energy (the 10 s valves cycle, 1 ms output step);
* a sweep of ``--points`` tool-force analyses (20 lengths per stroke, weights on) over the
  boom bore × the bucket mass: serial, ``processes=2``, and a Dask ``LocalCluster`` with
  2 worker processes; the cluster's start-up is timed apart.

The machine's load (``os.getloadavg``, as ``uptime`` prints it) is printed before and
after: medians on a shared machine are only comparable at a comparable load.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time


CPU: dict[str, float] = {}     # the last median's CPU time (``time.process_time``), by ``_median``


def _median(fn, repeat: int) -> tuple[float, object]:
    """Median wall time of ``repeat`` runs and the last result; the median CPU time in ``CPU["last"]``
    (on a shared machine the CPU time swings less with the load than the wall time)."""
    times, cpu, out = [], [], None
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    CPU["last"] = statistics.median(cpu)
    return statistics.median(times), out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--points", type=int, default=100)
    ap.add_argument("--no-dask", action="store_true")
    args = ap.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    from mechanisms.analysis import Study, cycle_energy, lift_capacity, sweep, tool_forces, working_range
    from mechanisms.machine import DATA

    study = Study(DATA / "excavator.toml")
    study.statics, study.machine("valves")          # builds out of the timings

    def cold():
        """Forget the kept stroke grids and working ranges: every run solves the 125 000
        poses and analyses them afresh, as a new study does (its models built once, apart)."""
        study._grids.clear()
        study._results.clear()

    def wr():
        cold()
        return working_range(study, n=50)

    def tf():
        cold()
        return tool_forces(study, n=50)

    print(f"load average (1, 5, 15 min) before: {_load()}")
    print(f"excavator, medians of {args.repeat} runs")
    print(f"{'analysis':<32} {'median [s]':>10}   split (last run)")
    t, res = _median(wr, args.repeat)
    print(f"{'working range, 50³ grid':<32} {t:>10.3f}   " + ", ".join(f"{k} {v:.3f}" for k, v in res.timings.items())
          + f"; CPU {CPU['last']:.3f}")
    t, res = _median(tf, args.repeat)
    print(f"{'tool forces, 50³ grid + optimum':<32} {t:>10.3f}   " + ", ".join(f"{k} {v:.3f}" for k, v in res.timings.items())
          + f"; CPU {CPU['last']:.3f}")
    t, res = _median(lambda: lift_capacity(study), args.repeat)
    cells = sum(1 for r in res.rows if math.isfinite(r["rated"]))
    print(f"{'lift capacity, default table':<32} {t:>10.3f}   {cells} cells reached of {len(res.rows)}; "
          + ", ".join(f"{k} {v:.3f}" for k, v in res.timings.items()))
    from mechanisms.analysis import breakout_forces

    loader = Study(DATA / "wheel_loader.toml")
    loader.statics                                 # built out of the timing
    t, res = _median(lambda: breakout_forces(loader, n=30), args.repeat)
    print(f"{'breakout forces, wheel loader':<32} {t:>10.3f}   "
          + ", ".join(f"{r['function']} {r['force'] / 1e3:.1f} kN" for r in res.rows))
    t, res = _median(lambda: cycle_energy(study), max(1, args.repeat // 2))
    print(f"{'cycle energy, 10 s valves cycle':<32} {t:>10.3f}   integration {res.run.timings['integration']:.3f}, "
          f"table {res.run.timings['output']:.3f}; residual {abs(res.terms['residual']) / res.terms['pump_work']:.1e}")

    side = max(1, int(round(math.sqrt(args.points))))
    grid = {"boom_cylinder.bore": f"120..165 mm:{side}", "bucket.mass": f"600..1050 kg:{side}"}
    opts = {"n": 20, "weights": True}
    n_pts = side * side
    print(f"\nsweep of {n_pts} tool-force analyses (boom bore × bucket mass; n = 20, weights on)")
    t_serial, ref = _median(lambda: sweep(DATA / "excavator.toml", grid, "tool-forces", options=opts,
                                          processes=1, progress=False), 1)
    t_proc, local = _median(lambda: sweep(DATA / "excavator.toml", grid, "tool-forces", options=opts,
                                          processes=2, progress=False), 1)
    same = ref.drop(columns="rebuilt").equals(local.drop(columns="rebuilt"))
    print(f"{'serial (this process)':<32} {t_serial:>10.2f} s  {t_serial / n_pts * 1e3:7.1f} ms/point  1.00")
    print(f"{'local processes (2)':<32} {t_proc:>10.2f} s  {t_proc / n_pts * 1e3:7.1f} ms/point  "
          f"{t_serial / t_proc:4.2f}× serial; same table: {same}")
    if not args.no_dask:
        from distributed import Client, LocalCluster

        T = time.perf_counter()
        import logging

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                          silence_logs=logging.CRITICAL) as cl, Client(cl) as client:
            t_up = time.perf_counter() - T
            client.run(_import_analysis)                              # imports out of the timing
            t_dask, on_dask = _median(lambda: sweep(DATA / "excavator.toml", grid, "tool-forces", options=opts,
                                                    client=client, progress=False), 1)
        same = ref.drop(columns="rebuilt").equals(on_dask.drop(columns="rebuilt"))
        print(f"{'Dask LocalCluster (2 workers)':<32} {t_dask:>10.2f} s  {t_dask / n_pts * 1e3:7.1f} ms/point  "
              f"{t_serial / t_dask:4.2f}× serial, {t_proc / t_dask:4.2f}× local processes; same table: {same}; "
              f"cluster start {t_up:.2f} s")
    print(f"load average (1, 5, 15 min) after: {_load()}")


def _import_analysis() -> None:
    """Import the analyses on a worker; nothing returned (a module is no result to send back)."""
    import mechanisms.analysis.sweeps  # noqa: F401


def _load() -> str:
    """The machine's load average, as ``uptime`` prints it (the benchmarks' shared helper)."""
    from conditions import load

    return load()


if __name__ == "__main__":
    from conditions import announce

    announce()
    main()
