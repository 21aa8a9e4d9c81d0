"""Any machine split at its cylinders' ``I`` ports, for co-simulation (the Tsinghua co-simulation middleware patent).

Two models of this toolkit, each running on its own solver, both from the same
machine file:

* **mechanical** — the linkage with force-driven cylinders (mode ``forces``, end
  stops included); in: each function's cylinder force (N, + pushing); out: pin-to-pin
  lengths and extension rates;
* **hydraulic** — the ``[circuit]`` (pump, relief, valves, hoses, chambers and
  pistons) with each rod's motion prescribed; in: rod position and velocity; out:
  cylinder forces.

As the Tsinghua co-simulation middleware patent asks, the hydraulic cylinders take "rod position and velocity in,
force out", and only one side carries each constraint. Both start from the
monolithic model's static equilibrium. The exchanged signals are named by function:
``mech.lift_s``, ``hyd.lift_F``...

Examples
--------
>>> from mechanisms.machine import DATA
>>> sides = MachineSplit.from_file(DATA / "knuckle_crane.toml")
>>> sorted(sides.relations.directions()), sides.point
([('hyd', 'mech'), ('mech', 'hyd')], 'hook')
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

import numpy as np

from bondgraph import BondGraph, Input, MSf, One, build
from bondgraph.cosim import Cosimulation, Glue, Relations, TimeManager
from bondgraph.cosim.model import ModelSubsystem
from bondgraph.cosim.relations import PowerBond
from bondgraph.errors import ParameterError

from ..assembly import Pose
from ..model import MechanismModel
from .assemble import assemble
from .circuits import CircuitContext, build_circuit
from .cycle import Cycle
from .machine import Machine

__all__ = ["MachineSplit"]


class MachineSplit:
    """Mechanical and hydraulic sides of a machine as co-simulation subsystems.

    Parameters
    ----------
    monolithic : Machine
        The machine in mode ``valves`` (its ``[circuit]`` is the hydraulic side; its
        start state the start of both sides).
    cycle : Cycle, optional
        Valve commands (default: the file's default cycle in mode valves).

    Raises
    ------
    ParameterError
        A machine in another mode, or a file without ``[circuit]``.
    """

    def __init__(self, monolithic: Machine, cycle: Cycle | None = None):
        if not isinstance(monolithic, Machine) or monolithic.mode != "valves":
            got = f"mode {monolithic.mode!r}" if isinstance(monolithic, Machine) else type(monolithic).__name__
            raise ParameterError(f"co-simulation split: expected a Machine in mode 'valves' (its [circuit] is "
                                 f"the hydraulic side), found {got}")
        self.monolithic = monolithic
        self.cycle = cycle or monolithic.cycle(None, "valves")
        desc = monolithic.description
        fns = desc.functions
        cyl = desc.cylinder_of
        x0 = monolithic.start_state()
        # mechanical side
        a = assemble(desc, "forces", name="mech", symbolic=False)
        self.mech_model = MechanismModel.build(a.mechanism)
        self.start_pose = Pose(a.mechanism, dict(monolithic.start_pose.values))
        mx0 = self.mech_model.initial_state(self.start_pose)
        # hydraulic side
        hyd = BondGraph("hydside")
        ctx = CircuitContext(section=desc.circuit, description=desc, functions=fns,
                             lengths={f: Input(f"{f}.s") for f in fns},
                             commands={f: Input(f"{f}.cmd") for f in fns}, symbols={}, name="hyd")
        circuit = build_circuit(ctx)
        hyd.add(circuit.component)
        for f in fns:
            hyd.add(One(f"{f}_rod"), MSf(f"{f}_motion", Input(f"{f}.v")))
            hyd.connect(f"hyd/{f}.I", f"{f}_rod")
            hyd.connect(f"{f}_motion", f"{f}_rod")
        self.hyd_model = build(hyd)
        g = self.hyd_model.graph
        force_bond = {f: next(k for u, v, k in g.edges(keys=True) if v == f"hydside/{f}_rod"
                              and u.startswith("hydside/hyd/")) for f in fns}
        hx0 = {}
        root = monolithic.mechanism.name
        for name in self.hyd_model.state_names:
            mono = f"{root}/" + name.split("/", 1)[1]
            if mono in x0:
                hx0[name] = x0[mono]
        sig = self.cycle.signals()
        mm = self.mech_model
        self.mechanical = ModelSubsystem(
            mm.model, "mech", inputs={f"{f}_F": (f"{cyl[f]}.force", "N") for f in fns},
            outputs={**{f"{f}_s": (mm.state(cyl[f], "s"), "m") for f in fns},
                     **{f"{f}_v": (f"mech/{cyl[f]}_piston.f", "m/s") for f in fns}},
            x0=mx0, rtol=1e-8, atol=1e-10)
        self.hydraulic = ModelSubsystem(
            self.hyd_model, "hyd",
            inputs={**{f"{f}_s": (f"{f}.s", "m") for f in fns}, **{f"{f}_v": (f"{f}.v", "m/s") for f in fns}},
            outputs={f"{f}_F": (f"e[{force_bond[f]}]", "N") for f in fns},
            x0=hx0, signals={f"{f}.cmd": sig[f] for f in fns}, rtol=1e-8, atol=1e-10)
        rel = [f"mech.{f}_{q} -> hyd.{f}_{q}" for f in fns for q in ("s", "v")]
        rel += [f"hyd.{f}_F -> mech.{f}_F" for f in fns]
        self.relations = Relations(rel, bonds=[PowerBond(effort=f"hyd.{f}_F", flow=f"mech.{f}_v")
                                               for f in fns])

    @classmethod
    def from_file(cls, path: str | Path, overrides: Mapping[str, Any] | None = None,
                  cycle: Cycle | None = None) -> "MachineSplit":
        """The split of a machine file (mode valves), with ``overrides`` (dotted keys with units)."""
        return cls(Machine.from_file(path, overrides, mode="valves"), cycle)

    @property
    def point(self) -> str:
        """The output point :meth:`tip_path` follows: the file's first ``[outputs]`` point."""
        pts = self.monolithic.description.output_points
        if not pts:
            raise ParameterError(f"{self.monolithic.description.file.name}: no [outputs] points: the path of "
                                 "a co-simulation needs one (e.g. points.tip = \"bucket.Q\")")
        return next(iter(pts))

    def cosimulation(self, step: float, end: float, glue: str = "quadratic",
                     scheme: str = "jacobi") -> Cosimulation:
        """A ready :class:`~bondgraph.cosim.Cosimulation` of the two sides."""
        return Cosimulation([self.mechanical, self.hydraulic], self.relations,
                            TimeManager(step=step, end=end, scheme=scheme), Glue(glue))

    def tip_path(self, cres, every: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Path of :attr:`point` (the excavator's bucket tip, the crane's hook) in a
        co-simulation, from the mechanical side's recorded lengths (position analysis along
        every ``every``-th sample, on the start pose's assembly branch): ``(t, x, y)``."""
        if isinstance(every, bool) or not isinstance(every, int) or every < 1:
            raise ParameterError(f"tip_path: every = {every!r}, expected a whole number ≥ 1")
        mech = self.mech_model.mechanism
        desc = self.monolithic.description
        targets = {desc.cylinder_of[f]: np.asarray(cres[f"mech.{f}_s"], dtype=float)[::every]
                   for f in desc.functions}
        poses = mech.track(targets, self.start_pose)
        part, point = desc.output_points[self.point]
        xy = np.array([p.points()[f"{part}/{point}"] for p in poses])
        return np.asarray(cres.time)[::every], xy[:, 0], xy[:, 1]
