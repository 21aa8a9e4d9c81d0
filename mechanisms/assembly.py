"""Assemble a planar linkage from templates under the causal connection rules.

A :class:`Mechanism` collects parts (:class:`~components.MainBody`,
:class:`~components.Lever`, :class:`~components.Cylinder`), pins ``Rt`` points
to the chassis, hinges points together, and drives the cylinders' ``I`` ports.
Every hinge is checked against the rules when it is made; :meth:`Mechanism.check`
checks the whole machine again and lists every violation at once.

From the mechanism it builds one global bond graph (parts + one 1-junction per
hinge and axis + zero-velocity sources at the chassis + zero-force sources on
free load points + drives) and hands it to the generic core: the equations of
motion are never written per machine.

Position level: :meth:`Mechanism.solve_pose` closes every loop for given
cylinder lengths (or part angles), starting from guessed angles that name the
assembly branch; a length that cannot close its loop is an
:class:`~bondgraph.AssemblyError` naming the loop and the reachable range.

Examples
--------
>>> import math
>>> from components import MainBody, Cylinder
>>> mech = Mechanism("lift", gravity=0.0)
>>> arm = mech.add(MainBody("arm", mass=10.0, inertia=1.0, cog=(1.0, 0.0), gravity=0.0,
...                         points={"O": ("Rt", (0, 0)), "P": ("Pd", (1.0, 0.0))}))
>>> cyl = mech.add(Cylinder("cyl", retracted=0.8, stroke=0.8, gravity=0.0))
>>> mech.fix("arm", "O", at=(0.0, 0.0)); mech.fix("cyl", "A", at=(0.5, -0.8))
>>> mech.connect("arm", "P", "cyl", "B")
>>> mech.drive_force("cyl")
'cyl.force'
>>> pose = mech.solve_pose({"cyl": 1.2}, guess={"arm": 0.3})
>>> round(math.degrees(pose.angle("arm")), 3)
18.207
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from bondgraph import (MSe, MSf, AssemblyError, BondGraph, ConnectionRuleError, I, Input, One,
                       ParameterError, R, Se, Sf, Spline)
from bondgraph.signals import Signal
from components import Cylinder, Lever, MainBody, Part
from components.part import pair_in_si
from components.ports import HingePoint, PortClass, check_connection

__all__ = ["Mechanism", "Pose", "Drive"]

#: a loop whose dead-centre measure is smaller than this at the start of a continuation
#: is not watched for a branch change (it starts at its dead centre)
BRANCH_EPS = 1e-9
#: a continuation step that fails or changes branch is retried in this many smaller steps,
#: at most this many times over (steps down to 1/4⁵ ≈ 1/1000 of the first)
BRANCH_SPLIT, BRANCH_DEPTH = 4, 5


@dataclass(frozen=True)
class Drive:
    """How a cylinder's ``I`` port is driven: ``kind`` ``"extension"`` (its rate an input),
    ``"force"`` (its force an input, with ``piston_mass`` and an ``end_stop``) or
    ``"external"`` (a component's port: the hydraulic side).

    Examples
    --------
    >>> from mechanisms.examples import single_boom
    >>> d = single_boom("extension").drives["boom_cyl"]
    >>> d.kind, d.input
    ('extension', 'boom_cyl.rate')
    """

    kind: str  # "extension" | "force" | "external"
    cylinder: str
    input: str | None = None
    piston_mass: float = 0.0
    end_stop: Any = None  # components.hydraulics.EndStop on a force drive


@dataclass
class Pose:
    """A consistent configuration: one pose vector per part (:meth:`Part.world_points
    <components.Part.world_points>` takes it), the loops closed.

    Examples
    --------
    >>> from mechanisms.examples import single_boom
    >>> pose = single_boom().solve_pose({"boom_cyl": 3.2}, guess={"boom": 0.4})
    >>> round(pose.length("boom_cyl"), 12), pose.points()["boom/C"]
    (3.2, (-0.164, 1.428))
    """

    mechanism: "Mechanism"
    values: dict[str, tuple]

    def angle(self, part: str) -> float:
        """Frame angle of a body / axis angle of a lever or cylinder (rad)."""
        p = self.mechanism.parts[part]
        v = self.values[part]
        return float(v[2])

    def length(self, cylinder: str) -> float:
        """Pin-to-pin length of a cylinder (m)."""
        return float(self.values[cylinder][3])

    def points(self) -> dict[str, tuple[float, float]]:
        """World position of every hinge point, as ``"part/point"``."""
        out = {}
        for name, part in self.mechanism.parts.items():
            for pn, xy in part.world_points(self.values[name]).items():
                out[f"{name}/{pn}"] = (float(xy[0]), float(xy[1]))
        return out

    def __repr__(self) -> str:
        from components import Cylinder

        lengths = ", ".join(f"{n} {self.length(n):.4g} m" for n, p in self.mechanism.parts.items()
                            if isinstance(p, Cylinder))
        return f"Pose({self.mechanism.name!r}: {lengths or 'no cylinders'})"

    def _repr_html_(self) -> str:
        from .display import pose_html

        return pose_html(self)

    def states(self) -> dict[str, float]:
        """Initial values of the displacement states, by global state name."""
        out = {}
        m = self.mechanism
        for name, part in m.parts.items():
            for local, val in part.states_from_pose(self.values[name]).items():
                out[f"{m.name}/{name}/{local}"] = val
        return out


def _least_squares(*args, **kwargs):
    """:func:`scipy.optimize.least_squares`, imported when a pose is first solved (so that
    ``import mechanisms`` does not load scipy.optimize)."""
    from scipy.optimize import least_squares

    return least_squares(*args, **kwargs)


class Mechanism:
    """A planar linkage under construction: parts from templates, pins on the chassis,
    hinges, and how each cylinder is driven.

    Every hinge is checked against the causal connection rules when it is made
    (:func:`components.ports.check_connection`); :meth:`check` checks the whole machine and
    lists every violation at once. :meth:`bond_graph` gives the global bond graph the
    core builds (:class:`~mechanisms.MechanismModel`), :meth:`solve_pose` and :meth:`track`
    close the loops, and :meth:`Machine.from_mechanism
    <mechanisms.machine.Machine.from_mechanism>` makes it a machine.

    Parameters
    ----------
    name : str
        Model name (first segment of every path).
    gravity : float, optional
        Only used to check the parts agree (each template carries its own ``gravity``).

    Examples
    --------
    >>> from components import Cylinder, Lever
    >>> mech = Mechanism("crank")
    >>> _ = mech.add(Lever("crank", length=1.0, mass=5.0))
    >>> _ = mech.add(Cylinder("cyl", retracted=0.9, stroke=0.6))
    >>> mech.fix("crank", "R", at=(0, 0)); mech.fix("cyl", "A", at=(0.5, -1.0))
    >>> mech.connect("crank", "P", "cyl", "B")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ConnectionRuleError: crank/P (Pr) – cyl/B (Pr): a Pr connects to a Pd, found Pr (rule: a Pd connects to a Pr)
    """

    def __init__(self, name: str, gravity: float | None = None):
        if not (isinstance(name, str) and name):
            raise ParameterError(f"Mechanism name: {name!r}, expected a non-empty string")
        if gravity is not None and not (isinstance(gravity, (int, float, np.floating))
                                        and not isinstance(gravity, bool) and math.isfinite(gravity)
                                        and gravity >= 0):
            raise ParameterError(f"mechanism {name!r}: gravity {gravity!r}, expected a finite number "
                                 ">= 0 (m/s², acting along -y) or None")
        self.name = name
        self.gravity = gravity
        self.parts: dict[str, Part] = {}
        self.fixed: dict[tuple[str, str], tuple[float, float]] = {}
        self.hinges: list[tuple[HingePoint, HingePoint]] = []
        self.drives: dict[str, Drive] = {}
        self.external: dict[str, BondGraph] = {}
        self._violations: list[str] = []

    def __repr__(self) -> str:
        return (f"Mechanism({self.name!r}: {len(self.parts)} parts, {len(self.hinges)} hinges, "
                f"{len(self.fixed)} chassis pins, {len(self.drives)} drives)")

    def explore(self, *, outputs: Mapping[str, Any] | None = None, ground: Any = None):
        """Pose the mechanism by hand in a notebook, from the last pose solved: one slider per
        cylinder within its stroke, the drawing, the forces and pressures that hold the pose
        (:meth:`Machine.explore <mechanisms.machine.Machine.explore>` of
        :meth:`Machine.from_mechanism <mechanisms.machine.Machine.from_mechanism>`; its
        cylinders need their ``bore`` and ``rod``). The explorer's ``machine`` carries the
        start pose its button writes.

        Parameters
        ----------
        outputs : dict, optional
            ``{"points": {"tip": "boom.F"}}`` as for a machine.
        ground : str or float, optional
            Ground level (``"-1.2 m"``) for the ground margin.

        Raises
        ------
        ParameterError
            No pose solved yet; a cylinder without bore or rod; ipywidgets not installed.

        Examples
        --------
        >>> from mechanisms.examples import single_boom
        >>> mech = single_boom(bore="135 mm", rod="50 mm")
        >>> _ = mech.solve_pose({"boom_cyl": 3.2}, guess={"boom": 0.4})
        >>> ex = mech.explore(outputs={"points": {"tip": "boom.F"}})
        >>> ex.sliders["boom_cyl"].value = 3.5
        >>> round(ex.pose.length("boom_cyl"), 9), ex.forces()["boom_cyl"] > 0
        (3.5, True)
        """
        from .machine import Machine

        pose = getattr(self, "_last_pose", None)
        if pose is None:
            raise ParameterError(f"mechanism {self.name!r}: explore() starts from the last pose solved; "
                                 "found none, expected one: call Mechanism.solve_pose first")
        start = {n: f"{pose.length(n)!r} m" for n, p in self.parts.items() if isinstance(p, Cylinder)}
        guess = {n: f"{math.degrees(pose.angle(n))!r} deg" for n, p in self.parts.items()
                 if not isinstance(p, Cylinder)}
        return Machine.from_mechanism(self, start=start, guess=guess, outputs=outputs, ground=ground).explore()

    def _repr_html_(self) -> str:
        from .display import mechanism_html

        return mechanism_html(self)

    # ------------------------------------------------------------------ building
    def add(self, part: Part) -> Part:
        """Add a template instance; returns it."""
        if not isinstance(part, Part):
            raise ConnectionRuleError(f"{self.name}: add() got {part!r}; expected a MainBody, "
                                      "Lever or Cylinder")
        if part.name in self.parts:
            raise ConnectionRuleError(f"{self.name}: a part named {part.name!r} exists already")
        if self.gravity is not None and getattr(part, "gravity", self.gravity) != self.gravity:
            raise ParameterError(f"{part.name}: gravity {part.gravity} differs from the "
                                 f"mechanism's {self.gravity}")
        self.parts[part.name] = part
        return part

    def replace(self, part: Part) -> Part:
        """Put ``part`` in place of the part of the same name, keeping its hinges, chassis
        pins and drive (a changed mass, a moved point: :meth:`Part.evolve
        <components.Part.evolve>`). Every hinge must still find its point with the same
        port class. Returns the new part.

        Raises
        ------
        ConnectionRuleError
            No part of that name; a hinged or fixed point missing from the new part or of
            another class; a cylinder replaced by something else.

        Examples
        --------
        >>> from components import Lever
        >>> mech = Mechanism("m")
        >>> _ = mech.add(Lever("link", length=1.0, mass=2.0)); mech.fix("link", "R", at=(0, 0))
        >>> mech.replace(mech.parts["link"].evolve(mass="3 kg")).mass
        3.0
        """
        if not isinstance(part, Part):
            raise ConnectionRuleError(f"{self.name}: replace() got {part!r}; expected a MainBody, Lever or Cylinder")
        old = self.parts.get(part.name)
        if old is None:
            raise ConnectionRuleError(f"{self.name}: replace(): no part named {part.name!r} (parts: "
                                      f"{', '.join(self.parts) or 'none'}); add it instead")
        problems = []
        if isinstance(old, Cylinder) != isinstance(part, Cylinder):
            problems.append(f"{part.name}: a {old.kind} replaced by a {part.kind}; its drive and hinges "
                            "expect the same kind")
        used = [hp for h in self.hinges for hp in h if hp.part == part.name]
        used += [old.hinge(pt) for (pn, pt) in self.fixed if pn == part.name]
        for hp in used:
            new = part.points.get(hp.name)
            if new is None or new.cls is not hp.cls:
                problems.append(f"{hp}: hinged or fixed, but the new part has "
                                + (f"no point {hp.name!r}" if new is None else f"it as {new.cls.value}"))
        if problems:
            raise ConnectionRuleError(problems, subject=f"mechanism {self.name!r}: replace {part.name!r}")
        self.parts[part.name] = part
        self.hinges = [tuple(part.points[hp.name] if hp.part == part.name else hp for hp in h)
                       for h in self.hinges]
        d = self.drives.get(part.name)
        if d is not None and d.kind == "force" and d.end_stop is not None and d.end_stop == old.end_stop():
            self.drives[part.name] = Drive("force", d.cylinder, d.input, d.piston_mass, part.end_stop())
        return part

    def _point(self, part: str, point: str) -> HingePoint:
        if part not in self.parts:
            raise ConnectionRuleError(f"{self.name}: no part {part!r} (parts: "
                                      f"{', '.join(self.parts) or 'none'})")
        return self.parts[part].hinge(point)

    def fix(self, part: str, point: str, at: tuple[float, float]) -> None:
        """Pin a part's ``Rt`` point to the chassis at world position ``at`` (m, or text with
        units: ``("0.655 m", "703 mm")``).

        Raises
        ------
        ConnectionRuleError
            The point is not an ``Rt``, or already fixed or hinged.
        ParameterError
            ``at`` is not a finite point.
        """
        hp = self._point(part, point)
        unit_problems: list[str] = []
        at = pair_in_si(f"{hp}: fixed at", at, unit_problems)
        if unit_problems:
            raise ParameterError(unit_problems)
        try:
            at = (float(at[0]), float(at[1]))
        except (TypeError, ValueError, IndexError):
            raise ParameterError(f"{hp}: fixed at {at!r}, expected a point (x, y) in m") from None
        if not all(math.isfinite(c) for c in at):
            raise ParameterError(f"{hp}: fixed at {at!r}, expected finite coordinates (m)")
        problems = check_connection(hp, None)
        if problems:
            raise ConnectionRuleError(problems)
        if (part, point) in self.fixed or any(hp in h for h in self.hinges):
            raise ConnectionRuleError(f"{hp}: already fixed or hinged")
        self.fixed[(part, point)] = (float(at[0]), float(at[1]))

    def connect(self, part_a: str, point_a: str, part_b: str, point_b: str) -> None:
        """Hinge point ``point_a`` of ``part_a`` to ``point_b`` of ``part_b``.

        Raises
        ------
        ConnectionRuleError
            Naming both parts, both ports and the rule broken.
        """
        a, b = self._point(part_a, point_a), self._point(part_b, point_b)
        problems = check_connection(a, b)
        for hp in (a, b):
            if hp.cls in (PortClass.PD, PortClass.PR, PortClass.RT) and (
                    any(hp in h for h in self.hinges) or (hp.part, hp.name) in self.fixed):
                problems.append(f"{hp}: already connected; a {hp.cls.value} takes one hinge")
        if problems:
            raise ConnectionRuleError(problems)
        self.hinges.append((a, b))

    def drive_extension(self, cylinder: str) -> str:
        """Prescribe the cylinder's length in time; returns the input name (its rate)."""
        return self._drive(Drive("extension", cylinder, f"{cylinder}.rate"))

    def drive_force(self, cylinder: str, piston_mass: float = 0.0, end_stop: Any = None) -> str:
        """Prescribe the cylinder's force (positive pushing); returns the input name.

        Parameters
        ----------
        cylinder : str
        piston_mass : float
            An axial inertia on the drive side (kg, default 0: the cylinder template
            already carries its rod and barrel masses).
        end_stop : EndStop, None or False
            The stroke ends: past either end a stiff spring–damper pushes back on the
            drive, so a force larger than the machine can take ends against the stop
            instead of swinging the linkage through its stroke. ``None`` (default): the
            cylinder's own stops (:meth:`Cylinder.end_stop <components.Cylinder.end_stop>`:
            1e9 N/m, 1e6 N·s/m, hardening over 1 mm unless its ``end_stop`` data say
            otherwise); an :class:`~components.hydraulics.EndStop`: that one; ``False``: no
            stops (the cylinder may then leave its stroke; a run that fails there says so).

        Examples
        --------
        >>> from components import Cylinder, MainBody
        >>> mech = Mechanism("m")
        >>> _ = mech.add(Cylinder("c", retracted=1.0, stroke=0.5))
        >>> mech.drive_force("c"), mech.drives["c"].end_stop.hardening_length
        ('c.force', 0.001)
        """
        if isinstance(piston_mass, bool) or not (isinstance(piston_mass, (int, float)) and math.isfinite(piston_mass)
                                                 and piston_mass >= 0):
            raise ParameterError(f"{cylinder}: piston_mass = {piston_mass!r}, expected a number ≥ 0 (kg)")
        part = self.parts.get(cylinder)
        if end_stop is None and isinstance(part, Cylinder):
            end_stop = part.end_stop()
        elif end_stop is False:
            end_stop = None
        elif end_stop is not None and not hasattr(end_stop, "law"):
            raise ParameterError(f"{cylinder}: end_stop = {end_stop!r}, expected an EndStop, None (the "
                                 "cylinder's own stops) or False (no stops)")
        return self._drive(Drive("force", cylinder, f"{cylinder}.force", piston_mass, end_stop))

    def drive_external(self, cylinder: str, component: BondGraph, port: str) -> None:
        """Drive the cylinder with another component (the hydraulic side) through ``port``."""
        self._drive(Drive("external", cylinder, port))
        self.external[cylinder] = component

    def _drive(self, d: Drive) -> str | None:
        part = self.parts.get(d.cylinder)
        if not isinstance(part, Cylinder):
            raise ConnectionRuleError(f"{d.cylinder}: only a cylinder's I port can be driven "
                                      f"(found {type(part).__name__ if part else 'no such part'})")
        if d.cylinder in self.drives:
            raise ConnectionRuleError(f"{d.cylinder}/I: driven twice ({self.drives[d.cylinder].kind} "
                                      f"and {d.kind})")
        self.drives[d.cylinder] = d
        return d.input

    # ------------------------------------------------------------------ rules
    def check(self, drives: bool = True) -> None:
        """Check every rule on the whole machine; raise once listing every violation.

        ``drives=False`` leaves out the rule that every cylinder is driven (what position
        analysis needs: :meth:`solve_pose` closes the loops of an undriven linkage too)."""
        problems: list[str] = []
        if not self.parts:
            problems.append(f"mechanism {self.name!r}: no parts; add a MainBody, Lever or Cylinder "
                            "with Mechanism.add before solving a pose or building")
        for part in self.parts.values():
            problems += part.check_rules()
        hinged: dict[HingePoint, list[HingePoint]] = {}
        for a, b in self.hinges:
            problems += check_connection(a, b)
            hinged.setdefault(a, []).append(b)
            hinged.setdefault(b, []).append(a)
        for part in self.parts.values():
            for hp in part.points.values():
                key = (hp.part, hp.name)
                on_chassis = key in self.fixed
                if hp.cls is PortClass.RT and not on_chassis and hp not in hinged:
                    problems.append(f"{hp}: not connected; an Rt goes on the chassis or to an Li "
                                    "(rule: an Rt not on the chassis connects to an Li)")
                if hp.cls in (PortClass.PD, PortClass.PR) and hp not in hinged:
                    problems.append(f"{hp}: not connected (rule: a Pd connects to a Pr)")
            if drives and isinstance(part, Cylinder) and part.name not in self.drives:
                problems.append(f"{part.name}/I (I): not driven; give it a force, an extension or "
                                "the hydraulic side")
        # the Rt tree must reach the chassis without cycles
        try:
            self._tree_order()
        except AssemblyError as exc:
            problems += exc.problems
        if problems:
            raise ConnectionRuleError(problems, subject=f"mechanism {self.name!r}")

    def _parent(self, part: Part) -> tuple[str, str] | None:
        """(parent part, its Li point) of a part's Rt; None if on the chassis."""
        rt = part.root
        if (part.name, rt.name) in self.fixed:
            return None
        for a, b in self.hinges:
            if a == rt:
                return b.part, b.name
            if b == rt:
                return a.part, a.name
        raise AssemblyError(f"{rt}: neither on the chassis nor hinged to an Li")

    def _tree_order(self) -> list[str]:
        order: list[str] = []
        placed: set[str] = set()
        pending = list(self.parts)
        while pending:
            progress = False
            for name in list(pending):
                parent = self._parent(self.parts[name])
                if parent is None or parent[0] in placed:
                    order.append(name)
                    placed.add(name)
                    pending.remove(name)
                    progress = True
            if not progress:
                raise AssemblyError([f"{n}: its Rt chain does not reach the chassis (cycle of "
                                     "Rt–Li hinges)" for n in pending])
        return order

    # ------------------------------------------------------------------ position level
    def _unpack(self, z: np.ndarray) -> dict[str, np.ndarray]:
        out, i = {}, 0
        for name, part in self.parts.items():
            k = part.pose_size()
            out[name] = z[i:i + k]
            i += k
        return out

    def _residual(self, z, targets: Mapping[str, float]) -> np.ndarray:
        poses = self._unpack(z)
        world = {n: self.parts[n].world_points(poses[n]) for n in self.parts}
        r = []
        for (part, pt), at in self.fixed.items():
            x, y = world[part][pt]
            r += [x - at[0], y - at[1]]
        for a, b in self.hinges:
            pa, pb = world[a.part][a.name], world[b.part][b.name]
            r += [pa[0] - pb[0], pa[1] - pb[1]]
        for name, part in self.parts.items():
            if isinstance(part, Lever):
                pass  # length is built into the lever pose
        for key, val in targets.items():
            part = self.parts[key]
            idx = 3 if isinstance(part, Cylinder) and key in targets else 2
            r.append(poses[key][idx] - val)
        return np.array(r)

    def _jacobian(self, z, targets: Mapping[str, float]) -> np.ndarray:
        """∂residual/∂z of :meth:`_residual` (analytic, from the parts' point Jacobians)."""
        poses = self._unpack(z)
        offset, i = {}, 0
        for name, part in self.parts.items():
            offset[name] = i
            i += part.pose_size()
        n_rows = 2 * (len(self.fixed) + len(self.hinges)) + len(targets)
        J = np.zeros((n_rows, len(z)))
        r = 0

        def put(part, pt, sign):
            k = self.parts[part].pose_size()
            J[r:r + 2, offset[part]:offset[part] + k] += sign * self.parts[part].point_jacobian(poses[part], pt)

        for (part, pt), _at in self.fixed.items():
            put(part, pt, 1.0)
            r += 2
        for a, b in self.hinges:
            put(a.part, a.name, 1.0)
            put(b.part, b.name, -1.0)
            r += 2
        for key in targets:
            J[r, offset[key] + (3 if isinstance(self.parts[key], Cylinder) else 2)] = 1.0
            r += 1
        return J

    def _newton(self, z0: np.ndarray, targets: Mapping[str, float], tol: float = 1e-10,
                iters: int = 12, lu=None) -> tuple[np.ndarray | None, Any]:
        """Newton from a nearby pose vector: ``(z, factorised Jacobian)``, ``z`` ``None`` if it
        does not converge. A Jacobian factorised at a nearby pose (``lu``) is reused while
        the residual falls fast (chord steps), and refreshed otherwise."""
        from scipy.linalg import lu_factor, lu_solve

        z = np.array(z0, dtype=float)
        r = self._residual(z, targets)
        norm = float(np.max(np.abs(r)))
        fresh = False
        for _ in range(iters):
            if norm < tol:
                return z, lu
            if lu is None:
                J = self._jacobian(z, targets)
                if J.shape[0] != J.shape[1]:
                    dz = np.linalg.lstsq(J, -r, rcond=None)[0]
                    lu = None
                else:
                    try:
                        lu = lu_factor(J, check_finite=True)
                    except (ValueError, np.linalg.LinAlgError):
                        return None, None
                    dz = lu_solve(lu, -r)
                fresh = True
            else:
                dz = lu_solve(lu, -r)
            if not np.all(np.isfinite(dz)):
                return None, None
            step = np.max(np.abs(dz))
            if step > 0.5:  # a big jump means another branch or no solution: refuse
                dz *= 0.5 / step
            z_new = z + dz
            r_new = self._residual(z_new, targets)
            n_new = float(np.max(np.abs(r_new)))
            if n_new > 0.05 * norm and not fresh:  # chord step too slow: refresh the Jacobian
                lu = None
                continue
            if n_new > norm and fresh:
                return None, None
            z, r, norm = z_new, r_new, n_new
            fresh = False
        return (z, lu) if norm < tol else (None, None)

    # ------------------------------------------------------------------ assembly branches
    def dead_centre_measures(self, pose: "Pose") -> dict[tuple[HingePoint, HingePoint], float]:
        """How far each Pd–Pr loop is from its dead centre, with a sign (the branch).

        For each hinge where a cylinder or lever (``Pr``) pushes a body's ``Pd`` point:
        the signed distance of the body's pivot from the pusher's line (its root to its
        ``Pr`` point) over the body's arm (the ``Pd`` point to the pivot) — with the loop
        closed, the sine of the angle between the line and the arm. 0 at a dead centre
        (the pusher's line through the pivot), where the loop's two assembly branches
        meet; its sign says which branch the pose is on. Keys ``(pd, pr)``.
        """
        return self._measures(np.concatenate([np.asarray(pose.values[p], dtype=float) for p in self.parts]))

    def _branch_pairs(self) -> list[tuple[HingePoint, HingePoint]]:
        kept = self.__dict__.get("_branch_pairs_of")      # made again when the hinges change
        if kept is not None and kept[0] == len(self.hinges) and all(h is k for h, k in zip(self.hinges, kept[1])):
            return list(kept[2])
        out = []
        for a, b in self.hinges:
            if {a.cls, b.cls} == {PortClass.PD, PortClass.PR}:
                out.append((a, b) if a.cls is PortClass.PD else (b, a))
        self.__dict__["_branch_pairs_of"] = (len(self.hinges), list(self.hinges), out)
        return list(out)

    def _measures(self, z: np.ndarray) -> dict[tuple[HingePoint, HingePoint], float]:
        poses = self._unpack(z)
        out = {}
        for pd, pr in self._branch_pairs():
            root = self.parts[pr.part].root.name
            pusher = self.parts[pr.part].world_points(poses[pr.part], [root, pr.name])
            base, end = np.asarray(pusher[root]), np.asarray(pusher[pr.name])
            body = self.parts[pd.part]
            pts = body.world_points(poses[pd.part], [pd.name, body.root.name])
            tip, pivot = np.asarray(pts[pd.name]), np.asarray(pts[body.root.name])
            u, v, w = end - base, pivot - base, pivot - tip   # the pusher's line; at the pivot
            nu, nw = math.hypot(*u), math.hypot(*w)
            out[(pd, pr)] = float((u[0] * v[1] - u[1] * v[0]) / (nu * nw)) if nu > 0 and nw > 0 else 0.0
        return out

    def _flipped(self, z: np.ndarray, ref: Mapping) -> list[tuple[HingePoint, HingePoint]]:
        """The loops whose branch at ``z`` differs from the reference measures ``ref``."""
        m = self._measures(z)
        return [k for k, r in ref.items() if abs(r) > BRANCH_EPS and m[k] * r < 0]

    def _dead_centre_error(self, pairs, tg_a: Mapping[str, float], tg_b: Mapping[str, float],
                           index: int) -> AssemblyError:
        problems = []
        for pd, pr in pairs:
            loop = " – ".join(self._loop_members(pr.part, pd.part))
            body = self.parts[pd.part]
            keys = self._loop_inputs(self._loop_members(pr.part, pd.part), tg_b) or list(tg_b)
            span = ", ".join(f"{k} {self._fmt_target(k, tg_a[k])} → {self._fmt_target(k, tg_b[k])}"
                             for k in keys)
            problems.append(f"loop {loop} (hinge {pd} – {pr}) passes its dead centre between {span}: "
                            f"the line of {pr.part} crosses {pd.part}'s pivot {body.root.name}, and "
                            "beyond it the loop closes only on its other assembly branch")
        err = AssemblyError(problems, subject=f"mechanism {self.name!r}: assembly branch")
        err.index = index
        err.dead_centre = True
        return err

    def _advance(self, z: np.ndarray, z_prev: np.ndarray | None, tg_a: Mapping[str, float],
                 tg_b: Mapping[str, float], ref: Mapping, lu, index: int, depth: int = 0):
        """Newton from ``z`` (solved at ``tg_a``) to ``tg_b`` on the branch ``ref``: a step
        that fails or lands on another branch is retried in ``BRANCH_SPLIT`` smaller steps
        (up to ``BRANCH_DEPTH`` times). Returns ``(z, lu)``, ``z`` ``None`` if Newton fails;
        raises at a branch change that persists at the finest step (a dead centre)."""
        pred = z if z_prev is None else z + (z - z_prev)   # linear predictor
        zi, lu = self._newton(pred, tg_b, lu=lu)
        if zi is None:
            zi, lu = self._newton(z, tg_b)
        flips = self._flipped(zi, ref) if zi is not None else []
        if zi is not None and not flips:
            return zi, lu
        if depth >= BRANCH_DEPTH:
            if flips:
                raise self._dead_centre_error(flips, tg_a, tg_b, index)
            return None, None
        zc, zp, lu = z, None, None
        k = BRANCH_SPLIT
        for j in range(1, k + 1):
            w = j / k
            tg_j = {key: (1 - w) * tg_a[key] + w * tg_b[key] for key in tg_b}
            tg_0 = {key: (1 - (j - 1) / k) * tg_a[key] + (j - 1) / k * tg_b[key] for key in tg_b}
            zn, lu = self._advance(zc, zp, tg_0, tg_j, ref, lu, index, depth + 1)
            if zn is None:
                return None, None
            zp, zc = zc, zn
        return zc, lu

    def track(self, targets: Mapping[str, np.ndarray], start: "Pose", *,
              diagnose: bool = True) -> list["Pose"]:
        """Poses along a sequence of targets, each from the previous one (continuation),
        all on the assembly branch of ``start``.

        Parameters
        ----------
        targets : dict
            Target name (as :meth:`solve_pose`) → array of values, one per step.
        start : Pose
            A pose close to the first step (it names the assembly branch).

        A step that does not converge, or converges on another branch (the sign of a
        loop's :meth:`dead_centre_measures` changes), is retried in smaller steps;
        one that still changes branch passes a dead centre.

        Raises
        ------
        AssemblyError
            At the first step that cannot be assembled; ``err.index`` is that step and
            the message is :meth:`solve_pose`'s diagnosis there (``diagnose=False``: a
            short message, for callers that only need to know where). At a step that
            passes a dead centre: naming the loop, its hinge and the inputs' values on
            both sides of it.
        """
        keys = list(targets)
        n = len(next(iter(targets.values()))) if targets else 0
        z = np.concatenate([np.asarray(start.values[p], dtype=float) for p in self.parts])
        ref = self._measures(z)
        tg_prev = {k: float(self._target_value(start, k)) for k in keys}
        z_prev = None
        lu = None
        out = []
        for i in range(n):
            tg = {k: float(targets[k][i]) for k in keys}
            zi, lu = self._advance(z, z_prev, tg_prev, tg, ref, lu, i)
            checked = zi is not None        # _advance returns only poses on the branch of ``ref``
            if zi is None and not diagnose:
                sol = _least_squares(self._residual, z, jac=self._jacobian, args=(tg,), xtol=1e-14, ftol=1e-14, max_nfev=100)
                zi = sol.x if np.max(np.abs(self._residual(sol.x, tg))) < 1e-9 else None
                if zi is None:
                    err = AssemblyError(f"{self.name}: targets {tg} cannot be assembled near the last pose")
                    err.index = i
                    raise err
            if zi is None:
                guess = {name: float(self._unpack(z)[name][2]) for name in self.parts}
                try:
                    pose = self.solve_pose(tg, guess=guess)
                except AssemblyError as exc:
                    err = AssemblyError(exc.problems, subject=exc.subject)
                    err.index = i
                    raise err from None
                zi = np.concatenate([np.asarray(pose.values[p], dtype=float) for p in self.parts])
                lu = None
            flips = [] if checked else self._flipped(zi, ref)
            if flips:
                raise self._dead_centre_error(flips, tg_prev, tg, i)
            z_prev, z = z, zi
            tg_prev = tg
            out.append(Pose(self, {nm: tuple(float(v) for v in p) for nm, p in self._unpack(z).items()}))
        return out

    def _target_value(self, pose: "Pose", key: str) -> float:
        """A target's value at a pose: a cylinder's length, else the part's angle."""
        if key not in self.parts:
            raise ParameterError(f"{key!r}: no such part (parts: {', '.join(self.parts)})")
        return pose.length(key) if isinstance(self.parts[key], Cylinder) else pose.angle(key)

    # ------------------------------------------------------------------ many poses at once
    def close_loops(self, angles: Mapping[str, np.ndarray], lengths: Mapping[str, np.ndarray], *,
                    tol: float = 1e-12, iters: int = 8, max_change: float = 1e-2
                    ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Part angles that close every loop exactly at given cylinder lengths, by Newton from
        nearby angles, for ``N`` configurations at once (e.g. every output time of a run).

        Parameters
        ----------
        angles : dict
            Part → approximate angle (rad, the ``theta`` of a body, the ``phi`` of a lever
            or cylinder), arrays of length ``N``: they pick the solution (the nearest).
        lengths : dict
            Cylinder → pin-to-pin length (m), arrays of length ``N`` (or numbers).
        tol : float
            Largest loop gap accepted (m).
        max_change : float
            A configuration whose angles would move more than this (rad) is not near a
            solution: it is left as given and reported by its gap.

        Returns
        -------
        (dict, ndarray)
            Part → closed angles; the largest loop gap of each configuration (m).

        Raises
        ------
        AssemblyError
            The loop-closure rows (two per Pd–Pr hinge) are not one per part angle: cylinder
            lengths alone do not place this mechanism's parts.
        """
        order = self._tree_order()
        pairs = self._branch_pairs()
        if 2 * len(pairs) != len(order):
            raise AssemblyError(f"{self.name}: {2 * len(pairs)} loop-closure rows (two per Pd–Pr hinge) "
                                f"for {len(order)} part angles: cylinder lengths alone do not place the parts",
                                subject="closing the loops")
        coord = {n: "theta" if "theta" in self.parts[n].coordinate_states else "phi" for n in order}
        A0 = np.column_stack([np.atleast_1d(np.asarray(angles[n], dtype=float)) for n in order])
        n_pts = A0.shape[0]
        L = {c: np.broadcast_to(np.asarray(lengths[c], dtype=float), (n_pts,))
             for c, p in self.parts.items() if isinstance(p, Cylinder)}

        def gaps(A: np.ndarray, idx: np.ndarray) -> np.ndarray:
            """Loop gaps (x, y per Pd–Pr hinge) of the configurations ``idx`` at angles ``A``."""
            world: dict[str, dict] = {}
            for j, name in enumerate(order):
                part = self.parts[name]
                parent = self._parent(part)
                root = self.fixed[(name, part.root.name)] if parent is None else world[parent[0]][parent[1]]
                st = {coord[name]: A[:, j]}
                if isinstance(part, Cylinder):
                    st["s"] = L[name][idx]
                world[name] = part.world_points(part.pose_from_states(root, st))
            r = np.empty((len(A), len(order)))
            for i, (pd, pr) in enumerate(pairs):
                a, b = world[pd.part][pd.name], world[pr.part][pr.name]
                r[:, 2 * i] = np.broadcast_to(a[0] - b[0], len(A))
                r[:, 2 * i + 1] = np.broadcast_to(a[1] - b[1], len(A))
            return r

        A = A0.copy()
        every = np.arange(n_pts)
        h = 1e-7
        for _ in range(iters):
            r = gaps(A, every)
            todo = np.flatnonzero(np.max(np.abs(r), axis=1) >= tol)
            if not len(todo):
                break
            At, rt = A[todo], r[todo]
            J = np.empty((len(todo), len(order), len(order)))
            for j in range(len(order)):   # forward differences: the gap is what converges
                Ah = At.copy()
                Ah[:, j] += h
                J[:, :, j] = (gaps(Ah, todo) - rt) / h
            try:
                dA = np.linalg.solve(J, -rt[..., None])[..., 0]
            except np.linalg.LinAlgError:   # a dead centre among them: one at a time
                dA = np.zeros_like(At)
                for m in range(len(todo)):
                    try:
                        dA[m] = np.linalg.solve(J[m], -rt[m])
                    except np.linalg.LinAlgError:
                        dA[m] = np.nan
            A[todo] = At + dA
        far = ~np.all(np.isfinite(A), axis=1) | (np.max(np.abs(A - A0), axis=1) > max_change)
        A[far] = A0[far]
        gap = np.max(np.abs(gaps(A, every)), axis=1)
        return {n: A[:, j] for j, n in enumerate(order)}, gap

    def _guess(self, targets: Mapping[str, float], guess: Mapping[str, float]) -> np.ndarray:
        poses: dict[str, list[float]] = {}
        world: dict[str, dict] = {}
        order = self._tree_order()
        angle = dict(guess)
        for name in order:
            part = self.parts[name]
            parent = self._parent(part)
            root_xy = self.fixed[(name, part.root.name)] if parent is None else world[parent[0]][parent[1]]
            if isinstance(part, MainBody):
                th = angle.get(name, 0.0)
                pose = list(part.pose_from_states(root_xy, {"theta": th}))
            else:
                pose = [root_xy[0], root_xy[1], angle.get(name, 0.0)]
                if isinstance(part, Cylinder):
                    pose.append(targets.get(name, sum(part.length_limits) / 2))
            poses[name] = pose
            world[name] = part.world_points(tuple(pose))
        # point cylinders and levers at the points they push
        for a, b in self.hinges:
            for pr, pd in ((a, b), (b, a)):
                if pr.cls is PortClass.PR and pd.cls is PortClass.PD:
                    part = self.parts[pr.part]
                    if pr.part in guess:
                        continue
                    root = world[pr.part][part.root.name]
                    tgt = world[pd.part][pd.name]
                    poses[pr.part][2] = math.atan2(tgt[1] - root[1], tgt[0] - root[0])
                    if isinstance(part, Cylinder) and pr.part not in targets:
                        poses[pr.part][3] = math.dist(root, tgt)
        return np.concatenate([poses[n] for n in self.parts])

    def check_targets(self, targets: Mapping[str, float], guess: Mapping[str, float] | None = None) -> None:
        """Refuse targets :meth:`solve_pose` cannot take: unknown parts, one target per
        cylinder not given, non-finite values, lengths outside a stroke.

        Raises
        ------
        ParameterError
            Unknown part names, the wrong number of targets.
        AssemblyError
            Every non-finite target and every length outside its stroke.
        """
        unknown = [k for k in list(targets) + list(guess or {}) if k not in self.parts]
        if unknown:
            raise ParameterError([f"{k!r}: no such part (parts: {', '.join(self.parts)})"
                                  for k in unknown])
        n_dof = len([p for p in self.parts.values() if isinstance(p, Cylinder)])
        if len(targets) != n_dof:
            raise ParameterError(f"{self.name}: {len(targets)} targets given, expected {n_dof} "
                                 "(one per cylinder: its length, or the angle of a part)")
        problems = []
        for k, v in targets.items():
            if not (isinstance(v, (int, float, np.floating)) and math.isfinite(v)):
                problems.append(f"{k}: target {v!r}, expected a finite number (m or rad)")
                continue
            part = self.parts[k]
            if isinstance(part, Cylinder):
                lo, hi = part.length_limits
                if not lo - 1e-9 <= v <= hi + 1e-9:
                    problems.append(f"{k}: length {v:.6g} m requested, outside its stroke "
                                    f"{lo:.6g} … {hi:.6g} m ({'below the retracted length' if v < lo else 'beyond the stroke end'})")
        if problems:
            raise AssemblyError(problems, subject=f"mechanism {self.name!r}: pose")

    def solve_pose(self, targets: Mapping[str, float], guess: Mapping[str, float] | None = None,
                   tol: float = 1e-9) -> Pose:
        """Close every loop.

        Parameters
        ----------
        targets : dict
            One entry per degree of freedom: cylinder name → pin-to-pin length (m),
            or body/lever name → angle (rad).
        guess : dict, optional
            Approximate angles (rad) of bodies, levers or cylinders: the solution
            nearest them is taken, which is how an assembly branch is chosen.

        Raises
        ------
        AssemblyError
            A loop cannot close: names the hinge closing it, the residual, and
            (for a cylinder target) the reachable length range.
        """
        self.check(drives=False)
        guess = dict(guess or {})
        self.check_targets(targets, guess)
        for k, v in guess.items():
            if not (isinstance(v, (int, float, np.floating)) and math.isfinite(v)):
                raise ParameterError(f"{k}: guess {v!r}, expected a finite angle (rad)")
        z0 = self._guess(targets, guess)
        sol = _least_squares(self._residual, z0, jac=self._jacobian, args=(targets,), xtol=1e-15, ftol=1e-15,
                            gtol=1e-15, max_nfev=2000)
        res = self._residual(sol.x, targets)
        if np.max(np.abs(res)) > tol:
            raise AssemblyError(self._closure_problem(sol.x, targets, guess))
        pose = Pose(self, {n: tuple(float(v) for v in p) for n, p in self._unpack(sol.x).items()})
        self._last_pose = pose            # what the mechanism's notebook display draws
        return pose

    def branch_signature(self, pose: "Pose") -> tuple[int, ...]:
        """The assembly branch of a pose: the sign of each loop's dead-centre measure
        (:meth:`dead_centre_measures`), in hinge order; 0 for a loop at its dead centre."""
        return tuple(0 if abs(m) < BRANCH_EPS else (1 if m > 0 else -1)
                     for m in self.dead_centre_measures(pose).values())

    def assembly_branches(self, targets: Mapping[str, float], guess: Mapping[str, float] | None = None
                          ) -> list["Pose"]:
        """Every assembly branch of the pose at ``targets`` that a search finds: the pose of
        :meth:`solve_pose` first, then the others (different :meth:`branch_signature`).

        The search solves the loops again from guesses with the angles of the parts that
        are not targets turned (by ±60°, ±120°, 180°, one part at a time and two at a
        time), which finds the mirrored configurations of each loop. A pose with one
        branch returns a list of one.

        Examples
        --------
        >>> from mechanisms.machine import DATA, MachineDescription
        >>> d = MachineDescription.load(DATA / "excavator.toml")
        >>> mech = d.to_mechanism()
        >>> angles = {"boom": 50, "arm": 50 - 80, "bucket": 50 - 80 + 20}
        >>> poses = mech.assembly_branches({k: math.radians(v) for k, v in angles.items()},
        ...                                guess={"rocker": math.radians(8), "link": math.radians(-60)})
        >>> len(poses) > 1, [round(p.length("bucket_cylinder"), 3) for p in poses][:1]
        (True, [3.066])
        """
        import itertools

        first = self.solve_pose(targets, guess)
        found = {self.branch_signature(first): first}
        free = [n for n, p in self.parts.items() if n not in targets and not isinstance(p, Cylinder)]
        turns = [math.radians(a) for a in (60, -60, 120, -120, 180)]
        base = {n: first.angle(n) for n in self.parts}
        trials = [{p: base[p] + d} for p in free for d in turns]
        trials += [{p: base[p] + d, q: base[q] + e} for p, q in itertools.combinations(free, 2)
                   for d in turns for e in turns]
        for tr in trials:
            try:
                pose = self.solve_pose(targets, {**base, **tr})
            except (AssemblyError, ParameterError):
                continue
            sig = self.branch_signature(pose)
            if sig not in found and 0 not in sig:
                found[sig] = pose
        return list(found.values())

    def pose_from_angles(self, angles: Mapping[str, float], guess: Mapping[str, float] | None = None) -> Pose:
        """Pose with the given part angles as targets, e.g. the body angles of a work pose.

        Every angle is *absolute*: the angle of the part's frame from the world x axis
        (rad, counter-clockwise), not relative to its parent. For relative angles use a
        machine's ``[outputs.angles]`` (``Machine.pose``) or add the parent's angle.
        """
        return self.solve_pose(dict(angles), guess=guess)

    def _closure_problem(self, z, targets, guess) -> list[str]:
        poses = self._unpack(z)
        world = {n: self.parts[n].world_points(poses[n]) for n in self.parts}
        msgs = []
        for a, b in self.hinges:
            if {a.cls, b.cls} != {PortClass.PD, PortClass.PR}:
                continue
            gap = math.dist(world[a.part][a.name], world[b.part][b.name])
            if gap < 1e-7:
                continue
            pr = a if a.cls is PortClass.PR else b
            pd = b if pr is a else a
            loop = self._loop_members(pr.part, pd.part)
            members = " – ".join(loop)
            msgs.append(f"loop {members} (closed at hinge {pd} – {pr}) cannot close: gap "
                        f"{gap:.4g} m at the best fit")
            part = self.parts[pr.part]
            inputs = self._loop_inputs(loop, targets)
            if isinstance(part, Cylinder) and pr.part in targets:
                lo, hi = self._reachable(pr.part, targets, guess)
                val = targets[pr.part]
                others = [k for k in inputs if k != pr.part]
                if others:
                    held = ", ".join(f"{k} = {self._fmt_target(k, targets[k])}" for k in others)
                    msgs.append(f"inputs {' and '.join([pr.part] + others)} cannot be met together: "
                                f"with {held}, {pr.part} (asked {val:.6g} m) can only be "
                                + (f"{lo:.6g} … {hi:.6g} m" if lo is not None else "assembled at no length")
                                + f" (its stroke: {part.length_limits[0]:.6g} … {part.length_limits[1]:.6g} m)")
                elif lo is not None:
                    msgs.append(f"{pr.part}: length {val:.6g} m requested; the loop reaches "
                                f"{lo:.6g} … {hi:.6g} m (stroke limits {part.length_limits[0]:.6g} … "
                                f"{part.length_limits[1]:.6g} m)")
            elif len(inputs) >= 2:
                msgs.append(f"inputs {' and '.join(inputs)} cannot be met together ("
                            + ", ".join(f"{k} = {self._fmt_target(k, targets[k])}" for k in inputs) + ")")
        if not msgs:
            msgs.append("the constraints cannot be met together (check the targets and the guess)")
        # a coupled pair explains the failure: drop single-loop ranges of the inputs it names
        paired = {m.split(" cannot be met together")[0] for m in msgs if m.startswith("inputs ")}
        if paired:
            named = {w for p in paired for w in p.replace("inputs ", "").split(" and ")}
            msgs = [m for m in msgs if not (m.split(":")[0] in named and "the loop reaches" in m)]
        return msgs

    def _fmt_target(self, key: str, value: float) -> str:
        if isinstance(self.parts[key], Cylinder):
            return f"{value:.6g} m"
        return f"{math.degrees(value):.4g}°"

    def _loop_inputs(self, loop: list[str], targets: Mapping[str, float]) -> list[str]:
        """Targets that shape a loop: its members' own targets and the targeted cylinders
        or levers that push (Pr on a Pd of) a member or a part up its root chain."""
        members = [m for m in loop if m != "chassis"]
        chain: list[str] = []
        for m in members:
            n = m
            while n is not None and n not in chain:
                chain.append(n)
                parent = self._parent(self.parts[n])
                n = parent[0] if parent else None
        out = [k for k in targets if k in members]
        for a, b in self.hinges:
            for pr, pd in ((a, b), (b, a)):
                if pr.cls is PortClass.PR and pd.cls is PortClass.PD and pd.part in chain \
                        and pr.part in targets and pr.part not in out:
                    out.append(pr.part)
        return out

    def _loop_members(self, a: str, b: str) -> list[str]:
        """Parts of the loop through the root chains of ``a`` and ``b``."""
        def chain(name):
            out = [name]
            while True:
                parent = self._parent(self.parts[out[-1]])
                if parent is None:
                    out.append("chassis")
                    return out
                out.append(parent[0])
        ca, cb = chain(a), chain(b)
        common = next(x for x in ca if x in cb)
        return ca[: ca.index(common) + 1] + list(reversed(cb[: cb.index(common)]))

    def _reachable(self, cyl: str, targets, guess) -> tuple[float | None, float | None]:
        """Range of a cylinder's length over which its loop closes (others held)."""
        # the body the cylinder pushes: sweep its angle
        pushed = None
        for a, b in self.hinges:
            for pr, pd in ((a, b), (b, a)):
                if pr.part == cyl and pr.cls is PortClass.PR:
                    pushed = pd.part
        if pushed is None:
            return None, None
        lengths = []
        other = {k: v for k, v in targets.items() if k != cyl}
        z_prev = None
        for ang in np.linspace(-math.pi, math.pi, 181):
            tg = dict(other)
            tg[pushed] = ang
            try:
                z = None
                if z_prev is not None:  # continuation from the previous angle: a few Newton steps
                    z, _ = self._newton(z_prev, tg, tol=1e-9)
                if z is None:
                    z0 = self._guess(tg, {**guess, pushed: ang})
                    sol = _least_squares(self._residual, z0, jac=self._jacobian, args=(tg,), xtol=1e-12, ftol=1e-12, max_nfev=60)
                    z = sol.x if np.max(np.abs(self._residual(sol.x, tg))) < 1e-7 else None
                z_prev = z
                if z is not None and self._unpack(z)[cyl][3] > 0:
                    lengths.append(self._unpack(z)[cyl][3])
            except Exception:  # noqa: BLE001 - a sweep point that does not assemble
                z_prev = None
                continue
        if not lengths:
            return None, None
        return float(min(lengths)), float(max(lengths))

    # ------------------------------------------------------------------ bond graph
    def bond_graph(self) -> BondGraph:
        """The machine's global bond graph (as a model to :func:`bondgraph.build`)."""
        self.check()
        bg = BondGraph(self.name)
        for part in self.parts.values():
            bg.add(part)
        def hinge_name(hp: HingePoint) -> str:
            return f"h_{hp.part}_{hp.name}"
        for (part, pt), _at in self.fixed.items():
            hp = self.parts[part].hinge(pt)
            h = hinge_name(hp)
            for ax in ("x", "y"):
                bg.add(One(f"{h}_{ax}"), Sf(f"{h}_fix_{ax}", 0.0))
                bg.connect(f"{part}/{pt}.{ax}", f"{h}_{ax}")
                bg.connect(f"{h}_fix_{ax}", f"{h}_{ax}")
        li_junction: dict[HingePoint, str] = {}
        for a, b in self.hinges:
            if {a.cls, b.cls} == {PortClass.PD, PortClass.PR}:
                pd, pr = (a, b) if a.cls is PortClass.PD else (b, a)
                h = hinge_name(pd)
                for ax in ("x", "y"):
                    bg.add(One(f"{h}_{ax}"))
                    bg.connect(f"{pd.part}/{pd.name}.{ax}", f"{h}_{ax}")
                    bg.connect(f"{pr.part}/{pr.name}.{ax}", f"{h}_{ax}")
                body = self.parts[pd.part]
                bg.bind(body.pd_frame, self.parts[pr.part].axis_angle)
            else:
                li, rt = (a, b) if a.cls is PortClass.LI else (b, a)
                h = li_junction.get(li)
                if h is None:
                    h = hinge_name(li)
                    li_junction[li] = h
                    for ax in ("x", "y"):
                        bg.add(One(f"{h}_{ax}"))
                        bg.connect(f"{li.part}/{li.name}.{ax}", f"{h}_{ax}")
                for ax in ("x", "y"):
                    bg.connect(f"{rt.part}/{rt.name}.{ax}", f"{h}_{ax}")
        for part in self.parts.values():
            for hp in part.points.values():
                if hp.cls is PortClass.LI and hp not in li_junction:
                    h = hinge_name(hp)
                    for ax in ("x", "y"):
                        bg.add(One(f"{h}_{ax}"), Se(f"{h}_free_{ax}", 0.0))
                        bg.connect(f"{hp.part}/{hp.name}.{ax}", f"{h}_{ax}")
                        bg.connect(f"{h}_free_{ax}", f"{h}_{ax}")
        for cyl, d in self.drives.items():
            if d.kind == "extension":
                bg.add(MSf(f"{cyl}_drive", Input(d.input)))
                bg.connect(f"{cyl}_drive", f"{cyl}/I")
            elif d.kind == "force":
                j = f"{cyl}_drive"
                bg.add(One(j), MSe(f"{cyl}_force", Input(d.input)), I(f"{cyl}_piston", d.piston_mass))
                bg.connect(f"{cyl}_force", j)
                bg.connect(j, f"{cyl}_piston")
                bg.connect(j, f"{cyl}/I")
                if d.end_stop is not None:
                    part = self.parts[cyl]
                    x = part.length_symbol - part.retracted
                    stop, stroke = d.end_stop, part.stroke
                    bg.add(R(f"{cyl}_stop", effort=lambda v, x=x, stop=stop, stroke=stroke:
                             stop.law(v, x, stroke)))
                    bg.connect(j, f"{cyl}_stop")
            else:
                comp = self.external[cyl]
                if comp.name not in bg.children:
                    bg.add(comp)
                bg.connect(f"{comp.name}/{d.input}", f"{cyl}/I")
        return bg

    def hinge_junctions(self) -> dict[str, tuple[str, str]]:
        """``"part/point"`` → its hinge junction names (x, y) in the global graph."""
        out = {}
        for part in self.parts.values():
            for hp in part.points.values():
                out[f"{part.name}/{hp.name}"] = (f"{self.name}/h_{hp.part}_{hp.name}_x",
                                                  f"{self.name}/h_{hp.part}_{hp.name}_y")
        return out
