"""The text report of a run, with the flags an engineer must see.

Sections: what ran (machine, mode, cycle, structure, timings); per function the
stroke used, forces and pressures; **flags** — end-stop contacts, chamber pressures
above the relief setting, pressures below the cavitation floor, output points below
the ground, lightly damped oscillation (damping ratio and frequency from
:func:`bondgraph.linearize` at the worst of a dozen points of the run); the energy
split (:mod:`.energy`) and balance; loop closure.

Examples
--------
>>> from mechanisms.machine import Machine, DATA
>>> run = Machine.from_file(DATA / "excavator.toml", mode="extensions").run(t_end=0.2, progress=False)
>>> text = text_report(run)
>>> "loop closure" in text and "flags" in text
True
"""

from __future__ import annotations

import math

import numpy as np

from .buildkey import build_origin

__all__ = ["text_report", "flags", "oscillation"]

#: damping ratio below which an oscillatory mode is flagged as lightly damped
LIGHT_DAMPING = 0.1
#: |ζ| below which a mode is undamped (nothing in the model damps it; a linearisation's
#: rounding gives ±1e-6), not unstable
UNDAMPED = 1e-4


#: what the start state's timing covers in each mode (after the cycle's check against the strokes)
_START_INCLUDES = {"valves": "the hydraulic state that holds the start pose",
                   "forces": "the start pose checked",
                   "extensions": "the start pose closed at the cycle's first lengths"}


def _timings_include(mode: str) -> str:
    """What the report's timings include (each in this process, wall time)."""
    start = _START_INCLUDES.get(mode, "the start pose")
    return ("  (build: the machine file read and its model loaded from the cache, or derived and "
            f"compiled; start state: the cycle checked against the strokes, {start}; integration: "
            "the solver set up and run, with what it loads the first time; output: the run's table "
            "of read-outs; the files are written after)")

def _when(t: np.ndarray, mask: np.ndarray, shown: int = 3) -> str:
    """The intervals where ``mask`` holds, from sample to sample: ``"t = 1.2 … 3.4 s"``,
    ``"t = 0 … 6.25 s and 10.9 … 12 s"`` (the first ``shown``; how many more after them).

    Examples
    --------
    >>> t = np.arange(7.0)
    >>> _when(t, np.array([1, 1, 0, 0, 1, 0, 1], bool))
    't = 0 … 1 s, 4 s and 6 s'
    """
    idx = np.flatnonzero(mask)
    if not idx.size:
        return ""
    breaks = np.flatnonzero(np.diff(idx) > 1)
    starts = np.concatenate([[idx[0]], idx[breaks + 1]])
    ends = np.concatenate([idx[breaks], [idx[-1]]])
    parts = [f"{t[a]:.3g} s" if a == b else f"{t[a]:.3g} … {t[b]:.3g} s" for a, b in zip(starts, ends)]
    more = len(parts) - shown
    parts = parts[:shown]
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return "t = " + text + (f" (and {more} more intervals)" if more > 0 else "")


def oscillation(run, points: int = 12):
    """The least damped oscillatory mode over a run: ``(ζ, f_n [Hz], t, dominant states)``
    or ``None`` (linearised at ``points`` times of the run; modes below 0.2 Hz ignored)."""
    from bondgraph import linearize

    machine = run.machine
    if machine.formulation != "causal" or machine.mode != "valves" or len(run.t) < 2:
        return None  # prescribed motions or forces hold no equilibrium to oscillate about
    model = machine.model.model
    res = run.results
    tab = run.table()
    worst = None
    idx = np.unique(np.linspace(0, len(run.t) - 1, points).astype(int))
    for i in idx:
        t = float(run.t[i])
        inputs = {}
        for name in model.input_names:
            f = name.rsplit(".", 1)[0]
            col = f"{f}_command" if name.endswith(".cmd") else f"{f}_force"
            if col in tab:
                inputs[name] = float(tab[col][i])
            else:
                try:
                    inputs[name] = float(res[name][i])
                except Exception:  # noqa: BLE001
                    inputs[name] = 0.0
        try:
            lin = linearize(model, res.x[i], inputs=inputs, t=t)
            modes = lin.modes(oscillatory_only=True, min_frequency=0.2)
        except Exception:  # noqa: BLE001 - a point that cannot be linearised is skipped
            continue
        for m in modes:
            if worst is None or m.damping < worst[0]:
                worst = (m.damping, m.frequency, t, m.dominant)
    return worst


