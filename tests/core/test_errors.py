"""Every error path raises one exception of our family that names the culprit."""

import numpy as np
import pytest
import sympy as sp

import bondgraph as bg


def chain(*pairs, elements):
    M = bg.BondGraph("m")
    M.add(*elements)
    for a, b in pairs:
        M.connect(a, b)
    return M


def test_unknown_child_is_named():
    M = bg.BondGraph("m")
    M.add(bg.Se("F", 1.0))
    with pytest.raises(bg.ModelStructureError, match=r"reference 'nope': no child 'nope' \(children: F\)"):
        M.connect("F", "nope")


def test_invalid_and_duplicate_names():
    with pytest.raises(bg.ModelStructureError, match=r"name 'a/b'"):
        bg.One("a/b")
    M = bg.BondGraph("m")
    M.add(bg.One("v"))
    with pytest.raises(bg.ModelStructureError, match="child named 'v' exists already"):
        M.add(bg.Zero("v"))


def test_all_direction_and_arity_problems_listed_at_once():
    M = chain(("m", "F"), ("v", "k"), elements=[bg.Se("F", 1.0), bg.I("m", 1.0), bg.One("v"),
                                                   bg.C("k", 1.0), bg.TF("tf", 2.0)])
    with pytest.raises(bg.ModelStructureError) as exc:
        bg.assemble(M)
    msg = str(exc.value)
    assert "Se 'm/F': its bond m/b1 points in; expected out of a source" in msg
    assert "I 'm/m': its bond m/b1 points out; expected into a storage element" in msg
    assert "TF 'm/tf': port '1' is not connected" in msg and "port '2' is not connected" in msg
    assert len(exc.value.problems) == 4


def test_port_bonded_twice_and_dangling_component_port():
    inner = bg.BondGraph("part")
    inner.add(bg.One("v"), bg.I("m", 1.0))
    inner.connect("v", "m")
    inner.expose("x", "v", causality="effort-in")
    inner.expose("y", "v")
    M = bg.BondGraph("top")
    M.add(inner, bg.Se("F", 1.0), bg.Se("G", 1.0))
    M.connect("F", "part/x")
    M.connect("G", "part/x")
    with pytest.raises(bg.ModelStructureError) as exc:
        bg.assemble(M)
    msg = str(exc.value)
    assert "port top/part/x: connected twice" in msg
    assert "port top/part/y: dangling (not connected)" in msg


def test_two_flow_sources_on_a_1_junction_conflict_names_sources_and_fix():
    M = chain(("v1", "j"), ("v2", "j"), ("j", "m"),
              elements=[bg.Sf("v1", 1.0), bg.Sf("v2", 2.0), bg.One("j"), bg.I("m", 1.0)])
    with pytest.raises(bg.CausalityConflict) as exc:
        bg.assign_causality(bg.assemble(M))
    c = exc.value.conflicts[0]
    assert c.element == "m/j"
    assert "m/v1" in c.found and "m/v2" in c.found
    assert "insert a compliance (a 0-junction with C) between m/v1 and m/v2" in c.suggestion


def test_two_effort_sources_on_a_0_junction_suggest_a_resistance_or_inertia():
    M = chain(("e1", "p"), ("e2", "p"), ("p", "c"),
              elements=[bg.Se("e1", 1.0), bg.Se("e2", 2.0), bg.Zero("p"), bg.C("c", 1.0)])
    with pytest.raises(bg.CausalityConflict, match="insert a resistance or an inertia"):
        bg.assign_causality(bg.assemble(M))


def test_fixed_ports_that_disagree_are_a_conflict():
    def part(name, caus):
        p = bg.BondGraph(name)
        p.add(bg.One("v"), bg.I("m", 1.0))
        p.connect("v", "m")
        p.expose("x", "v", causality=caus, label=f"{name}: x {caus}")
        return p
    M = bg.BondGraph("top")
    M.add(part("a", "effort-in"), part("b", "effort-in"))
    M.connect("a/x", "b/x")
    with pytest.raises(bg.CausalityConflict, match=r"top/(a|b)/x \((a|b): x effort-in\)"):
        bg.assign_causality(bg.assemble(M))


def test_missing_parameter_symbols_are_all_listed():
    F0, k = sp.symbols("F0 k")
    M = chain(("F", "v"), ("v", "m"), ("v", "s"),
              elements=[bg.Se("F", F0), bg.One("v"), bg.I("m", 1.0), bg.C("s", 1 / k)])
    with pytest.raises(bg.ParameterError) as exc:
        bg.build(M)
    assert len(exc.value.problems) == 2
    assert "symbol 'F0' used by m/F has no value" in str(exc.value)
    assert "symbol 'k' used by m/s has no value" in str(exc.value)
    model = bg.build(M, params={"F0": 1.0, "k": 4.0})
    assert model.params["F0"] == 1.0
    with pytest.raises(bg.ParameterError, match="parameter 'zzz' given but no law uses it"):
        bg.build(M, params={"F0": 1.0, "k": 4.0, "zzz": 1.0})


