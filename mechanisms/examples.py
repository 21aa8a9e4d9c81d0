"""Ready-made small mechanisms, reused by tests, benchmarks and notebooks.

All are assembled from the templates only; their equations come from the core.

Examples
--------
>>> mech = single_boom()
>>> sorted(mech.parts)
['boom', 'boom_cyl']
"""

from __future__ import annotations

import math

from bondgraph import ParameterError
from components import Cylinder, Lever, MainBody

from .assembly import Mechanism

__all__ = ["single_boom", "BOOM", "four_bar", "body_chain", "knuckle_crane", "section_e_boom"]

#: Boom of the OpenHydraulics excavator (docs/reference/excavator_data.md section B); boom frame at the foot pin.
BOOM = dict(
    foot=(-0.164, 1.428), cyl_base=(0.655, 0.703), rod_pin=(2.85, 1.18), arm_cyl_base=(4.22, 1.33),
    arm_pin=(7.11, 0.0), mass=1307.0, cog=(3.44, 0.65), inertia=8060.0,
)


def single_boom(drive: str | None = "force", *, m_barrel: float = 0.0, m_rod: float = 0.0,
                d_barrel: float = 0.6, d_rod: float = 0.6, J_barrel: float = 0.0,
                J_rod: float = 0.0, gravity: float = 9.81, bore: str = "135 mm", rod: str = "50 mm",
                name: str = "boom_lift") -> Mechanism:
    """A boom pinned to the chassis and lifted by one cylinder.

    The boom of the reference excavator (:data:`BOOM`), its cylinder retracted 2.48 m with a
    1.25 m stroke, bore and rod of one of the machine's two boom cylinders.

    Parameters
    ----------
    drive : {"force", "extension"} or None
        How the cylinder is driven (a force drive with the cylinder's end stops); ``None``
        leaves it undriven (a machine's mode drives it: ``Machine.from_mechanism``).
    m_barrel, m_rod, d_barrel, d_rod, J_barrel, J_rod, gravity, bore, rod
        The cylinder's and the boom's data (:class:`~components.Cylinder`).

    Examples
    --------
    >>> mech = single_boom()
    >>> mech.drives["boom_cyl"].kind, mech.parts["boom_cyl"].length_limits
    ('force', (2.48, 3.73))
    """
    b = BOOM
    mech = Mechanism(name)
    mech.add(MainBody("boom", mass=b["mass"], inertia=b["inertia"], cog=b["cog"], gravity=gravity,
                      points={"C": ("Rt", (0.0, 0.0)), "B": ("Pd", b["rod_pin"]),
                              "D": ("Li", b["arm_cyl_base"]), "F": ("Li", b["arm_pin"])}))
    mech.add(Cylinder("boom_cyl", retracted=2.48, stroke=1.25, m_barrel=m_barrel, m_rod=m_rod,
                      d_barrel=d_barrel, d_rod=d_rod, J_barrel=J_barrel, J_rod=J_rod,
                      gravity=gravity, bore=bore, rod=rod))
    mech.fix("boom", "C", at=b["foot"])
    mech.fix("boom_cyl", "A", at=b["cyl_base"])
    mech.connect("boom", "B", "boom_cyl", "B")
    _drive(mech, "boom_cyl", drive)
    return mech


def _drive(mech: Mechanism, cyl: str, drive: str | None) -> None:
    if drive is None:
        return
    if drive == "force":
        # the cylinder's end stops act (a stiff, hardening stop: the default of a force
        # drive): a force the machine cannot take ends against the stop
        mech.drive_force(cyl)
    elif drive == "extension":
        mech.drive_extension(cyl)
    else:
        raise ParameterError(f"drive {drive!r}: expected 'force', 'extension' or None")


