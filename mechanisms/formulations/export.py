"""Modelica export of a mechanism: the bond-graph form, or the Cartesian form of Wang, Zhou & Chen (HUST).

:func:`export_modelica` takes a built formulation and a start pose:

* **bond-graph form** (causal or stiff formulation): the model's global bond
  graph through :func:`bondgraph.export.to_modelica` — one block of equations
  per element, named after the parts, element parameters as Modelica
  parameters with units (:func:`mechanism_units`);
* **Cartesian form** (Cartesian formulation): the seed's three sections —

  1. *coordinates* ``(x, y, θ)`` of every body's centre of gravity, their
     velocities (start values from the pose) and the Lagrange multipliers;
  2. *element matrices*: each body's mass matrix ``diag(m, m, J)``
     (``parameter Real <body>_M[3, 3]``) and gravity;
  3. *system equations*: ``q̇ = v``, ``M·v̇ + Φ_qᵀ·λ = Q`` coordinate by
     coordinate, and the constraints ``Φ(q, t) = 0`` at position level (the
     index-3 DAE the seed hands to the Modelica tool, whose index reduction
     does the rest; ``index=1`` writes the Baumgarte-stabilised acceleration
     rows this package integrates instead).

Inputs are given per cylinder as a number or a sympy expression of
:data:`bondgraph.t`: the force (N) of a force-driven cylinder, the length (m)
of an extension-driven one.

Examples
--------
>>> from mechanisms.formulations import build_formulation, double_pendulum
>>> mech, pose = double_pendulum()
>>> mo = export_modelica(build_formulation(mech, "cartesian"), pose)
>>> mo.n_variables, mo.n_equations
(16, 16)
>>> print("\\n".join(mo.text.splitlines()[1:3]))
  // ---- 1. coordinates: centre of gravity (x, y) and frame angle theta of every body, velocities, multipliers
  Real rod1_x(unit="m", start=0.5) "rod1: x of the centre of gravity";
>>> [line.split("(")[0].split()[-1] for line in mo.text.splitlines() if "fixed=true" in line]
['rod1_theta', 'rod2_theta', 'rod1_w', 'rod2_w']
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping

import numpy as np
import sympy as sp

from bondgraph import ParameterError, t as T
from bondgraph.export import ModelicaModel, ModelicaWriter, to_modelica
from bondgraph.export.modelica import class_name_problem, formula_problem

from ..assembly import Pose
from .base import Formulation
from .cartesian import VELOCITY, CartesianFormulation
from .multibody import Multibody
from .rigid import RigidBodyFormulation

__all__ = ["export_modelica", "mechanism_units", "cartesian_modelica", "independent_coordinates"]


def mechanism_units(formulation: Formulation) -> Callable[[str, str, Any], str | None]:
    """Units of the element parameters of a mechanism's bond graph.

    Inertias named ``J`` are kg·m², other inertias kg; effort sources N; flow
    sources m/s; joint springs m/N (rad/(N·m) on an angle row) and dampers
    N·s/m (N·m·s/rad).

    Parameters
    ----------
    formulation : Formulation

    Returns
    -------
    callable

    Examples
    --------
    >>> from mechanisms.examples import single_boom
    >>> from mechanisms.formulations import build_formulation
    >>> u = mechanism_units(build_formulation(single_boom(), "causal"))
    >>> from bondgraph import I
    >>> u("boom_lift/boom/J", "m", I("J", 1.0)), u("boom_lift/boom/m_x", "m", I("m_x", 1.0))
    ('kg.m2', 'kg')
    """
    angle_rows = set()
    if isinstance(formulation, RigidBodyFormulation):
        angle_rows = {c.name for c in formulation.multibody.constraints if c.kind == "prismatic angle"}

    def unit(node: str, key: str, el: Any) -> str | None:
        local = node.rsplit("/", 1)[-1]
        kind = el.kind
        if kind == "I":
            return "kg.m2" if local == "J" else "kg"
        if kind in ("Se", "MSe"):
            return "N"
        if kind in ("Sf", "MSf"):
            return "m/s"
        if kind == "C":
            return "rad/(N.m)" if local[:-2] in angle_rows else "m/N"
        if kind == "R":
            return "N.m.s/rad" if local[:-2] in angle_rows else "N.s/m"
        return None
    return unit


def _at0(value: Any) -> tuple[float, float]:
    """Value and time derivative at t = 0 of a number or expression of t (checked before)."""
    expr = sp.sympify(value)
    return float(expr.subs(T, 0)), float(sp.diff(expr, T).subs(T, 0))


def _pose_gaps(mech: Any, pose: Pose, tol: float = 1e-6) -> list[str]:
    """Why a pose of another mechanism with the same parts is no pose of ``mech``: the
    fixed points and hinges it leaves apart by more than ``tol`` (m)."""
    try:
        world = {n: mech.parts[n].world_points(np.asarray(pose.values[n], dtype=float))
                 for n in mech.parts}
    except (ValueError, IndexError, TypeError, KeyError) as exc:
        return [f"pose: of mechanism {pose.mechanism.name!r}, its part poses do not fit the parts "
                f"of {mech.name!r} ({exc})"]
    gaps = [(f"{part}.{pt} fixed at ({at[0]:.6g}, {at[1]:.6g})", math.dist(world[part][pt], at))
            for (part, pt), at in mech.fixed.items()]
    gaps += [(f"hinge {a} – {b}", math.dist(world[a.part][a.name], world[b.part][b.name]))
             for a, b in mech.hinges]
    bad = [f"{what} (gap {g:.4g} m)" for what, g in gaps if not g <= tol]
    if not bad:
        return []
    return [f"pose: of mechanism {pose.mechanism.name!r}, whose geometry differs: on {mech.name!r} "
            f"it leaves {'; '.join(bad)} apart (tolerance {tol:g} m); expected a pose of "
            f"{mech.name!r} (Mechanism.solve_pose or pose_from_angles)"]


def _check_export(formulation: Any, pose: Any, inputs: Mapping[str, Any],
                  rates: Mapping[str, float], name: Any) -> None:
    """Every problem of :func:`export_modelica`'s arguments, raised at once."""
    if not isinstance(formulation, Formulation):
        raise ParameterError(f"formulation: got {type(formulation).__name__}; expected a built "
                             "formulation (mechanisms.formulations.build_formulation)")
    mech = formulation.mechanism
    problems = []
    if not isinstance(pose, Pose):
        problems.append(f"pose: got {type(pose).__name__}; expected a Pose of {mech.name!r} "
                        "(Mechanism.solve_pose or pose_from_angles)")
    elif pose.mechanism is not mech and set(pose.values) != set(mech.parts):
        problems.append(f"pose: of mechanism {pose.mechanism.name!r} (parts "
                        f"{', '.join(sorted(pose.values))}), expected a pose of {mech.name!r} "
                        f"(parts {', '.join(sorted(mech.parts))})")
    elif pose.mechanism is not mech:   # the same parts (e.g. another drive): must close here
        problems += _pose_gaps(mech, pose)
    problems += [f"input for {c!r}: not a driven cylinder (drives: {', '.join(mech.drives) or 'none'})"
                 for c in sorted(set(inputs) - set(mech.drives))]
    for c, val in inputs.items():
        bad = formula_problem(f"input for {c!r}", val)
        if bad is None:  # value, rate and acceleration at t = 0 start the exported model
            expr = sp.sympify(val, strict=True)
            at0 = [sp.diff(expr, T, k).subs(T, 0) for k in range(3)]
            if not all(v.is_extended_real and v.is_finite for v in at0):
                bad = (f"input for {c!r} = {val}: at t = 0 its value is {at0[0]}, its rate "
                       f"{at0[1]}, its acceleration {at0[2]}; expected real finite numbers "
                       "(they start the exported model)")
        problems.append(bad)
    force_drives = [c for c, d in mech.drives.items() if d.kind != "extension"]
    for c, v in rates.items():
        if c not in force_drives:
            problems.append(f"rates[{c!r}]: not a force-driven cylinder (force drives: "
                            f"{', '.join(force_drives) or 'none'}; an extension drive's rate comes "
                            "from its input)")
        else:
            try:
                ok = np.isfinite(float(v))
            except (TypeError, ValueError):
                ok = False
            if not ok:
                problems.append(f"rates[{c!r}] = {v!r}: expected a finite number (m/s)")
    if name is not None:
        problems.append(class_name_problem(name, mech.name))
    problems = [p for p in problems if p]
    if problems:
        raise ParameterError(problems, subject=f"export_modelica of {mech.name!r}")


