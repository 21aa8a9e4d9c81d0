"""What the stiff-joint and Cartesian formulations share: starting runs and reading them.

Both describe the mechanism as free rigid bodies with absolute coordinates
(:class:`~.multibody.Multibody`); they differ only in how joints hold the
bodies together (stiff spring–dampers, or Lagrange multipliers). So starting a
run is the same: the pose gives the coordinates ``q0``; the velocities ``v0``
follow from the joints and the cylinder rates; the rigid system at ``t0``
gives the joint forces ``λ0`` (the stiff form pre-loads its springs with them,
so it starts on its slow manifold instead of ringing). Reading a run is the
same too: every part's pose from the coordinates, then its hinge points.

Hooks a subclass implements: :meth:`RigidBodyFormulation._initial` (named
initial states from ``q0, v0, λ0``), :meth:`RigidBodyFormulation._coordinates`
(the coordinate history of a run), :meth:`RigidBodyFormulation._velocities` (its
velocity history), :meth:`RigidBodyFormulation._extension_inputs`
(input signals of a prescribed-length run) and ``cylinder_force``.

Examples
--------
>>> from mechanisms.examples import single_boom
>>> from mechanisms.formulations import build_formulation
>>> f = build_formulation(single_boom(), "cartesian")
>>> isinstance(f, RigidBodyFormulation), list(f.multibody.bodies)
(True, ['boom'])
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, Mapping

import numpy as np

from bondgraph import Model, ParameterError, Results, Signal, simulate
from bondgraph.signals import as_signal
from components import Cylinder, Lever

from ..assembly import Mechanism, Pose
from ..model import extension_signals
from .base import Formulation
from .multibody import Multibody

__all__ = ["RigidBodyFormulation"]


class RigidBodyFormulation(Formulation):
    """Base of the formulations in absolute coordinates (see the module text).

    Parameters
    ----------
    mechanism : Mechanism
    model : Model
        The built equations.
    multibody : Multibody
        The rigid-body view of the mechanism.

    Examples
    --------
    Its two forms hold the boom's pivot with the same force — the stiff joint's spring
    force and the Cartesian form's Lagrange multiplier:

    >>> import numpy as np
    >>> from mechanisms.examples import single_boom
    >>> from mechanisms.formulations import build_formulation
    >>> mech = single_boom()
    >>> pose = mech.solve_pose({"boom_cyl": 3.0}, guess={"boom": 0.2})
    >>> stiff = build_formulation(mech, "stiff", stiffness=1e10)
    >>> cart = build_formulation(mech, "cartesian")
    >>> kw = dict(t_eval=[0.3], rtol=1e-9, atol=1e-12, progress=False)
    >>> fs = stiff.joint_forces(stiff.simulate_forces({"boom_cyl": 0.0}, (0.0, 0.3), pose, **kw))
    >>> fc = cart.multipliers(cart.simulate_forces({"boom_cyl": 0.0}, (0.0, 0.3), pose, **kw))
    >>> sorted(fs) == sorted(fc), bool(all(abs(fs[k][-1] / fc[k][-1] - 1) < 1e-5 for k in fs))
    (True, True)
    """

    def __init__(self, mechanism: Mechanism, model: Model, multibody: Multibody):
        super().__init__(mechanism, model)
        self.multibody = multibody

    # ------------------------------------------------------------------ hooks
    @abstractmethod
    def _initial(self, q0: np.ndarray, v0: np.ndarray, lam0: np.ndarray) -> dict[str, float]:
        """Named initial states from coordinates, velocities and joint forces."""

    @abstractmethod
    def _coordinates(self, res: Results) -> np.ndarray:
        """Coordinate history ``q`` of a run, shape ``(len(t), n)``."""

    @abstractmethod
    def _velocities(self, res: Results) -> np.ndarray:
        """Velocity history ``v = q̇`` of a run, shape ``(len(t), n)``."""

    @abstractmethod
    def _extension_inputs(self, signals: Mapping[str, Any]) -> dict[str, Signal]:
        """Input signals of a prescribed-length run, from each cylinder's length spline."""

    # ------------------------------------------------------------------ runs
    def _drives(self, kind: str) -> set[str]:
        return {c for c, d in self.mechanism.drives.items() if d.kind == kind}

    def initial_state(self, pose: Pose, rates: Mapping[str, float] | None = None,
                      forces: Mapping[str, float] | None = None,
                      lengths: Mapping[str, tuple[float, float, float]] | None = None
                      ) -> dict[str, float]:
        """Named initial states at a pose: consistent velocities and joint forces.

        ``rates``: cylinder extension rates (m/s); ``forces``: force-driven
        cylinders' forces at ``t0``; ``lengths[cyl] = (L, L̇, L̈)`` of
        extension-driven ones.

        Parameters
        ----------
        pose : Pose
        rates : mapping, optional
        forces : mapping, optional
        lengths : mapping, optional

        Returns
        -------
        dict
        """
        mb = self.multibody
        q0 = mb.coordinates_from_pose(pose)
        v0 = mb.consistent_velocities(q0, rates)
        _, lam0 = mb.rigid_solution(q0, v0, forces=forces, lengths=lengths)
        return self._initial(q0, v0, lam0)

    def simulate_forces(self, forces: Mapping[str, Any], t_span, pose: Pose,
                        rates: Mapping[str, float] | None = None, **kw) -> Results:
        wanted = self._drives("force")
        if set(forces) != wanted:
            raise ParameterError(f"forces given for {sorted(forces)}, expected exactly the "
                                 f"force-driven cylinders {sorted(wanted)}")
        t0 = float(t_span[0])
        f0 = {c: as_signal(f, f"{c}.force").value(t0) for c, f in forces.items()}
        x0 = self.initial_state(pose, rates, forces=f0)
        inputs = {f"{c}.force": f for c, f in forces.items()}
        inputs.update(kw.pop("inputs", {}))
        return simulate(self.model, t_span, x0=x0, inputs=inputs, **kw)

    def simulate_extensions(self, lengths: Mapping[str, Any], t_span, *,
                            guess: Mapping[str, float] | None = None, **kw) -> Results:
        sig = extension_signals(lengths)
        wanted = self._drives("extension")
        if set(sig) != wanted:
            raise ParameterError(f"lengths given for {sorted(sig)}, expected exactly the "
                                 f"extension-driven cylinders {sorted(wanted)}")
        t0 = float(t_span[0])
        pose = self.mechanism.solve_pose({c: s.value(t0) for c, s in sig.items()}, guess=guess)
        rates = {c: s.derivative(t0) for c, s in sig.items()}
        lengths0 = {c: (s.value(t0), s.derivative(t0), s.second_derivative(t0)) for c, s in sig.items()}
        x0 = self.initial_state(pose, rates, lengths=lengths0)
        inputs = self._extension_inputs(sig)
        inputs.update(kw.pop("inputs", {}))
        return simulate(self.model, t_span, x0=x0, inputs=inputs, **kw)

    # ------------------------------------------------------------------ read-outs
    def part_poses(self, res: Results) -> dict[str, tuple]:
        """Every part's pose along the run (as :class:`~mechanisms.assembly.Pose` stores it).

        Parameters
        ----------
        res : Results
            A run's results.

        Returns
        -------
        dict
        """
        poses = self.multibody.part_poses(self._coordinates(res))
        for name, part in self.mechanism.parts.items():
            if isinstance(part, (Cylinder, Lever)):  # continuous axis angles, like the states
                p = list(poses[name])
                p[2] = np.unwrap(np.atleast_1d(p[2]))
                poses[name] = tuple(p)
        return poses

    def positions(self, res: Results) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        out = {}
        for name, pose in self.part_poses(res).items():
            for pn, xy in self.mechanism.parts[name].world_points(pose).items():
                out[f"{name}/{pn}"] = xy
        return out

    def coordinates(self, res: Results, part: str) -> dict[str, np.ndarray]:
        self._check_part(part)
        pose = self.part_poses(res)[part]
        p = self.mechanism.parts[part]
        if isinstance(p, Cylinder):
            return {"phi": pose[2], "s": pose[3]}
        if isinstance(p, Lever):
            return {"phi": pose[2]}
        return {"theta": pose[2]}

    def loop_closure(self, res: Results) -> dict[str, np.ndarray]:
        """Position error of every joint (see :meth:`Multibody.joint_gaps`).

        Parameters
        ----------
        res : Results
            A run's results.

        Returns
        -------
        dict
        """
        return self.multibody.joint_gaps(self._coordinates(res))

    def _cylinder(self, cyl: str) -> str:
        self._check_part(cyl)
        d = self.mechanism.drives.get(cyl)
        if d is None:
            raise ParameterError(f"{cyl!r}: not a driven cylinder of {self.name!r}")
        return d.kind

    def cylinder_rate(self, res: Results, cyl: str) -> np.ndarray:
        """``ṡ = ∂s/∂q · v`` of a cylinder along the run (m/s).

        Parameters
        ----------
        res : Results
            A run's results.
        cyl : str
            A cylinder's name.

        Returns
        -------
        ndarray
        """
        self._cylinder(cyl)
        i = list(self.multibody.actuators).index(cyl)
        q, v = self._coordinates(res), self._velocities(res)
        return np.array([self.multibody.length_gradients(qk)[i] @ vk for qk, vk in zip(q, v)])
