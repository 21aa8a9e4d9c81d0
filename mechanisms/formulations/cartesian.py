"""The Cartesian (absolute-coordinate) formulation with Lagrange multipliers (Wang, Zhou & Chen's Cartesian method (HUST), planar).

Every body has the coordinates ``q = (x, y, θ)`` of its centre of gravity and
frame, its velocities ``v``, a constant diagonal mass matrix ``M = diag(m, m, J)``;
every joint adds constraint rows ``Φ(q, t) = 0`` (:class:`~.multibody.Multibody`);
gravity and the cylinder forces (along their lines of action) are the applied
forces ``Q``. The equations of motion are the index-3 DAE

    M·v̇ + Φ_qᵀ·λ = Q,    q̇ = v,    Φ(q, t) = 0.

**Solution: index 1 with Baumgarte stabilisation.** The constraints are
differentiated twice and the drift of the lower levels is fed back,

    Φ_q·v̇ = γ − 2α·Φ̇ − β²·Φ,    γ = −(Φ_q·v)_q·v − 2Φ_qt·v − Φ_tt,

so a position error decays like ``e^(−αt)`` (α = β: critically damped)
instead of growing. With ``M`` diagonal, ``v̇`` is eliminated and the
multipliers come from the small dense system
``(Φ_q M⁻¹ Φ_qᵀ)·λ = Φ_q M⁻¹ Q − γ + 2αΦ̇ + β²Φ``; then ``v̇ = M⁻¹(Q − Φ_qᵀλ)``.
α and β are run-time parameters (``baumgarte.alpha``/``.beta``, default
10 s⁻¹ each); ``α = β = 0`` switches the stabilisation off.

The rows are written as a :class:`bondgraph.Equations` (one coupled block for
``λ``, explicit rows for ``q̇`` and ``v̇``) and compiled by the same C code
generator as the bond-graph formulations — same analytic Jacobian, same
integrators, same per-call overhead — so the benchmark compares formulations,
not code generators. The integrator is scipy's (or CVODE), like the others.

Outputs of a run: ``lambda[<row>]`` (the force a constraint row carries; the
constraint force on the bodies is ``−Φ_qᵀλ``), ``force[<cyl>]``,
``length[<cyl>]``, ``gap[<row>]`` (``Φ``), and ``energy[<body>]``.

Examples
--------
>>> from mechanisms.formulations.free import double_pendulum
>>> mech, pose = double_pendulum()
>>> f = CartesianFormulation(mech)
>>> f.model.state_names[:3]
['pendulum/rod1.x', 'pendulum/rod1.y', 'pendulum/rod1.theta']
>>> res = f.simulate_forces({}, (0.0, 0.5), pose, rtol=1e-10, atol=1e-12)
>>> float(max(g.max() for g in f.loop_closure(res).values())) < 1e-8
True
"""

from __future__ import annotations

import time
from typing import Any, Mapping

import networkx as nx
import numpy as np
import symengine as se

from bondgraph import CausalReport, Equations, Model, ParameterError, Results, Signal, compile_equations
from bondgraph.equations import Block, StateInfo

from ..assembly import Mechanism
from .multibody import Multibody
from .rigid import RigidBodyFormulation

__all__ = ["CartesianFormulation", "cartesian_equations", "DEFAULT_BAUMGARTE"]

#: Default Baumgarte gains (α, β) in 1/s: a critically damped constraint error, time constant 0.1 s.
DEFAULT_BAUMGARTE = (10.0, 10.0)

#: Name of the velocity of each coordinate.
VELOCITY = {"x": "vx", "y": "vy", "theta": "w"}


def _S(name: str) -> se.Symbol:
    return se.Symbol(name)


