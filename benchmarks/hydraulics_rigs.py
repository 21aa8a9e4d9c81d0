"""Hydraulic benchmark rigs, built from the templates only (used by hydraulics_solvers.py).

* :func:`lifted_mass` — a vertical single-chamber cylinder lifting 1 t with a flow step;
* :func:`boom_on_valve` — the excavator boom (docs/reference/excavator_data.md section E, front held rigid)
  on its cylinder pair, a 4/3 valve with 10 Hz spool dynamics on an ideal 200 bar supply,
  the valve position a discrete mode (Hold / Lower / Raise, 10 % opening) switched by a
  time schedule; end stops with cushions.
"""

from __future__ import annotations

import math

from bondgraph import BondGraph, Se, Sf, build
from bondgraph.hybrid import At, Discrete, HybridModel, Transition
from bondgraph.linearize import equilibrium
from components import Cylinder, MainBody
from components.hydraulics import (DirectionalValve, EndStop, Friction, HydraulicCircuit, HydraulicCylinder,
                                   HydraulicDrive, Oil, PowerUnit, SpoolDynamics)
from mechanisms.assembly import Mechanism
from mechanisms.examples import BOOM, section_e_boom

__all__ = ["lifted_mass", "boom_on_valve", "BOOM_PREFIX"]

BOOM_PREFIX = "boom_rig/hyd/boom/cyl/"


def lifted_mass():
    """Model and initial state of the lifted mass (bore 0.1 m, 2 L, 1.2 GPa, 1 t, 1 L/s)."""
    m, g, A = 1000.0, 9.81, math.pi * 0.1**2 / 4
    bg = BondGraph("lift")
    cyl = HydraulicCylinder("cyl", bore=0.1, stroke=1.0, oil=Oil(bulk_modulus=1.2e9),
                            single_acting=True, dead_volumes=(2e-3, 0.0), piston_mass=m,
                            friction=Friction(viscous=2e4), leakage_external=(1e-12, 0.0),
                            pressures=(m * g / A, 0.0))
    bg.add(cyl, Sf("Q", 1e-3), Se("gravity", -m * g))
    bg.connect("Q", "cyl/A")
    bg.connect("gravity", "cyl/I")
    return build(bg)


def boom_on_valve(schedule=((1.0, "Lower"), (3.0, "Hold"), (5.0, "Raise"), (7.0, "Hold"))):
    """(HybridModel, x0) of the boom on its valve; the valve mode follows ``schedule``."""
    valve_mode = Discrete("valve", {"Lower": -0.1, "Hold": 0.0, "Raise": 0.1}, initial="Hold")
    mech, hc = section_e_boom(name="boom_rig", command=valve_mode.symbol, piston_mass=20.0,
                              dead_volumes=("0.1 L", "0.1 L"), friction=Friction(coulomb=1000.0, viscous=5e3),
                              end_stop=EndStop(stiffness=1e9, damping=1e6, cushion_length=0.02,
                                               cushion_damping=2e5))
    transitions = [Transition("valve", "*", mode, At(t)) for t, mode in schedule]
    hm = HybridModel.build(mech.bond_graph(), [valve_mode], transitions)
    model = hm.model
    pose = mech.solve_pose({"boom_cyl": 3.668}, guess={"boom": math.radians(50)})
    x0 = {k: v for k, v in pose.states().items() if k in model.state_names}
    x0[BOOM_PREFIX + "C_B.e"] = 1e6
    xe = equilibrium(model, x0, free=[BOOM_PREFIX + "C_A.e"])
    return hm, xe
