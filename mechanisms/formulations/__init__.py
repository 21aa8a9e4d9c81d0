"""One mechanism, three formulations of its dynamics, side by side.

The source paper's claim is that the causality-classified bond graph avoids the
stiffness commercial tools pay for with virtual elastic joints or Lagrange
multipliers. To measure it, the same :class:`~mechanisms.assembly.Mechanism`
(parts, pins, hinges, drives — no second hand-written model) is turned into:

* ``"causal"`` — ours: the global bond graph of the templates with the
  paper's port classes (:class:`CausalFormulation`);
* ``"stiff"`` — the AMESim style: free rigid bodies, every joint a stiff
  spring–damper in x and y, every inertia in integral causality, generated as
  a bond graph and built by the same core (:class:`StiffFormulation`);
* ``"cartesian"`` — Wang, Zhou & Chen's Cartesian method (HUST) in the plane: ``(x, y, θ)`` per body, two
  constraint rows per revolute joint, Lagrange multipliers, index 1 with
  Baumgarte stabilisation (:class:`CartesianFormulation`).

:func:`build_formulation` switches between them; all three offer the
interface of :class:`~mechanisms.model.MechanismModel` (:class:`Formulation`).

Modules, one concept each:

=================  ==========================================================
``base``           the :class:`Formulation` interface and shared read-outs
``causal``         adapter of :class:`~mechanisms.model.MechanismModel`
``multibody``      the rigid-body view of a mechanism (bodies, constraint rows,
                   actuators; how cylinder and lever masses map)
``rigid``          what the stiff and Cartesian forms share (starting, reading)
``stiff``          the stiff-joint bond graph
``cartesian``      the Cartesian index-1 equations with Baumgarte stabilisation
``free``           :class:`FreeBody` (a body with no actuator) and the double pendulum
``export``         Modelica export of a mechanism (bond-graph and Cartesian forms)
``cases``          ready-made comparison cases (boom, four-bar, chains, excavator)
``metrics``        stiffness ratio, tip error, accuracy-matched cost (:func:`~.metrics.compare`)
=================  ==========================================================

Examples
--------
>>> from mechanisms.examples import single_boom
>>> mech = single_boom(drive="extension")
>>> forms = {k: build_formulation(mech, k) for k in ("causal", "cartesian")}
>>> lengths = {"boom_cyl": ([0.0, 1.0], [2.9, 3.1])}
>>> runs = {k: f.simulate_extensions(lengths, (0.0, 1.0), guess={"boom": 0.2}, rtol=1e-10,
...                                  atol=1e-12) for k, f in forms.items()}
>>> th = {k: forms[k].angles(r)["boom"][-1] for k, r in runs.items()}
>>> bool(abs(th["cartesian"] - th["causal"]) < 1e-8)
True
"""

from __future__ import annotations

from typing import Any

from bondgraph import ParameterError

from ..assembly import Mechanism
from .base import Formulation
from .cartesian import DEFAULT_BAUMGARTE, CartesianFormulation, cartesian_equations
from .causal import CausalFormulation
from .free import FreeBody, double_pendulum, pendulum_angles
from .multibody import Multibody
from .rigid import RigidBodyFormulation
from .stiff import DEFAULT_STIFFNESS, StiffFormulation, stiff_bond_graph
from .export import export_modelica, mechanism_units
from .cases import Case, boom_case, chain_case, excavator_case, four_bar_case
from .metrics import Comparison, compare, stiffness_ratio

__all__ = [
    "FORMULATIONS", "build_formulation", "Formulation", "RigidBodyFormulation",
    "CausalFormulation", "StiffFormulation", "CartesianFormulation",
    "Multibody", "stiff_bond_graph", "cartesian_equations", "DEFAULT_STIFFNESS",
    "DEFAULT_BAUMGARTE", "FreeBody", "double_pendulum", "pendulum_angles",
    "export_modelica", "mechanism_units",
    # the comparison the notebook and the benchmark run
    "Case", "boom_case", "four_bar_case", "chain_case", "excavator_case",
    "compare", "Comparison", "stiffness_ratio",
]

#: The formulations :func:`build_formulation` knows, by name.
FORMULATIONS = {"causal": CausalFormulation, "stiff": StiffFormulation,
                "cartesian": CartesianFormulation}


def build_formulation(mechanism: Mechanism, formulation: str = "causal", **options: Any) -> Formulation:
    """Build one formulation of a mechanism's dynamics.

    Parameters
    ----------
    mechanism : Mechanism
    formulation : {"causal", "stiff", "cartesian"}
    **options
        Passed to the class: ``params`` (causal); ``stiffness``, ``damping``
        (stiff); ``alpha``, ``beta`` (cartesian).

    Returns
    -------
    Formulation

    Raises
    ------
    ParameterError
        Unknown formulation or option, or a part the formulation cannot take.

    Examples
    --------
    >>> from mechanisms.examples import four_bar
    >>> build_formulation(four_bar(), "stiff", stiffness=1e9).stiffness
    1000000000.0
    >>> build_formulation(four_bar(), "lagrange")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: formulation 'lagrange': expected one of causal, stiff, cartesian
    """
    cls = FORMULATIONS.get(formulation)
    if cls is None:
        raise ParameterError(f"formulation {formulation!r}: expected one of {', '.join(FORMULATIONS)}")
    try:
        return cls(mechanism, **options)
    except TypeError as exc:
        raise ParameterError(f"formulation {formulation!r}: {exc}") from None