def export_modelica(formulation: Formulation, pose: Pose, *, inputs: Mapping[str, Any] | None = None,
                    rates: Mapping[str, float] | None = None, form: str | None = None,
                    name: str | None = None, index: int = 3) -> ModelicaModel:
    """Modelica source of a built formulation, starting at ``pose`` (at t = 0).

    Parameters
    ----------
    formulation : Formulation
        Causal or stiff: the bond-graph form; Cartesian: the Cartesian form.
    pose : Pose
        Start pose (consistent with the lengths of extension drives at t = 0).
    inputs : dict, optional
        Cylinder → force (force drive, N) or length (extension drive, m), a
        number or a sympy expression of :data:`bondgraph.t`. Missing drives
        become ``input Real`` (bond-graph form only).
    rates : dict, optional
        Initial extension rates of force-driven cylinders (m/s), default 0.
    form : {"bondgraph", "cartesian"}, optional
        Default: what the formulation is.
    name : str, optional
        Modelica class name (default: the mechanism's name, ``_cartesian`` added
        for the Cartesian form).
    index : {3, 1}
        Cartesian form only: position-level constraints (3) or the stabilised
        acceleration-level rows (1).

    Returns
    -------
    bondgraph.export.ModelicaModel

    Raises
    ------
    ParameterError
        Not a formulation or a pose of its mechanism, a wrong form or index, an input
        for no drive, a non-formula or non-finite input, a rate for no force drive, a
        name that is no Modelica class name (all listed at once).

    Examples
    --------
    The double pendulum's bond-graph form, run by the Modelica compiler rumoca, swings
    as our own run of the same model does:

    >>> import numpy as np
    >>> from bondgraph import simulate
    >>> from bondgraph.export import simulate_rumoca
    >>> from mechanisms.formulations import build_formulation, double_pendulum
    >>> mech, pose = double_pendulum()
    >>> f = build_formulation(mech, "causal")
    >>> out = simulate_rumoca(export_modelica(f, pose), 1.0, 0.5, rtol=1e-10, atol=1e-12,
    ...                       names=["pendulum/rod1/w.theta"])
    >>> ours = simulate(f.model, (0.0, 1.0), x0=f.initial_state(pose), t_eval=[0.0, 0.5, 1.0],
    ...                 rtol=1e-10, atol=1e-12, progress=False)
    >>> bool(np.allclose(out["pendulum/rod1/w.theta"], ours["pendulum/rod1/w.theta"], atol=1e-7))
    True
    >>> export_modelica(f, pose, inputs={"rod1": 1.0}, name="my pendulum")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: export_modelica of 'pendulum': 2 problems
      - input for 'rod1': not a driven cylinder (drives: none)
      - name='my pendulum': not a Modelica class name; expected letters, digits and '_', not starting with a digit, not a keyword (e.g. 'my_pendulum')
    """
    inputs = dict(inputs or {})
    _check_export(formulation, pose, inputs, dict(rates or {}), name)
    mech = formulation.mechanism
    form = form or ("cartesian" if isinstance(formulation, CartesianFormulation) else "bondgraph")
    rates = dict(rates or {})
    forces0: dict[str, float] = {}
    lengths0: dict[str, tuple[float, float, float]] = {}
    for c, val in inputs.items():
        v0, d0 = _at0(val)
        if mech.drives[c].kind == "extension":
            dd0 = float(sp.diff(sp.sympify(val), T, 2).subs(T, 0))
            rates[c] = d0
            lengths0[c] = (v0, d0, dd0)
        else:
            forces0[c] = v0
    if form == "cartesian":
        if index not in (1, 3):
            raise ParameterError(f"index = {index!r}: expected 3 (position-level constraints) or 1")
        mb = formulation.multibody if isinstance(formulation, RigidBodyFormulation) else Multibody(mech)
        alpha, beta = (float(formulation.model.params[f"{mech.name}/baumgarte.{k}"])
                       for k in ("alpha", "beta")) if isinstance(formulation, CartesianFormulation) \
            else (10.0, 10.0)
        q0 = mb.coordinates_from_pose(pose)
        v0 = mb.consistent_velocities(q0, rates)
        return cartesian_modelica(mb, q0, v0, inputs, name=name or f"{mech.name}_cartesian",
                                  index=index, baumgarte=(alpha, beta))
    if form != "bondgraph":
        raise ParameterError(f"form = {form!r}: expected 'bondgraph' or 'cartesian'")
    if isinstance(formulation, CartesianFormulation):
        raise ParameterError("the Cartesian formulation has no bond graph; export it with "
                             "form='cartesian' or build the causal or stiff formulation")
    if isinstance(formulation, RigidBodyFormulation):
        start = formulation.initial_state(pose, rates, forces=forces0, lengths=lengths0)
    else:
        start = formulation.initial_state(pose, rates)
    bound: dict[str, Any] = {}
    for c, val in inputs.items():
        if mech.drives[c].kind == "extension":
            bound[f"{c}.rate"] = sp.diff(sp.sympify(val), T)
        else:
            bound[f"{c}.force"] = sp.sympify(val)
    return to_modelica(formulation.model, name=name or mech.name, inputs=bound, start=start,
                       units=mechanism_units(formulation),
                       description=f"{formulation.kind} bond graph of {mech.name}, exported by hydrobond")


