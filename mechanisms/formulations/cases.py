"""Ready-made comparison cases: machines, start poses and smooth motions.

Each :class:`Case` holds a mechanism builder (``drive="force"`` or
``"extension"``), the cylinder length histories of a smooth motion (C²
splines), angle guesses that pick the assembly branch, and the point whose
trajectory is "the tip". Tests, the benchmark and the notebook share them.

* :func:`boom_case` — the OpenHydraulics boom on one cylinder
  (:func:`mechanisms.examples.single_boom`), optionally with the reference
  barrel and rod masses;
* :func:`four_bar_case` — the cylinder-driven four-bar with the geometry of
  the independent reference (``tests/reference/fourbar.py``);
* :func:`excavator_case` — the excavator front (:mod:`mechanisms.excavator`) on
  its 10 s dig–lift–dump cycle of cylinder lengths;
* :func:`chain_case` — a chain of ``n`` bodies, each on its own cylinder
  (:func:`straight_chain`), a better-posed variant of
  :func:`mechanisms.examples.body_chain`: every cylinder is at mid-stroke when
  its body is in line with the previous one, so the start pose is a straight
  chain (no folding) and every body stays inside its stroke during the motion.

Examples
--------
>>> case = four_bar_case()
>>> mech = case.mechanism("extension")
>>> sorted(case.lengths), case.tip
(['cyl'], 'coupler/Q')
>>> pose = case.pose(mech)
>>> round(pose.length("cyl"), 6)
0.5
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from bondgraph import ParameterError, Spline
from components import Cylinder, MainBody

from ..assembly import Mechanism, Pose
from ..examples import four_bar, single_boom

__all__ = ["Case", "boom_case", "four_bar_case", "chain_case", "straight_chain", "excavator_case"]


@dataclass
class Case:
    """A machine and a motion to compare formulations on.

    Attributes
    ----------
    name : str
    build : callable
        ``build(drive)`` → the mechanism, ``drive`` ``"force"`` or ``"extension"``.
    lengths : dict
        Cylinder → length history (C² :class:`~bondgraph.Spline`).
    guess : dict
        Part → angle guess that picks the assembly branch.
    tip : str
        ``"part/point"`` whose trajectory is compared.
    t_end : float
        End of the motion (s).
    notes : str
    options : dict

    Examples
    --------
    The start pose has the lengths the motion starts with; the motion goes out and
    back:

    >>> case = boom_case()
    >>> pose = case.pose(case.mechanism("extension"))
    >>> round(pose.length("boom_cyl"), 9), [round(case.lengths["boom_cyl"].value(t), 9) for t in (0.0, 1.0, 2.0)]
    (2.8, [2.8, 3.4, 2.8])
    """

    name: str
    build: Callable[[str], Mechanism]
    lengths: dict[str, Spline]
    guess: dict[str, float]
    tip: str
    t_end: float
    notes: str = ""
    options: dict = field(default_factory=dict)

    def mechanism(self, drive: str = "force") -> Mechanism:
        """The machine with every cylinder driven by ``"force"`` or ``"extension"``.

        Parameters
        ----------
        drive : {"force", "extension"}

        Returns
        -------
        Mechanism
        """
        return self.build(drive)

    def pose(self, mech: Mechanism) -> Pose:
        """The start pose (lengths at t = 0).

        Parameters
        ----------
        mech : Mechanism
            From :meth:`mechanism`.

        Returns
        -------
        Pose

        Raises
        ------
        AssemblyError
            The lengths do not close the loops.
        """
        return mech.solve_pose({c: s.value(0.0) for c, s in self.lengths.items()}, guess=self.guess)


def _profile(s0: float, s1: float, t_end: float, n: int = 201, name: str = "s") -> Spline:
    """Smooth length history from ``s0`` to ``s1`` and back (``s0 + (s1−s0)·(1−cos)/2``)."""
    t = np.linspace(0.0, t_end, n)
    return Spline(t, s0 + (s1 - s0) * (1 - np.cos(2 * math.pi * t / t_end)) / 2, name=name)


#: Barrel and rod data of the boom reference (OPENHYDRAULICS_BOOM, illustrative values).
BOOM_CYLINDER_MASSES = dict(m_barrel=60.0, m_rod=40.0, d_barrel=0.6, d_rod=0.6, J_barrel=5.0,
                            J_rod=5.0)

#: Geometry and masses of the four-bar reference (DEFAULT_FOURBAR).
FOUR_BAR = dict(O1=(0.0, 0.0), O2=(1.0, 0.0), a=0.3, b=1.0, c=0.8, masses=(2.0, 5.0, 4.0),
                cyl_base=(0.6, -0.1), cyl_point=(0.2, 0.04))
FOUR_BAR_CYLINDER_MASSES = dict(m_barrel=3.0, m_rod=2.0, d_barrel=0.15, d_rod=0.15, J_barrel=0.02,
                                J_rod=0.01)


def boom_case(massive: bool = False, t_end: float = 2.0) -> Case:
    """Boom lifted from 2.8 m to 3.4 m cylinder length and lowered again.

    Parameters
    ----------
    massive : bool
        Give the cylinder its barrel and rod masses (:data:`BOOM_CYLINDER_MASSES`).
    t_end : float

    Returns
    -------
    Case

    Examples
    --------
    See :class:`Case`.
    """
    extra = BOOM_CYLINDER_MASSES if massive else {}
    return Case("boom" + ("+cylinder masses" if massive else ""),
                lambda drive: single_boom(drive, **extra),
                {"boom_cyl": _profile(2.8, 3.4, t_end, name="boom_cyl length")},
                {"boom": 0.2}, "boom/F", t_end)


def four_bar_case(massive: bool = False, t_end: float = 2.0) -> Case:
    """Four-bar crank swung from 0.5 m to 0.7 m cylinder length and back.

    Parameters
    ----------
    massive : bool
        Give the cylinder its barrel and rod masses and inertias
        (:data:`FOUR_BAR_CYLINDER_MASSES`): two more rigid bodies.
    t_end : float

    Returns
    -------
    Case

    Examples
    --------
    >>> from mechanisms.formulations import Multibody
    >>> list(Multibody(four_bar_case(massive=True).mechanism("force")).bodies)
    ['crank', 'coupler', 'rocker', 'cyl_barrel', 'cyl_rod']
    """
    extra = {"cylinder": FOUR_BAR_CYLINDER_MASSES} if massive else {}
    return Case("four-bar" + ("+cylinder masses" if massive else ""),
                lambda drive: four_bar(drive, **FOUR_BAR, **extra),
                {"cyl": _profile(0.5, 0.7, t_end, name="cyl length")},
                {"crank": 0.5, "coupler": 0.72, "rocker": 1.55}, "coupler/Q", t_end)


def straight_chain(n: int, drive: str = "force", *, link: float = 1.0, mass: float = 50.0,
                   gravity: float = 9.81, name: str | None = None) -> Mechanism:
    """``n`` bodies in a chain, each swung by its own cylinder from the previous body.

    Body ``i`` (length ``link``): root ``R`` at its origin, tip ``T``, the
    pushed point ``P = (0.35, −0.2)·link`` and the next cylinder's base
    ``C = (0.6, −0.2)·link``. The cylinders (0.6 … 0.9 m per metre of link) are
    at mid-stroke, 0.75·link, when a body is in line with the previous one, so
    the chain assembles straight; the moment arm is 0.2·link.

    Parameters
    ----------
    n : int
    drive : {"force", "extension"}
    link, mass, gravity : float
    name : str, optional

    Returns
    -------
    Mechanism

    Raises
    ------
    ParameterError
        Another drive.

    Examples
    --------
    >>> mech = straight_chain(3)
    >>> pose = mech.solve_pose({f"c{i}": 0.75 for i in range(3)}, guess={f"b{i}": 0.0 for i in range(3)})
    >>> [round(pose.angle(f"b{i}"), 9) for i in range(3)]
    [0.0, 0.0, 0.0]
    """
    mech = Mechanism(name or f"chain{n}")
    for i in range(n):
        mech.add(MainBody(f"b{i}", mass=mass, inertia=mass * link**2 / 12, cog=(link / 2, 0.0),
                          gravity=gravity,
                          points={"R": ("Rt", (0.0, 0.0)), "P": ("Pd", (0.35 * link, -0.2 * link)),
                                  "T": ("Li", (link, 0.0)), "C": ("Li", (0.6 * link, -0.2 * link))}))
        mech.add(Cylinder(f"c{i}", retracted=0.6 * link, stroke=0.3 * link, gravity=gravity))
        if i == 0:
            mech.fix("b0", "R", at=(0.0, 0.0))
            mech.fix("c0", "A", at=(-0.4 * link, -0.2 * link))
        else:
            mech.connect(f"b{i - 1}", "T", f"b{i}", "R")
            mech.connect(f"b{i - 1}", "C", f"c{i}", "A")
        mech.connect(f"b{i}", "P", f"c{i}", "B")
        if drive == "force":
            mech.drive_force(f"c{i}")
        elif drive == "extension":
            mech.drive_extension(f"c{i}")
        else:
            raise ParameterError(f"drive {drive!r}: expected 'force' or 'extension'")
    return mech


def chain_case(n: int, t_end: float = 2.0, mass: float = 50.0) -> Case:
    """A straight chain of ``n`` bodies waving from rest: cylinder ``i`` swings about
    mid-stroke, phase-shifted along the chain, by up to ``6/n`` cm (at most 2 cm), so the
    chain's total bend stays about the same for every ``n``.

    Parameters
    ----------
    n : int
    t_end, mass : float

    Returns
    -------
    Case

    Examples
    --------
    >>> case = chain_case(4)
    >>> pose = case.pose(case.mechanism("extension"))
    >>> [round(pose.angle(f"b{i}"), 9) for i in range(4)], case.tip
    ([0.0, 0.0, 0.0, 0.0], 'b3/T')
    """
    t = np.linspace(0.0, t_end, 201)
    envelope = (1 - np.cos(2 * math.pi * t / t_end)) / 2
    lengths = {}
    for i in range(n):
        phase = 2 * math.pi * i / max(n, 1)
        s = 0.75 + min(0.02, 0.06 / n) * envelope * np.sin(2 * math.pi * t / t_end + phase)
        lengths[f"c{i}"] = Spline(t, s, name=f"c{i} length")
    return Case(f"chain N={n}", lambda drive: straight_chain(n, drive, mass=mass), lengths,
                {f"b{i}": 0.0 for i in range(n)}, f"b{n - 1}/T", t_end)


def excavator_case(t_end: float | None = None) -> Case:
    """The excavator front on its default dig–lift–dump cycle (cylinder lengths), tip = bucket tip.

    Parameters
    ----------
    t_end : float, optional
        Default: the cycle's end.

    Returns
    -------
    Case

    Examples
    --------
    >>> case = excavator_case()
    >>> case.tip, case.t_end, sorted(case.lengths)
    ('bucket/Q', 10.0, ['arm_cylinder', 'boom_cylinder', 'bucket_cylinder'])
    >>> pose = case.pose(case.mechanism("extension"))
    >>> bool(abs(pose.length("boom_cylinder") - case.lengths["boom_cylinder"].value(0.0)) < 1e-9)
    True
    """
    from ..excavator import DEFAULT_FILE, Cycle
    from ..machine import MachineDescription
    from ..machine.assemble import assemble
    from ..machine.machine import start_pose_of

    desc = MachineDescription.load(DEFAULT_FILE)
    cycle = Cycle.default("extensions")
    lengths = {desc.cylinder_of[f]: sig for f, sig in cycle.signals().items()}
    start = start_pose_of(desc, assemble(desc, "extensions", symbolic=False).mechanism)
    guess = {n: start.angle(n) for n, p in desc.parts.items() if p.type != "cylinder"}
    mode = {"force": "forces", "extension": "extensions"}

    def build(drive: str) -> Mechanism:
        return assemble(desc, mode[drive], symbolic=False, end_stops=False).mechanism

    part, point = desc.output_points["tip"]
    return Case("excavator", build, lengths, guess, f"{part}/{point}",
                cycle.end if t_end is None else float(t_end))
