"""The excavator's hydraulics: power unit, three valves, chambers, hoses, cylinder sides.

The circuit is built by :func:`components.hydraulics.circuit_from_params` from the
``[hydraulics]`` part of the excavator's parameter file, with each drive's
geometry and piston mass taken from the ``[*_cylinder]`` tables (one source of
truth). The valve commands are the model inputs ``boom.cmd``, ``arm.cmd`` and
``bucket.cmd`` (−1…1; positive opens P→A, the cap side: the cylinder extends).

A run starts from static equilibrium: with the spools centred, the chamber
pressures that hold the front at the start pose are solved for (the cap side
for a pushing cylinder, the rod side for a pulling one, the other side at the
base pressure), and the pump outlet at the relief setting.

Examples
--------
>>> from mechanisms.excavator import load_params
>>> check_hydraulics(load_params(), load_params()["hydraulics"])
[]
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping

import numpy as np
import sympy as sp

from bondgraph import BondGraphError, Input, simulate
from bondgraph.linearize import equilibrium
from components.hydraulics import circuit_from_params

__all__ = ["ExcavatorHydraulics", "check_hydraulics", "circuit_table", "COMMANDS", "CAVITATION_FLOOR"]

FUNCTIONS = ("boom", "arm", "bucket")
CYL = {"boom": "boom_cyl", "arm": "arm_cyl", "bucket": "bucket_cyl"}
SECTION = {"boom": "boom_cylinder", "arm": "arm_cylinder", "bucket": "bucket_cylinder"}
COMMANDS = {f: f"{f}.cmd" for f in FUNCTIONS}
BASE_PRESSURE = 10e5  # Pa, the non-loaded side at the start
#: Lowest chamber pressure the lumped oil model is trusted at (gauge, Pa): about 0 bar
#: absolute. The make-up check valves keep the chambers above it; a run that goes
#: below says so in its report (cavitation is not modelled).
CAVITATION_FLOOR = -1e5


def circuit_table(params: Mapping[str, Any], hyd: Mapping[str, Any]) -> dict:
    """The hydraulic table with each drive's geometry from the cylinder sections."""
    table = {k: dict(v) for k, v in hyd.items() if k != "drives"}
    table["drives"] = {}
    for f in FUNCTIONS:
        c = params[SECTION[f]]
        d = dict(hyd.get("drives", {}).get(f, {}))
        d.update(bore=f"{c['bore']} m", rod=f"{c['rod']} m", stroke=f"{c['stroke']} m",
                 retracted=f"{c['retracted']} m", count=int(c["count"]),
                 piston_mass=f"{c['count'] * c['piston_rod_mass']} kg")
        table["drives"][f] = d
    for extra in sorted(set(hyd.get("drives", {})) - set(FUNCTIONS)):
        table["drives"][extra] = hyd["drives"][extra]
    return table


def check_hydraulics(params: Mapping[str, Any], hyd: Mapping[str, Any]) -> list[str]:
    """Every problem of the ``[hydraulics]`` table (empty list if none)."""
    try:
        circuit_from_params(circuit_table(params, hyd), lengths={f: sp.Symbol(f) for f in FUNCTIONS},
                            commands={f: 0.0 for f in FUNCTIONS})
    except BondGraphError as exc:
        return [f"hydraulics.{p}" if not p.startswith("'") else f"hydraulics: {p}" for p in exc.problems]
    return []