def independent_coordinates(mb: Multibody, q0: np.ndarray) -> list[int]:
    """Indices of coordinates left free by the constraints at ``q0`` (coordinate partitioning).

    The constraint Jacobian is factored by QR with column pivoting, the angle
    columns scaled down so that positions are taken as dependent first; its
    pivot columns are the dependent coordinates, the rest (angles, where
    possible) are independent. The index-3 export fixes the start values of
    these only: the others follow from the constraints, so the initial problem
    is neither over- nor under-determined.

    Parameters
    ----------
    mb : Multibody
    q0 : ndarray

    Returns
    -------
    list

    Examples
    --------
    >>> from mechanisms.formulations import double_pendulum
    >>> mech, pose = double_pendulum()
    >>> mb = Multibody(mech)
    >>> [mb.coords[i].name for i in independent_coordinates(mb, mb.coordinates_from_pose(pose))]
    ['rod1.theta', 'rod2.theta']
    """
    from scipy.linalg import qr

    G = mb.constraint_jacobian(q0)
    scale = np.array([1e-3 if s.name.endswith(".theta") else 1.0 for s in mb.coords])
    G = G * scale
    if G.shape[0] == 0:
        return list(range(mb.n_coordinates))
    _, R, piv = qr(G, pivoting=True, mode="economic")
    diag = np.abs(np.diag(R))
    rank = int(np.sum(diag > 1e-10 * max(diag.max(), 1.0)))
    return sorted(int(i) for i in piv[rank:])


