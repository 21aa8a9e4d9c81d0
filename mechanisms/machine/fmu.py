"""A machine as a standalone FMU: the generated C equations, no Python at run time.

:func:`export_machine_fmu` (``hydrobond export-fmu MACHINE.toml --mode valves``) rebuilds
the machine's model with its read-outs as observers — each ``[outputs.points]`` entry
(``tip_x``, ``tip_y``: the point's position in the front's plane along the root chain of
angle states), each function's ``<f>_length``, a swinging machine's ``swing_angle`` and
``swing_rate`` and, in mode valves, ``<f>_cap_pressure`` and ``<f>_rod_pressure`` — from
the model's own assembled graph (its circuit, turntable, soil tool...), and writes it with
:func:`bondgraph.export.fmu.export_standalone_fmu`. The FMU's inputs are those of the
mode: the spool commands ``<f>.cmd`` (valves) or the cylinder forces ``<cylinder>.force``
and, with a ``[swing]``, the swing motor's shaft torque ``swing.torque`` (N·m, the torque at
the swing axis divided by the gear ratio, as a run passes a cycle's ``swing`` column) (forces); its state
start values are :meth:`Machine.start_state`; the circuit's pressure states get the nominal
value :data:`~mechanisms.machine.run.PRESSURE_ATOL_SCALE`, as the native run scales their
absolute tolerance.

Examples
--------
>>> import tempfile, pathlib
>>> from mechanisms.machine import Machine, DATA
>>> m = Machine.from_file(DATA / "excavator.toml", mode="valves")
>>> fmu = export_machine_fmu(m, pathlib.Path(tempfile.mkdtemp()) / "excavator.fmu")
>>> from fmpy import read_model_description
>>> md = read_model_description(str(fmu))
>>> sorted(v.name for v in md.modelVariables if v.causality == "input")
['arm.cmd', 'boom.cmd', 'bucket.cmd']
>>> [v.name for v in md.modelVariables if v.causality == "output"][:2]
['tip_x', 'tip_y']

The excavator on its turntable, driven by forces and the swing motor's torque:

>>> truck = Machine.from_file(DATA / "excavator_truck.toml", mode="forces")
>>> md = read_model_description(str(export_machine_fmu(truck, pathlib.Path(tempfile.mkdtemp()) / "t.fmu")))
>>> [(v.name, v.unit) for v in md.modelVariables if v.name.startswith("swing")]
[('swing.torque', 'N*m'), ('swing_angle', 'rad'), ('swing_rate', 'rad/s')]
"""

from __future__ import annotations

import os
from pathlib import Path

import sympy as sp

from bondgraph.errors import ParameterError

__all__ = ["export_machine_fmu", "read_out_expressions"]


def read_out_expressions(machine) -> tuple[dict[str, sp.Expr], dict[str, str]]:
    """The machine's read-outs as sympy expressions of its states, and their units.

    Output points follow :meth:`mechanisms.model.MechanismModel.poses`: from the point fixed
    on the chassis along each part's root chain, with the angle states of the parts (in the
    front's plane; a swinging machine's turntable adds ``swing_angle`` and ``swing_rate``,
    as in its run table).

    Parameters
    ----------
    machine : Machine

    Returns
    -------
    (dict, dict)
        Name → expression; name → unit.

    Raises
    ------
    ParameterError
        A machine of another formulation than ``causal``, or an output point on a part
        whose pose is not given by one angle state.

    Examples
    --------
    >>> from mechanisms.machine import Machine, DATA
    >>> exprs, units = read_out_expressions(Machine.from_file(DATA / "excavator.toml", mode="valves"))
    >>> list(exprs)[:3], units["tip_x"]
    (['tip_x', 'tip_y', 'boom_length'], 'm')
    """
    if machine.formulation != "causal":
        raise ParameterError(f"FMU export: machine formulation {machine.formulation!r}; expected 'causal' "
                             "(a bond-graph model with generated equations)")
    mm, mech, desc = machine.model, machine.mechanism, machine.description
    exprs: dict[str, sp.Expr] = {}
    units: dict[str, str] = {}
    world: dict[str, dict[str, tuple]] = {}

    def world_of(name: str) -> dict[str, tuple]:
        if name in world:
            return world[name]
        part = mech.parts[name]
        if "theta" not in part.coordinate_states:
            raise ParameterError(f"FMU export: output point on part {name!r}, whose pose is not one angle "
                                 "state (expected a body)")
        parent = mech._parent(part)
        if parent is None:
            rx, ry = (sp.Float(v) for v in mech.fixed[(name, part.root.name)])
        else:
            rx, ry = world_of(parent[0])[parent[1]]
        th = sp.Symbol(mm.state(name, "theta"))
        c, s = sp.cos(th), sp.sin(th)
        lx, ly = (sp.Float(v) for v in part.root.local)
        ox, oy = rx - (c * lx - s * ly), ry - (s * lx + c * ly)
        pts = {}
        for p in part.points.values():
            x, y = (sp.Float(v) for v in p.local)
            pts[p.name] = (ox + c * x - s * y, oy + s * x + c * y)
        world[name] = pts
        return pts

    for name, (part, point) in desc.output_points.items():
        x, y = world_of(part)[point]
        exprs[f"{name}_x"], exprs[f"{name}_y"] = x, y
        units[f"{name}_x"] = units[f"{name}_y"] = "m"
    for f in desc.functions:
        exprs[f"{f}_length"] = sp.Symbol(mm.state(desc.cylinder_of[f], "s"))
        units[f"{f}_length"] = "m"
    exprs.update(_swing_read_outs(machine, units))
    if machine.mode == "valves" and machine.circuit is not None:
        prefix = f"{mech.name}/{machine.circuit.name}"
        for f in desc.functions:
            cap, rod = machine.circuit.chambers[f]
            exprs[f"{f}_cap_pressure"] = sp.Symbol(f"{prefix}/{cap}")
            exprs[f"{f}_rod_pressure"] = sp.Symbol(f"{prefix}/{rod}")
            units[f"{f}_cap_pressure"] = units[f"{f}_rod_pressure"] = "Pa"
    return exprs, units


