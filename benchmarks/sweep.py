"""Benchmark: issue 22's 100-point design sweep — serially, in two local processes and on a
Dask ``LocalCluster`` of two worker processes — for this checkout and, with ``--against DIR``,
another one (e.g. ``git archive main | tar -x -C /tmp/before``), interleaved run by run so
both see the same load; medians of ``--repeat`` runs, each in a fresh interpreter.

Run: ``python benchmarks/sweep.py [--repeat 3] [--against DIR] [--no-dask] [--grid boom|arm|both] [--pairs N]``.

The sweeps (tool forces on 20 lengths per stroke, weights on, the excavator):

* ``boom``: issue 22's grid, boom cylinder bore 120..165 mm × bucket mass 600..1050 kg
  (10 × 10). The boom's bore is no input of the arm's and bucket's tool forces: a sweep
  that reuses evaluations by their inputs evaluates ten points and replays ninety;
* ``arm``: arm cylinder bore 100..145 mm × bucket mass (10 × 10): the arm's bore is an
  input of the arm's tool force, so only the bucket's evaluations can be reused — the
  case of a grid whose every point is new to the analysis.

Each interpreter runs its sweeps in order — serial (the study built in the timing, from
the compile cache: "first"), serial again (the study kept: "warm"), ``processes=2`` (the
workers forked in the timing), ``processes=2`` again ("processes 2 warm": the pool kept
between sweeps, where the checkout keeps it; forked again where it does not), and
on Dask: the cluster started and its workers' imports done before the timing, then a
first sweep (each worker builds its study) and a second (its study kept) — and reports
wall and CPU time (the parent's for serial; the parent's and its children's for
processes, the children's split from the parent's for the two — a kept pool's live workers
read from ``/proc`` —; the client's and the workers' for Dask). Every table is checked equal to the
serial one. The load average is printed before and after.

``--pairs N`` then alternates, in the same interpreter, N serial sweeps and N sweeps on two
processes (the pool kept where the checkout keeps it), and prints the median of the N
ratios of each pair: the two sweeps of a pair a second apart see the same load, where the
medians above compare sweeps a minute apart.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

GRIDS = {"boom": {"boom_cylinder.bore": "120..165 mm:10", "bucket.mass": "600..1050 kg:10"},
         "arm": {"arm_cylinder.bore": "100..145 mm:10", "bucket.mass": "600..1050 kg:10"}}
OPTIONS = {"n": 20, "weights": True}


def _noop() -> None:
    """Import the analyses on a Dask worker (nothing sent back)."""
    import mechanisms.analysis.sweeps  # noqa: F401


def _child(grid_name: str, dask: bool, pairs: int = 0) -> None:
    import resource

    from mechanisms.analysis import sweep
    from mechanisms.machine import DATA

    grid = GRIDS[grid_name]
    out = {}

    def timed(label, **kw):
        ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        live = _live_children_cpu if "client" not in kw else dict    # Dask's workers: counted below
        live0 = live()
        c0, t0 = time.process_time(), time.perf_counter()
        df = sweep(DATA / "excavator.toml", grid, "tool-forces", options=OPTIONS, progress=False, **kw)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        live1 = live()
        # the children: those that ended (rusage, less what they had used before), and those
        # still running (a kept pool's workers: what they used meanwhile, from /proc)
        ended = (ru1.ru_utime + ru1.ru_stime) - (ru0.ru_utime + ru0.ru_stime) \
            - sum(c for pid, c in live0.items() if pid not in live1)
        each = sorted(c - live0.get(pid, 0.0) for pid, c in live1.items())
        running = sum(each)
        out[label] = {"wall": wall, "cpu": cpu + ended + running, "parent": cpu, "children": ended + running,
                      "busiest": max(each) if each and not ended > 0.005 else float("nan")}
        return df

    ref = timed("serial first", processes=1)
    timed("serial warm", processes=1)
    cols = [c for c in ref.columns if c != "rebuilt"]
    same = {"processes": timed("processes 2", processes=2)[cols].equals(ref[cols])}
    same["processes warm"] = timed("processes 2 warm", processes=2)[cols].equals(ref[cols])
    ratios = []
    for _ in range(pairs):
        timed("pair serial", processes=1)
        timed("pair processes", processes=2)
        ratios.append(out["pair serial"]["wall"] / out["pair processes"]["wall"])
    if ratios:
        out["pairs"] = {"wall": statistics.median(ratios), "cpu": float("nan"), "all": ratios}
    if dask:
        import logging

        from distributed import Client, LocalCluster

        t0 = time.perf_counter()
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                          silence_logs=logging.CRITICAL) as cl, Client(cl) as client:
            client.run(_noop)
            out["dask start"] = {"wall": time.perf_counter() - t0, "cpu": float("nan")}
            for label in ("dask first", "dask warm"):
                c0 = sum(client.run(time.process_time).values())
                same[label] = timed(label, client=client)[cols].equals(ref[cols])
                out[label]["cpu"] += sum(client.run(time.process_time).values()) - c0   # the workers' CPU
    out["same"] = same
    print("RESULT " + json.dumps(out))


def _live_children_cpu() -> dict[int, float]:
    """CPU seconds (user + system) of this process's live children, by pid (Linux /proc)."""
    import multiprocessing as mp

    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for p in mp.active_children():
        try:
            fields = Path(f"/proc/{p.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[p.pid] = (int(fields[11]) + int(fields[12])) / tick
    return out


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--against", type=Path, default=None, help="another checkout, measured interleaved")
    ap.add_argument("--no-dask", action="store_true")
    ap.add_argument("--grid", choices=["boom", "arm", "both"], default="both")
    ap.add_argument("--pairs", type=int, default=0, help="alternate N serial and pooled sweeps, paired ratios")
    ap.add_argument("--child", choices=list(GRIDS), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        _child(args.child, not args.no_dask, args.pairs)
        return
    here = Path(__file__).resolve().parents[1]
    roots = [("this", here)] + ([("against", args.against.resolve())] if args.against else [])
    grids = list(GRIDS) if args.grid == "both" else [args.grid]
    runs: dict = {}
    print(f"load average (1, 5, 15 min) before: {_load()}")
    for r in range(args.repeat):
        for g in grids:
            for name, root in roots:
                env = {**os.environ, "PYTHONPATH": str(root), "MPLBACKEND": "Agg"}
                cmd = [sys.executable, str(Path(__file__).resolve()), "--child", g, "--pairs", str(args.pairs)] + \
                    (["--no-dask"] if args.no_dask else [])
                p = subprocess.run(cmd, env=env, cwd=root, capture_output=True, text=True)
                line = next((ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")), None)
                if line is None:
                    print(f"{name} {g}: failed\n{p.stderr[-2000:]}")
                    continue
                res = json.loads(line[7:])
                runs.setdefault((g, name), []).append(res)
                print(f"  run {r + 1} {g} {name}: " + ", ".join(
                    f"{k} {v['wall']:.2f} s" for k, v in res.items() if k not in ("same", "pairs", "pair serial",
                                                                               "pair processes"))
                    + (f"; paired ratios {', '.join(f'{x:.2f}' for x in res['pairs']['all'])}" if "pairs" in res else "")
                    + f"; same tables {res['same']}; "
                    f"load {_load()}", flush=True)
    print(f"\nmedians of {args.repeat} (wall / CPU, s)")
    labels = ["serial first", "serial warm", "processes 2", "processes 2 warm", "dask start", "dask first",
              "dask warm"]
    for g in grids:
        print(f"grid {g}: " + ", ".join(f"{k} = {v}" for k, v in GRIDS[g].items()))
        for name, _ in roots:
            rs = runs.get((g, name), [])
            if not rs:
                continue
            med = {k: (statistics.median(x[k]["wall"] for x in rs), statistics.median(x[k]["cpu"] for x in rs))
                   for k in labels if k in rs[0]}
            cells = "  ".join(f"{k}: {w:.2f} / {c:.2f}" for k, (w, c) in med.items())
            ratio = ""
            if "serial warm" in med and "processes 2" in med:
                ratio += f"; processes {med['serial warm'][0] / med['processes 2'][0]:.2f}× serial warm"
            if "serial warm" in med and "processes 2 warm" in med:
                ratio += f", processes warm {med['serial warm'][0] / med['processes 2 warm'][0]:.2f}×"
            if "dask warm" in med:
                ratio += f", Dask warm {med['serial warm'][0] / med['dask warm'][0]:.2f}× serial warm"
            print(f"  {name:<8} {cells}{ratio}")
            split = [f"{k}: parent {statistics.median(x[k]['parent'] for x in rs):.3f} + children "
                     f"{statistics.median(x[k]['children'] for x in rs):.3f}"
                     + (f" (busiest worker {statistics.median(x[k]['busiest'] for x in rs):.3f})"
                        if rs[0][k].get("busiest", float("nan")) == rs[0][k].get("busiest") else "")
                     for k in ("processes 2", "processes 2 warm") if k in rs[0] and "parent" in rs[0][k]]
            if split:
                print(f"  {'':<8} CPU split (s): " + "; ".join(split))
            if "pairs" in rs[0]:
                every = sorted(v for x in rs for v in x["pairs"]["all"])
                print(f"  {'':<8} serial / 2 processes, sweeps alternated: median {statistics.median(every):.2f}× "
                      f"({len(every)} pairs, {every[0]:.2f}–{every[-1]:.2f}×)")
    print(f"load average (1, 5, 15 min) after: {_load()}")


if __name__ == "__main__":
    main()
