"""The excavator split at the cylinders' ``I`` ports, for co-simulation (seed 000).

Two models of this toolkit, each running on its own solver:

* **mechanical** — the front with force-driven cylinders; in: the three cylinder
  forces (N, + pushing); out: pin-to-pin lengths and extension rates;
* **hydraulic** — pump, relief, valves, hoses, chambers and pistons, with each
  rod's motion prescribed; in: rod position and velocity; out: cylinder forces.

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

from typing import Any

import numpy as np

from bondgraph import BondGraph, Input, MSf, One, build
from bondgraph.cosim import Cosimulation, Glue, Relations, TimeManager
from bondgraph.cosim.model import ModelSubsystem
from bondgraph.cosim.relations import PowerBond
from components.hydraulics import circuit_from_params

from ..model import MechanismModel
from .cycle import Cycle
from .hydraulics import COMMANDS, CYL, FUNCTIONS, circuit_table
from .machine import excavator_mechanism, start_pose
from .model import Excavator
from .params import load_params

__all__ = ["ExcavatorSplit"]


class ExcavatorSplit:
    """Mechanical and hydraulic sides of the excavator as co-simulation subsystems.

    Parameters
    ----------
    params : dict, optional
        Excavator parameters (default: the reference machine).
    cycle : Cycle, optional
        Valve commands (default: the 10 s dig–lift–dump).
    """

    def __init__(self, params: Any = None, cycle: Cycle | None = None):
        self.params = load_params() if params is None else params
        self.cycle = cycle or Cycle.default("valves")
        self.monolithic = Excavator(self.params, mode="valves")
        x0 = self.monolithic.hydraulic.initial_state(self.monolithic, self.monolithic.pose())
        # mechanical side
        mech = excavator_mechanism(self.params, "force", name="mech")
        self.mech_model = MechanismModel.build(mech)
        pose = start_pose(mech, self.params)
        mx0 = self.mech_model.initial_state(pose)
        # hydraulic side
        hyd = BondGraph("hydside")
        circuit = circuit_from_params(circuit_table(self.params, self.params["hydraulics"]),
                                      lengths={f: Input(f"{f}.s") for f in FUNCTIONS},
                                      commands={f: Input(COMMANDS[f]) for f in FUNCTIONS}, name="hyd")
        hyd.add(circuit)
        for f in FUNCTIONS:
            hyd.add(One(f"{f}_rod"), MSf(f"{f}_motion", Input(f"{f}.v")))
            hyd.connect(f"hyd/{f}.I", f"{f}_rod")
            hyd.connect(f"{f}_motion", f"{f}_rod")
        self.hyd_model = build(hyd)
        g = self.hyd_model.graph
        force_bond = {f: next(k for u, v, k in g.edges(keys=True) if v == f"hydside/{f}_rod"
                              and u.startswith("hydside/hyd/")) for f in FUNCTIONS}
        hx0 = {}
        for name in self.hyd_model.state_names:
            mono = "excavator/" + name.split("/", 1)[1]
            if mono in x0:
                hx0[name] = x0[mono]
        sig = self.cycle.signals()
        mm = self.mech_model
        self.mechanical = ModelSubsystem(
            mm.model, "mech", inputs={f"{f}_F": (f"{CYL[f]}.force", "N") for f in FUNCTIONS},
            outputs={**{f"{f}_s": (mm.state(CYL[f], "s"), "m") for f in FUNCTIONS},
                     **{f"{f}_v": (f"mech/{CYL[f]}_piston.f", "m/s") for f in FUNCTIONS}},
            x0=mx0, rtol=1e-8, atol=1e-10)
        self.hydraulic = ModelSubsystem(
            self.hyd_model, "hyd",
            inputs={**{f"{f}_s": (f"{f}.s", "m") for f in FUNCTIONS}, **{f"{f}_v": (f"{f}.v", "m/s") for f in FUNCTIONS}},
            outputs={f"{f}_F": (f"e[{force_bond[f]}]", "N") for f in FUNCTIONS},
            x0=hx0, signals={COMMANDS[f]: sig[f] for f in FUNCTIONS}, rtol=1e-8, atol=1e-10)
        rel = [f"mech.{f}_{q} -> hyd.{f}_{q}" for f in FUNCTIONS for q in ("s", "v")]
        rel += [f"hyd.{f}_F -> mech.{f}_F" for f in FUNCTIONS]
        self.relations = Relations(rel, bonds=[PowerBond(effort=f"hyd.{f}_F", flow=f"mech.{f}_v")
                                               for f in FUNCTIONS])

    def cosimulation(self, step: float, end: float, glue: str = "quadratic",
                     scheme: str = "jacobi") -> Cosimulation:
        """A ready :class:`~bondgraph.cosim.Cosimulation` of the two sides."""
        return Cosimulation([self.mechanical, self.hydraulic], self.relations,
                            TimeManager(step=step, end=end, scheme=scheme), Glue(glue))

    def tip_path(self, cres) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Bucket-tip path of a co-simulation, from the mechanical side's recorded states.

        The lengths fix the pose (one assembly per sample, the linkage branch of the
        start pose), so the tip comes from position analysis of the recorded lengths.
        """
        mech = self.mech_model.mechanism
        pose = start_pose(mech, self.params)
        guess = {n: pose.angle(n) for n in ("boom", "arm", "bucket", "rocker", "link")}
        xs, ys = [], []
        for i in range(len(cres.time)):
            lengths = {CYL[f]: float(cres[f"mech.{f}_s"][i]) for f in FUNCTIONS}
            p = mech.solve_pose(lengths, guess=guess)
            guess = {n: p.angle(n) for n in guess}
            x, y = p.points()["bucket/Q"]
            xs.append(x)
            ys.append(y)
        return np.asarray(cres.time), np.asarray(xs), np.asarray(ys)
