"""Property test of causality and derivation on random small bond graphs (issue 10).

Graphs come from :func:`reference.bond_graph_laws.random_spec`: junction loops with
transformers and gyrators, modulated transformers (displacement- or time-dependent
moduli), modulated sources with inputs, nonlinear resistors (``sinh`` laws in either form)
and nonlinear compliances. For each graph:

(a) every causal assignment is enumerated (all ``2**bonds`` candidates): causality must
    succeed exactly when one is valid, return a valid one — the lexicographically best in
    the documented order of choices — and otherwise raise :class:`CausalityConflict`;
(b) the state derivatives of :func:`bondgraph.equations.derive`, evaluated at random
    states, inputs and time, must equal an independent Gauss–Newton solve of the element
    and junction laws (:func:`reference.bond_graph_laws.solve_laws`).

``benchmarks/causality_property.py`` runs the same check on many more graphs.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import symengine as se
import sympy as sp
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import bondgraph as bg
from bondgraph.equations import derive
from bondgraph.state_choice import storage_order
from reference.bond_graph_laws import GraphSpec, assignments, random_spec, solve_laws

MODEL = "rg"


# ------------------------------------------------------------------------------ building
def build(spec: GraphSpec) -> bg.BondGraph:
    """The toolkit's model of a spec (its laws are the reference module's, written with
    the toolkit's elements)."""
    M = bg.BondGraph(MODEL)
    handles = {}
    for e in spec.elements:
        if e.kind in ("0", "1"):
            j = (bg.Zero if e.kind == "0" else bg.One)(e.name, displacement="x" if e.displacement else None)
            M.add(j)
            if e.displacement:
                handles[e.name] = j.displacement
    for e in spec.elements:
        k, a, b = e.kind, e.value, e.extra
        if k in ("0", "1"):
            continue
        if k in ("MSe", "MSf"):
            law = a * sp.sin(bg.t) + b * bg.Input(f"u_{e.name}")
        el = {
            "Se": lambda: bg.Se(e.name, a),
            "Sf": lambda: bg.Sf(e.name, a),
            "MSe": lambda: bg.MSe(e.name, law),
            "MSf": lambda: bg.MSf(e.name, law),
            "I": lambda: bg.I(e.name, a),
            "C": lambda: bg.C(e.name, a),
            "Cnl": lambda: bg.C(e.name, law=lambda q, b=b: q + b * q**3,
                                energy=lambda q, b=b: q**2 / 2 + b * q**4 / 4),
            "R": lambda: bg.R(e.name, a),
            "Rf": lambda: bg.R(e.name, flow=lambda x, a=a: a * sp.sinh(x)),
            "Re": lambda: bg.R(e.name, effort=lambda x, a=a: a * sp.sinh(x)),
            "TF": lambda: bg.TF(e.name, a),
            "GY": lambda: bg.GY(e.name, a),
            "MTF": lambda: bg.MTF(e.name, a + b * (sp.cos(handles[e.coord]) if e.coord
                                                  else sp.sin(bg.t))),
        }[k]()
        M.add(el)
    for bd in spec.bonds:
        M.connect(bd.tail + (f"/{bd.tail_port}" if bd.tail_port else ""),
                  bd.head + (f"/{bd.head_port}" if bd.head_port else ""), name=bd.name)
    return M


def preferred_rows(spec: GraphSpec, g, valid: np.ndarray) -> np.ndarray:
    """The lexicographically best valid assignment in the documented order of choices:
    storage integral (in :func:`storage_order`), resistors in their law's preferred form
    (by name), then every bond to its head (by tail, head, name)."""
    col = {f"{MODEL}/{b.name}": i for i, b in enumerate(spec.bonds)}
    bond_of = {f"{MODEL}/{b.head}": col[f"{MODEL}/{b.name}"] for b in spec.bonds}
    kinds = {f"{MODEL}/{e.name}": e.kind for e in spec.elements}
    order = []
    for r in storage_order(g):  # I integral: effort to the I (its head); C: to the junction
        order.append((bond_of[r.element], kinds[r.element] == "I"))
    for n in sorted(n for n, k in kinds.items() if k in ("R", "Rf", "Re")):
        order.append((bond_of[n], kinds[n] != "Re"))  # effort law: flow in
    for u, v, k in sorted(g.edges(keys=True)):
        order.append((col[k], True))
    rows = valid
    for c, want in order:
        keep = rows[rows[:, c] == want]
        if len(keep):
            rows = keep
    return rows


# ------------------------------------------------------------------------------ evaluation
def derived_rates(eqs, x: dict, u: dict, du: dict, t: float) -> dict[str, float] | None:
    """State derivatives of the derived equations at a point (Newton on the unknowns ``U``);
    None if their Jacobian is singular there."""
    sym = eqs.symbols()
    full: dict = {}
    for v, ex in eqs.intermediates:
        full[se.Symbol(v)] = ex.subs(full)
    vals = {se.Symbol(s.name): x[s.name] for s in eqs.states}
    vals.update({se.Symbol(k): v for k, v in eqs.params.items()})
    vals.update({se.Symbol(k): u[k] for k in eqs.inputs})
    vals.update({se.Symbol(f"der({k})"): du[k] for k in eqs.input_derivatives})
    vals[se.Symbol("t")] = t
    U = sym["U"]
    if not U:
        return {}
    res = [r.subs(full).subs(vals) for r in eqs.residuals]
    jac = [se.diff(r, ui) for r in res for ui in U]

    def at(exprs, z):
        point = dict(zip(U, z.tolist()))
        return np.array([float(e.subs(point)) for e in exprs])

    z = np.zeros(len(U))
    for _ in range(60):
        r = at(res, z)
        J = at(jac, z).reshape(len(U), len(U))
        if not np.all(np.isfinite(J)) or np.linalg.cond(J) > 1e12:
            return None  # singular: the unknowns are not determined here
        if np.max(np.abs(r), initial=0.0) < 1e-13 * (1 + np.max(np.abs(z), initial=0.0)):
            break
        z = z - np.linalg.solve(J, r)
    else:
        return None
    return {s.name: float(z[i]) for s, i in zip(eqs.states, eqs.xdot)}


