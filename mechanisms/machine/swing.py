"""A machine's ``[swing]``: its front riding on a turntable, from a file or from Python.

A machine file's ``[swing]`` table (or ``Machine.from_mechanism(..., swing={...})``) puts
the planar front on a :class:`~components.Turntable` through
:func:`mechanisms.with_swing`: the equations still come from the graph, the swing angle is
one more degree of freedom, the front's inertia about the swing axis follows its pose.

How the swing is driven follows the machine's mode and the cycle's ``swing`` column:

* ``extensions`` — the column is the swing angle (rad; ``swing [deg]`` in the header
  converts), interpolated by the same clamped C² spline as the lengths; the turntable's
  rate is prescribed (``drive="rate"``) as that spline's derivative, and the torque it
  takes at the swing axis is a read-out (inverse dynamics);
* ``forces`` — the column is the swing torque at the swing axis (N·m; the motor shaft
  gets it divided by the gear ratio), linear in time (forward dynamics);
* ``valves`` — the column is the spool command of the circuit's swing section (−1 … 1,
  linear in time like the other functions' commands; the input ``swing.cmd``): the valve
  feeds the swing motor, whose shaft drives the turntable (``drive="port"``) through the
  gear (:mod:`.circuits_swing`); centred, the motor's ports are blocked and its crossover
  relief brakes the swing.

A cycle without a ``swing`` column holds the swing still: its angle stays at 0 (mode
extensions), its torque at 0 (mode forces: from rest with no torque, the angular
momentum about the axis stays 0, so the swing does not turn) or its valve centred (mode
valves: the motor's ports blocked); the report says so.

A ``[soil]`` composes with the swing: the soil tool is a planar model in the front's
plane, attached to the edge's hinge junctions of the swinging front's graph (the soil
resists the edge's in-plane motion only; the swing is still while the bucket digs).

The run table gains ``swing_angle`` (rad), ``swing_rate`` (rad/s), ``swing_torque`` (N·m
at the swing axis) and ``swing_inertia`` (kg·m², ``J(q)`` of everything that swings at
the run's poses, :func:`inertia_series`); the energy split a ``swing drive`` row (its
work), ``swing bearing`` and ``swing brake`` rows.

Examples
--------
>>> from mechanisms.machine import Machine, DATA
>>> m = Machine.from_file(DATA / "excavator_truck.toml", mode="extensions")
>>> m.turntable.drive, m.turntable.gear_ratio, sorted(m.model.model.input_names)[-1]
('rate', 120.0, 'swing.rate')
>>> v = m.with_mode("valves")
>>> v.turntable.drive, "swing.cmd" in v.model.model.input_names
('port', True)
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np
import sympy as sp

from bondgraph import Spline, Table
from bondgraph.errors import BondGraphError, ParameterError
from components import Cylinder, Turntable

from ..swing import SwingMechanism, _angle, _frames, _masses, with_swing

__all__ = ["SWING", "attach_swing", "swing_inputs", "exact_swing", "swing_read_outs", "inertia_series",
           "swing_report_lines", "swing_check_lines", "energy_label", "SWING_UNITS"]

#: the turntable's name in a machine's graph (its inputs ``swing.rate``, ``swing.torque``,
#: ``swing.brake``) and the cycle column that drives it
SWING = "swing"
#: per mode: the unit of a cycle's ``swing`` column (SI) and what it holds
SWING_UNITS = {"extensions": ("rad", "swing angle"), "forces": ("N*m", "swing torque at the swing axis"),
               "valves": ("1", "swing spool command")}


def attach_swing(machine, assembled) -> SwingMechanism:
    """Put the assembled front of ``machine`` on the turntable of its ``[swing]`` (in place:
    ``machine.mechanism`` becomes the :class:`~mechanisms.swing.SwingMechanism`,
    ``machine.turntable`` the turntable). Parts given an in-plane tensor have their inertia
    as a number (not a run-time parameter: changing it rebuilds).

    Raises
    ------
    ParameterError
        A reference formulation (named with the ``[swing]`` line); a
        tensor that is not a rigid body's with the part's planar inertia (its key).

    Examples
    --------
    >>> from mechanisms.machine import Machine, DATA
    >>> m = Machine.from_file(DATA / "excavator_truck.toml", mode="forces")
    >>> type(m.mechanism).__name__, m.turntable.drive, m.turntable.inertia
    ('SwingMechanism', 'torque', 34000.0)
    """
    desc = machine.description
    sw = desc.swing
    where = f"'swing' ({desc.where('swing')})"
    if machine.formulation != "causal":
        raise ParameterError(f"{where}: [swing] is modelled in the causal formulation only (found "
                             f"formulation {machine.formulation!r})")
    mech = assembled.mechanism
    tensors = dict(sw.get("tensors") or {})
    for name in tensors:          # a tensor's check needs the planar inertia as a number
        part = mech.parts[name]
        if isinstance(part, Cylinder):
            keys = [f"{name}.rod_inertia", f"{name}.barrel_inertia"]
            n = desc.parts[name].values["count"]
            mech.replace(part.evolve(J_rod=n * desc.values.get(keys[0], 0.0),
                                     J_barrel=n * desc.values.get(keys[1], 0.0)))
        else:
            keys = [f"{name}.inertia"]
            mech.replace(part.evolve(inertia=desc.parts[name].values.get("inertia", part.inertia)))
        for k in keys:
            assembled.params.pop(k, None)
            assembled.symbols.pop(k, None)
    drive = {"extensions": "rate", "forces": "torque", "valves": "port"}[machine.mode]
    terminals = None
    if drive == "port":       # the circuit's swing section: its motor's shaft on the gear
        from .circuits_swing import SWING_SECTION

        terminals = {"M": (assembled.circuit.component, f"{SWING_SECTION}.M")}
    tt = Turntable(SWING, inertia=sw["inertia"], gear_ratio=sw["gear_ratio"], viscous=sw["viscous"],
                   coulomb=sw["coulomb"], coulomb_rate=sw["coulomb_rate"], brake=sw.get("brake"),
                   motor_inertia=sw["motor_inertia"], axis_x=sw["axis_x"], drive=drive)
    try:
        swung = with_swing(mech, tt, tensors=tensors, terminals=terminals)
    except BondGraphError as exc:
        raise ParameterError([f"'swing.tensors' ({desc.where('swing.tensors')}): {p}" for p in exc.problems],
                             subject=desc.file.label) from None
    swung.description = desc
    machine.mechanism = swung
    machine.turntable = tt
    return swung


def _column_signal(cycle, mode: str):
    if cycle.swing is None:
        return None
    if mode == "valves":
        return Table(cycle.time, cycle.swing, name=f"{SWING}.cmd")
    if mode == "extensions":
        return Spline(cycle.time, cycle.swing, name="swing angle")
    return Table(cycle.time, cycle.swing, name="swing torque")


def swing_inputs(machine, cycle, x0: dict[str, float] | None = None) -> dict[str, Any]:
    """The turntable's inputs for a run of ``cycle`` (its ``swing`` column, or the swing held
    still); in mode extensions the start angle is set in ``x0`` (in place).

    Raises
    ------
    ParameterError
        A ``swing`` column for a machine without ``[swing]``.

    Examples
    --------
    >>> from mechanisms.machine import Machine, DATA
    >>> m = Machine.from_file(DATA / "excavator_truck.toml", mode="extensions")
    >>> x0 = {}
    >>> u = swing_inputs(m, m.cycle("truck_loading"), x0)
    >>> sorted(u), x0
    (['swing.rate'], {'excavator_truck/swing/w.phi': 0.0})
    """
    tt = getattr(machine, "turntable", None)
    if tt is None:
        if getattr(cycle, "swing", None) is not None:
            raise ParameterError(f"cycle {cycle.source}: a 'swing' column, but {machine.name!r} has no [swing] "
                                 "(the front does not swing); expected a machine file with [swing] or a cycle "
                                 "without the column")
        return {}
    sig = _column_signal(cycle, machine.mode)
    u: dict[str, Any] = {}
    if machine.mode == "valves":
        u[f"{SWING}.cmd"] = 0.0 if sig is None else sig
    elif machine.mode == "extensions":
        if sig is None:
            u[f"{SWING}.rate"] = 0.0
        else:
            u[f"{SWING}.rate"] = sig.rate(name=f"{SWING}.rate")
            if x0 is not None:
                x0[machine.mechanism.swing_state("angle")] = float(sig.value(cycle.start))
    else:
        u[f"{SWING}.torque"] = 0.0 if sig is None else \
            Table(cycle.time, np.asarray(cycle.swing) / tt.gear_ratio, name=f"{SWING}.torque")
    if tt.brake is not None:
        u[f"{SWING}.brake"] = 0.0
    return u


def exact_swing(machine, res, cycle) -> None:
    """Mode extensions: the swing angle state at the output times set to the cycle's own
    (its spline's value), as :func:`~.run.exact_poses` closes the front at the prescribed
    lengths: the integrator's drift (about its tolerance) never reaches the read-outs.

    Examples
    --------
    >>> from mechanisms.machine import Machine, DATA
    >>> run = Machine.from_file(DATA / "excavator_truck.toml", mode="extensions").run(progress=False)
    >>> float(run.table()["swing_angle"][-1])          # back at 0 exactly, as the cycle ends
    0.0
    """
    tt = getattr(machine, "turntable", None)
    if tt is None or machine.mode != "extensions" or not len(res.t):
        return
    sig = _column_signal(cycle, "extensions")
    names = machine.model.model.state_names
    i = names.index(machine.mechanism.swing_state("angle"))
    res.x[:, i] = sig.values_at(res.t) if sig is not None else res.x[0, i]
    res._out = None


def swing_read_outs(machine, res) -> dict[str, tuple[np.ndarray, str]]:
    """``swing_angle`` (rad), ``swing_rate`` (rad/s), ``swing_torque`` (N·m at the swing
    axis: the prescribed rate's in mode extensions, the input's in mode forces) and
    ``swing_inertia`` (kg·m², :func:`inertia_series`) along a run; empty without a swing.

    Examples
    --------
    >>> from mechanisms.machine import Machine, DATA
    >>> run = Machine.from_file(DATA / "excavator_truck.toml", mode="extensions").run(t_end=0.2, progress=False)
    >>> sorted(swing_read_outs(run.machine, run.results))
    ['swing_angle', 'swing_inertia', 'swing_rate', 'swing_torque']
    """
    tt = getattr(machine, "turntable", None)
    if tt is None:
        return {}
    mech = machine.mechanism
    root = mech.name
    angle = np.asarray(res[mech.swing_state("angle")], dtype=float)
    extra: dict[str, tuple[np.ndarray, str]] = {}
    if tt.drive == "rate":
        rate = np.asarray(res.flow(f"{root}/{SWING}/rate"), dtype=float)
        torque = np.asarray(tt.drive_torque(res, root), dtype=float)
    elif tt.drive == "port":          # mode valves: the motor's torque through the gear
        rate = np.asarray(res[mech.swing_state("rate")], dtype=float)
        gear = next(k for u, v, k in res.model.graph.edges(keys=True)
                    if u == f"{root}/{SWING}/gear" and v == f"{root}/{SWING}/w")
        torque = np.asarray(res.effort(gear), dtype=float)
        try:
            extra["swing_command"] = (np.asarray(res[f"{SWING}.cmd"], dtype=float), "1")
        except Exception:  # noqa: BLE001 - a controller run records no input table
            pass
    else:
        rate = np.asarray(res[mech.swing_state("rate")], dtype=float) if mech.swing_state("rate") in \
            machine.model.model.state_names else np.asarray(res.flow(f"{root}/{SWING}/torque"), float) / tt.gear_ratio
        torque = tt.gear_ratio * np.asarray(res.effort(f"{root}/{SWING}/torque"), dtype=float)
    return {"swing_angle": (angle, "rad"), "swing_rate": (rate, "rad/s"), "swing_torque": (torque, "N*m"),
            "swing_inertia": (inertia_series(machine, res), "kg*m^2"), **extra}


def inertia_series(machine, res) -> np.ndarray:
    """``J(q)`` about the swing axis along a run (kg·m²): the turntable's and its motor's
    (through the gear) plus, at each output's pose, ``Σ m·r²`` of the front's masses and
    each part's inertia about the vertical — :func:`mechanisms.swing_inertia`'s sum,
    evaluated on the run's coordinate arrays at once.

    Examples
    --------
    >>> from mechanisms.machine import Machine, DATA
    >>> from mechanisms import swing_inertia
    >>> m = Machine.from_file(DATA / "excavator_truck.toml", mode="extensions")
    >>> run = m.run(t_end=0.2, progress=False)
    >>> J = inertia_series(m, run.results)
    >>> round(float(J[0]) / swing_inertia(m.mechanism, m.start_pose, params=m.params), 6)
    1.0
    """
    mech, tt = machine.mechanism, machine.turntable
    params = machine.model.model.params
    coords, args = [], []
    for name, part in mech.parts.items():
        for c in part.coordinate_states:
            coords.append(part.coordinates[c])
            args.append(np.asarray(res[machine.model.state(name, c)], dtype=float))
    frames = _frames(mech)
    J = sp.sympify(tt.inertia) + tt.gear_ratio ** 2 * sp.sympify(tt.motor_inertia)
    for name, part in mech.parts.items():
        for _e, _j, m, (xw, _yw) in _masses(part, frames[name]):
            J += m * (xw - tt.axis_x) ** 2
        pi = mech.inertias[name]
        a = _angle(part) + pi.angle
        J += pi.along * sp.sin(a) ** 2 + pi.across * sp.cos(a) ** 2
    J = J.xreplace({s: sp.Float(params[str(s)]) for s in J.free_symbols if str(s) in params})
    f = sp.lambdify(coords, J, "numpy")
    return np.broadcast_to(np.asarray(f(*args), dtype=float), res.t.shape).copy()


def energy_label(node: str, root: str) -> str | None:
    """The energy-split row of a turntable element (``None`` for another element): its
    drive (``swing drive``), ``swing bearing``, ``swing brake``.

    Examples
    --------
    >>> energy_label("excavator_truck/swing/bearing", "excavator_truck"), energy_label("excavator_truck/boom/J", "excavator_truck")
    ('swing bearing', None)
    """
    prefix = f"{root}/{SWING}/"
    if not node.startswith(prefix):
        return None
    leaf = node[len(prefix):]
    return {"rate": "swing drive", "torque": "swing drive", "bearing": "swing bearing",
            "brake": "swing brake"}.get(leaf)


def swing_check_lines(machine) -> list[str]:
    """``hydrobond check``'s lines on the swing: the turntable, the inertia about the axis at
    the start pose, which parts use the default in-plane inertia.

    Examples
    --------
    >>> from mechanisms.machine import Machine, DATA
    >>> print(swing_check_lines(Machine.from_file(DATA / "excavator_truck.toml", mode="forces"))[0])
    swing: turntable 34000 kg·m², gear 120, bearing 2000 N·m·s/rad + 1000 N·m, no brake; inertia about the axis at the start pose 140550 kg·m² (the front 105830 kg·m²)
    """
    from ..swing import swing_inertia

    tt = getattr(machine, "turntable", None)
    if tt is None:
        return []
    mech, pose, params = machine.mechanism, machine.start_pose, machine.params
    J = swing_inertia(mech, pose, params=params)
    front = swing_inertia(mech, pose, params=params, front_only=True)
    brake = "no brake" if tt.brake is None else f"brake {float(tt.brake):g} N·m·s/rad (input swing.brake)"
    lines = [f"swing: turntable {float(tt.inertia):g} kg·m², gear {tt.gear_ratio:g}, bearing "
             f"{float(tt.viscous):g} N·m·s/rad + {float(tt.coulomb):g} N·m, {brake}; inertia about the axis at "
             f"the start pose {J:.0f} kg·m² (the front {front:.0f} kg·m²)"]
    defaults = [n for n, p in mech.inertias.items() if p.default]
    if defaults:
        lines.append(f"  in-plane inertia: slender along the pin line (the default) for {', '.join(defaults)}")
    return lines


def swing_report_lines(run) -> list[str]:
    """The report's swing lines: how it was driven (or held still), its range, peak rate,
    torque and power, the inertia about the axis, which parts use the default in-plane
    inertia.

    Examples
    --------
    >>> from mechanisms.machine import Machine, DATA
    >>> run = Machine.from_file(DATA / "excavator_truck.toml", mode="extensions").run(t_end=0.2, progress=False)
    >>> swing_report_lines(run)[0].split(";")[0].strip()
    "swing      angle prescribed by the cycle's 'swing' column"
    """
    machine = run.machine
    tt = getattr(machine, "turntable", None)
    if tt is None:
        return []
    tab = run.table()
    phi, rate, tau, J = (tab[k] for k in ("swing_angle", "swing_rate", "swing_torque", "swing_inertia"))
    if run.cycle.swing is None and not getattr(run, "controlled", False):
        how = ("held still: the cycle has no 'swing' column (" +
               {"extensions": "angle constant", "forces": "zero torque",
                "valves": "its valve centred"}[machine.mode] + ")")
    elif machine.mode == "valves":
        how = ("swing motor on its valve section, the spool commanded by "
               + ("the controller" if getattr(run, "controlled", False) else "the cycle's 'swing' column"))
    else:
        how = (f"{'angle prescribed' if machine.mode == 'extensions' else 'torque given'} by the cycle's "
               "'swing' column")
    power = tau * rate
    defaults = [n for n, p in machine.mechanism.inertias.items() if p.default]
    def r(x, n=1):           # as shown, without "-0.0"
        return round(float(x), n) + 0.0

    lines = [f"  swing      {how}; angle {r(math.degrees(phi.min())):.1f} … {r(math.degrees(phi.max())):.1f} deg, "
             f"rate up to {np.abs(rate).max():.3f} rad/s, torque at the axis {r(tau.min() / 1e3):.1f} … "
             f"{r(tau.max() / 1e3):.1f} kN·m, power {r(power.min() / 1e3):.1f} … {r(power.max() / 1e3):.1f} kW; "
             f"inertia about the axis {J.min():.0f} … {J.max():.0f} kg·m² (gear {tt.gear_ratio:g}: motor "
             f"torque up to {np.abs(tau).max() / tt.gear_ratio:.0f} N·m)"]
    drive = getattr(machine.circuit, "swing", None) if machine.mode == "valves" else None
    if drive is not None and "swing_pressure_A" in tab:   # the motor on its valve section
        dp = np.abs(tab["swing_pressure_A"] - tab["swing_pressure_B"])
        relief = drive.motor.crossover
        setting = (f"crossover relief cracks at {relief.crack_pressure / 1e5:.0f} bar" if relief is not None
                   else "no crossover relief")
        line = (f"             swing motor {drive.motor.displacement * 1e6:.0f} cm³/rev: pressure drop up to "
                f"{dp.max() / 1e5:.0f} bar across it ({setting})")
        if "swing_crossover_flow" in tab:
            q = np.abs(tab["swing_crossover_flow"])
            line += f", {float(np.trapezoid(q, tab['time'])) * 1e3:.1f} L across it (relief and leakage)"
        lines.append(line)
    if defaults:
        lines.append(f"             in-plane inertia: slender along the pin line (the default) for "
                     f"{', '.join(defaults)}")
    return lines
