"""Small hydraulic test rigs built from the templates (shared by the hydraulic tests)."""

from __future__ import annotations

import math

import numpy as np
from scipy.integrate import simpson

from bondgraph import BondGraph, Input, Se, Sf, build
from components import Cylinder, MainBody
from components.hydraulics import (DirectionalValve, EndStop, FixedPump, Friction, HydraulicCircuit,
                                   HydraulicCylinder, HydraulicDrive, Oil, PowerUnit, ReliefValve,
                                   SpoolDynamics)
from mechanisms.assembly import Mechanism
from mechanisms.examples import BOOM

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
              load_mass=500.0, hoses=None, spool=SpoolDynamics(20.0), name="rig"):
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
    return build(bg), cyl


def boom_rig(*, beta=1.0e9, hoses=("1.96 L", "1.96 L"), pressure="200 bar", command=None,
             friction=None, name="rig"):
    """The boom of EXCAVATOR.md section E on its cylinder pair (one cylinder of doubled area).

    The front (boom + arm + 50 kg bucket, held rigid) is one body: 2057.5 kg with its
    centre of gravity 5.04 m along the boom frame's x axis (gravity moment 65.4 kN·m at
    the start pose) and 71 383 kg·m² about the foot.
    """
    b = BOOM
    mech = Mechanism(name)
    m, d, J_foot = 2057.5, 5.04, 71383.0
    mech.add(MainBody("boom", mass=m, inertia=J_foot - m * d**2, cog=(d, 0.0),
                      points={"C": ("Rt", (0.0, 0.0)), "B": ("Pd", b["rod_pin"])}))
    cyl = mech.add(Cylinder("boom_cyl", retracted=2.48, stroke=1.25))
    mech.fix("boom", "C", at=b["foot"])
    mech.fix("boom_cyl", "A", at=b["cyl_base"])
    mech.connect("boom", "B", "boom_cyl", "B")
    oil = Oil(bulk_modulus=beta)
    circ = HydraulicCircuit("hyd", PowerUnit("pu", oil=oil, pressure=pressure))
    hc = HydraulicCylinder("cyl", bore="135 mm", rod="50 mm", stroke="1.25 m", retracted="2.48 m",
                           length=cyl.length_symbol, oil=oil, count=2, friction=friction,
                           dead_volumes=("1e-3 L", "1e-3 L"))
    valve = DirectionalValve("valve", q_nominal="0.01 m^3/s", dp_nominal="3 bar",
                             command=Input("boom.cmd") if command is None else command,
                             spool=SpoolDynamics(10.0))
    port = circ.add_drive(HydraulicDrive("boom", cylinder=hc, valve=valve, hoses=hoses))
    mech.drive_external("boom_cyl", circ, port)
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
