"""The interface every formulation offers, and the read-outs they share.

A formulation turns one :class:`~mechanisms.assembly.Mechanism` into a built
:class:`bondgraph.Model` and knows how to start runs and read them:

* :meth:`Formulation.simulate_forces` — forward dynamics, prescribed cylinder
  forces (N, positive pushing), from a :class:`~mechanisms.assembly.Pose`;
* :meth:`Formulation.simulate_extensions` — inverse dynamics, prescribed
  pin-to-pin lengths (C² splines);
* :meth:`Formulation.positions`, :meth:`Formulation.coordinates`,
  :meth:`Formulation.angles`, :meth:`Formulation.point` — kinematics;
* :meth:`Formulation.loop_closure`, :meth:`Formulation.cylinder_force`,
  :meth:`Formulation.cylinder_rate`.

These are the methods of :class:`~mechanisms.model.MechanismModel`, so plots,
notebooks and the CLI take any formulation. Every run returns a
:class:`bondgraph.Results` (``stats`` has ``nfev``, ``njev``, ``wall_time``).

Hook methods a subclass implements: :meth:`~Formulation.simulate_forces`,
:meth:`~Formulation.simulate_extensions`, :meth:`~Formulation.positions`,
:meth:`~Formulation.coordinates`, :meth:`~Formulation.loop_closure`,
:meth:`~Formulation.cylinder_force`, :meth:`~Formulation.cylinder_rate`.

Examples
--------
>>> from mechanisms.examples import single_boom
>>> from mechanisms.formulations import build_formulation
>>> f = build_formulation(single_boom(), "causal")
>>> isinstance(f, Formulation), f.kind
(True, 'causal')
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar, Mapping

import numpy as np

from bondgraph import Model, ParameterError, Results
from components import Cylinder, Lever

from ..assembly import Mechanism, Pose

__all__ = ["Formulation"]


class Formulation(ABC):
    """A mechanism's equations of motion in one formulation (see the module text).

    Attributes
    ----------
    kind : str
        ``"causal"``, ``"stiff"`` or ``"cartesian"``.
    mechanism : Mechanism
    model : bondgraph.Model
        The built model (its ``system`` has the compiled RHS and Jacobian).

    Examples
    --------
    The shared read-outs work on any formulation's run:

    >>> from mechanisms.examples import single_boom
    >>> from mechanisms.formulations import build_formulation
    >>> mech = single_boom()
    >>> pose = mech.solve_pose({"boom_cyl": 3.0}, guess={"boom": 0.2})
    >>> f = build_formulation(mech, "cartesian")
    >>> res = f.simulate_forces({"boom_cyl": 0.0}, (0.0, 0.1), pose, progress=False)
    >>> sorted(f.angles(res)), f.point(res, "boom/B").shape[1]
    (['boom', 'boom_cyl'], 2)
    >>> f.point(res, "boom/Z")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: ...'boom/Z': no such hinge point (points: ...
    """

    kind: ClassVar[str] = "?"

    def __init__(self, mechanism: Mechanism, model: Model):
        self.mechanism = mechanism
        self.model = model
        self.name = mechanism.name

    # ------------------------------------------------------------------ runs
    @abstractmethod
    def simulate_forces(self, forces: Mapping[str, Any], t_span, pose: Pose,
                        rates: Mapping[str, float] | None = None, **kw) -> Results:
        """Forward dynamics: ``forces[cyl]`` a number, expression of ``t``, Signal...

        Parameters
        ----------
        forces : mapping
        t_span
        pose : Pose
        rates : mapping, optional
        **kw

        Returns
        -------
        Results
        """

    @abstractmethod
    def simulate_extensions(self, lengths: Mapping[str, Any], t_span, *,
                            guess: Mapping[str, float] | None = None, **kw) -> Results:
        """Inverse dynamics: ``lengths[cyl]`` a Spline or ``(times, values)``.

        Parameters
        ----------
        lengths : mapping
        t_span
        guess : mapping, optional
        **kw

        Returns
        -------
        Results
        """

    # ------------------------------------------------------------------ read-outs
    @abstractmethod
    def positions(self, res: Results) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """World position of every hinge point, keyed ``"part/point"``.

        Parameters
        ----------
        res : Results
            A run's results.

        Returns
        -------
        dict
        """

    @abstractmethod
    def coordinates(self, res: Results, part: str) -> dict[str, np.ndarray]:
        """A part's coordinates: ``theta`` (body), ``phi`` (lever), ``phi`` and ``s`` (cylinder).

        Parameters
        ----------
        res : Results
            A run's results.
        part : str
            A part's name.

        Returns
        -------
        dict
        """

    @abstractmethod
    def loop_closure(self, res: Results) -> dict[str, np.ndarray]:
        """Gap (m) at the joints the formulation does not satisfy by construction.

        Parameters
        ----------
        res : Results
            A run's results.

        Returns
        -------
        dict
        """

    @abstractmethod
    def cylinder_force(self, res: Results, cyl: str) -> np.ndarray:
        """Axial force of a cylinder (N, positive pushing).

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

    @abstractmethod
    def cylinder_rate(self, res: Results, cyl: str) -> np.ndarray:
        """Extension rate of a cylinder's pin-to-pin length (m/s).

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

    # ------------------------------------------------------------------ shared
    def angles(self, res: Results) -> dict[str, np.ndarray]:
        """Angle of every part (rad): body frame ``θ``, lever and cylinder axis ``φ``.

        Parameters
        ----------
        res : Results

        Returns
        -------
        dict
            Part → angle over the run.
        """
        out = {}
        for name, part in self.mechanism.parts.items():
            key = "phi" if isinstance(part, (Lever, Cylinder)) else "theta"
            out[name] = self.coordinates(res, name)[key]
        return out

    def point(self, res: Results, name: str) -> np.ndarray:
        """World position of one hinge point ``"part/point"`` along the run, shape ``(n, 2)``.

        Parameters
        ----------
        res : Results
        name : str
            ``"part/point"``.

        Returns
        -------
        ndarray

        Raises
        ------
        ParameterError
            No such point (the points are listed).
        """
        pos = self.positions(res)
        if name not in pos:
            raise ParameterError(f"{name!r}: no such hinge point (points: {', '.join(pos)})")
        x, y = pos[name]
        return np.column_stack([np.broadcast_to(x, res.t.shape), np.broadcast_to(y, res.t.shape)])

    def _check_part(self, part: str) -> None:
        if part not in self.mechanism.parts:
            raise ParameterError(f"{part!r}: no such part in {self.name!r} (parts: "
                                 f"{', '.join(self.mechanism.parts)})")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}: {len(self.model.state_names)} states)"
