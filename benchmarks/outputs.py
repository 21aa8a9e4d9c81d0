"""Benchmark: a run's read-outs — every bond effort and flow, energy and power at every
output time (``Results.outputs()``) — evaluated one sample at a time from Python (the
loop ``outputs()`` was until it used :func:`bondgraph.batch.evaluate_many`, reproduced
here) against the one batched call, side by side on the same results: the excavator's
10 s cycle in each mode at a 1 ms output step (10 001 samples). Medians of ``--repeat``;
the largest relative difference between the two says they agree.

Run: ``python benchmarks/outputs.py [--repeat 7] [--dt 0.001] [--machine excavator]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def per_sample(res) -> np.ndarray:
    """The former ``Results.outputs``: one compiled call per sample from Python."""
    sysm = res.model.system
    data = np.zeros((len(res.t), len(sysm.output_names)))
    for i, (ti, xi) in enumerate(zip(res.t, res.x)):
        if res.inputs.names:
            u, du = res.inputs(ti)
            sysm.set_inputs(u, du)
        try:
            data[i] = sysm.outputs(ti, xi)
        except FloatingPointError:
            data[i] = np.nan
    return data


def batched(res) -> dict[str, np.ndarray]:
    res._out = None
    return res.outputs()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--dt", type=float, default=0.001)
    ap.add_argument("--machine", default="excavator")
    args = ap.parse_args(argv)
    from mechanisms.machine import DATA, Machine

    print(f"{args.machine}, default cycle, output step {args.dt * 1e3:g} ms; medians of {args.repeat}")
    print(f"{'mode':<11} {'samples':>8} {'outputs':>8} {'per-sample':>11} {'batched':>9} {'ratio':>7} "
          f"{'table before':>13} {'table after':>12} {'max rel. diff':>14}")
    for mode in ("extensions", "forces", "valves"):
        m = Machine.from_file(DATA / f"{args.machine}.toml", mode=mode)
        run = m.run(dt=args.dt, progress=False)
        res = run.results
        a, b, ta, tb = [], [], [], []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            ref = per_sample(res)
            t1 = time.perf_counter()
            new = batched(res)
            t2 = time.perf_counter()
            a.append(t1 - t0)
            b.append(t2 - t1)
            # the whole table stage of a run (read-outs + named columns), both ways
            res._out = {n: ref[:, j] for j, n in enumerate(res.model.system.output_names)}
            run._table = None
            t3 = time.perf_counter()
            run.table()
            t4 = time.perf_counter()
            res._out = None
            run._table = None
            run.table()
            t5 = time.perf_counter()
            ta.append(t1 - t0 + t4 - t3)
            tb.append(t5 - t4)
        new = np.column_stack([new[n] for n in res.model.system.output_names])
        diff = float(np.nanmax(np.abs(new - ref) / np.maximum(np.abs(ref), 1.0)))
        med = statistics.median
        print(f"{mode:<11} {len(res.t):>8} {ref.shape[1]:>8} {med(a):>10.3f}s {med(b):>8.4f}s "
              f"{med(a) / med(b):>6.0f}× {med(ta):>12.3f}s {med(tb):>11.3f}s {diff:>14.1e}")


if __name__ == "__main__":
    from conditions import announce

    announce()
    main()
