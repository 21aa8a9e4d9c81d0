"""Passive chains: a main body with no actuator, and the double pendulum built from it.

The paper's rules give every main body exactly one ``Pd``, the point where an
actuator pushes it: the actuator sets the body's angular velocity (``Pd``
y flow-in) and the inertia ``J`` ends in derivative causality. A pendulum has
no actuator, so its bodies rotate freely. :class:`FreeBody` is the
documented variant for that case:

* the same template as :class:`~components.MainBody` (root ``Rt``, load points
  ``Li``, the centre-of-gravity and point MTFs) but **no** ``Pd``;
* its rotation is a degree of freedom of its own, so ``J`` takes *integral*
  causality (state: the angular velocity), while ``m_x``, ``m_y`` stay in
  derivative causality, forced by the root velocity;
* ``J`` is placed first among the body's storage elements, so the sequential
  causality assignment picks it as the independent one — otherwise it may take
  a centre-of-gravity velocity instead, whose relation to the rotation is
  singular when the body passes through a vertical or horizontal pose.

A free body is outside the paper's mechanism class (its angle is not set by a
cylinder length), so :meth:`~mechanisms.assembly.Mechanism.solve_pose` is called
with no targets and the angles as ``guess`` — a chain of free bodies assembles
exactly along its root chain.

Examples
--------
>>> mech, pose = double_pendulum()
>>> sorted(mech.parts), [round(pose.angle(p), 4) for p in ("rod1", "rod2")]
(['rod1', 'rod2'], [0.0, -1.5708])
"""

from __future__ import annotations

import math
from typing import Mapping

from components import MainBody
from components.ports import PortClass

from ..assembly import Mechanism, Pose

__all__ = ["FreeBody", "double_pendulum", "pendulum_angles"]


class FreeBody(MainBody):
    """A main body without ``Pd``: a freely rotating link of a passive chain.

    Parameters are those of :class:`~components.MainBody`; the points may be
    one ``Rt`` and any number of ``Li``.

    Raises
    ------
    ConnectionRuleError
        A ``Pd`` or ``Pr`` point is given, or not exactly one ``Rt``.

    Examples
    --------
    >>> rod = FreeBody("rod", mass=1.0, inertia=1 / 12, cog=(0.5, 0.0),
    ...                points={"O": ("Rt", (0, 0)), "T": ("Li", (1, 0))})
    >>> list(rod.children)[:1]
    ['J']
    """

    def __init__(self, name: str, **kw):
        super().__init__(name, **kw)
        if "J" in self.children:  # integral causality for the rotation: J first
            J = self.children.pop("J")
            self.children = {"J": J, **self.children}

    def check_rules(self) -> list[str]:
        """Exactly one ``Rt``, any number of ``Li``, nothing else.

        Returns
        -------
        list
        """
        classes = [p.cls for p in self.points.values()]
        problems = []
        n_rt = classes.count(PortClass.RT)
        if n_rt != 1:
            problems.append(f"{self.name} (free body): has {n_rt} Rt ports; expected exactly one "
                            "(rule: a free body has one Rt and any number of Li)")
        for c in sorted(set(classes) - {PortClass.RT, PortClass.LI}, key=lambda c: c.value):
            problems.append(f"{self.name} (free body): has a {c.value} port; a free body takes "
                            "only Rt and Li (use MainBody for a body an actuator pushes)")
        return problems


def double_pendulum(L1: float = 1.0, L2: float = 1.0, m1: float = 1.0, m2: float = 1.0,
                    g: float = 9.81, theta1: float = math.pi / 2, theta2: float = 0.0,
                    name: str = "pendulum") -> tuple[Mechanism, Pose]:
    """Two uniform rods in a chain: rod 1 pinned to the chassis, rod 2 to rod 1's tip.

    Angles follow the reference (:mod:`tests.reference.pendulum`): absolute,
    from the downward vertical, counter-clockwise. The body frames have x
    along the rod, so a body angle is the reference angle minus π/2.

    Parameters
    ----------
    L1, L2 : float
        Rod lengths (m).
    m1, m2 : float
        Rod masses (kg).
    g : float
        Gravity (m/s²).
    theta1, theta2 : float
        Release angles from the downward vertical (rad).
    name : str

    Returns
    -------
    (Mechanism, Pose)
        The mechanism and its release pose (at rest).

    Examples
    --------
    Hanging down, its two normal modes are those of the hand-derived mass and stiffness
    matrices of two uniform rods, ``M = mL²·[[4/3, 1/2], [1/2, 1/3]]``,
    ``K = mgL·diag(3/2, 1/2)``:

    >>> import numpy as np
    >>> from bondgraph import linearize
    >>> from mechanisms.formulations import build_formulation
    >>> mech, pose = double_pendulum(theta1=0.0, theta2=0.0)
    >>> f = build_formulation(mech, "causal")
    >>> modes = linearize(f.model, f.initial_state(pose)).modes(oscillatory_only=True)
    >>> M = np.array([[4 / 3, 1 / 2], [1 / 2, 1 / 3]])
    >>> K = 9.81 * np.diag([3 / 2, 1 / 2])
    >>> hand = np.sqrt(np.sort(np.linalg.eigvals(np.linalg.solve(M, K)).real)) / (2 * np.pi)
    >>> bool(np.allclose(sorted(m.frequency for m in modes), hand, rtol=1e-9)), np.round(hand, 4)
    (True, array([0.4266, 1.1441]))
    """
    mech = Mechanism(name, gravity=g)
    for i, (L, m) in enumerate(((L1, m1), (L2, m2)), start=1):
        mech.add(FreeBody(f"rod{i}", mass=m, inertia=m * L**2 / 12, cog=(L / 2, 0.0), gravity=g,
                          points={"O": ("Rt", (0.0, 0.0)), "T": ("Li", (L, 0.0))}))
    mech.fix("rod1", "O", at=(0.0, 0.0))
    mech.connect("rod1", "T", "rod2", "O")
    pose = mech.solve_pose({}, guess={"rod1": theta1 - math.pi / 2, "rod2": theta2 - math.pi / 2})
    return mech, pose


def pendulum_angles(angles: Mapping[str, object]) -> dict[str, object]:
    """Body-frame angles → reference angles (from the downward vertical).

    Parameters
    ----------
    angles : mapping
        Part → body-frame angle (rad, numbers or arrays).

    Returns
    -------
    dict

    Examples
    --------
    >>> pendulum_angles({"rod1": 0.0})
    {'rod1': 1.5707963267948966}
    """
    return {k: v + math.pi / 2 for k, v in angles.items()}
