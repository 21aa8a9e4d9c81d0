"""Bad inputs of causality assignment (issue 10): each one call a user could make by mistake;
one named error of our family whose message names the culprits."""

import pytest

import bondgraph as bg
from bondgraph.errors import CausalitySearchLimit

from .catalogue import Case, check, ids


def graph(name, elements, bonds):
    M = bg.BondGraph(name)
    M.add(*elements)
    for a, b in bonds:
        M.connect(a, b)
    return M


def causality(M, **kw):
    return lambda: bg.assign_causality(bg.assemble(M), **kw)


def component(name, causality_of_port):
    """A one-mass component exposing its velocity junction with a fixed causality."""
    C = bg.BondGraph(name)
    C.add(bg.One("v"), bg.I("m", 1.0))
    C.connect("v", "m")
    C.expose("x", "v", causality=causality_of_port, label=f"port x {causality_of_port}")
    return C


def fixed_against_fixed():
    M = bg.BondGraph("ports")
    M.add(component("a", "effort-in"), component("b", "effort-in"))
    M.connect("a/x", "b/x")
    return M


def fixed_against_source():
    M = bg.BondGraph("srcport")
    M.add(component("a", "flow-in"), bg.Se("F", 1.0))
    M.connect("F", "a/x")
    return M


def three_parallel_bonds():
    return graph("par", [bg.Zero("a"), bg.Zero("b"), bg.C("c", 1.0), bg.R("r", 1.0)],
                 [("a", "b"), ("b", "a"), ("a", "b"), ("a", "c"), ("b", "r")])


def two_lever_loops():
    return graph("levers", [bg.Zero("p"), bg.TF("t1", 2.0), bg.TF("t2", 3.0), bg.C("c", 1.0)],
                 [("p", "t1/1"), ("t1/2", "p"), ("p", "t2/1"), ("t2/2", "p"), ("p", "c")])


def gyrator_loop_on_flow_source():
    return graph("gyl", [bg.Zero("j"), bg.GY("g", 2.0), bg.Sf("q", 1.0)],
                 [("j", "g/1"), ("g/2", "j"), ("q", "j")])


def needs_backtracking():
    return graph("bt", [bg.Zero("j"), bg.GY("g", 2.0), bg.I("m", 1.0)],
                 [("j", "g/1"), ("g/2", "j"), ("j", "m")])