def cartesian_modelica(mb: Multibody, q0: np.ndarray, v0: np.ndarray,
                       inputs: Mapping[str, Any], *, name: str, index: int = 3,
                       baumgarte: tuple[float, float] = (10.0, 10.0)) -> ModelicaModel:
    """The Cartesian form in the seed's three sections (see the module text).

    Parameters
    ----------
    mb : Multibody
    q0, v0 : ndarray
        Start coordinates and velocities (consistent with the constraints).
    inputs : dict
        Cylinder → force or length expression (every drive needs one).
    name : str
    index : {3, 1}
    baumgarte : (float, float)
        α, β of the index-1 rows.

    Returns
    -------
    ModelicaModel

    Raises
    ------
    ParameterError
        A drive without an input.

    Examples
    --------
    The index-1 Cartesian form of the double pendulum, run by rumoca, swings as the
    bond-graph form does (compare :func:`export_modelica`):

    >>> import numpy as np
    >>> from bondgraph.export import simulate_rumoca
    >>> from mechanisms.formulations import build_formulation, double_pendulum
    >>> mech, pose = double_pendulum()
    >>> mb = build_formulation(mech, "cartesian").multibody
    >>> q0 = mb.coordinates_from_pose(pose)
    >>> mo = cartesian_modelica(mb, q0, np.zeros_like(q0), {}, name="dp", index=1)
    >>> mo.n_variables == mo.n_equations
    True
    >>> out = simulate_rumoca(mo, 1.0, 0.5, rtol=1e-10, atol=1e-12, names=["rod1.theta"])
    >>> np.round(out["rod1.theta"], 6)
    array([ 0.      , -1.522581, -2.091074])
    """
    missing = sorted(set(mb.actuators) - set(inputs))
    if missing:
        raise ParameterError([f"{c}: the Cartesian export needs its "
                              f"{'force' if mb.actuators[c].drive == 'force' else 'length'} as a "
                              "formula of time (inputs={...})" for c in missing])
    w = ModelicaWriter(name, f"Cartesian multibody form of {mb.name} (Wang, Zhou & Chen's Cartesian method (HUST), planar), "
                             "exported by hydrobond")
    free = set(range(mb.n_coordinates)) if index == 1 else set(independent_coordinates(mb, q0))
    units = {"x": "m", "y": "m", "theta": "rad", "vx": "m/s", "vy": "m/s", "w": "rad/s"}
    w.section("---- 1. coordinates: centre of gravity (x, y) and frame angle theta of every "
              "body, velocities, multipliers")
    vsym: list[sp.Symbol] = []
    for i, s in enumerate(mb.coords):
        body, c = s.name.rsplit(".", 1)
        what = f"{c} of the centre of gravity" if c != "theta" else "frame angle"
        w.variable(s.name, start=float(q0[i]), fixed=True if i in free else None, unit=units[c],
                   comment=f"{body}: {what}")
    for i, s in enumerate(mb.coords):
        body, c = s.name.rsplit(".", 1)
        vc = VELOCITY[c]
        vsym.append(sp.Symbol(f"{body}.{vc}", real=True))
        w.variable(vsym[-1].name, start=float(v0[i]), fixed=True if i in free else None,
                   unit=units[vc], comment=f"{body}: d{c}/dt")
    lam = []
    for c in mb.constraints:
        lam.append(sp.Symbol(f"lambda[{c.name}]", real=True))
        unit = "N.m" if c.kind == "prismatic angle" else "N"
        w.variable(lam[-1].name, unit=unit, comment=f"multiplier of {c.joint} ({c.kind})")

    w.section("---- 2. element matrices: mass matrix diag(m, m, J) of every body (at its centre "
              "of gravity), gravity, drives")
    M: list[sp.Symbol] = []
    Q: list[sp.Expr] = []
    for b in mb.bodies.values():
        diag = b.masses()
        rows = [[diag[i] if i == j else 0.0 for j in range(len(diag))] for i in range(len(diag))]
        ident = w.matrix_parameter(f"{b.name}.M", rows, comment=f"mass matrix of {b.name} ("
                                   + ("kg, kg)" if b.point else "kg, kg, kg.m2)"))
        for k in range(len(diag)):
            w.alias(f"{b.name}.M[{k + 1}]", f"{ident}[{k + 1}, {k + 1}]", parameter=True)
            M.append(sp.Symbol(f"{b.name}.M[{k + 1}]", real=True))
        w.parameter(f"{b.name}.g", b.gravity, unit="m/s2", comment=f"gravity on {b.name}")
        g = sp.Symbol(f"{b.name}.g", real=True)
        Q += [sp.Integer(0), -M[len(M) - len(diag) + 1] * g] + [sp.Integer(0)] * (len(diag) - 2)
    drive_eqs = []
    for cyl, act in mb.actuators.items():
        if act.drive == "force":
            F = sp.Symbol(f"{cyl}.force", real=True)
            w.variable(F.name, unit="N", comment=f"force of {cyl} (positive pushing)")
            for i, d in mb.gradient(act.length).items():
                Q[i] = Q[i] + F * d
            drive_eqs.append((F, inputs[cyl]))
        else:
            L = sp.Symbol(f"{cyl}.length", real=True)
            w.variable(L.name, unit="m", comment=f"prescribed pin-to-pin length of {cyl}")
            drive_eqs.append((L, inputs[cyl]))
            if index == 1:  # the rows need L' and L'': differentiated formulas
                expr = sp.sympify(inputs[cyl])
                for key, unit, k in (("rate", "m/s", 1), ("acceleration", "m/s2", 2)):
                    sym = sp.Symbol(f"{cyl}.{key}", real=True)
                    w.variable(sym.name, unit=unit, comment=f"prescribed extension {key} of {cyl}")
                    drive_eqs.append((sym, sp.diff(expr, T, k)))
    if index == 1:
        w.parameter("baumgarte.alpha", baumgarte[0], unit="1/s", comment="Baumgarte gain alpha")
        w.parameter("baumgarte.beta", baumgarte[1], unit="1/s", comment="Baumgarte gain beta")

    w.comment("---- 3. system equations")
    w.comment("kinematics: der(q) = v")
    for s, v in zip(mb.coords, vsym):
        w.equation(sp.Symbol(f"D({s.name})"), v)
    w.comment("dynamics: M*der(v) + Phi_q'*lambda = Q, coordinate by coordinate")
    grads = [mb.gradient(c.expr) for c in mb.constraints]
    for i, (s, v) in enumerate(zip(mb.coords, vsym)):
        react = sum((g[i] * lm for g, lm in zip(grads, lam) if i in g), sp.Integer(0))
        w.equation(M[i] * sp.Symbol(f"D({v.name})") + react, Q[i])
    if index == 3:
        w.comment("constraints: Phi(q, t) = 0")
        for c in mb.constraints:
            w.equation(c.expr, 0)
    else:
        w.comment("constraints, acceleration level with Baumgarte: Phi_q*der(v) = gamma - 2*alpha*dPhi - beta^2*Phi")
        a_s, b_s = sp.Symbol("baumgarte.alpha", real=True), sp.Symbol("baumgarte.beta", real=True)
        for c, g in zip(mb.constraints, grads):
            Gv = sum((d * vsym[i] for i, d in g.items()), sp.Integer(0))
            hv = sum((sp.diff(Gv, q) * vsym[mb.index[q.name]] for q in mb.coords), sp.Integer(0))
            phidot, gamma = Gv, -hv
            if c.kind == "drive":
                phidot = Gv - sp.Symbol(f"{c.cylinder}.rate", real=True)
                gamma = gamma + sp.Symbol(f"{c.cylinder}.acceleration", real=True)
            lhs = sum((d * sp.Symbol(f"D({vsym[i].name})") for i, d in g.items()), sp.Integer(0))
            w.equation(lhs, gamma - 2 * a_s * phidot - b_s**2 * c.expr)
    w.comment("drives")
    for sym, val in drive_eqs:
        w.equation(sym, sp.sympify(val))
    return w.render()