def four_bar(drive: str = "force", *, O1=(0.0, 0.0), O2=(1.0, 0.0), a: float = 0.3,
             b: float = 1.0, c: float = 0.8, masses=(2.0, 4.0, 3.0), cyl_base=(0.2, -0.6),
             cyl_point=(0.25, 0.0), cyl_retracted: float = 0.4, cyl_stroke: float = 0.5,
             inertias=None, cylinder: dict | None = None,
             gravity: float = 9.81, name: str = "four_bar") -> Mechanism:
    """Crank O1–P (a), coupler P–Q (b), rocker O2–Q (c), uniform bars; a cylinder
    from the ground point ``cyl_base`` to ``cyl_point`` on the crank (crank frame).

    Causal classes: the crank is a body (Rt at O1, Pd where the cylinder pushes,
    Li at P); the coupler is a body (Rt at P, Pd at Q); the rocker is a lever
    (Rt at O2, Pr at Q) that pushes the coupler.

    Examples
    --------
    >>> mech = four_bar()
    >>> sorted(mech.parts), [str(h[1]) for h in mech.hinges][:2]
    (['coupler', 'crank', 'cyl', 'rocker'], ['coupler/P (Rt)', 'rocker/Q (Pr)'])
    """
    m1, m2, m3 = masses
    I1, I2, I3 = inertias or (m1 * a**2 / 12, m2 * b**2 / 12, m3 * c**2 / 12)
    mech = Mechanism(name)
    mech.add(MainBody("crank", mass=m1, inertia=I1, cog=(a / 2, 0.0), gravity=gravity,
                      points={"O1": ("Rt", (0.0, 0.0)), "D": ("Pd", cyl_point), "P": ("Li", (a, 0.0))}))
    mech.add(MainBody("coupler", mass=m2, inertia=I2, cog=(b / 2, 0.0), gravity=gravity,
                      points={"P": ("Rt", (0.0, 0.0)), "Q": ("Pd", (b, 0.0))}))
    mech.add(Lever("rocker", length=c, mass=m3, inertia=I3, gravity=gravity, root="O2", tip="Q"))
    mech.add(Cylinder("cyl", retracted=cyl_retracted, stroke=cyl_stroke, gravity=gravity,
                      **(cylinder or {})))
    mech.fix("crank", "O1", at=O1)
    mech.fix("rocker", "O2", at=O2)
    mech.fix("cyl", "A", at=cyl_base)
    mech.connect("crank", "P", "coupler", "P")
    mech.connect("coupler", "Q", "rocker", "Q")
    mech.connect("crank", "D", "cyl", "B")
    _drive(mech, "cyl", drive)
    return mech


def body_chain(n: int, drive: str = "force", *, link: float = 1.0, mass: float = 50.0,
               gravity: float = 9.81, name: str | None = None) -> Mechanism:
    """``n`` bodies in a chain, each on the previous one's tip, each swung by its own
    cylinder from the previous body (the first from the chassis).

    Examples
    --------
    >>> len(body_chain(3).parts), body_chain(3).drives["c2"].kind
    (6, 'force')
    """
    mech = Mechanism(name or f"chain{n}")
    for i in range(n):
        mech.add(MainBody(f"b{i}", mass=mass, inertia=mass * link**2 / 12, cog=(link / 2, 0.0),
                          gravity=gravity,
                          points={"R": ("Rt", (0.0, 0.0)), "P": ("Pd", (0.3 * link, 0.1 * link)),
                                  "T": ("Li", (link, 0.0)), "C": ("Li", (0.5 * link, -0.15 * link))}))
        mech.add(Cylinder(f"c{i}", retracted=0.3 * link, stroke=0.4 * link, gravity=gravity))
        if i == 0:
            mech.fix("b0", "R", at=(0.0, 0.0))
            mech.fix("c0", "A", at=(0.0, -0.45 * link))
        else:
            mech.connect(f"b{i - 1}", "T", f"b{i}", "R")
            mech.connect(f"b{i - 1}", "C", f"c{i}", "A")
        mech.connect(f"b{i}", "P", f"c{i}", "B")
        _drive(mech, f"c{i}", drive)
    return mech


