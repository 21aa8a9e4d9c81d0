"""The stiff-joint formulation (the AMESim style): free bodies, elastic joints.

Every body of the mechanism (:class:`~.multibody.Multibody`) becomes a free
rigid body in the bond graph — 1-junctions ``vx``, ``vy`` (centre-of-gravity
velocity, displacements ``x``, ``y``) and ``w`` (angular velocity,
displacement ``θ``; not for a point mass) with the inertias ``m_x``, ``m_y``,
``J`` and gravity — and
every constraint row ``Φ(q)`` of a joint becomes a **virtual elastic
joint**: a stiff spring ``C`` and a damper ``R`` on the row's rate

    Φ̇ = Σ ∂Φ/∂q_i · q̇_i,

realised as a 0-junction that sums the body velocities through MTFs with the
moduli ``∂Φ/∂q_i`` (the CoG-based MTFs of a body point: ``1`` on ``vx`` and
``−(R(θ)·r)_y`` on ``w`` for the x row of a pin). The force the row carries,
``λ = k·∫Φ̇ + c·Φ̇``, acts back on each body as ``−λ·∂Φ/∂q_i`` — the same
``λ`` as the Cartesian multiplier, now with a finite stiffness. With nothing
forcing a flow into a body junction, **every inertia is in integral
causality** and the equations are an explicit ODE — stiff: its fastest modes
are ``√(k/m)``.

* A force-driven cylinder is an effort source on the rate of its pin-to-pin
  length ``s(q)`` (MTFs ``∂s/∂q_i``): its force acts along its line of action.
* An extension-driven cylinder is a stiff servo: the same spring–damper on
  ``s(q) − L(t)``, fed by a flow source ``−L̇(t)``; the force it carries is
  the cylinder force.
* Defaults: ``k = 1e8`` N/m (:data:`DEFAULT_STIFFNESS`) and ``c = 2·√(k·m_min)``
  — critically damped for the lightest body. At a pin carrying a force ``F`` the
  joint deflects ``F/k``: that is the accuracy the formulation can reach.
* The springs start pre-loaded with the rigid system's joint forces at ``t0``
  (as if assembled pre-stressed in equilibrium with the initial motion), so a
  run starts on its slow manifold instead of ringing.

Built with :func:`bondgraph.build`: the equations come from the graph, the
same derivation, code generation and integrators as the causal formulation.

Examples
--------
>>> from mechanisms.examples import single_boom
>>> f = StiffFormulation(single_boom())
>>> f.model.report.summary()
"causality of 'boom_lift': sound; 5 independent states, 3 displacement states, 0 dependent storage elements, 0 algebraic loops, 0 conflicts"
>>> round(f.damping / 1e5, 3)   # 2·√(1e8 · 1307)
7.23
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np
import sympy as sp

from bondgraph import (C, I, MSe, MSf, MTF, BondGraph, Input, One, ParameterError, R, Results, Se,
                       Signal, Zero, build)

from ..assembly import Mechanism
from .multibody import Multibody
from .rigid import RigidBodyFormulation

__all__ = ["StiffFormulation", "stiff_bond_graph", "DEFAULT_STIFFNESS"]

#: Default joint stiffness (N/m), the usual order of a virtual elastic joint.
DEFAULT_STIFFNESS = 1e8

_JUNCTION = {"x": "vx", "y": "vy", "theta": "w"}


def stiff_bond_graph(mb: Multibody, stiffness: float, damping: float) -> BondGraph:
    """The stiff-joint bond graph of a :class:`Multibody` (see the module text).

    Element names: body ``b`` is a component ``b`` (``vx``, ``vy``, ``w``, ``m_x``,
    ``m_y``, ``J``, ``g`` and one MTF ``<row>_<coord>`` per modulated term); a
    constraint row ``r`` has ``r_sum`` (0), ``r`` (1), ``r_k`` (C), ``r_c`` (R)
    and the bond ``r_lam`` that carries its force; a force drive ``cyl`` has
    ``cyl_axis`` (1) with the source ``cyl_force``; an extension drive's row is
    ``cyl_drive`` with the flow source ``cyl_drive_ref``.

    Parameters
    ----------
    mb : Multibody
    stiffness : float
    damping : float

    Returns
    -------
    BondGraph

    Examples
    --------
    >>> from mechanisms.examples import single_boom
    >>> bg = stiff_bond_graph(Multibody(single_boom()), 1e8, 1e5)
    >>> sorted(bg.children)[:6]
    ['boom', 'boom_C__chassis_x', 'boom_C__chassis_x_c', 'boom_C__chassis_x_k', 'boom_C__chassis_x_sum', 'boom_C__chassis_y']
    """
    bg = BondGraph(mb.name)
    comps: dict[str, BondGraph] = {}
    handles: dict[sp.Symbol, sp.Symbol] = {}
    for b in mb.bodies.values():
        comp = BondGraph(b.name)
        js = {k: One(_JUNCTION[k], displacement=k, initial=0.0) for k in b.coordinates}
        comp.add(*js.values(), I("m_x", b.mass), I("m_y", b.mass))
        comp.connect("vx", "m_x")
        comp.connect("vy", "m_y")
        if not b.point:
            comp.add(I("J", b.inertia))
            comp.connect("w", "J")
        if b.gravity:
            comp.add(Se("g", -b.mass * b.gravity))
            comp.connect("g", "vy")
        for k, j in js.items():
            handles[sp.Symbol(f"{b.name}.{k}", real=True)] = j.displacement
        comps[b.name] = comp
        bg.add(comp)

    def coupling(row: str, expr: sp.Expr) -> None:
        """0-junction ``row_sum`` of the rate of ``expr`` → 1-junction ``row``."""
        bg.add(Zero(f"{row}_sum"), One(row))
        for i, d in mb.gradient(expr).items():
            body, coord = mb.coords[i].name.rsplit(".", 1)
            comp, j = comps[body], _JUNCTION[coord]
            port = f"{row}.{coord}"
            if d == 1 or d == -1:
                comp.expose(port, j)
            else:
                comp.add(MTF(f"{row}_{coord}", d.xreplace(handles)))
                comp.connect(j, f"{row}_{coord}/1")
                comp.expose(port, f"{row}_{coord}/2")
            if d == -1:
                bg.connect(f"{row}_sum", f"{body}/{port}")
            else:
                bg.connect(f"{body}/{port}", f"{row}_sum")
        bg.connect(f"{row}_sum", row, name=f"{row}_lam")

    for c in mb.constraints:
        coupling(c.name, c.expr)
        bg.add(C.spring(f"{c.name}_k", stiffness), R(f"{c.name}_c", damping))
        bg.connect(c.name, f"{c.name}_k")
        bg.connect(c.name, f"{c.name}_c")
        if c.kind == "drive":
            bg.add(MSf(f"{c.name}_ref", -Input(f"{c.cylinder}.rate")))
            bg.connect(f"{c.name}_ref", f"{c.name}_sum")
    for cyl, act in mb.actuators.items():
        if act.drive == "force":
            coupling(f"{cyl}_axis", act.length)
            bg.add(MSe(f"{cyl}_force", Input(f"{cyl}.force")))
            bg.connect(f"{cyl}_force", f"{cyl}_axis")
    return bg


class StiffFormulation(RigidBodyFormulation):
    """The mechanism with virtual elastic joints (see the module text).

    Parameters
    ----------
    mechanism : Mechanism
    stiffness : float
        Joint stiffness ``k`` (N/m), > 0; default :data:`DEFAULT_STIFFNESS`.
    damping : float, optional
        Joint damping ``c`` (N·s/m), ≥ 0; default ``2·√(k·m_min)``, critically
        damped for the lightest body.

    Raises
    ------
    ParameterError
        A non-positive stiffness or negative damping, or a part with no
        rigid-body form (see :class:`~.multibody.Multibody`).

    Examples
    --------
    A joint's gap is its force over the stiffness: ten times stiffer, ten times
    smaller:

    >>> import numpy as np
    >>> from mechanisms.examples import single_boom
    >>> mech = single_boom()
    >>> pose = mech.solve_pose({"boom_cyl": 3.0}, guess={"boom": 0.2})
    >>> gap = {}
    >>> for k in (1e9, 1e10):
    ...     f = StiffFormulation(mech, stiffness=k)
    ...     res = f.simulate_forces({"boom_cyl": 0.0}, (0.0, 0.5), pose, rtol=1e-9, atol=1e-12,
    ...                             progress=False)
    ...     gap[k] = max(np.abs(g).max() for g in f.loop_closure(res).values())
    >>> round(float(gap[1e9] / gap[1e10]), 1)
    10.0
    >>> StiffFormulation(mech, stiffness=0)
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: stiffness = 0: expected a number > 0 (N/m)
    """

    kind = "stiff"

    def __init__(self, mechanism: Mechanism, *, stiffness: float = DEFAULT_STIFFNESS,
                 damping: float | None = None):
        if not (isinstance(stiffness, (int, float)) and stiffness > 0 and math.isfinite(stiffness)):
            raise ParameterError(f"stiffness = {stiffness!r}: expected a number > 0 (N/m)")
        mb = Multibody(mechanism)
        if damping is None:
            damping = 2.0 * math.sqrt(stiffness * mb.lightest_mass())
        if not (isinstance(damping, (int, float)) and damping >= 0 and math.isfinite(damping)):
            raise ParameterError(f"damping = {damping!r}: expected a number ≥ 0 (N·s/m)")
        self.stiffness, self.damping = float(stiffness), float(damping)
        super().__init__(mechanism, build(stiff_bond_graph(mb, self.stiffness, self.damping)), mb)
        n = self.name
        self._q_names = [f"{n}/{s.name.rsplit('.', 1)[0]}/{_JUNCTION[s.name.rsplit('.', 1)[1]]}."
                         f"{s.name.rsplit('.', 1)[1]}" for s in mb.coords]
        self._v_names = [f"{n}/{s.name.rsplit('.', 1)[0]}/"
                         f"{ {'x': 'm_x', 'y': 'm_y', 'theta': 'J'}[s.name.rsplit('.', 1)[1]] }.f"
                         for s in mb.coords]
        self._k_names = [f"{n}/{c.name}_k.e" for c in mb.constraints]

    def _initial(self, q0, v0, lam0) -> dict[str, float]:
        out = {k: float(v) for k, v in zip(self._q_names, q0)}
        out.update({k: float(v) for k, v in zip(self._v_names, v0)})
        out.update({k: float(v) for k, v in zip(self._k_names, lam0)})
        return out

    def _coordinates(self, res: Results) -> np.ndarray:
        return np.column_stack([res[k] for k in self._q_names])

    def _velocities(self, res: Results) -> np.ndarray:
        return np.column_stack([res[k] for k in self._v_names])

    def _extension_inputs(self, signals: Mapping[str, Any]) -> dict[str, Signal]:
        return {f"{c}.rate": Signal(s.derivative, s.second_derivative, name=f"{c}.rate")
                for c, s in signals.items()}

    def cylinder_force(self, res: Results, cyl: str) -> np.ndarray:
        if self._cylinder(cyl) == "force":
            return res[f"{cyl}.force"]
        return -res.effort(f"{self.name}/{cyl}_drive_lam")

    def joint_forces(self, res: Results) -> dict[str, np.ndarray]:
        """Force carried by every joint row (spring + damper), like the Cartesian ``λ``.

        Parameters
        ----------
        res : Results
            A run's results.

        Returns
        -------
        dict
        """
        return {c.name: res.effort(f"{self.name}/{c.name}_lam") for c in self.multibody.constraints}

    def deflection_bound(self, res: Results) -> float:
        """Largest joint deflection the run implies, ``max |λ| / k`` (m).

        Parameters
        ----------
        res : Results
            A run's results.

        Returns
        -------
        float
        """
        forces = self.joint_forces(res)
        return max((float(np.max(np.abs(f))) for f in forces.values()), default=0.0) / self.stiffness
