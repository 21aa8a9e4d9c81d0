"""A machine description → a :class:`~mechanisms.Mechanism` of templates, driven for a mode.

Nothing here knows any machine: parts become :class:`~components.MainBody`,
:class:`~components.Lever` and :class:`~components.Cylinder` templates, the chassis
and hinge tables become ``fix``/``connect`` calls (checked against the causal
connection rules), and the cylinders' ``I`` ports are driven as the mode asks:

* ``extensions`` — prescribed pin-to-pin lengths (their rates are the inputs);
* ``forces`` — prescribed forces (net force on the rod, positive pushing) with the
  cylinder's end stops on the drive: a stiff spring–damper past each stroke end whose
  spring hardens with ``(δ/h)²`` (``end_stop.hardening_length``, default 1 mm), so a
  force far beyond what the machine can take ends a few millimetres past the stop.
  The cushion (oil throttled out of the end chamber) is a hydraulic effect and acts
  in mode ``valves`` only;
* ``valves`` — the hydraulic circuit of ``[circuit]`` (see :mod:`.circuits`), its
  spool commands ``<function>.cmd`` the inputs.

Masses, inertias, payload masses, gravity, bores and rod diameters enter the
templates as sympy symbols named by their file keys (``"boom.mass"``), so the
compiled model takes them as run-time parameters (``Model.set_params``); a value of
exactly 0 is left out of the graph instead (no elements for a massless barrel), and
giving it a value later rebuilds.

Examples
--------
>>> from mechanisms.machine.description import MachineDescription, DATA
>>> a = assemble(MachineDescription.load(DATA / "excavator.toml"), "forces")
>>> sorted(a.mechanism.drives), a.params["boom.mass"]
(['arm_cylinder', 'boom_cylinder', 'bucket_cylinder'], 1307.0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from bondgraph import Input
from bondgraph.errors import BondGraphError, ConnectionRuleError, ParameterError
from components import Cylinder, Lever, MainBody
from components.cylinder import HYDRAULIC_DATA

from ..assembly import Mechanism
from .circuits import Circuit, CircuitContext, build_circuit
from .description import MODES, MachineDescription

__all__ = ["Assembled", "assemble"]



@dataclass
class Assembled:
    """What :func:`assemble` returns."""

    mechanism: Mechanism
    params: dict[str, float]          # run-time parameter values by key
    symbols: dict[str, sp.Symbol]
    circuit: Circuit | None


class _Params:
    def __init__(self, symbolic: bool):
        self.symbolic = symbolic
        self.values: dict[str, float] = {}
        self.symbols: dict[str, sp.Symbol] = {}

    def __call__(self, key: str, value: float):
        if not self.symbolic or value == 0:
            return value
        sym = sp.Symbol(key, real=True)
        self.symbols[key] = sym
        self.values[key] = float(value)
        return sym


def assemble(desc: MachineDescription, mode: str, *, symbolic: bool = True,
             name: str | None = None, end_stops: bool = True) -> Assembled:
    """Build the mechanism of a description, driven for ``mode``.

    Parameters
    ----------
    desc : MachineDescription
    mode : {"extensions", "forces", "valves"} or None
        ``None``: the linkage alone, its cylinders not driven (what
        :meth:`MachineDescription.to_mechanism` gives for editing).
    symbolic : bool
        Masses, inertias, gravity and bores as run-time parameters (symbols). The
        reference formulations (stiff joints, Cartesian) need plain numbers: ``False``.
    name : str, optional
        Model name (default the machine's).
    end_stops : bool
        The cylinders' end stops (default): on the force drives in mode forces, in the
        circuit's cylinders in mode valves. ``False`` leaves them out (bare force drives;
        the reference formulations ignore the stops anyway).

    Raises
    ------
    ConnectionRuleError
        Every rule the hinges break, each naming both parts and ports.
    ParameterError
        A part or the circuit with bad values.
    """
    if mode is not None and mode not in MODES:
        raise ParameterError(f"mode {mode!r}: expected one of {', '.join(MODES)}")
    P = _Params(symbolic)
    g = P("machine.gravity", desc.gravity)
    mech = Mechanism(name or desc.name)
    problems: list[str] = []
    for part in desc.parts.values():
        v = part.values
        try:
            if part.type == "body":
                pms = {pn: (P(f"payloads.{pn}.mass", pl["mass"]), pl["at"])
                       for pn, pl in desc.payloads.items() if pl["part"] == part.name}
                mech.add(MainBody(part.name, mass=P(f"{part.name}.mass", v["mass"]),
                                  inertia=P(f"{part.name}.inertia", v["inertia"]), cog=v["cog"],
                                  points=part.points, gravity=g, point_masses=pms))
            elif part.type == "lever":
                inertia = P(f"{part.name}.inertia", v["inertia"]) if "inertia" in v else None
                mech.add(Lever(part.name, length=v["length"], mass=P(f"{part.name}.mass", v["mass"]),
                               inertia=inertia, cog=v.get("cog"), gravity=g, root=v["root"], tip=v["tip"]))
            else:
                n = v["count"]
                mech.add(Cylinder(part.name, retracted=v["retracted"], stroke=v["stroke"],
                                  m_rod=n * P(f"{part.name}.rod_mass", v["rod_mass"]),
                                  m_barrel=n * P(f"{part.name}.barrel_mass", v["barrel_mass"]),
                                  J_rod=n * P(f"{part.name}.rod_inertia", v["rod_inertia"]),
                                  J_barrel=n * P(f"{part.name}.barrel_inertia", v["barrel_inertia"]),
                                  d_rod=v["rod_cog"], d_barrel=v["barrel_cog"], gravity=g,
                                  root=v["root"], tip=v["tip"], function=v["function"], count=n,
                                  **{k: v[k] for k in HYDRAULIC_DATA if k in v},
                                  friction=v.get("friction"), end_stop=v.get("end_stop")))
        except BondGraphError as exc:
            problems += [f"part {part.name!r} ({desc.where(part.name)}): {p}" for p in exc.problems]
    if problems:
        raise ParameterError(problems, subject=desc.file.label)
    for (part, point), at in desc.chassis.items():
        try:
            mech.fix(part, point, at=at)
        except BondGraphError as exc:
            problems += [f"'chassis.{part}.{point}' ({desc.where(f'chassis.{part}.{point}')}): {p}"
                         for p in exc.problems]
    for (a, b) in desc.hinges:
        key = f"hinges.{a[0]}.{a[1]}"
        try:
            mech.connect(a[0], a[1], b[0], b[1])
        except BondGraphError as exc:
            problems += [f"{key!r} ({desc.where(key)}): {p}" for p in exc.problems]
    if problems:
        raise ConnectionRuleError(problems, subject=desc.file.label)
    circuit = None
    if mode is None:          # the linkage alone, for editing in Python (no drives, not checked)
        return Assembled(mech, P.values, P.symbols, None)
    if mode == "extensions":
        for c in desc.cylinders:
            mech.drive_extension(c)
    elif mode == "forces":
        for c in desc.cylinders:
            mech.drive_force(c, end_stop=None if end_stops else False)   # None: the cylinder's own
    else:
        if desc.circuit is None:
            raise ParameterError(f"{desc.file.name}: mode 'valves' needs a [circuit] table (the "
                                 "hydraulic circuit); modes extensions and forces run without one")
        for f in desc.functions:  # bores and rods as run-time parameters of the circuit
            c = desc.cylinder_of[f]
            for k in ("bore", "rod"):
                P(f"{c}.{k}", desc.parts[c].values[k])
        ctx = CircuitContext(section=desc.circuit, description=desc, functions=desc.functions,
                             lengths={f: mech.parts[desc.cylinder_of[f]].length_symbol for f in desc.functions},
                             commands={f: Input(f"{f}.cmd") for f in desc.functions},
                             symbols=P.symbols, name="hyd", end_stops=end_stops)
        circuit = build_circuit(ctx)
        for f in desc.functions:
            mech.drive_external(desc.cylinder_of[f], circuit.component, f"{f}.I")
    try:
        mech.check()
    except ConnectionRuleError as exc:
        raise ConnectionRuleError(exc.problems, subject=desc.file.label) from None
    return Assembled(mech, P.values, P.symbols, circuit)
