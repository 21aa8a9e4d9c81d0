"""Relations: parsing, validation (every problem named), tables."""

import dataclasses

import pytest

from bondgraph.cosim import PowerBond, PythonSubsystem, Relation, Relations
from bondgraph.cosim import examples as ex
from bondgraph.errors import CosimulationError, ParameterError


class Obj:
    x = 0.0
    v = 0.0
    F = 0.0

    def do_step(self, t, h):
        pass


def mech():
    return PythonSubsystem(Obj(), "mech", [("F", "N")], [("x", "m"), ("v", "m/s")],
                           direct_feedthrough=False)


def hyd(unit_v="m/s"):
    return PythonSubsystem(Obj(), "hyd", [("x", "m"), ("v", unit_v)], [("F", "N")],
                           direct_feedthrough=False)


def test_valid_relations_pass_and_print_both_directions_with_units():
    rel = Relations(["mech.x -> hyd.x", "mech.v -> hyd.v", "hyd.F -> mech.F"],
                    bonds=[("hyd.F", "mech.v")])
    rel.validate([mech(), hyd()])
    table = rel.table([mech(), hyd()])
    assert table.splitlines() == [
        "mech -> hyd",
        "  mech.x [m]    -> hyd.x [m]",
        "  mech.v [m/s]  -> hyd.v [m/s]",
        "hyd -> mech",
        "  hyd.F [N]     -> mech.F [N]",
        "power bonds",
        "  hyd.F [N] * mech.v [m/s]",
    ]


def test_every_problem_is_listed_at_once():
    rel = Relations(["mech.x -> hyd.x", "mech.x -> hyd.x", "mech.v -> hyd.v",
                     "pump.Q -> hyd.x", "mech.a -> hyd.v", "hyd.F -> mech.G",
                     "mech.x -> mech.F"])
    with pytest.raises(CosimulationError) as info:
        rel.validate([mech(), hyd(unit_v="N")])
    problems = info.value.problems
    expected = [
        "relation mech.v -> hyd.v: unit mismatch, output is in 'm/s', input expects 'N': units "
        "'m/s' and 'N': different dimensions",
        "relation pump.Q -> hyd.x: no subsystem 'pump' (known: hyd, mech)",
        "relation mech.a -> hyd.v: subsystem 'mech' has no output 'a' (outputs: x, v)",
        "relation hyd.F -> mech.G: subsystem 'mech' has no input 'G' (inputs: F)",
        "relation mech.x -> mech.F: connects subsystem 'mech' to itself",
        "input hyd.x is fed 3 times (by mech.x, mech.x, pump.Q), expected exactly once",
    ]
    for e in expected:
        assert any(e in p for p in problems), e
    assert info.value.subject == "relations"


def test_an_unfed_input_is_named_with_its_unit():
    with pytest.raises(CosimulationError, match=r"input mech\.F \[N\] is fed by no relation"):
        Relations(["mech.x -> hyd.x", "mech.v -> hyd.v"]).validate([mech(), hyd()])


def test_duplicate_subsystem_names():
    a, b = mech(), mech()
    with pytest.raises(CosimulationError, match="subsystem name 'mech' is used 2 times"):
        Relations([]).validate([a, b])


@pytest.mark.parametrize("rels,bond,message", [
    (["mech.x -> hyd.x", "mech.v -> hyd.v", "hyd.F -> mech.F"], ("hyd.F", "hyd.F"),
     "effort and flow both come from subsystem 'hyd'"),
    (["mech.x -> hyd.x", "mech.v -> hyd.v", "hyd.F -> mech.F"], ("hyd.P", "mech.v"),
     "effort hyd.P is not an output of any subsystem"),
    (["mech.x -> hyd.x", "mech.x -> hyd.v", "hyd.F -> mech.F"], ("hyd.F", "mech.v"),
     "found 0 relations from mech.v to subsystem 'hyd', expected exactly 1 (flow side"),
])
def test_bond_problems(rels, bond, message):
    rel = Relations(rels, bonds=[bond])
    with pytest.raises(CosimulationError) as info:
        rel.validate([mech(), hyd()])
    assert any(message in p and f"bond {bond[0]}*{bond[1]}" in p for p in info.value.problems)


def test_malformed_relations_are_all_reported():
    with pytest.raises(ParameterError) as info:
        Relations(["mech.x hyd.x", "mech -> hyd.x", ("a.b",)], bonds=[("x",)])
    text = str(info.value)
    assert "relation 'mech.x hyd.x': expected 'subsystem.output -> subsystem.input'" in text
    assert "endpoint 'mech': expected 'subsystem.port'" in text
    assert "bond ('x',)" in text


def test_relations_are_frozen_values():
    r = Relation.parse("a.x -> b.y")
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.source = "c.z"
    assert r == Relation("a.x", "b.y") and hash(r) == hash(Relation("a.x", "b.y"))
    assert PowerBond("a.F", "b.v").name == "a.F*b.v"


def test_b1_relations_fit_the_b1_subsystems():
    ex.B1_RELATIONS.validate(list(ex.b1_subsystems()))
    assert len(ex.B1_RELATIONS) == 3