def check(spec: GraphSpec, rng: np.random.Generator) -> str:
    """Run checks (a) and (b) on one graph; return the outcome's name."""
    valid = assignments(spec)
    g = bg.assemble(build(spec))
    try:
        rep = bg.assign_causality(g)
    except bg.CausalityConflict as err:
        assert len(valid) == 0, f"false conflict: {len(valid)} valid assignments exist\n{err}"
        assert err.conflicts and all(c.element in g.nodes or c.element.startswith(MODEL)
                                     for c in err.conflicts)
        assert "Fix:" in str(err)
        return "conflict proved"
    assert len(valid) > 0, "an assignment was returned although none is valid"
    col = {b.name: i for i, b in enumerate(spec.bonds)}
    got = np.zeros(len(spec.bonds), dtype=bool)
    for b in spec.bonds:
        got[col[b.name]] = rep.effort_to[f"{MODEL}/{b.name}"] == f"{MODEL}/{b.head}"
    assert any((row == got).all() for row in valid), "the assignment breaks a rule"
    best = preferred_rows(spec, g, valid)
    assert len(best) == 1 and (best[0] == got).all(), "not the best assignment in the documented order"

    # (b) derived state derivatives against the laws
    g.graph["report"] = rep
    _give_inverse_laws(spec, g, rep)
    try:
        eqs = derive(g)
    except bg.EquationError as err:
        # a nonlinear compliance made dependent, or an index above 2: named, never silent
        assert MODEL + "/" in str(err)
        return "valid, not derivable (named)"
    x = {s.name: float(rng.uniform(-1.0, 1.0)) for s in eqs.states}
    u = {k: float(rng.uniform(-1.0, 1.0)) for k in eqs.inputs}
    du = {k: float(rng.uniform(-1.0, 1.0)) for k in eqs.inputs}
    t = float(rng.uniform(0.0, 2.0))
    local = {k[len(MODEL) + 1:]: v for k, v in x.items()}
    ref = solve_laws(spec, local, u, du, t)
    ours = derived_rates(eqs, x, u, du, t)
    if ours is None:
        # a singular derived system: only where the laws have no unique solution either
        assert not ref.converged or ref.redundant or ref.rates is None, \
            f"derived system singular, laws {ref}"
        return "valid, singular junction structure"
    if not ours:
        return "valid, no states"
    assert ref.converged, f"the laws have no solution, derived {ours}"
    assert ref.rates is not None, f"laws leave the state derivatives open, derived {ours}"
    for name, val in ours.items():
        r = ref.rates[name[len(MODEL) + 1:]]
        assert math.isclose(val, r, rel_tol=1e-7, abs_tol=1e-9), f"{name}: derived {val}, laws {r}"
    return "valid, derivatives match"


def _give_inverse_laws(spec: GraphSpec, g, rep) -> None:
    """A ``sinh`` resistor that the graph gives its other causality gets its law in that
    form (``asinh``), and a cubic compliance in derivative causality its exact inverse, as a
    user would declare them: symbolic inversion is not under test here (it is bounded by a
    time limit, and the cubic's Cardano form would only run into it)."""
    for e in spec.elements:
        if e.kind not in ("Rf", "Re", "Cnl"):
            continue
        node = f"{MODEL}/{e.name}"
        (k,) = [k for *_, k in g.in_edges(node, keys=True)]
        effort_in = rep.effort_to[k] == node
        if e.kind == "Cnl":
            if effort_in:  # derivative causality: q from e = q + κ·q³ (one real root)
                kap = e.extra
                inverse = lambda y, kap=kap: -2 * sp.sqrt(1 / (3 * kap)) * sp.sinh(  # noqa: E731
                    sp.asinh(-y * sp.Rational(3, 2) * sp.sqrt(3 * kap)) / 3)
                g.nodes[node]["element"] = bg.C(
                    e.name, law=bg.Law(lambda q, kap=kap: q + kap * q**3, inverse=inverse),
                    energy=lambda q, kap=kap: q**2 / 2 + kap * q**4 / 4)
            continue
        if effort_in != (e.kind == "Rf"):
            inv = lambda y, a=e.value: sp.asinh(y / a)  # noqa: E731
            g.nodes[node]["element"] = (bg.R(e.name, effort=inv) if e.kind == "Rf"
                                        else bg.R(e.name, flow=inv))


class _Draw:
    """random_spec's picker over a hypothesis draw."""

    def __init__(self, data):
        self.data = data

    def int(self, lo, hi):
        return self.data.draw(st.integers(lo, hi))

    def choice(self, seq):
        return self.data.draw(st.sampled_from(list(seq)))


OUTCOMES: Counter = Counter()


@settings(max_examples=2000, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.data(), st.integers(0, 2**32 - 1))
def test_causality_and_derivatives_on_random_graphs(data, seed):
    spec = random_spec(_Draw(data))
    note(str(spec))
    OUTCOMES[check(spec, np.random.default_rng(seed))] += 1


def test_outcomes_cover_every_case():
    """The random graphs reach every outcome (run after the property test in this module)."""
    if not OUTCOMES:
        import pytest
        pytest.skip("property test not run in this session")
    assert sum(OUTCOMES.values()) >= 2000, OUTCOMES
    for key in ("conflict proved", "valid, derivatives match"):
        assert OUTCOMES[key] > 0, OUTCOMES
