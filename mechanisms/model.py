"""A built mechanism: the generic model plus the machine's kinematic read-outs.

:class:`MechanismModel` wraps a :class:`bondgraph.Model` built from
:meth:`Mechanism.bond_graph` and knows which states are which part's angle
and which cylinder's length, so it can start a run from a :class:`Pose`,
drive cylinders by prescribed lengths or forces, and report hinge positions
(computed along each part's root chain from the integrated angles), loop
closure gaps and cylinder forces.

Examples
--------
>>> from mechanisms.examples import single_boom
>>> mm = MechanismModel.build(single_boom(drive="force"))
>>> mm.model.report.summary()
"causality of 'boom_lift': sound; 1 independent states, 3 displacement states, 3 dependent storage elements, 0 algebraic loops, 0 conflicts"
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from bondgraph import Model, ParameterError, Results, Signal, Spline, build, simulate
from components import Cylinder, Lever, MainBody
from components.ports import PortClass

from .assembly import Mechanism, Pose

__all__ = ["MechanismModel", "extension_signals"]


def extension_signals(lengths: Mapping[str, Any]) -> dict[str, Spline]:
    """Splines of prescribed lengths: ``{cyl: Spline}`` from ``{cyl: (times, lengths)}``.

    The splines are C² cubic splines with *clamped* ends (zero slope at the first and the
    last time), so the motion starts and ends at rest and its accelerations (the inverse
    dynamics) exist everywhere; outside the table's times they are not extrapolated.
    """
    out = {}
    for cyl, spec in lengths.items():
        if isinstance(spec, Spline):
            out[cyl] = spec
        else:
            times, vals = spec
            out[cyl] = Spline(times, vals, name=f"{cyl} length")
    return out


class MechanismModel:
    """Model of a mechanism with its kinematics."""

    def __init__(self, mechanism: Mechanism, model: Model):
        self.mechanism = mechanism
        self.model = model
        self.name = mechanism.name

    @classmethod
    def build(cls, mechanism: Mechanism, params: Mapping[str, float] | None = None) -> "MechanismModel":
        return cls(mechanism, build(mechanism.bond_graph(), params))

    # ------------------------------------------------------------------ names
    def state(self, part: str, coord: str) -> str:
        """Global state name of a part coordinate (``theta``, ``phi``, ``s``)."""
        p = self.mechanism.parts[part]
        try:
            return f"{self.name}/{part}/{p.coordinate_states[coord]}"
        except KeyError:
            raise ParameterError(f"{part}: no coordinate {coord!r} (has "
                                 f"{', '.join(p.coordinate_states)})") from None

    def drive_bond(self, cyl: str) -> str:
        """The bond that carries the cylinder's drive force (effort) and rate (flow)."""
        g = self.model.graph
        target = f"{self.name}/{cyl}/ext"
        for u, v, k in g.in_edges(target, keys=True):
            if not u.startswith(f"{self.name}/{cyl}/"):
                return k
        raise ParameterError(f"{cyl}: no drive bond found")

    # ------------------------------------------------------------------ runs
    def initial_state(self, pose: Pose, rates: Mapping[str, float] | None = None) -> dict[str, float]:
        x0 = pose.states()
        for cyl, d in self.mechanism.drives.items():
            if d.kind == "force":
                x0[f"{self.name}/{cyl}_piston.f"] = float((rates or {}).get(cyl, 0.0))
        return {k: v for k, v in x0.items() if k in self.model.state_names}

    def simulate_extensions(self, lengths: Mapping[str, Any], t_span, *,
                            guess: Mapping[str, float] | None = None, **kw) -> Results:
        """Inverse dynamics: prescribed pin-to-pin lengths (splines, C²)."""
        sig = extension_signals(lengths)
        drives = {c for c, d in self.mechanism.drives.items() if d.kind == "extension"}
        if set(sig) != drives:
            raise ParameterError(f"lengths given for {sorted(sig)}, expected exactly the "
                                 f"extension-driven cylinders {sorted(drives)}")
        t0 = float(t_span[0])
        targets = {c: s.value(t0) for c, s in sig.items()}
        pose = self.mechanism.solve_pose(targets, guess=guess)
        inputs = {f"{c}.rate": s.rate(name=f"{c}.rate") for c, s in sig.items()}
        inputs.update(kw.pop("inputs", {}))
        return simulate(self.model, t_span, x0=self.initial_state(pose), inputs=inputs, **kw)

    def simulate_forces(self, forces: Mapping[str, Any], t_span, pose: Pose,
                        rates: Mapping[str, float] | None = None, **kw) -> Results:
        """Forward dynamics: prescribed cylinder forces (N, positive pushing)."""
        inputs = {f"{c}.force": f for c, f in forces.items()}
        inputs.update(kw.pop("inputs", {}))
        return simulate(self.model, t_span, x0=self.initial_state(pose, rates), inputs=inputs, **kw)

    # ------------------------------------------------------------------ read-outs
    def coordinates(self, res: Results, part: str) -> dict[str, np.ndarray]:
        p = self.mechanism.parts[part]
        return {c: res[self.state(part, c)] for c in p.coordinate_states}

    def positions(self, res: Results) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """World position of every hinge point along the run (via the root chains)."""
        mech = self.mechanism
        world: dict[str, dict] = {}
        out = {}
        for name in mech._tree_order():
            part = mech.parts[name]
            parent = mech._parent(part)
            if parent is None:
                at = mech.fixed[(name, part.root.name)]
                root = (np.full(len(res.t), at[0]), np.full(len(res.t), at[1]))
            else:
                root = world[parent[0]][parent[1]]
            pose = part.pose_from_states(root, self.coordinates(res, name))
            world[name] = part.world_points(pose)
            for pn, xy in world[name].items():
                out[f"{name}/{pn}"] = xy
        return out

    def loop_closure(self, res: Results) -> dict[str, np.ndarray]:
        """Gap (m) at every Pd–Pr hinge along the run: the loops' closure residual."""
        pos = self.positions(res)
        out = {}
        for a, b in self.mechanism.hinges:
            if {a.cls, b.cls} == {PortClass.PD, PortClass.PR}:
                pa, pb = pos[f"{a.part}/{a.name}"], pos[f"{b.part}/{b.name}"]
                out[f"{a.part}/{a.name}–{b.part}/{b.name}"] = np.hypot(pa[0] - pb[0], pa[1] - pb[1])
        return out

    def cylinder_force(self, res: Results, cyl: str) -> np.ndarray:
        """Axial force on the cylinder's drive (N, positive pushing)."""
        return res.effort(self.drive_bond(cyl))

    def cylinder_rate(self, res: Results, cyl: str) -> np.ndarray:
        return res.flow(self.drive_bond(cyl))