def knuckle_crane(drive: str = "force", *, payload: float = 500.0, gravity: float = 9.81,
                  fold_base=(1.9, 0.25), fold_point=(0.4, -0.35), name: str = "crane") -> Mechanism:
    """A knuckle-boom crane on a fixed column: inner boom lifted by a cylinder from the
    column, outer (knuckle) boom folded by a cylinder from the inner boom; the payload
    is lumped at the outer boom's tip. Dimensions of a small truck-mounted crane.

    Examples
    --------
    >>> crane = knuckle_crane(payload=500.0)
    >>> crane.parts["outer"].mass                      # the boom's 260 kg and the payload
    760.0
    """
    mech = Mechanism(name)
    mech.add(MainBody("inner", mass=420.0, inertia=420.0 * 3.2**2 / 12, cog=(1.6, 0.05),
                      gravity=gravity,
                      points={"O": ("Rt", (0.0, 0.0)), "P": ("Pd", (0.9, -0.25)),
                              "K": ("Li", (3.2, 0.0)), "Q": ("Li", fold_base)}))
    m_out = 260.0 + payload
    x_cog = (260.0 * 1.3 + payload * 2.7) / m_out
    mech.add(MainBody("outer", mass=m_out, inertia=260.0 * 2.7**2 / 12 + payload * (2.7 - x_cog) ** 2
                      + 260.0 * (1.3 - x_cog) ** 2, cog=(x_cog, 0.0), gravity=gravity,
                      points={"K": ("Rt", (0.0, 0.0)), "D": ("Pd", fold_point),
                              "T": ("Li", (2.7, 0.0))}))
    mech.add(Cylinder("lift_cyl", retracted=1.1, stroke=0.7, m_barrel=25.0, m_rod=15.0,
                      gravity=gravity))
    mech.add(Cylinder("fold_cyl", retracted=1.0, stroke=0.6, m_barrel=18.0, m_rod=10.0,
                      gravity=gravity))
    mech.fix("inner", "O", at=(0.0, 2.5))
    mech.fix("lift_cyl", "A", at=(0.25, 1.3))
    mech.connect("inner", "P", "lift_cyl", "B")
    mech.connect("inner", "K", "outer", "K")
    mech.connect("inner", "Q", "fold_cyl", "A")
    mech.connect("outer", "D", "fold_cyl", "B")
    _drive(mech, "lift_cyl", drive)
    _drive(mech, "fold_cyl", drive)
    return mech


def section_e_boom(*, beta: float = 1.0e9, hoses=("1.96 L", "1.96 L"), pressure="200 bar",
                   command=None, friction=None, end_stop=None, piston_mass: float = 0.0,
                   dead_volumes=("1e-3 L", "1e-3 L"), name: str = "rig"):
    """The boom of docs/reference/excavator_data.md section E on its cylinder pair, with hydraulics.

    The front (boom + arm + 50 kg bucket, held rigid) is one body: 2057.5 kg with its
    centre of gravity 5.04 m along the boom frame's x axis (gravity moment 65.4 kN·m at
    the start pose) and 71 383 kg·m² about the foot. The pair is one cylinder of doubled
    area (bore 135 mm, rod 50 mm), fed by a closed-centre 4/3 valve (0.01 m³/s at 3 bar,
    10 Hz spool) from an ideal supply. Returns ``(mechanism, hydraulic_cylinder)``.

    Examples
    --------
    >>> mech, cyl = section_e_boom(beta=1.0e9)
    >>> mech.drives["boom_cyl"].kind, cyl.count
    ('external', 2)
    """
    from bondgraph import Input
    from components.hydraulics import (DirectionalValve, HydraulicCircuit, HydraulicCylinder,
                                       HydraulicDrive, Oil, PowerUnit, SpoolDynamics)

    b = BOOM
    mech = Mechanism(name)
    m, d, J_foot = 2057.5, 5.04, 71383.0
    mech.add(MainBody("boom", mass=m, inertia=J_foot - m * d**2, cog=(d, 0.0),
                      points={"C": ("Rt", (0.0, 0.0)), "B": ("Pd", b["rod_pin"])}))
    cyl = mech.add(Cylinder("boom_cyl", retracted=2.48, stroke=1.25, count=2, bore="135 mm", rod="50 mm"))
    mech.fix("boom", "C", at=b["foot"])
    mech.fix("boom_cyl", "A", at=b["cyl_base"])
    mech.connect("boom", "B", "boom_cyl", "B")
    oil = Oil(bulk_modulus=beta)
    circ = HydraulicCircuit("hyd", PowerUnit("pu", oil=oil, pressure=pressure))
    hc = HydraulicCylinder.of(cyl, oil, friction=friction, end_stop=end_stop, piston_mass=piston_mass,
                              dead_volumes=dead_volumes)
    valve = DirectionalValve("valve", q_nominal="0.01 m^3/s", dp_nominal="3 bar",
                             command=Input("boom.cmd") if command is None else command,
                             spool=SpoolDynamics(10.0))
    port = circ.add_drive(HydraulicDrive("boom", cylinder=hc, valve=valve, hoses=hoses))
    mech.drive_external("boom_cyl", circ, port)
    return mech, hc