def cartesian_equations(mb: Multibody, alpha: float = DEFAULT_BAUMGARTE[0],
                        beta: float = DEFAULT_BAUMGARTE[1]) -> Equations:
    """The stabilised index-1 equations of a :class:`Multibody` (see the module text).

    Parameters
    ----------
    mb : Multibody
    alpha, beta : float
        Baumgarte gains (1/s), stored as the parameters ``<model>/baumgarte.alpha``
        and ``.beta``.

    Returns
    -------
    bondgraph.Equations
        States ``<model>/<body>.x|y|theta|vx|vy|w``; unknowns ``der(...)`` and
        ``lambda[<model>/<row>]``.

    Examples
    --------
    >>> from mechanisms.examples import four_bar
    >>> eqs = cartesian_equations(Multibody(four_bar()))
    >>> eqs.n_states, [len(b.unknowns) for b in eqs.blocks][9:11]
    (18, [8, 1])
    """
    model = mb.name
    pre = f"{model}/"
    ren: dict[se.Symbol, se.Symbol] = {}
    states: list[StateInfo] = []
    qs, vs = [], []
    for b in mb.bodies.values():
        for c in b.coordinates:
            ren[_S(f"{b.name}.{c}")] = _S(f"{pre}{b.name}.{c}")
            qs.append(_S(f"{pre}{b.name}.{c}"))
            states.append(StateInfo(f"{pre}{b.name}.{c}", f"{pre}{b.name}", "position", 0.0))
    for b in mb.bodies.values():
        for c in b.coordinates:
            vs.append(_S(f"{pre}{b.name}.{VELOCITY[c]}"))
            states.append(StateInfo(vs[-1].name, f"{pre}{b.name}", "velocity", 0.0))
    params: dict[str, float] = {}
    owner: dict[str, str] = {}
    masses: list[se.Basic] = []
    Q: list[se.Basic] = []
    for b in mb.bodies.values():
        for key, val in (("m", b.mass), ("J", b.inertia), ("g", b.gravity))[:: 2 if b.point else 1]:
            params[f"{pre}{b.name}.{key}"] = float(val)
            owner[f"{pre}{b.name}.{key}"] = f"{pre}{b.name}"
        m, J, g = (_S(f"{pre}{b.name}.{k}") for k in ("m", "J", "g"))
        masses += [m, m] if b.point else [m, m, J]
        Q += [se.Integer(0), -m * g] + ([] if b.point else [se.Integer(0)])
    a_s, b_s = _S(f"{pre}baumgarte.alpha"), _S(f"{pre}baumgarte.beta")
    params[a_s.name], params[b_s.name] = float(alpha), float(beta)
    owner[a_s.name] = owner[b_s.name] = f"{pre}baumgarte"

    inputs: list[str] = []
    input_derivs: list[str] = []
    outputs: dict[str, se.Basic] = {}
    for cyl, act in mb.actuators.items():
        s_expr = se.sympify(act.length).xreplace(ren)
        outputs[f"length[{cyl}]"] = s_expr
        if act.drive == "force":
            F = _S(f"{cyl}.force")
            inputs.append(F.name)
            for i, d in mb.gradient(act.length).items():
                Q[i] = Q[i] + F * se.sympify(d).xreplace(ren)
            outputs[f"force[{cyl}]"] = F
        else:
            inputs += [f"{cyl}.length", f"{cyl}.rate"]
            input_derivs.append(f"{cyl}.rate")

    # constraint rows: Φ, Φ_q, Φ̇, γ (stabilised)
    lam = [_S(f"lambda[{pre}{c.name}]") for c in mb.constraints]
    G: list[dict[int, se.Basic]] = []
    rhs: list[se.Basic] = []
    for c, lm in zip(mb.constraints, lam):
        phi = se.sympify(c.expr).xreplace(ren)
        grad = {i: se.sympify(d).xreplace(ren) for i, d in mb.gradient(c.expr).items()}
        G.append(grad)
        Gv = sum((d * vs[i] for i, d in grad.items()), se.Integer(0))
        hv = sum((se.diff(Gv, qs[i]) * vs[i] for i in range(len(qs))), se.Integer(0))
        gamma = -hv
        phidot = Gv
        if c.kind == "drive":
            gamma += _S(f"der({c.cylinder}.rate)")
            phidot -= _S(f"{c.cylinder}.rate")
            outputs[f"force[{c.cylinder}]"] = -lm
        outputs[f"lambda[{c.name}]"] = lm
        outputs[f"gap[{c.name}]"] = phi
        rhs.append(gamma - 2 * a_s * phidot - b_s**2 * phi)

    # generalized force left after the constraint forces, per coordinate
    net = list(Q)
    for grad, lm in zip(G, lam):
        for i, d in grad.items():
            net[i] = net[i] - d * lm

    unknowns: list[str] = []
    kinds: list[str] = []
    residuals: list[se.Basic] = []
    blocks: list[Block] = []
    xdot: list[int] = []
    for q, v in zip(qs, vs):  # q̇ = v
        xdot.append(len(unknowns))
        blocks.append(Block((len(unknowns),), True))
        unknowns.append(f"der({q.name})")
        kinds.append("der(x)")
        residuals.append(_S(f"der({q.name})") - v)
    if lam:  # (Φ_q M⁻¹ Φ_qᵀ) λ = Φ_q M⁻¹ Q − γ_s
        idx = tuple(range(len(unknowns), len(unknowns) + len(lam)))
        for grad, lm, r in zip(G, lam, rhs):
            unknowns.append(lm.name)
            kinds.append("z")
            residuals.append(sum((d * net[i] / masses[i] for i, d in grad.items()), se.Integer(0)) - r)
        blocks.append(Block(idx, True))
    vdot = []
    for i, v in enumerate(vs):  # M v̇ = Q − Φ_qᵀ λ
        vdot.append(len(unknowns))
        blocks.append(Block((len(unknowns),), True))
        unknowns.append(f"der({v.name})")
        kinds.append("der(x)")
        residuals.append(masses[i] * _S(f"der({v.name})") - net[i])
    xdot += vdot

    energy = {}
    for b in mb.bodies.values():
        i = mb.index[f"{b.name}.x"]
        m, g = _S(f"{pre}{b.name}.m"), _S(f"{pre}{b.name}.g")
        e = m * (vs[i]**2 + vs[i + 1]**2) / 2 + m * g * qs[i + 1]
        if not b.point:
            e += _S(f"{pre}{b.name}.J") * vs[i + 2]**2 / 2
        energy[f"{pre}{b.name}"] = e
    return Equations(
        model=model, report=CausalReport(model=model), states=states, params=params,
        param_owner=owner, inputs=inputs, input_derivatives=input_derivs, unknowns=unknowns,
        unknown_kind=kinds, residuals=residuals, blocks=blocks, xdot=xdot, bond_exprs=outputs,
        energy=energy, source_power={}, dissipation={})


