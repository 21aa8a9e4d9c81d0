"""Complete causality search (issue 10, items 9 and 10): no false conflicts, every conflict
listed, proofs named by their smallest core, bounded search, order independence."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bondgraph as bg
from bondgraph.errors import CausalitySearchLimit
from bad_inputs.test_bad_causality import graph
from reference.bond_graph_laws import random_spec
from test_causality_property import _Draw, build


def gyrator_loop(E=3.0, n=2.0, r=0.5, R=4.0):
    """The smallest false conflict of one-pass SCAP (issue 10): ``Se→j1; j0→tf/1; tf/2→j1;
    j1→gy/1; gy/2→j0; j0→r``."""
    return graph("loop", [bg.Se("Se", E), bg.One("j1"), bg.Zero("j0"), bg.TF("tf", n),
                          bg.GY("gy", r), bg.R("r", R)],
                 [("Se", "j1"), ("j0", "tf/1"), ("tf/2", "j1"), ("j1", "gy/1"), ("gy/2", "j0"),
                  ("j0", "r")])


def test_gyrator_in_a_junction_loop_is_solved_not_rejected():
    """Hand derivation: j1 carries the flow f; GY: e_gy1 = r·f_gy2, e_j0 = r·f; TF (e1 = n·e2,
    f2 = n·f1): e_tf2 = r·f/n, f_tf1 = f/n; j0: f_gy2 = f/n + r·f/R; j1: E + r·f/n − r·f_gy2 = 0,
    so f = E·R/r² — the transformer drops out."""
    E, n, r, R = 3.0, 2.0, 0.5, 4.0
    model = bg.build(gyrator_loop(E, n, r, R))
    assert len(model.report.loops) == 1
    res = bg.simulate(model, (0.0, 1.0))
    assert res.flow("Se")[-1] == pytest.approx(E * R / r**2, rel=1e-12)
    assert res.effort("r")[-1] == pytest.approx(r * E * R / r**2, rel=1e-12)


def test_every_independent_conflict_is_listed_at_once():
    M = graph("many", [bg.Sf("v1", 1.0), bg.Sf("v2", 2.0), bg.One("a"), bg.R("ra", 1.0),
                       bg.Se("p1", 1.0), bg.Se("p2", 2.0), bg.Zero("b"), bg.R("rb", 1.0),
                       bg.Se("F1", 1.0), bg.Se("F2", 1.0), bg.One("c")],
              [("v1", "a"), ("v2", "a"), ("a", "ra"), ("p1", "b"), ("p2", "b"), ("b", "rb"),
               ("F1", "c"), ("F2", "c")])
    with pytest.raises(bg.CausalityConflict) as exc:
        bg.assign_causality(bg.assemble(M))
    got = {c.element: c for c in exc.value.conflicts}
    assert set(got) == {"many/a", "many/b", "many/c"}
    assert set(got["many/a"].sources) == {"many/v1", "many/v2"}
    assert set(got["many/b"].sources) == {"many/p1", "many/p2"}
    assert "nothing imposes its flow" in got["many/c"].found
    assert set(got["many/c"].sources) == {"many/F1", "many/F2"}
    assert "a flow source or an inertia (I)" in got["many/c"].suggestion  # not "an flow source"
    assert str(exc.value).startswith("model 'many': 3 problems")


def test_conflict_found_only_by_search_names_its_smallest_core():
    """Two 0-junctions joined by three parallel bonds: every bond gives its effort to one of
    them, so at least one junction gets two; propagation sees nothing (all bonds free)."""
    M = graph("par", [bg.Zero("a"), bg.Zero("b"), bg.C("c", 1.0), bg.R("r", 1.0), bg.Se("p", 1.0),
                      bg.One("d"), bg.I("m", 1.0)],
              [("a", "b"), ("b", "a"), ("a", "b"), ("a", "c"), ("b", "r"), ("p", "d"), ("d", "m")])
    with pytest.raises(bg.CausalityConflict) as exc:
        bg.assign_causality(bg.assemble(M))
    (c,) = exc.value.conflicts
    assert c.involved == ("par/a", "par/b")
    assert "no causal assignment exists" in c.found and "proved by exhaustive search" in c.found
    assert "redundant connection" in c.suggestion


def test_search_conflict_and_propagation_clash_in_one_report():
    M = graph("two", [bg.Zero("j"), bg.GY("g", 2.0), bg.Sf("q", 1.0),  # proved by search
                      bg.Sf("v1", 1.0), bg.Sf("v2", 1.0), bg.One("k"), bg.R("r", 1.0)],  # clash
              [("j", "g/1"), ("g/2", "j"), ("q", "j"), ("v1", "k"), ("v2", "k"), ("k", "r")])
    with pytest.raises(bg.CausalityConflict) as exc:
        bg.assign_causality(bg.assemble(M))
    elements = sorted(c.element for c in exc.value.conflicts)
    assert elements == ["two/j", "two/k"]
    proof = next(c for c in exc.value.conflicts if c.element == "two/j")
    assert proof.involved == ("two/g", "two/j") and proof.sources == ("two/q",)


def test_decomposition_many_loops_are_solved_separately():
    """Fifty copies of the gyrator loop: independent parts, each searched on its own."""
    M = bg.BondGraph("many")
    for i in range(50):
        sub = gyrator_loop()
        sub.name = f"l{i}"
        M.add(sub)
    rep = bg.assign_causality(bg.assemble(M))
    assert len(rep.loops) == 50


def test_search_bound_is_named_never_a_hang():
    """A 0-junction with a gyrator closing a loop on itself and an inertia: taking the inertia
    as a state needs a backtrack; with a bound of one the search stops with a named error."""
    M = graph("gy", [bg.Zero("j"), bg.GY("g", 2.0), bg.I("m", 1.0)],
              [("j", "g/1"), ("g/2", "j"), ("j", "m")])
    with pytest.raises(CausalitySearchLimit, match="search_limit"):
        bg.assign_causality(bg.assemble(M), search_limit=1)
    rep = bg.assign_causality(bg.assemble(M))
    assert [d.element for d in rep.derivative] == ["gy/m"]  # the only valid assignment


def test_choices_keep_one_pass_scap_results_on_good_models():
    """Where the former one-pass SCAP succeeded it made the same choices in the same order:
    two inertias on one junction, the first by the rule is the state."""
    M = graph("two", [bg.Se("F", 1.0), bg.One("v"), bg.I("m2", 2.0), bg.I("m1", 1.0)],
              [("F", "v"), ("v", "m1"), ("v", "m2")])
    rep = bg.assign_causality(bg.assemble(M))
    assert rep.states == ["two/m1.f"]
    assert [(d.element, d.path) for d in rep.derivative] == [("two/m2", ("two/v", "two/m1"))]


# ------------------------------------------------------------------ insertion-order independence
@st.composite
def shuffled_graphs(draw):
    """A random graph and two insertion orders of the same elements and named bonds."""
    n = draw(st.integers(1, 4))
    els, bonds = [], []
    for i in range(n):
        els.append(("J", f"j{i}", draw(st.sampled_from("01"))))
    for i in range(1, n):
        kind = draw(st.sampled_from(["bond", "TF", "GY"]))
        p = draw(st.integers(0, i - 1))
        if kind == "bond":
            bonds.append((f"j{p}", f"j{i}"))
        else:
            els.append((kind, f"x{i}", None))
            bonds += [(f"j{p}", f"x{i}/1"), (f"x{i}/2", f"j{i}")]
    for i in range(draw(st.integers(n, 2 * n + 2))):
        kind = draw(st.sampled_from(["I", "C", "R", "Se", "Sf", "I", "C"]))
        j = f"j{draw(st.integers(0, n - 1))}"
        els.append((kind, f"{kind}{i}", None))
        bonds.append((f"{kind}{i}", j) if kind in ("Se", "Sf") else (j, f"{kind}{i}"))
    named = [(a, b, f"b{i}") for i, (a, b) in enumerate(bonds)]
    return els, named, draw(st.permutations(range(len(els)))), draw(st.permutations(range(len(named))))


def _make(els, bonds, eorder, border):
    make = {"0": bg.Zero, "1": bg.One}
    M = bg.BondGraph("s")
    for i in eorder:
        kind, name, jk = els[i]
        M.add(make[jk](name) if kind == "J" else
              {"I": bg.I, "C": bg.C, "R": bg.R, "Se": bg.Se, "Sf": bg.Sf, "TF": bg.TF,
               "GY": bg.GY}[kind](name, 1.5))
    for i in border:
        a, b, nm = bonds[i]
        M.connect(a, b, name=nm)
    return M


@settings(max_examples=150, deadline=None)
@given(shuffled_graphs())
def test_assignment_does_not_depend_on_insertion_order(case):
    els, bonds, eorder, border = case
    outcomes = []
    for eo, bo in ((range(len(els)), range(len(bonds))), (eorder, border)):
        try:
            rep = bg.assign_causality(bg.assemble(_make(els, bonds, eo, bo)))
            outcomes.append((sorted(rep.effort_to.items()), sorted(rep.states)))
        except bg.CausalityConflict as err:
            outcomes.append(sorted(str(c) for c in err.conflicts))
    assert outcomes[0] == outcomes[1]


def test_big_chain_is_assigned_by_propagation():
    """300 masses in a chain of springs: causality is linear work (no search needed)."""
    n = 300
    M = bg.BondGraph("chain")
    M.add(bg.Se("F", 1.0))
    prev = None
    for i in range(n):
        M.add(bg.One(f"v{i}"), bg.I(f"m{i}", 1.0), bg.R(f"d{i}", 0.1))
        M.connect(f"v{i}", f"m{i}"); M.connect(f"v{i}", f"d{i}")
        if prev is not None:
            M.add(bg.Zero(f"s{i}"), bg.C(f"k{i}", 0.01))
            M.connect(prev, f"s{i}"); M.connect(f"s{i}", f"v{i}"); M.connect(f"s{i}", f"k{i}")
        prev = f"v{i}"
    M.connect("F", "v0")
    rep = bg.assign_causality(bg.assemble(M))
    assert len(rep.states) == 2 * n - 1 and not rep.derivative and not rep.loops
    assert math.isfinite(np.sum([len(s) for s in rep.states]))


# ------------------------------------------------------------------ the fallback search
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_structure_first_search_gives_the_same_assignment(monkeypatch_quick, data):
    """After 1000 backtracks in the order of the choices a part is searched with its junction
    structure first, then the choices are confirmed one by one: the result is the same."""
    spec = random_spec(_Draw(data))
    outcomes = []
    for quick in (1000, 0):
        monkeypatch_quick(quick)
        try:
            outcomes.append(sorted(bg.assign_causality(bg.assemble(build(spec))).effort_to.items()))
        except bg.CausalityConflict as err:
            outcomes.append(sorted(str(c) for c in err.conflicts))
    assert outcomes[0] == outcomes[1]


@pytest.fixture
def monkeypatch_quick(monkeypatch):
    import bondgraph.causality as causality

    return lambda value: monkeypatch.setattr(causality, "_QUICK", value)