CASES = [
    Case("two flow sources on a 1-junction",
         causality(graph("c1", [bg.Sf("v1", 1.0), bg.Sf("v2", 2.0), bg.One("j"), bg.R("r", 1.0)],
                         [("v1", "j"), ("v2", "j"), ("j", "r")])),
         bg.CausalityConflict, ["c1/j", "c1/v1", "c1/v2", "insert a compliance"]),
    Case("two effort sources on a 0-junction",
         causality(graph("c2", [bg.Se("p1", 1.0), bg.Se("p2", 2.0), bg.Zero("j"), bg.R("r", 1.0)],
                         [("p1", "j"), ("p2", "j"), ("j", "r")])),
         bg.CausalityConflict, ["c2/j", "c2/p1", "c2/p2", "effort"]),
    Case("three independent clashes listed at once",
         causality(graph("c3", [bg.Sf("v1", 1.0), bg.Sf("v2", 1.0), bg.One("a"),
                                bg.Se("p1", 1.0), bg.Se("p2", 1.0), bg.Zero("b"),
                                bg.Sf("w1", 1.0), bg.Sf("w2", 1.0), bg.One("c")],
                         [("v1", "a"), ("v2", "a"), ("p1", "b"), ("p2", "b"), ("w1", "c"),
                          ("w2", "c")])),
         bg.CausalityConflict, ["3 problems", "c3/a", "c3/b", "c3/c", "c3/w2"]),
    Case("1-junction fed by effort sources only",
         causality(graph("c4", [bg.Se("F1", 1.0), bg.Se("F2", 1.0), bg.One("v")],
                         [("F1", "v"), ("F2", "v")])),
         bg.CausalityConflict, ["c4/v", "nothing imposes its flow", "a flow source or an inertia"]),
    Case("0-junction fed by flow sources only",
         causality(graph("c5", [bg.Sf("Q1", 1.0), bg.Sf("Q2", 1.0), bg.Zero("p")],
                         [("Q1", "p"), ("Q2", "p")])),
         bg.CausalityConflict, ["c5/p", "nothing imposes its effort", "an effort source or a compliance"]),
    Case("transformer passing an imposed effort onto another",
         causality(graph("c6", [bg.Se("p1", 1.0), bg.Zero("a"), bg.TF("t", 2.0), bg.Zero("b"),
                                bg.Se("p2", 1.0)],
                         [("p1", "a"), ("a", "t/1"), ("t/2", "b"), ("p2", "b")])),
         bg.CausalityConflict, ["c6/b", "from c6/t (set by c6/p1)", "c6/p2"]),
    Case("gyrator turning an imposed flow into a second effort",
         causality(graph("c7", [bg.Sf("v", 1.0), bg.One("a"), bg.GY("g", 2.0), bg.Zero("b"),
                                bg.Se("p", 1.0)],
                         [("v", "a"), ("a", "g/1"), ("g/2", "b"), ("p", "b")])),
         bg.CausalityConflict, ["c7/b", "from c7/g (set by c7/v)", "c7/p"]),
    Case("three parallel bonds between 0-junctions (proved by search)",
         causality(three_parallel_bonds()), bg.CausalityConflict,
         ["par/a", "par/b", "no causal assignment exists", "proved"]),
    Case("two transformers closing loops on one 0-junction",
         causality(two_lever_loops()), bg.CausalityConflict,
         ["levers/p", "levers/t1", "levers/t2", "redundant connection"]),
    Case("gyrator loop on a flow-source junction",
         causality(gyrator_loop_on_flow_source()), bg.CausalityConflict,
         ["gyl/j", "gyl/g", "gyl/q"]),
    Case("a search conflict and a propagation clash together",
         causality(graph("both", [bg.Zero("j"), bg.GY("g", 2.0), bg.Sf("q", 1.0),
                                  bg.Sf("v1", 1.0), bg.Sf("v2", 1.0), bg.One("k")],
                         [("j", "g/1"), ("g/2", "j"), ("q", "j"), ("v1", "k"), ("v2", "k")])),
         bg.CausalityConflict, ["2 problems", "both/j", "both/k", "both/v1"]),
    Case("fixed ports of two components both want the effort",
         causality(fixed_against_fixed()), bg.CausalityConflict,
         ["a/x", "b/x", "effort-in", "compatible classes"]),
    Case("fixed port against an effort source",
         causality(fixed_against_source()), bg.CausalityConflict, ["srcport/a/x", "srcport/F"]),
    Case("conflict raised by build, not only by assign_causality",
         lambda: bg.build(graph("c8", [bg.Sf("v1", 1.0), bg.Sf("v2", 2.0), bg.One("j")],
                                [("v1", "j"), ("v2", "j")])),
         bg.CausalityConflict, ["c8/j", "c8/v1", "c8/v2"]),
    Case("search bound hit", causality(needs_backtracking(), search_limit=1),
         CausalitySearchLimit, ["bt/j", "bt/g", "search_limit", "1 backtrack"]),
    Case("search_limit zero", causality(needs_backtracking(), search_limit=0),
         bg.ParameterError, ["search_limit=0", "integer"]),
    Case("search_limit not an integer", causality(needs_backtracking(), search_limit=2.5),
         bg.ParameterError, ["search_limit=2.5"]),
    Case("prefer misspelt on an inertia", lambda: bg.I("m", 1.0, prefer="states"),
         bg.ParameterError, ["'m'", "prefer='states'", "'state'", "'dependent'"]),
    Case("prefer not a string on a compliance", lambda: bg.C("k", 1.0, prefer=True),
         bg.ParameterError, ["'k'", "prefer=True"]),
    Case("prefer capitalised", lambda: bg.C("k2", 0.01, prefer="Dependent"),
         bg.ParameterError, ["'k2'", "prefer='Dependent'"]),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_causality_input(case):
    check(case)


def test_catalogue_size():
    assert len(CASES) >= 15