class CartesianFormulation(RigidBodyFormulation):
    """The mechanism as a Cartesian multibody DAE (see the module text).

    Parameters
    ----------
    mechanism : Mechanism
    alpha, beta : float
        Baumgarte gains (1/s); change them later with
        ``model.set_params({"<model>/baumgarte.alpha": ...})``.

    Raises
    ------
    ParameterError
        Negative gains; from :class:`~.multibody.Multibody` (a part with no rigid-body
        form).

    Examples
    --------
    Baumgarte stabilisation keeps the pivot closed, and the falling boom follows the
    causal bond graph's angle:

    >>> import numpy as np
    >>> from mechanisms.examples import single_boom
    >>> from mechanisms.formulations import CausalFormulation
    >>> mech = single_boom()
    >>> pose = mech.solve_pose({"boom_cyl": 3.0}, guess={"boom": 0.2})
    >>> kw = dict(rtol=1e-10, atol=1e-12, progress=False)
    >>> cart, causal = CartesianFormulation(mech), CausalFormulation(mech)
    >>> rc = cart.simulate_forces({"boom_cyl": 0.0}, (0.0, 0.5), pose, **kw)
    >>> rb = causal.simulate_forces({"boom_cyl": 0.0}, (0.0, 0.5), pose, **kw)
    >>> bool(max(np.abs(g).max() for g in cart.loop_closure(rc).values()) < 1e-8)
    True
    >>> bool(abs(cart.angles(rc)["boom"][-1] - causal.angles(rb)["boom"][-1]) < 1e-7)
    True
    """

    kind = "cartesian"

    def __init__(self, mechanism: Mechanism, *, alpha: float = DEFAULT_BAUMGARTE[0],
                 beta: float = DEFAULT_BAUMGARTE[1]):
        if alpha < 0 or beta < 0:
            raise ParameterError(f"Baumgarte gains alpha = {alpha}, beta = {beta}: expected ≥ 0")
        times = {}
        t0 = time.perf_counter()
        mb = Multibody(mechanism)
        eqs = cartesian_equations(mb, alpha, beta)
        times["derive"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        system = compile_equations(eqs)
        times["compile"] = time.perf_counter() - t0
        g = nx.MultiDiGraph(name=mechanism.name)
        super().__init__(mechanism, Model(g, eqs.report, eqs, system, times), mb)

    def _initial(self, q0, v0, lam0) -> dict[str, float]:
        names = self.model.state_names
        n = len(q0)
        return {names[i]: float(q0[i]) for i in range(n)} | \
            {names[n + i]: float(v0[i]) for i in range(n)}

    def _coordinates(self, res: Results) -> np.ndarray:
        return res.x[:, : self.multibody.n_coordinates]

    def _velocities(self, res: Results) -> np.ndarray:
        n = self.multibody.n_coordinates
        return res.x[:, n: 2 * n]

    def _extension_inputs(self, signals: Mapping[str, Any]) -> dict[str, Signal]:
        out: dict[str, Signal] = {}
        for c, s in signals.items():
            out[f"{c}.length"] = Signal(s.value, s.derivative, name=f"{c}.length")
            out[f"{c}.rate"] = Signal(s.derivative, s.second_derivative, name=f"{c}.rate")
        return out

    def cylinder_force(self, res: Results, cyl: str) -> np.ndarray:
        self._cylinder(cyl)
        return res[f"force[{cyl}]"]

    def multipliers(self, res: Results) -> dict[str, np.ndarray]:
        """The force each constraint row carries along the run (``λ``).

        Parameters
        ----------
        res : Results
            A run's results.

        Returns
        -------
        dict
        """
        return {c.name: res[f"lambda[{c.name}]"] for c in self.multibody.constraints}