def test_parameter_values_are_checked():
    with pytest.raises(bg.ParameterError, match=r"I 'm', parameter 'm': found -1.0, expected a finite number ≥ 0"):
        bg.I("m", -1.0)
    with pytest.raises(bg.ParameterError, match="give exactly one of r=..., flow=..., effort=..."):
        bg.R("r")
    with pytest.raises(bg.ParameterError, match=r"C 'k', stiffness k: found 0, expected a finite number > 0"):
        bg.C.spring("k", 0)


def test_uninvertible_resistor_law_is_named():
    # the graph gives the resistor a flow, but its law f = e² has two inverses (and is active)
    active = chain(("p", "j"), ("j", "r"), elements=[bg.Se("p", 1.0), bg.One("j"), bg.R("r", flow=lambda e: e**2)])
    with pytest.raises(bg.EquationError, match=r"R 'm/r': not passive: .* e·f = -1e\+24 < 0"):
        bg.build(active)
    M = chain(("q", "j"), ("j", "r"),
              elements=[bg.Sf("q", 1.0), bg.One("j"), bg.R("r", flow=lambda e: e**2, passive=False)])
    with pytest.raises(bg.EquationError, match=r"R 'm/r' \(effort-out causality: the graph gives it its flow"):
        bg.build(M)


def test_unknown_state_input_and_parameter_names_suggest_close_ones():
    M = chain(("F", "v"), ("v", "m"), elements=[bg.MSe("F", bg.Input("force")), bg.One("v"), bg.I("m", 1.0)])
    model = bg.build(M)
    with pytest.raises(bg.ParameterError, match=r"initial value for 'm/mm.f': no such state; did you mean 'm/m.f'"):
        bg.simulate(model, (0, 1), x0={"m/mm.f": 0.0}, inputs={"force": 1.0})
    with pytest.raises(bg.ParameterError, match=r"input 'force' has no signal"):
        bg.simulate(model, (0, 1))
    with pytest.raises(bg.ParameterError, match=r"input 'forse' given but the model has no such input"):
        bg.simulate(model, (0, 1), inputs={"force": 1.0, "forse": 2.0})
    with pytest.raises(bg.ParameterError, match=r"parameter 'm/m.mass': not in model 'm'; did you mean 'm/m.m'"):
        model.set_params({"m/m.mass": 2.0})
    with pytest.raises(bg.ParameterError, match=r"method 'Euler'"):
        bg.simulate(model, (0, 1), inputs={"force": 1.0}, method="Euler")


def test_derivative_of_an_input_needed_but_not_given():
    M = chain(("q", "v"), ("v", "m"), elements=[bg.MSf("q", bg.Input("rate")), bg.One("v"), bg.I("m", 1.0)])
    model = bg.build(M)
    with pytest.raises(bg.ParameterError, match=r"input 'rate': the model needs its time derivative"):
        bg.simulate(model, (0, 1), inputs={"rate": lambda t: t})
    res = bg.simulate(model, (0, 1), inputs={"rate": bg.Signal(lambda t: t, lambda t: 1.0)})
    assert res.effort("m/m")[-1] == pytest.approx(1.0)  # e = m·d/dt(t)


def test_singular_start_is_reported_with_time_and_state():
    # a massless inertia in integral causality: 0·v̇ = F has no solution
    M = chain(("F", "v"), ("v", "m"), elements=[bg.Se("F", 1.0), bg.One("v"), bg.I("m", 0.0)])
    with pytest.raises(bg.SimulationError) as exc:
        bg.simulate(bg.build(M), (0, 1))
    assert exc.value.time == 0.0 and exc.value.state == {"m/m.f": 0.0}
    assert "singular equations for der(m/m.f) (elements m/m; block 0)" in str(exc.value)
    assert exc.value.results is not None and len(exc.value.results.t) == 1


def test_failed_integration_keeps_partial_results():
    # the MTF divides by its modulus (1 − t)²: the displacement blows up at t = 1
    M = chain(("q", "b"), ("tf/2", "b"), ("a", "tf/1"),
              elements=[bg.Sf("q", 0.5), bg.One("b"), bg.MTF("tf", (1 - bg.t) ** 2),
                        bg.One("a", displacement="x")])
    model = bg.build(M)
    with pytest.raises(bg.SimulationError) as exc, \
            pytest.warns(bg.errors.SingularityWarning, match="m/tf' modulus"):
        bg.simulate(model, (0, 2))
    err = exc.value
    assert 0.99 < err.time < 1.0 + 1e-9
    assert "blow-up" in str(err) and "1 - t" in str(err)  # the bound, the divisor near zero
    assert "integration failed at t = " in str(err) and "m/a.x" in err.state
    part = err.results
    assert part.t[-1] < 1.0 and len(part.t) > 10
    # what was computed up to the failure is right: x = 0.5/(1 − t) − 0.5
    early = part.t < 0.99
    assert np.allclose(part["m/a.x"][early], 0.5 / (1 - part.t[early]) - 0.5, rtol=1e-5)
