"""The causal formulation: the global bond graph of the templates (ours).

A thin adapter: :class:`CausalFormulation` is a
:class:`~mechanisms.model.MechanismModel` — the mechanism's global bond graph
with the paper's causal port classes, equations derived along the causal
strokes and compiled to C — seen through the :class:`~.base.Formulation`
interface. Nothing here re-derives anything.

Examples
--------
>>> from mechanisms.examples import single_boom
>>> f = CausalFormulation(single_boom())
>>> f.model.state_names
['boom_lift/boom/w.theta', 'boom_lift/boom_cyl/w.phi', 'boom_lift/boom_cyl/ext.s', 'boom_lift/boom_cyl_piston.f']
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from bondgraph import Results

from ..assembly import Mechanism, Pose
from ..model import MechanismModel
from .base import Formulation

__all__ = ["CausalFormulation"]


class CausalFormulation(Formulation):
    """The mechanism's causal bond graph (:class:`~mechanisms.model.MechanismModel`).

    Parameters
    ----------
    mechanism : Mechanism
    params : dict, optional
        Passed to :meth:`MechanismModel.build`.

    Attributes
    ----------
    mm : MechanismModel
        The wrapped model, for everything beyond the common interface.

    Examples
    --------
    With no cylinder force the boom falls and swings; nothing dissipates, so the source
    work (gravity) equals the stored energy's change (the bond graph's own accounting),
    and the ``Pd``–``Pr`` hinge stays closed:

    >>> import numpy as np
    >>> from bondgraph import power_balance
    >>> from mechanisms.examples import single_boom
    >>> mech = single_boom()
    >>> pose = mech.solve_pose({"boom_cyl": 3.0}, guess={"boom": 0.2})
    >>> f = CausalFormulation(mech)
    >>> res = f.simulate_forces({"boom_cyl": 0.0}, (0.0, 0.5), pose, rtol=1e-10, atol=1e-12,
    ...                         energy=True, progress=False)
    >>> bool(power_balance(res).relative < 1e-8)
    True
    >>> bool(max(np.abs(g).max() for g in f.loop_closure(res).values()) < 1e-8)
    True
    """

    kind = "causal"

    def __init__(self, mechanism: Mechanism, params: Mapping[str, float] | None = None):
        self.mm = MechanismModel.build(mechanism, params)
        super().__init__(mechanism, self.mm.model)

    def simulate_forces(self, forces: Mapping[str, Any], t_span, pose: Pose,
                        rates: Mapping[str, float] | None = None, **kw) -> Results:
        return self.mm.simulate_forces(forces, t_span, pose, rates, **kw)

    def simulate_extensions(self, lengths: Mapping[str, Any], t_span, *,
                            guess: Mapping[str, float] | None = None, **kw) -> Results:
        return self.mm.simulate_extensions(lengths, t_span, guess=guess, **kw)

    def initial_state(self, pose: Pose, rates: Mapping[str, float] | None = None) -> dict[str, float]:
        """Named initial states of a pose (see :meth:`MechanismModel.initial_state`).

        Parameters
        ----------
        pose : Pose
        rates : mapping, optional

        Returns
        -------
        dict
        """
        return self.mm.initial_state(pose, rates)

    def positions(self, res: Results) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        return self.mm.positions(res)

    def coordinates(self, res: Results, part: str) -> dict[str, np.ndarray]:
        self._check_part(part)
        return self.mm.coordinates(res, part)

    def loop_closure(self, res: Results) -> dict[str, np.ndarray]:
        """Gap at every ``Pd``–``Pr`` hinge; ``Rt``–``Li`` hinges close by construction.

        Parameters
        ----------
        res : Results
            A run's results.

        Returns
        -------
        dict
        """
        return self.mm.loop_closure(res)

    def cylinder_force(self, res: Results, cyl: str) -> np.ndarray:
        self._check_part(cyl)
        return self.mm.cylinder_force(res, cyl)

    def cylinder_rate(self, res: Results, cyl: str) -> np.ndarray:
        self._check_part(cyl)
        return self.mm.cylinder_rate(res, cyl)
