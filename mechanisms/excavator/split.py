"""The excavator split at the cylinders' ``I`` ports, for co-simulation (seed 000).

Two models of this toolkit, each running on its own solver, both from the same
machine file:

* **mechanical** — the front with force-driven cylinders (mode ``forces``, end
  stops included); in: the three cylinder forces (N, + pushing); out: pin-to-pin
  lengths and extension rates;
* **hydraulic** — the ``[circuit]`` (pump, relief, valves, hoses, chambers and
  pistons) with each rod's motion prescribed; in: rod position and velocity; out:
  cylinder forces.

As seed 000 asks, the hydraulic cylinders take "rod position and velocity in,
force out", and only one side carries each constraint. Both start from the
monolithic model's static equilibrium.

Examples
--------
>>> sides = ExcavatorSplit()
>>> sorted(sides.relations.directions())
[('hyd', 'mech'), ('mech', 'hyd')]
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from bondgraph import BondGraph, Input, MSf, One, build
from bondgraph.cosim import Cosimulation, Glue, Relations, TimeManager
from bondgraph.cosim.model import ModelSubsystem
from bondgraph.cosim.relations import PowerBond

from ..assembly import Pose
from ..machine.assemble import assemble
from ..machine.circuits import CircuitContext, build_circuit
from ..model import MechanismModel
from .model import Cycle, Excavator

__all__ = ["ExcavatorSplit"]


class ExcavatorSplit:
    """Mechanical and hydraulic sides of the excavator as co-simulation subsystems.

    Parameters
    ----------
    overrides : dict, optional
        Values of the reference file to change (dotted keys with units).
    cycle : Cycle, optional
        Valve commands (default: the 10 s dig–lift–dump).
    """

    def __init__(self, overrides: Mapping[str, Any] | None = None, cycle: Cycle | None = None):
        self.cycle = cycle or Cycle.default("valves")
        self.monolithic = Excavator(overrides=overrides, mode="valves")
        desc = self.monolithic.description
        fns = desc.functions
        cyl = desc.cylinder_of
        x0 = self.monolithic.start_state()
        # mechanical side
        a = assemble(desc, "forces", name="mech", symbolic=False)
        self.mech_model = MechanismModel.build(a.mechanism)
        self.start_pose = Pose(a.mechanism, dict(self.monolithic.start_pose.values))
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
        root = self.monolithic.mechanism.name
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

    def cosimulation(self, step: float, end: float, glue: str = "quadratic",
                     scheme: str = "jacobi") -> Cosimulation:
        """A ready :class:`~bondgraph.cosim.Cosimulation` of the two sides."""
        return Cosimulation([self.mechanical, self.hydraulic], self.relations,
                            TimeManager(step=step, end=end, scheme=scheme), Glue(glue))

    def tip_path(self, cres) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Bucket-tip path of a co-simulation, from the mechanical side's recorded lengths
        (position analysis along the samples, on the start pose's assembly branch)."""
        mech = self.mech_model.mechanism
        desc = self.monolithic.description
        targets = {desc.cylinder_of[f]: np.asarray(cres[f"mech.{f}_s"], dtype=float) for f in desc.functions}
        poses = mech.track(targets, self.start_pose)
        part, point = desc.output_points["tip"]
        xy = np.array([p.points()[f"{part}/{point}"] for p in poses])
        return np.asarray(cres.time), xy[:, 0], xy[:, 1]
