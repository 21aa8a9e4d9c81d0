"""The planar front on a travelling carrier: the travel coupling, built as bond-graph elements.

:func:`with_travel` takes a planar :class:`~mechanisms.Mechanism` (the front of a wheel
loader: lift arm, bell crank, bucket, their cylinders) and a :class:`Carrier` (the chassis
on its wheels) and gives a :class:`TravelMechanism` whose bond graph is the front's own
graph plus the carrier plus, for every mass of the front, a junction of its velocity in
the ground's frame. The frame the front is built in translates along the ground's ``x``
by the carrier's travel ``x_c`` (one more degree of freedom, its velocity ``v``). Nothing
is written by hand: the equations come from that graph as for any other model.

The coupling
------------
A point of the front at ``x`` in the frame is at ``X = x + x_c`` on the ground, so each
centre of gravity's ground velocity is ``Ẋ = ẋ + v``: a 0-junction sums the flow of the
template's ``ẋ`` junction and of the carrier's ``v`` junction into a 1-junction ``Ẋ``
carrying the mass ``m``; the template's mass on ``ẋ`` is taken off (its mass on
``ẏ = Ẏ`` stays, with its weight; rotations are the same in both frames). The 0-junction
passes the mass's inertial force ``m·Ẍ`` to both sides: to the front (as the template's
mass did) and, as the reaction of the frame, to the carrier. So
``d/dt (M_c·v + Σ m·Ẋ) = F − F_r``: the whole machine's momentum along the ground changes
only by the tractive and rolling forces. The front's masses become dependent storages
(derivative causality), which the causal analysis assigns like any other.

The carrier
-----------
A 1-junction of the travel velocity ``v`` with the travel ``x_c`` as its displacement
state and the chassis mass ``M_c`` (the machine's mass without the front's parts), and

* **rolling resistance**: a resistor ``F_r = C_rr·W·tanh(v/v_r)`` with ``W = g·(M_c + Σ m)``
  the weight of the machine on its wheels (chassis and every mass of the front; a payload
  the soil tool puts in the bucket is not counted), ``C_rr`` the rolling-resistance
  coefficient and ``v_r`` a small speed over which the Coulomb-like force builds up;
* **the drive**: ``drive="force"``: the tractive force at the wheels' contact is the input
  ``<name>.force`` (N, a modulated effort source); ``drive="speed"``: the travel speed is
  the input ``<name>.speed`` (m/s, a modulated flow source; the hydrostatic drive held as
  a speed source) and the tractive force it takes is the effort of the bond ``drive``
  (:meth:`TravelMechanism.tractive_force`), a read-out (inverse dynamics).

Examples
--------
>>> from mechanisms import MechanismModel
>>> from mechanisms.examples import single_boom
>>> moving = with_travel(single_boom("extension"), Carrier("travel", mass="12 t", rolling=0.03))
>>> mm = MechanismModel.build(moving)
>>> mm.model.input_names
['boom_cyl.rate', 'travel.force']
>>> round(moving.total_mass(), 1)                 # chassis + boom, kg
13307.0
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import sympy as sp

from bondgraph import MSe, MSf, BondGraph, I, Input, One, ParameterError, R, Zero
from bondgraph.checks import Check, number_problems
from components.part import as_amount, in_si, numeric_only, raise_problems

from .assembly import Mechanism
from .swing import _frames, _masses, _without

__all__ = ["Carrier", "TravelMechanism", "with_travel"]


class Carrier:
    """The chassis on its wheels: its mass, rolling resistance and travel drive.

    Parameters
    ----------
    name : str
        The carrier's name in the graph (its inputs ``<name>.force`` or ``<name>.speed``).
    mass : float, str or sympy symbol
        ``M_c``: the chassis's mass without the front's parts (kg, ``"15 t"``).
    rolling : float
        ``C_rr``: rolling-resistance coefficient (force over weight, ≥ 0; default 0).
    rolling_speed : float or str
        ``v_r``: the speed over which the rolling resistance builds up (m/s, default 0.02).
    drive : {"force", "speed"}
        A tractive-force input or a prescribed travel speed (see the module's notes).
    gravity : float or str, optional
        g (m/s²) for the weight on the wheels. Default: the front's (its parts' gravity,
        a run-time parameter in a machine), so the rolling resistance follows it; a value
        that differs from the front's is refused when the graph is built.
    x0, v0 : float or str
        Initial travel (m) and speed (m/s), default 0. With ``drive="speed"`` the speed is
        the input's.

    Raises
    ------
    ParameterError
        Every bad value at once, naming it, what was found and what was expected.

    Examples
    --------
    >>> Carrier("travel", mass="15 t", rolling=0.03).mass
    15000.0
    >>> Carrier("travel", mass=-1.0, rolling=-0.1, drive="wheels")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: carrier 'travel': 3 problems
      - mass: found -1.0, expected a finite number > 0 (kg)
      - rolling: found -0.1, expected a finite number ≥ 0 (rolling resistance / weight)
      - drive: found 'wheels', expected 'force' (a tractive-force input) or 'speed' (a prescribed travel speed)
    """

    def __init__(self, name: str, *, mass: Any, rolling: Any = 0.0, rolling_speed: Any = 0.02,
                 drive: str = "force", gravity: Any = None, x0: Any = 0.0, v0: Any = 0.0):
        problems: list[str] = []
        v = in_si({"mass": (mass, "kg"), "rolling": (rolling, ""), "rolling_speed": (rolling_speed, "m/s"),
                   "gravity": (9.81 if gravity is None else gravity, "m/s^2"), "x0": (x0, "m"),
                   "v0": (v0, "m/s")}, problems)
        problems += number_problems("", numeric_only({
            "mass": (v["mass"], Check(">0", "kg")),
            "rolling": (v["rolling"], Check(">=0", "rolling resistance / weight")),
            "rolling_speed": (v["rolling_speed"], Check(">0", "m/s")),
            "gravity": (v["gravity"], Check(">=0", "m/s²")),
            "x0": (v["x0"], Check("finite", "m")),
            "v0": (v["v0"], Check("finite", "m/s"))}))
        if drive not in ("force", "speed"):
            problems.append(f"drive: found {drive!r}, expected 'force' (a tractive-force input) or 'speed' "
                            "(a prescribed travel speed)")
        raise_problems(problems, [], f"carrier {name!r}")
        self.name = name
        self.mass = as_amount(v["mass"])
        self.rolling = float(v["rolling"])
        self.rolling_speed = float(v["rolling_speed"])
        self.gravity = None if gravity is None else float(v["gravity"])
        self.x0, self.v0 = float(v["x0"]), float(v["v0"])
        self.drive = drive

    def __repr__(self) -> str:
        return f"Carrier({self.name!r}, mass={self.mass}, rolling={self.rolling}, drive={self.drive!r})"

    @property
    def input(self) -> str:
        """The input that drives it: ``<name>.force`` (N) or ``<name>.speed`` (m/s)."""
        return f"{self.name}.{self.drive}"

    def rolling_force(self, speed: float, weight: float) -> float:
        """The rolling resistance at a speed on a weight (N, opposing the speed).

        Examples
        --------
        >>> round(Carrier("travel", mass=1.0e4, rolling=0.03).rolling_force(1.5, 2.0e5), 6)
        6000.0
        """
        return self.rolling * weight * float(np.tanh(speed / self.rolling_speed))


class TravelMechanism(Mechanism):
    """A planar front on a travelling carrier (made by :func:`with_travel`).

    It is the front's :class:`~mechanisms.Mechanism` (the same parts, hinges, chassis pins
    and drives: poses are solved in the front's frame as before) whose :meth:`bond_graph`
    adds the carrier and the travel coupling.

    Attributes
    ----------
    front : Mechanism
        The planar mechanism it was made from (not modified).
    carrier : Carrier

    Examples
    --------
    >>> from mechanisms.examples import single_boom
    >>> moving = with_travel(single_boom(), Carrier("travel", mass=1.0e4))
    >>> moving.travel_state("position"), moving.travel_state("speed")
    ('boom_lift/travel/v.x', 'boom_lift/travel/M.f')
    """

    def __init__(self, front: Mechanism, carrier: Carrier):
        super().__init__(front.name, front.gravity)
        self.parts = dict(front.parts)
        self.fixed = dict(front.fixed)
        self.hinges = list(front.hinges)
        self.drives = dict(front.drives)
        self.external = dict(front.external)
        self.front = front
        self.carrier = carrier
        self.position = sp.Symbol(f"{carrier.name}_x")    # replaced by the junction's handle at the build

    def __repr__(self) -> str:
        return f"TravelMechanism({self.name!r}: {len(self.parts)} parts on carrier {self.carrier.name!r})"

    def travel_state(self, which: str = "position") -> str:
        """Global state name of the travel ``"position"`` (m) or ``"speed"`` (m/s, the chassis
        mass's state; with ``drive="speed"`` it is prescribed, not a state)."""
        local = {"position": "v.x", "speed": "M.f"}
        if which not in local:
            raise ParameterError(f"travel_state({which!r}): expected 'position' or 'speed'")
        return f"{self.name}/{self.carrier.name}/{local[which]}"

    def front_masses(self) -> list[tuple[str, str, str, Any]]:
        """``(part, I element on ẋ, its junction, mass)`` of every mass of the front that the
        travel moves onto a ground-frame junction."""
        frames = _frames(self)
        out = []
        for name, part in self.parts.items():
            for elem, jx, m, _xy in _masses(part, frames[name]):
                if elem in part.children:
                    out.append((name, elem, jx, m))
        return out

    def total_mass(self, params: dict[str, float] | None = None) -> float:
        """Chassis plus every mass of the front (kg); ``params`` gives run-time parameters' values."""
        values = {str(k): v for k, v in (params or {}).items()}
        total = sp.sympify(self.carrier.mass) + sum(sp.sympify(m) for *_, m in self.front_masses())
        total = total.xreplace({s: sp.Float(values[str(s)]) for s in total.free_symbols if str(s) in values})
        if total.free_symbols:
            raise ParameterError([f"run-time parameter {str(s)!r} has no value; pass params={{{str(s)!r}: ...}}"
                                  for s in sorted(total.free_symbols, key=str)], subject="total_mass")
        return float(total)

    def _weight_gravity(self):
        """g of the weight on the wheels: the front parts' gravity (one value, possibly a
        run-time symbol), or the carrier's when the front has none; a carrier's value that
        differs from the parts' is refused."""
        gs = {sp.sympify(p.gravity) for p in self.parts.values() if getattr(p, "gravity", None) is not None}
        cr = self.carrier
        if len(gs) > 1:
            raise ParameterError(f"carrier {cr.name!r}: the front's parts have different gravity "
                                 f"({', '.join(sorted(map(str, gs)))}); expected one value for the weight on "
                                 "the wheels")
        if not gs:
            return 9.81 if cr.gravity is None else cr.gravity
        g = gs.pop()
        if cr.gravity is not None and (not g.is_number or abs(float(g) - cr.gravity) > 1e-12 * max(1.0, cr.gravity)):
            raise ParameterError(f"carrier {cr.name!r}: gravity {cr.gravity:g} m/s² differs from the front's "
                                 f"({g}); expected the same value, or leave the carrier's gravity out")
        return g

    def bond_graph(self) -> BondGraph:
        """The front's global bond graph, the carrier, and the travel coupling."""
        self.check()
        cr = self.carrier
        if cr.name in self.parts:
            raise ParameterError(f"carrier {cr.name!r}: a part of the front has the same name")
        masses = self.front_masses()
        shadow = copy.copy(self)
        shadow.__class__ = Mechanism
        drop: dict[str, list[str]] = {}
        for name, elem, _j, _m in masses:
            drop.setdefault(name, []).append(elem)
        shadow.parts = {n: _without(p, drop.get(n, [])) for n, p in self.parts.items()}
        bg = Mechanism.bond_graph(shadow)
        car = BondGraph(cr.name)
        v = One("v", displacement="x", initial=cr.x0)
        self.position = v.displacement
        car.add(v, I("M", cr.mass, initial=cr.v0, prefer="state"))
        car.connect("v", "M")
        if cr.rolling > 0.0:
            weight = self._weight_gravity() * (sp.sympify(cr.mass) + sum(sp.sympify(m) for *_, m in masses))
            crr, vr = cr.rolling, cr.rolling_speed
            car.add(R("rolling", effort=lambda f: crr * weight * sp.tanh(f / vr)))
            car.connect("v", "rolling")
        if cr.drive == "force":
            car.add(MSe("force", Input(cr.input)))
        else:
            car.add(MSf("speed", Input(cr.input)))
        car.connect(cr.drive, "v", name="drive")
        bg.add(car)
        for name, elem, jx, m in masses:
            tag = f"tr_{name}_{elem}"
            self._ground_junction(bg, tag, f"{name}/{jx}")
            bg.add(I(f"{tag}_m", m))
            bg.connect(tag, f"{tag}_m")
        return bg

    def _ground_junction(self, bg: BondGraph, tag: str, source: str) -> str:
        """A 1-junction ``tag`` whose flow is ``flow(source) + v`` (a 0-junction sums them)."""
        bg.add(Zero(f"{tag}_s"), One(tag))
        bg.connect(source, f"{tag}_s")
        bg.connect(f"{self.carrier.name}/v", f"{tag}_s")
        bg.connect(f"{tag}_s", tag)
        return tag

    def ground_velocity(self, bg: BondGraph, junction: str) -> str:
        """In ``bg`` (this mechanism's :meth:`bond_graph`), a 1-junction of the ground-frame
        x velocity of the point whose frame x velocity is ``junction`` (a hinge's ``h_..._x``):
        what a soil tool on the edge must see. Returns its name."""
        return self._ground_junction(bg, f"tr_{junction}", junction)

    def tractive_force(self, res: Any) -> np.ndarray:
        """The tractive force at the wheels along a run (N, positive pushing forward): the
        input's with ``drive="force"``, the one the prescribed speed takes with ``"speed"``.

        Examples
        --------
        >>> from mechanisms import MechanismModel
        >>> from mechanisms.examples import single_boom
        >>> moving = with_travel(single_boom("extension"), Carrier("travel", mass=1.0e4, drive="speed"))
        >>> mm = MechanismModel.build(moving)
        >>> res = mm.simulate_extensions({"boom_cyl": ([0.0, 1.0], [3.2, 3.2])}, (0.0, 1.0), guess={"boom": 0.4},
        ...                              inputs={"travel.speed": 1.0}, progress=False)
        >>> float(abs(moving.tractive_force(res)[-1])) < 1e-6      # steady speed, no rolling resistance
        True
        """
        return res.effort(f"{self.name}/{self.carrier.name}/drive")


def with_travel(mechanism: Mechanism, carrier: Carrier) -> TravelMechanism:
    """The planar front ``mechanism`` on a travelling ``carrier`` (see the module's notes).

    Parameters
    ----------
    mechanism : Mechanism
        The front, its cylinders driven as for a planar run (it is not modified). Not a
        swinging front: travel and swing do not compose yet.
    carrier : Carrier

    Returns
    -------
    TravelMechanism

    Raises
    ------
    ParameterError
        Not a planar mechanism, or not a carrier.

    Examples
    --------
    >>> from mechanisms.examples import single_boom
    >>> with_travel(single_boom(), "chassis")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: with_travel: found str, expected a Carrier
    """
    from .swing import SwingMechanism

    if not isinstance(mechanism, Mechanism) or isinstance(mechanism, (SwingMechanism, TravelMechanism)):
        raise ParameterError(f"with_travel: found {type(mechanism).__name__}, expected a planar Mechanism "
                             "(the front; a swinging or travelling one does not compose)")
    if not isinstance(carrier, Carrier):
        raise ParameterError(f"with_travel: found {type(carrier).__name__}, expected a Carrier")
    return TravelMechanism(mechanism, carrier)