def _swing_read_outs(machine, units: dict[str, str]) -> dict[str, sp.Expr]:
    """A swinging machine's ``swing_angle`` (rad) and ``swing_rate`` (rad/s), as the run
    table's (:func:`.swing.swing_read_outs`): the turntable's angle state; its rate state, or
    without one (no inertia of its own) the flow of its drive's bond."""
    from .swing import SWING

    tt = getattr(machine, "turntable", None)
    if tt is None:
        return {}
    mech, model = machine.mechanism, machine.model.model
    out = {"swing_angle": sp.Symbol(mech.swing_state("angle"))}
    rate = mech.swing_state("rate")
    if rate in model.state_names:
        out["swing_rate"] = sp.Symbol(rate)
    else:   # the drive's bond: its flow is the axis rate (rate drive) or the motor's (torque drive)
        node = f"{mech.name}/{SWING}/{tt.drive}"
        bond = next(k for *_, k in model.graph.edges(node, keys=True)) if model.graph.out_degree(node) else \
            next(k for *_, k in model.graph.in_edges(node, keys=True))
        out["swing_rate"] = sp.Symbol(f"f[{bond}]") / (1 if tt.drive == "rate" else tt.gear_ratio)
    units.update(swing_angle="rad", swing_rate="rad/s")
    return out


def export_machine_fmu(machine, path: str | os.PathLike, *, rtol: float = 1e-6, atol: float = 1e-8,
                       co_simulation: bool = True, stop_time: float | None = None, fmi_version: int = 2) -> Path:
    """Write the machine as a standalone FMI 2.0 or 3.0 FMU (model exchange and co-simulation).

    Parameters
    ----------
    machine : Machine
        In mode ``valves`` (inputs: spool commands) or ``forces`` (inputs: cylinder forces,
        and the swing motor's torque ``swing.torque`` of a machine with ``[swing]``).
    path : path-like
        The ``.fmu`` to write.
    rtol, atol : float
        The co-simulation solver's tolerances (pressure states: ``atol`` times
        :data:`~mechanisms.machine.run.PRESSURE_ATOL_SCALE`).
    co_simulation : bool
        Also offer co-simulation (CVODE bundled).
    stop_time : float, optional
        The default experiment's stop time.
    fmi_version : {2, 3}
        FMI 2.0 (default) or FMI 3.0 (:func:`~bondgraph.export.fmu.export_standalone_fmu`).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ParameterError
        Mode ``extensions`` (its inputs are rates of prescribed lengths: no FMU), another
        formulation than causal, or a bad argument.

    Examples
    --------
    See the module.
    """
    from bondgraph import build
    from bondgraph.export.fmu import export_standalone_fmu

    from .run import PRESSURE_ATOL_SCALE
    from .swing import SWING

    if machine.mode not in ("valves", "forces"):
        raise ParameterError(f"FMU export: mode {machine.mode!r}; expected 'valves' (inputs: spool commands) "
                             "or 'forces' (inputs: cylinder forces)")
    exprs, units = read_out_expressions(machine)
    base = machine.model.model
    # the free symbols of the laws (masses, bores...) at their current values; every value is
    # copied from the machine's model below
    free = {n: float(base.params[n]) for n in getattr(machine, "_symbols", {}) if n in base.params}
    # the model's own assembled graph (the front, its circuit, a turntable, a soil tool composed
    # on it...), copied: the rebuild assigns causality again on the copy
    model = build(base.graph.copy(), free, observe=exprs)
    if list(model.state_names) != list(base.state_names) or list(model.equations.params) != list(base.equations.params):
        raise ParameterError("FMU export: the model rebuilt with its read-outs orders its states or "
                             "parameters differently from the machine's model")   # pragma: no cover
    model.system.set_params(base.system.params)
    start = machine.start_state()
    nominal = {}
    if machine.mode == "valves" and machine.circuit is not None:
        prefix = f"{machine.mechanism.name}/{machine.circuit.name}/"
        nominal = {prefix + s: PRESSURE_ATOL_SCALE for s in machine.circuit.pressure_states()}
    for s in model.state_names:
        units.setdefault(s, "Pa" if s in nominal else "")
    if machine.mode == "forces":   # the inputs: cylinder forces, and the swing motor's torque
        units.update({u: "N" for u in model.equations.inputs if str(u).endswith(".force")})
        if getattr(machine, "turntable", None) is not None:
            units[f"{SWING}.torque"] = "N*m"
    units = {k: v for k, v in units.items() if v}
    crossings = []
    for f in machine.functions:   # the stroke ends, as contact_events locates them in a native run
        s = machine.model.state(machine.cylinder_of[f], "s")
        lo, hi = machine.description.stroke_limits(f)
        crossings += [(s, float(hi), 1), (s, float(lo), -1)]
    return export_standalone_fmu(model, path, start=start, outputs=list(exprs), nominal=nominal, units=units,
                                 rtol=rtol, atol=atol, co_simulation=co_simulation, stop_time=stop_time,
                                 model_name=machine.name if hasattr(machine, "name") else base.name,
                                 description=f"{base.name} in mode {machine.mode}, exported by hydrobond",
                                 crossings=crossings, fmi_version=fmi_version)
