"""Load-sensing rig against the same rig on today's fixed pump + relief; shuttle models.

Two functions (single-acting cylinders lifting loads through 60 L/min valves,
:func:`components.hydraulics.ls_rigs.load_rig`) follow the same 3 s command
tables; function ``a`` lifts 100 kN, the load of ``b`` rises from 40 kN above
it and back (the shuttles change over twice):

* ``fixed``  — fixed pump 150 L/min, relief 300 bar, plain closed-centre valves;
* ``LS``     — LS pump of the same size (20 bar margin), post-compensated
  sections, smooth shuttle (the default);
* ``LS-pre`` — the same with pre-compensators (12 bar);
* ``LS-hybrid`` — post-compensated with the hybrid (event-driven) shuttle;
* ``LS-engine`` — the ``LS`` model run by the hybrid engine with no guards (what
  the event-driven integration costs by itself).

Printed: median wall time of the simulation over ``--repeat`` runs (build and
compilation excluded, the model is built once), its ratio to the fixed rig,
RHS and Jacobian evaluations, events; then the energy of the cycle (pump work,
relief loss, work on the loads) and the accuracy of each shuttle model against
the exact maximum of the sections' load pressures.

Run: ``python benchmarks/hydraulics_ls.py [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bondgraph import HybridModel, Input, Table, simulate, simulate_hybrid  # noqa: E402
from components.hydraulics import HybridShuttle, smooth_max  # noqa: E402
from components.hydraulics.ls_rigs import load_rig  # noqa: E402

T_END = 3.0
COMMANDS = {
    "a": Table([0.0, 0.2, 0.4, 1.2, 1.4, 2.0, 2.2, 3.0], [0.0, 0.0, 0.8, 0.8, 0.2, 0.2, 1.0, 1.0]),
    "b": Table([0.0, 0.5, 0.7, 1.6, 1.8, 2.6, 2.8, 3.0], [0.0, 0.0, 0.6, 0.6, 1.0, 1.0, 0.0, 0.0]),
}
LOAD_B = Table([0.0, 1.0, 1.5, 2.3, 2.8, 3.0], [40e3, 40e3, 130e3, 130e3, 40e3, 40e3])
FORCES = {"a": 100e3, "b": Input("b.F")}
SIM = dict(method="CVODE", rtol=1e-6, atol=1e-6)


def _rigs():
    cmd = {f: Input(f"{f}.cmd") for f in FORCES}
    return {
        "fixed": load_rig(FORCES, commands=cmd, circuit="fixed"),
        "LS": load_rig(FORCES, commands=cmd, compensation="post"),
        "LS-pre": load_rig(FORCES, commands=cmd, compensation="pre"),
        "LS-hybrid": load_rig(FORCES, commands=cmd, compensation="post",
                              shuttle=HybridShuttle("0.5 bar", "5 ms")),
    }


def _run(rig, energy=False, engine=None, **over):
    inputs = {f"{f}.cmd": COMMANDS[f] for f in FORCES}
    inputs["b.F"] = LOAD_B
    x0 = dict(rig.x0)
    x0[rig.cap_pressure("b")] = 40e3 / rig.area["b"]
    if rig.circuit is None:
        x0[rig.pump_pressure] = 0.0
    if rig.hybrid is not None or engine is not None:
        hm = rig.hybrid if rig.hybrid is not None else engine
        return simulate_hybrid(hm, (0.0, T_END), x0=x0, inputs=inputs, **{**SIM, **over})
    return simulate(rig.model, (0.0, T_END), x0=x0, inputs=inputs, energy=energy,
                    progress=False, **{**SIM, **over})


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    rigs = _rigs()
    print(f"built 4 rigs in {time.perf_counter() - t0:.1f} s "
          f"(states: {', '.join(f'{k} {len(r.model.state_names)}' for k, r in rigs.items())})\n")

    # the smooth LS model through the hybrid engine with no guards: the engine's own cost
    runs = {name: (lambda rig=rig: _run(rig)) for name, rig in rigs.items()}
    bare = HybridModel(rigs["LS"].model, [], [])
    runs["LS-engine"] = lambda: _run(rigs["LS"], engine=bare)
    rows, results = {}, {}
    for run in runs.values():
        run()                                               # warm-up (caches, imports)
    for _ in range(args.repeat):                            # interleaved: fair on a shared machine
        for name, run in runs.items():
            t0 = time.perf_counter()
            res = run()
            rows.setdefault(name, []).append(time.perf_counter() - t0)
            results[name] = res
    base = statistics.median(rows["fixed"])
    print(f"{T_END:g} s cycle, CVODE rtol {SIM['rtol']:g}, median of {args.repeat} runs")
    print(f"{'rig':<10} {'wall [ms]':>10} {'ratio':>7} {'RHS':>7} {'Jac':>6} {'events':>7}")
    for name, times in rows.items():
        st = results[name].stats
        med = statistics.median(times)
        print(f"{name:<10} {med * 1e3:>10.1f} {med / base:>7.2f} {int(st['nfev']):>7} "
              f"{int(st.get('njev', 0)):>6} {int(st.get('events', 0)):>7}")

    print("\nenergy over the cycle (kJ; CVODE rtol 1e-9), the share of the pump work lifting the loads")
    print(f"{'rig':<10} {'pump work':>10} {'relief':>8} {'on loads':>9} {'share':>6} {'balance':>10}")
    from bondgraph import power_balance

    for name in ("fixed", "LS", "LS-pre"):
        rig = rigs[name]
        res = _run(rig, energy=True, rtol=1e-9, atol=1e-7)
        pump = np.trapezoid(res.power(rig.pump_source), res.t)
        relief_el = f"{rig.prefix}/hyd/pu/relief" if rig.circuit is not None else f"{rig.prefix}/pu/relief"
        relief = np.trapezoid(res.power(relief_el), res.t)
        loads = sum(np.trapezoid(-res.power(f"{rig.prefix}/{f}_load"), res.t) for f in FORCES)
        print(f"{name:<10} {pump / 1e3:>10.1f} {relief / 1e3:>8.1f} {loads / 1e3:>9.1f} "
              f"{loads / pump:>6.0%} {power_balance(res).relative:>10.1e}")

    print("\nshuttle accuracy: LS pressure the pump sees − exact max of the section pressures")
    for name in ("LS", "LS-hybrid"):
        rig, res = rigs[name], results[name]
        pa, pb = (res[f"{rig.prefix}/hyd/{f}/ls/C.e"] for f in FORCES)
        exact = np.maximum(pa, pb)
        if rig.hybrid is None:
            band = rig.circuit.network.shuttle.band
            seen = np.array([float(smooth_max(a, b, band)) for a, b in zip(pa, pb)])
        else:
            mode = res.mode(rig.circuit.network.shuttle.name)
            seen = np.where(mode == "a", pa, pb)
        err = seen - exact
        print(f"{name:<10} max {err.max() / 1e5:+.3f} bar, min {err.min() / 1e5:+.3f} bar, "
              f"events {int(res.stats.get('events', 0))}")


if __name__ == "__main__":
    from conditions import announce

    announce()
    main()
