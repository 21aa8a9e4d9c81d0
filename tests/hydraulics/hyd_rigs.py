"""Small hydraulic test rigs built from the templates (shared by the hydraulic tests)."""

from __future__ import annotations

import math

import numpy as np
from scipy.integrate import simpson

from bondgraph import BondGraph, Input, Se, Sf, build
from components import Cylinder, MainBody
from components.hydraulics import (DirectionalValve, Friction, HydraulicCircuit,
                                   HydraulicCylinder, HydraulicDrive, Oil, PowerUnit,
                                   SpoolDynamics)
from mechanisms.assembly import Mechanism
from mechanisms.examples import BOOM, section_e_boom

G = 9.81


def lifted_mass(*, bore=0.1, V0=2e-3, beta=1.2e9, m=1000.0, c=2e4, leak=1e-12, Q0=1e-3):
    """Vertical single-chamber cylinder lifting a mass with a flow step (see reference.hydraulic)."""
    A = math.pi * bore**2 / 4
    bg = BondGraph("lift")
    cyl = HydraulicCylinder("cyl", bore=bore, stroke=1.0, oil=Oil(bulk_modulus=beta), single_acting=True,
                            dead_volumes=(V0, 0.0), piston_mass=m, friction=Friction(viscous=c),
                            leakage_external=(leak, 0.0), pressures=(m * G / A, 0.0))
    bg.add(cyl, Sf("Q", Q0), Se("gravity", -m * G))
    bg.connect("Q", "cyl/A")
    bg.connect("gravity", "cyl/I")
    return build(bg)


def drive_rig(*, command, oil=None, pump=None, pressure=None, relief=None, end_stop=None,
              friction=None, leakage_internal=0.0, leakage_external=(0.0, 0.0), x0=0.3,
              load_mass=500.0, hoses=None, spool=SpoolDynamics(20.0), name="rig", params=None):
    """A horizontal double-acting cylinder pushing a mass, valve, power unit."""
    oil = oil or Oil(bulk_modulus=1.2e9)
    pu = (PowerUnit("pu", oil=oil, pressure=pressure) if pump is None else
          PowerUnit("pu", oil=oil, pump=pump, relief=relief, volume="1 L"))
    circ = HydraulicCircuit("hyd", pu)
    cyl = HydraulicCylinder("cyl", bore="63 mm", rod="36 mm", stroke="0.5 m", oil=oil, x0=x0,
                            piston_mass=load_mass, dead_volumes=("0.05 L", "0.05 L"),
                            friction=friction, end_stop=end_stop,
                            leakage_internal=leakage_internal, leakage_external=leakage_external)
    valve = DirectionalValve("valve", q_nominal="40 L/min", dp_nominal="5 bar", command=command,
                             spool=spool)
    port = circ.add_drive(HydraulicDrive("act", cylinder=cyl, valve=valve, hoses=hoses))
    bg = BondGraph(name)
    bg.add(circ, Se("load", 0.0))
    bg.connect("load", f"hyd/{port}")
    return build(bg, params), cyl


def boom_rig(*, beta=1.0e9, hoses=("1.96 L", "1.96 L"), pressure="200 bar", command=None,
             friction=None, name="rig"):
    """The section-E boom rig (see :func:`mechanisms.examples.section_e_boom`), built."""
    mech, hc = section_e_boom(beta=beta, hoses=hoses, pressure=pressure, command=command,
                              friction=friction, name=name)
    return mech, build(mech.bond_graph()), hc


def node_inflow(res, node: str, exclude: tuple[str, ...]) -> np.ndarray:
    """Net flow into a 0-junction over every bond except those to the named elements."""
    g = res.model.graph
    q = np.zeros(len(res.t))
    for u, v, k in g.in_edges(node, keys=True):
        if u not in exclude:
            q += res.flow(k)
    for u, v, k in g.out_edges(node, keys=True):
        if v not in exclude:
            q -= res.flow(k)
    return q


def integral(t: np.ndarray, y: np.ndarray) -> float:
    return float(simpson(y, x=t))