class ExcavatorHydraulics:
    """Builds the circuit into an excavator mechanism and runs valve-driven cycles."""

    def __init__(self, params: Mapping[str, Any], hydraulics: Mapping[str, Any] | None = None):
        hyd = hydraulics if hydraulics is not None else params.get("hydraulics")
        if hyd is None:
            from bondgraph import ParameterError

            raise ParameterError("mode valves needs a [hydraulics] table in the parameter file")
        self.params = params
        self.circuit_params = circuit_table(params, hyd)
        self.circuit = None
        self.prefix = "excavator/hyd"

    def drives(self) -> Callable:
        """The ``drives`` callable for :func:`~mechanisms.excavator.excavator_mechanism`."""

        def attach(mech):
            lengths = {f: mech.parts[CYL[f]].length_symbol for f in FUNCTIONS}
            commands = {f: Input(COMMANDS[f]) for f in FUNCTIONS}
            self.circuit = circuit_from_params(self.circuit_params, lengths=lengths, commands=commands, name="hyd")
            self.prefix = f"{mech.name}/hyd"
            for f in FUNCTIONS:
                mech.drive_external(CYL[f], self.circuit, f"{f}.I")
        return attach

    # ------------------------------------------------------------------ names
    def state(self, f: str, what: str) -> str:
        return f"{self.prefix.rsplit('/', 1)[0]}/{self.circuit.state(f, what)}"

    @property
    def pump_state(self) -> str | None:
        ps = self.circuit.power_unit.pressure_state
        return f"{self.prefix}/{self.circuit.power_unit.name}/{ps}" if ps else None

    def _bond(self, g, tail_prefix: str, head_prefix: str) -> str | None:
        for u, v, k in g.edges(keys=True):
            if u.startswith(tail_prefix) and v.startswith(head_prefix):
                return k
        return None

    # ------------------------------------------------------------------ runs
    def initial_state(self, exc, pose) -> dict[str, float]:
        """Start pose, spools centred, chamber pressures holding the front, pump at relief."""
        mm = exc.model
        model = mm.model
        x0 = {k: v for k, v in pose.states().items() if k in model.state_names}
        pu = self.circuit.power_unit
        if self.pump_state:
            x0[self.pump_state] = pu.relief.crack_pressure if pu.relief else 0.0
        free = []
        for f in FUNCTIONS:
            pa, pb = self.state(f, "pA"), self.state(f, "pB")
            x0[pa] = x0[pb] = BASE_PRESSURE
            force = self._holding_force(exc, pose, f)
            free.append(pa if force >= 0 else pb)
            cyl = self.circuit.drives[f].cylinder
            if force >= 0:
                x0[pa] = (force + BASE_PRESSURE * cyl.area_B) / cyl.area_A
            else:
                x0[pb] = (-force + BASE_PRESSURE * cyl.area_A) / cyl.area_B
        if self.pump_state:
            free.append(self.pump_state)  # the relief passes the whole pump flow
        inputs = {COMMANDS[f]: 0.0 for f in FUNCTIONS}
        x = equilibrium(model, x0, free=free, inputs=inputs)
        return dict(zip(model.state_names, x))

    def _holding_force(self, exc, pose, f: str) -> float:
        """Static cylinder forces at a pose, from the same templates with prescribed lengths."""
        if not hasattr(self, "_statics"):
            from .model import Excavator

            self._statics = Excavator(self.params, mode="extensions")
        st = self._statics
        lengths = {CYL[g]: pose.length(CYL[g]) for g in FUNCTIONS}
        from .cycle import Cycle

        hold = Cycle("extensions", [0.0, 1.0], {g: [lengths[CYL[g]]] * 2 for g in FUNCTIONS})
        run = st.run(hold, t_end=1e-3, t_eval=np.array([0.0]), progress=False, energy=False)
        return float(run.table()[f"{f}_force"][0])

    def run(self, exc, signals, t_end, *, theta0=None, controller=None, t_eval=None, rtol=1e-7,
            atol=1e-9, method="CVODE", energy=True, progress=True):
        pose = exc.pose(theta0)
        x0 = self.initial_state(exc, pose)
        model = exc.model.model
        inputs = {COMMANDS[f]: signals[f] for f in FUNCTIONS}
        if controller is not None:
            from bondgraph.hybrid import Controller, HybridModel, simulate_hybrid

            hm = HybridModel(model, [], [])
            ctrl = controller if isinstance(controller, Controller) else \
                Controller(controller, [COMMANDS[f] for f in FUNCTIONS])
            hres = simulate_hybrid(hm, (0.0, t_end), x0=x0, controller=ctrl, t_eval=t_eval,
                                   rtol=rtol, atol=atol, method="LSODA" if method == "CVODE" else method)
            return hres
        return simulate(model, (0.0, t_end), x0=x0, inputs=inputs, t_eval=t_eval, rtol=rtol, atol=atol,
                        method=method, energy=energy, progress=progress)

    # ------------------------------------------------------------------ read-outs
    def table(self, exc, res) -> dict[str, np.ndarray]:
        g = exc.model.model.graph
        out: dict[str, np.ndarray] = {}
        for f in FUNCTIONS:
            out[f"{f}_cap_pressure"] = res[self.state(f, "pA")]
            out[f"{f}_rod_pressure"] = res[self.state(f, "pB")]
        for f in FUNCTIONS:
            d = f"{self.prefix}/{f}"
            for port, hose in (("A", "hose_A"), ("B", "hose_B")):
                k = self._bond(g, f"{d}/valve/", f"{d}/{hose}") or self._bond(g, f"{d}/{hose}", f"{d}/valve/")
                if k is not None:
                    out[f"{f}_valve_flow_{port}"] = res.flow(k)
        if self.pump_state:
            p = res[self.pump_state]
            out["pump_pressure"] = p
            pu = f"{self.prefix}/{self.circuit.power_unit.name}"
            k = self._bond(g, f"{pu}/pump", f"{pu}/")
            if k is not None:
                out["pump_flow"] = res.flow(k)
                out["pump_power"] = p * out["pump_flow"]
            k = self._bond(g, f"{pu}/", f"{pu}/relief")
            if k is not None:
                out["relief_flow"] = res.flow(k)
        return out

    def report_lines(self, exc, run) -> list[str]:
        tab = run.table()
        lines = []
        if "pump_power" in tab:
            t = tab["time"]
            work = float(np.trapezoid(tab["pump_power"], t))
            relief = float(np.trapezoid(tab["relief_flow"] * tab["pump_pressure"], t)) if "relief_flow" in tab else 0.0
            lines.append(f"pump work {work / 1e3:.1f} kJ over the cycle, of which {relief / 1e3:.1f} kJ "
                         f"through the relief valve ({100 * relief / max(work, 1e-9):.0f} %)")
            peak = float(np.max(tab["pump_pressure"]))
            crack = self.circuit.power_unit.relief.crack_pressure if self.circuit.power_unit.relief else math.nan
            lines.append(f"pump pressure peak {peak / 1e5:.1f} bar (relief cracks at {crack / 1e5:.0f} bar)")
        lows = {k: float(np.min(v)) for k, v in tab.items() if k.endswith("_pressure") and k != "pump_pressure"}
        if lows:
            k = min(lows, key=lows.get)
            verdict = ("above" if lows[k] >= CAVITATION_FLOOR else "BELOW — cavitation would occur; "
                       "the lumped oil model is not valid there")
            lines.append(f"lowest chamber pressure {lows[k] / 1e5:.2f} bar ({k.replace('_', ' ')}), "
                         f"{verdict} the cavitation floor {CAVITATION_FLOOR / 1e5:.0f} bar gauge")
        return lines
