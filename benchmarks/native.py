"""Benchmark (issue 12): native CVODE (driven from C) against the Python-callback path.

Side by side in one run, medians of ``--repeat`` runs (the machine is shared and
noisy; never timed inside tests), each case driven three ways: the Python path as it
was before the step loop (scikit-sundae's normal mode per segment, no per-step checks;
reproduced here), the Python path with the step loop (:mod:`bondgraph.stepping`: one
step at a time, the divisor monitor after each), and the native driver (the same
rules in C):

* the excavator's 10 s dig–lift–dump cycle in mode ``valves`` (CVODE, rtol 1e-6):
  integration, start state and whole run, RHS and Jacobian counts, the tip's largest
  distance to an rtol 1e-10 run, × real time (from integration); modes
  ``extensions`` and ``forces`` the same way;
* the hydraulic lifted-mass rig and the N = 10 / 40 / 200 mass–spring–damper chain
  (``benchmarks/core_chain.py``), 10 s each;
* the excavator's build, cold (empty compile cache) and warm (cache filled), each in
  a fresh process, with its stages: parameters and mechanism, assemble, causality,
  collect (element laws and fingerprint), derive, generate C, compile, load.

Run: ``python benchmarks/native.py [--repeat 5] [--skip-build]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

#: the issue's figures for the valves cycle at checkout 298d6ce (integration, CLI run)
BEFORE = {"integration": 0.11, "run": (0.33, 0.47)}


def med(xs):
    return statistics.median(xs)


def tip_error(tab, ref) -> float:
    return float(np.max(np.hypot(tab["tip_x"] - ref["tip_x"], tab["tip_y"] - ref["tip_y"])))


#: the three ways CVODE is driven, side by side: the Python path as it was before the step
#: loop (scikit-sundae's normal mode over each segment, no per-step checks: reproduced here
#: by :func:`before_step_loop`), the Python path with the step loop, the native driver
VARIANTS = ("before", "python", "native")


@contextmanager
def variant(name: str):
    """Inside the block, CVODE runs (``backend="auto"``) are driven the ``name`` way."""
    from bondgraph.native import auto_backend

    if name == "native":
        with auto_backend("native"):
            yield
        return
    with auto_backend("python"):
        if name == "python":
            yield
            return
        import bondgraph.stepping as st

        saved = st._loop
        st._loop = before_step_loop
        try:
            yield
        finally:
            st._loop = saved


def before_step_loop(method, fun, jac, a, b, y0, watch, rtol, atol, max_step, first_step, out,
                     found, events, on_step, seg):
    """A CVODE segment as the Python path integrated it before the step loop: one
    ``CVODE.solve`` in normal mode over ``[a, b]`` (outputs at the requested times, else
    every internal step), the compiled model called from Python, no monitor, no per-step
    rules (the same right-hand side object, so its call counting is included)."""
    from sksundae.cvode import CVODE

    if method != "CVODE":
        raise ValueError("before_step_loop: CVODE only")

    def rhsfn(t, yy, yp):
        fun.into(t, yy, yp)

    opts = dict(rtol=rtol, atol=atol, method="BDF", max_num_steps=500_000)
    if np.isfinite(max_step):
        opts["max_step"] = max_step
    if first_step is not None:
        opts["first_step"] = min(float(first_step), b - a)
    if jac is not None:
        def jacfn(t, yy, yp, JJ):
            JJ[:, :] = jac(t, yy)
        opts["jacfn"] = jacfn
    eps = 1e-12 * max(1.0, abs(a), abs(b))
    te = out.te
    inner = np.zeros(0) if te is None else te[(te > a + eps) & (te < b - eps)]
    sol = CVODE(rhsfn, **opts).solve(np.concatenate([[a], inner, [b]]), np.asarray(y0, dtype=float))
    tt, yy = np.asarray(sol.t)[1:], np.asarray(sol.y)[1:]
    if te is not None:
        keep = np.isin(tt, te[out.ie:])
        tt, yy = tt[keep], yy[keep]
        out.ie += len(tt)
    out.block(tt, yy)
    watch.steps += len(sol.t) - 1
    watch.good(float(sol.t[-1]), yy[-1].copy() if len(yy) else np.asarray(y0, dtype=float))
    return seg(t_end=float(sol.t[-1]), y_end=watch.y_good.copy())


def excavator(mode: str, repeat: int) -> list[dict]:
    from mechanisms.excavator import Cycle, Excavator

    exc = Excavator(mode=mode)
    cyc = Cycle.default(mode)
    kw = dict(method="CVODE", progress=False, energy=False)
    ref = exc.run(cyc, rtol=1e-10, atol=1e-12, **kw).table()
    rows = []
    for name in VARIANTS:
        integ, start, whole, last = [], [], [], None
        with variant(name):
            for _ in range(repeat):
                last = exc.run(cyc, **kw)
                integ.append(last.results.stats["wall_time"])
                start.append(last.timings["start"])
                whole.append(sum(last.timings[k] for k in ("start", "integration", "output")))
        st = last.results.stats
        rows.append(dict(case=f"excavator {mode}", backend=name, integration=med(integ),
                         start=med(start), whole=med(whole), nfev=st["nfev"], njev=st["njev"],
                         tip=tip_error(last.table(), ref), span=float(last.results.t[-1])))
    return rows


def timed(case: str, run, repeat: int, final) -> list[dict]:
    """``run()`` (a simulate call) ``repeat`` times each way: medians, counts, a read-out."""
    rows = []
    for name in VARIANTS:
        walls, res = [], None
        with variant(name):
            for _ in range(repeat):
                t0 = time.perf_counter()
                res = run()
                walls.append(time.perf_counter() - t0)
        rows.append(dict(case=case, backend=name, integration=med(walls), nfev=res.stats["nfev"],
                         njev=res.stats["njev"], span=10.0, final=final(res)))
    return rows


def lifted(repeat: int) -> list[dict]:
    from bondgraph import simulate
    from hydraulics_rigs import lifted_mass

    model = lifted_mass()
    return timed("lifted mass", lambda: simulate(model, (0.0, 10.0), method="CVODE", rtol=1e-6,
                                                 atol=1e-6, progress=False),
                 repeat, lambda res: float(res["lift/cyl/piston.s"][-1]))


def chain(n: int, repeat: int) -> list[dict]:
    import bondgraph as bg
    from core_chain import mass_chain

    model = bg.build(mass_chain(n))
    rows = timed(f"chain N={n}", lambda: bg.simulate(model, (0, 10), method="CVODE", progress=False),
                 repeat, lambda res: float(res.x[-1, 0]))
    walls = []
    for _ in range(repeat):                      # a median, as the rows beside it
        t0 = time.perf_counter()
        res = bg.simulate(model, (0, 10), method="LSODA", progress=False)
        walls.append(time.perf_counter() - t0)
    rows.append(dict(case=f"chain N={n}", backend="LSODA", integration=med(walls),
                     nfev=res.stats["nfev"], njev=res.stats["njev"], span=10.0, final=float(res.x[-1, 0])))
    return rows


_BUILD = r"""
import json, time
t0 = time.perf_counter()
from mechanisms.excavator import Excavator
t_import = time.perf_counter() - t0
t0 = time.perf_counter()
exc = Excavator(mode="valves")
total = time.perf_counter() - t0
bt = dict(exc.model.model.build_times)
model_total = sum(v for k, v in bt.items() if k != "cached")
print(json.dumps({"total": total, "import": t_import, "params+mechanism": total - model_total, **bt}))
"""


def build(repeat: int) -> dict[str, dict[str, float]]:
    out: dict[str, list[dict]] = {"cold": [], "warm": []}
    env = dict(os.environ)
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as cache:
            env["BONDGRAPH_CACHE"] = cache
            for kind in ("cold", "warm"):
                proc = subprocess.run([sys.executable, "-c", _BUILD], env=env, capture_output=True,
                                      text=True, check=True)
                out[kind].append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return {k: {key: med([r.get(key, 0.0) for r in v]) for key in v[0]} for k, v in out.items()}


def print_runs(rows: list[dict]) -> None:
    print(f"{'case':<20} {'driven by':<9} {'integrate':>10} {'start':>7} {'output':>7} {'whole':>7} {'RHS':>6} "
          f"{'Jac':>4} {'× real t':>9} {'tip err':>9} {'python/this':>11} {'before/this':>11}")
    base: dict[tuple[str, str], float] = {}
    for r in rows:
        base[(r["case"], r["backend"])] = r["integration"]
    for r in rows:
        whole = r.get("whole")
        rest = (f"{r['start']:>6.3f}s {whole - r['integration'] - r['start']:>6.3f}s"
                if whole is not None else f"{'':>15}")
        ws = f"{whole:>6.3f}s" if whole is not None else f"{'':>7}"
        tip = f"{r['tip'] * 1e3:>7.3f}mm" if "tip" in r else f"{'':>9}"
        vs_py = base.get((r["case"], "python"), float("nan")) / r["integration"]
        vs_old = base.get((r["case"], "before"), float("nan")) / r["integration"]
        print(f"{r['case']:<20} {r['backend']:<9} {r['integration']:>9.4f}s {rest} {ws} {r['nfev']:>6} "
              f"{r['njev']:>4} {r['span'] / r['integration']:>8.0f}× {tip} {vs_py:>10.2f}× {vs_old:>10.2f}×")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--skip-build", action="store_true")
    args = ap.parse_args(argv)
    from bondgraph.native import available

    ok, why = available()
    print(f"native driver: {'available' if ok else 'NOT available: ' + why}; medians of {args.repeat}\n")
    rows = []
    for mode in ("valves", "extensions", "forces"):
        rows += excavator(mode, args.repeat)
    rows += lifted(args.repeat)
    for n in (10, 40, 200):
        rows += chain(n, args.repeat)
    print("# 10 s runs, CVODE BDF with the analytic Jacobian; driven by: 'before' = the Python "
          "path before the step loop (scikit-sundae normal mode, no per-step checks), 'python' = "
          "the Python path with the step loop, 'native' = the C driver; the ratios divide "
          "those integration times by this row's")
    print_runs(rows)
    print(f"\n(the issue's figures for the valves cycle, checkout 298d6ce: integration "
          f"{BEFORE['integration']:.2f} s, CLI run {BEFORE['run'][0]:.2f}–{BEFORE['run'][1]:.2f} s)")
    if not args.skip_build:
        b = build(max(1, min(args.repeat, 3)))
        stages = ["total", "params+mechanism", "assemble", "causality", "collect", "derive",
                  "generate", "compile", "load"]
        print("\n# excavator (valves) build in a fresh process, medians; import of the package "
              f"{b['warm']['import']:.2f} s not included")
        print(f"{'':<6}" + "".join(f"{s:>17}" for s in stages))
        for kind in ("cold", "warm"):
            print(f"{kind:<6}" + "".join(f"{b[kind].get(s, 0.0):>16.3f}s" for s in stages))


if __name__ == "__main__":
    from conditions import announce

    announce()
    main()