def flags(run, check_oscillation: bool = True) -> list[str]:
    """What an engineer must look at in this run (empty list: nothing to flag);
    ``check_oscillation=False`` leaves out the oscillation check (it linearises the model at
    twelve times of the run: a notebook's display of a run skips it)."""
    machine = run.machine
    desc = machine.description
    tab = run.table()
    t = tab["time"]
    out: list[str] = []
    from .run import held_after_end

    held = held_after_end(run.cycle, float(t[-1])) if not run.controlled else ""
    if held:
        out.append(f"HELD  {held}")
    if not desc.guess and machine.formulation == "causal" and hasattr(machine, "branch_note"):
        note = machine.branch_note()    # the file names no branch: say which was taken, and the others
        if note:
            out.append("BRANCH  " + note.replace("\n", "\n    "))
    for c in run.contacts:
        out.append(f"END STOP  {c}")
    if machine.formulation != "causal" and machine.mode == "forces":   # no end stops in these formulations
        from .strokes import stroke_problems

        out += [f"STROKE  {p}: the {machine.formulation} formulation has no end stops, so the motion beyond "
                "is not the machine's" for p in stroke_problems(desc, t, {f: tab[f"{f}_length"]
                                                                          for f in desc.functions})]
    if machine.mode == "valves":
        circ = machine.circuit
        chambers = {f"{f} {side} side": tab[f"{f}_{side}_pressure"]
                    for f in desc.functions for side in ("cap", "rod")}
        if circ.relief_pressure is not None:
            for name, p in chambers.items():
                above = p > circ.relief_pressure
                if above.any():
                    k = int(np.argmax(p))
                    out.append(f"PRESSURE  {name}: {p[k] / 1e5:.1f} bar at t = {t[k]:.3g} s, above the relief "
                               f"setting {circ.relief_pressure / 1e5:.0f} bar ({_when(t, above)}): the "
                               "relief guards the pump line, not a chamber shut in by its valve")
        for name, p in chambers.items():
            below = p < circ.cavitation_floor
            if below.any():
                k = int(np.argmin(p))
                out.append(f"CAVITATION  {name}: {p[k] / 1e5:.2f} bar gauge at t = {t[k]:.3g} s, below the "
                           f"cavitation floor {circ.cavitation_floor / 1e5:.1f} bar gauge ({_when(t, below)}); "
                           "the oil would cavitate there, which the lumped oil model does not represent")
    if desc.limits:
        from .table import _angle
        from .strokes import range_problems

        cache: dict = {}

        def angle(part, ref):
            a = _angle(machine.model, run.results, part, cache)
            return a - _angle(machine.model, run.results, ref, cache) if ref else a

        out += [f"JOINT RANGE  {p}" for p in range_problems(desc, t, angle)]
    if desc.ground is not None:
        for name in desc.output_points:
            y = tab[f"{name}_y"]
            below = y < desc.ground
            if below.any():
                k = int(np.argmin(y))
                out.append(f"GROUND  {name} below the ground (y = {desc.ground:.2f} m) {_when(t, below)}, "
                           f"deepest {desc.ground - y[k]:.2f} m under it at t = {t[k]:.3g} s")
    osc = oscillation(run) if check_oscillation else None
    if osc is not None and osc[0] < LIGHT_DAMPING:
        z, fn, tt, dom = osc
        states = ", ".join(f"{n.split('/', 1)[-1]} {100 * s:.0f}%" for n, s in dom)
        if abs(z) < UNDAMPED:
            what, zt = "undamped mode (nothing in the model damps it: friction, leakage)", f"{z:.1e}"
        else:
            what, zt = ("UNSTABLE mode (negative damping)" if z < 0 else "lightly damped mode"), f"{z:.3f}"
        out.append(f"OSCILLATION  {what}: ζ = {zt} at {fn:.2f} Hz (linearised at t = {tt:.3g} s; "
                   f"states {states})")
    return out


def _balance_line(pb) -> str:
    """The solver's energy balance in kJ (:class:`bondgraph.PowerBalance` keeps J)."""
    par = f", parametric work {pb.parametric / 1e3:.3f} kJ" if pb.parametric else ""
    scale = (f" of the largest energy flow over the run, the {pb.scale_term} ({pb.scale / 1e3:.1f} kJ)"
             if pb.scale_term else " relative")
    return (f"energy balance: stored energy change {pb.stored_change / 1e3:.2f} kJ, source work "
            f"{pb.source_work / 1e3:.1f} kJ, dissipated {pb.dissipated / 1e3:.1f} kJ{par}, residual "
            f"{pb.residual / 1e3:.2g} kJ ({pb.relative:.1e}{scale})")


