"""The state a run starts from, from the model itself.

Mechanically: the pose's displacement states, every velocity zero. In mode
``valves`` the hydraulics must hold the machine still: the rod-velocity
derivatives are affine in the chamber pressures (the cylinder forces are
``p_A·A_A − p_B·A_B``), so one linear solve on the compiled Jacobian gives the
pressures that hold the pose — the cap side of a pushing cylinder, the rod side of
a pulling one, the other side at the circuit's base pressure — and
:func:`bondgraph.equilibrium` then settles them together with the supply (the pump
outlet at the relief setting, the relief passing the pump's flow). No second
model is built.

Examples
--------
>>> from mechanisms.machine import Machine, DATA
>>> m = Machine.from_file(DATA / "excavator.toml", mode="valves")
>>> x0 = m.start_state()
>>> round(x0["excavator/hyd/boom/cyl/C_A.e"] / 1e5, 1)         # boom cap side holds the front
60.8
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from bondgraph.errors import BondGraphError, SimulationError

__all__ = ["start_state"]


def start_state(machine, pose, inputs: Mapping[str, Any] | None = None) -> dict[str, float]:
    mm = machine.model
    model = mm.model
    names = model.state_names
    x0 = {k: v for k, v in mm.initial_state(pose).items() if k in names}
    if machine.mode != "valves":
        return {n: x0.get(n, float(model.initial_state()[i])) for i, n in enumerate(names)}
    circ = machine.circuit
    prefix = f"{machine.mechanism.name}/{circ.name}"
    base = circ.base_pressure
    for local, p in circ.supply.items():
        x0[f"{prefix}/{local}"] = p
    for f in machine.functions:
        cap, rod = circ.chambers[f]
        x0[f"{prefix}/{cap}"] = x0[f"{prefix}/{rod}"] = base
    inputs = dict(inputs or {f"{f}.cmd": 0.0 for f in machine.functions})
    for name in model.input_names:      # a swing's valve centred, its brake released
        if name.startswith("swing."):
            inputs.setdefault(name, 0.0)
    x = model.initial_state(x0)
    rows = [model.state_index(f"{prefix}/{circ.pistons[f]}") for f in machine.functions]
    # the loaded side of each function, from the force the cylinders must give
    sysm = _set_inputs(model, inputs)
    f0 = sysm.rhs(0.0, x)
    cols = [model.state_index(f"{prefix}/{circ.chambers[f][0]}") for f in machine.functions]
    J = sysm.jac(0.0, x)[np.ix_(rows, cols)]
    try:
        dp = np.linalg.solve(J, -f0[rows])
    except np.linalg.LinAlgError:
        raise SimulationError(f"{machine.name}: the cylinders cannot hold the start pose (their "
                              "forces do not reach every degree of freedom: a dead centre?)") from None
    free = []
    for f, d in zip(machine.functions, dp):
        a_cap, a_rod = circ.areas[f]
        cap, rod = (f"{prefix}/{s}" for s in circ.chambers[f])
        force = (base + d) * a_cap - base * a_rod
        if force >= 0:
            x[model.state_index(cap)] = base + d
            free.append(cap)
        else:  # a pulling cylinder: the rod side holds it
            x[model.state_index(rod)] = (-force + base * a_cap) / a_rod
            free.append(rod)
    free += [f"{prefix}/{local}" for local in circ.supply]
    key = getattr(machine, "_key", None)
    if key is not None:    # a warm run: the equilibrium kept under the machine's key, checked
        from .warmstart import load_start_state, save_start_state, start_state_key

        key = start_state_key(key, model, x, free, inputs)
        kept = load_start_state(key, model, x, free, inputs)
        if kept is not None:
            return dict(zip(names, map(float, kept)))
    from bondgraph.linearize import equilibrium     # settled here only when none is kept

    try:
        x = equilibrium(model, x, free=free, inputs=inputs)
    except BondGraphError as exc:
        raise SimulationError(f"{machine.name}: no hydraulic equilibrium at the start pose: {exc}") from None
    if key is not None:
        save_start_state(key, x)
    return dict(zip(names, map(float, x)))


def _set_inputs(model, inputs):
    from bondgraph.signals import InputSet

    inp = InputSet(model.input_names, model.equations.input_derivatives, inputs)
    u, du = inp(0.0)
    model.system.set_inputs(u, du)
    return model.system