def text_report(run) -> str:
    """The whole report as text: what ran, per function the stroke used, forces and
    pressures, the flags and the energy split (``MachineRun.report()`` returns it).

    Examples
    --------
    >>> from mechanisms.machine import DATA, Machine
    >>> run = Machine.from_file(DATA / "excavator.toml", mode="forces").run(t_end=0.2, progress=False)
    >>> text = text_report(run)
    >>> text.splitlines()[0], "energy over the run" in text
    ('excavator: reference backhoe excavator, 20 t class front (OpenHydraulics)', True)
    """
    machine = run.machine
    desc = machine.description
    tab = run.table()
    res = run.results
    tm = run.timings
    t = tab["time"]
    status = ""
    if getattr(run, "interrupted", False):
        status = f" — INTERRUPTED at t = {t[-1]:.4g} s (partial results)"
    elif getattr(run, "failed", None):
        status = f" — FAILED at t = {run.failed:.4g} s (partial results)"
    lines = [f"{desc.name}: {desc.title}" if desc.title else desc.name,
             f"run: mode {machine.mode}, formulation {machine.formulation}, cycle {run.cycle.source}, "
             f"{t[0]:.3g} … {t[-1]:.3g} s{status}"]
    if machine.formulation == "cartesian":
        mb = machine.model.multibody
        lines.append(f"structure: Cartesian DAE (index 1, Baumgarte stabilised): {mb.n_coordinates} coordinates, "
                     f"{len(mb.constraints)} constraint rows with Lagrange multipliers")
    else:
        lines.append(f"structure: {machine.report.summary()}")
        lines.append(f"equations: {machine.model.model.equations}")
    st = res.stats
    n_ev = len(res.events[0]) if getattr(res, "events", None) is not None else 0
    origin = build_origin(machine)
    lines.append(f"timings: build {tm.get('build', math.nan):.3f} s{f' ({origin})' if origin else ''}, start state {tm.get('start', math.nan):.3f} s, "
                 f"integration {tm.get('integration', math.nan):.3f} s ({st.get('nfev', '?')} RHS, "
                 f"{st.get('njev', '?')} Jacobian evaluations, {n_ev} events), output "
                 f"{tm.get('output', math.nan):.3f} s; {run.real_time_factor:.0f}× real time (integration)")
    lines.append(_timings_include(machine.mode))
    lines.append("")
    lines.append("functions:")
    for f in desc.functions:
        lo, hi = desc.stroke_limits(f)
        L = tab[f"{f}_length"]
        F = tab[f"{f}_force"]
        used = 100 * (L.max() - L.min()) / (hi - lo)
        margin = min(L.min() - lo, hi - L.max())
        row = (f"  {f:<10} length {L.min():.3f} … {L.max():.3f} m of {lo:.3f} … {hi:.3f} m "
               f"({used:.0f}% of the stroke, closest {margin * 1e3:.0f} mm to an end); force "
               f"{F.min() / 1e3:.1f} … {F.max() / 1e3:.1f} kN")
        if f"{f}_cap_pressure" in tab:
            row += (f"; peak pressures cap {tab[f'{f}_cap_pressure'].max() / 1e5:.1f} bar, rod "
                    f"{tab[f'{f}_rod_pressure'].max() / 1e5:.1f} bar")
        elif f"{f}_cap_pressure_required" in tab:
            row += (f"; needs up to {tab[f'{f}_cap_pressure_required'].max() / 1e5:.1f} bar cap side, "
                    f"{tab[f'{f}_rod_pressure_required'].max() / 1e5:.1f} bar rod side")
        lines.append(row)
    from .swing import swing_report_lines

    lines += swing_report_lines(run)
    from .travel import travel_report_lines

    lines += travel_report_lines(run)
    if "pump_pressure" in tab:
        circ = machine.circuit
        lines.append(f"  supply: pump pressure peak {tab['pump_pressure'].max() / 1e5:.1f} bar"
                     + (f" (relief cracks at {circ.relief_pressure / 1e5:.0f} bar)" if circ.relief_pressure else ""))
        lines += circ.report_lines(tab)
        from .circuits_engine import engine_report_lines

        lines += engine_report_lines(circ, tab)
    if machine.mode == "valves":
        circ = machine.circuit
        lows = {f"{f} {s} side": float(np.min(tab[f"{f}_{s}_pressure"])) for f in desc.functions
                for s in ("cap", "rod")}
        k = min(lows, key=lows.get)
        ok = lows[k] >= circ.cavitation_floor
        lines.append(f"  lowest chamber pressure {lows[k] / 1e5:.2f} bar gauge ({k}): "
                     + ("above" if ok else "BELOW")
                     + f" the cavitation floor {circ.cavitation_floor / 1e5:.1f} bar gauge")
    for name in desc.output_points:
        lines.append(f"  {name}: x {tab[f'{name}_x'].min():.2f} … {tab[f'{name}_x'].max():.2f} m, "
                     f"y {tab[f'{name}_y'].min():.2f} … {tab[f'{name}_y'].max():.2f} m")
    lines.append("")
    fl = flags(run)
    lines.append("flags:" if fl else "flags: none (no end-stop contact, pressure, cavitation, ground or "
                                     "damping issue)")
    lines += [f"  - {x}" for x in fl]
    lines.append("")
    if "source_work" in tab:
        lines.append(_balance_line(run.energy_balance()))
        try:
            lines.append(run.energy_split().table())
        except Exception as exc:  # noqa: BLE001 - the split is a read-out; say why it is missing
            lines.append(f"energy split: not available ({exc})")
    else:
        lines.append("energy: no balance for this run (no energy accounting, or a formulation without a "
                     "bond graph)")
    lines.append(f"loop closure: largest gap {run.loop_closure():.2e} m over the run")
    return "\n".join(lines)
