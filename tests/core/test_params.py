"""Parameter rules: declared with the parameter, enforced at construction, build and set_params."""

import math

import numpy as np
import pytest
import sympy as sp

import bondgraph as bg


def msd(r=0.3, **kw):
    M = bg.BondGraph("msd")
    M.add(bg.Se("F", 1.0), bg.One("v"), bg.I("m", 2.0), bg.C.spring("k", 50.0), bg.R("b", r, **kw),
          bg.TF("lever", 0.5), bg.One("w"), bg.I("J", 0.1))
    for a, b in [("F", "v"), ("v", "m"), ("v", "k"), ("v", "b"), ("v", "lever/1"), ("lever/2", "w"),
                 ("w", "J")]:
        M.connect(a, b)
    return M


def test_set_params_enforces_each_parameters_rule_with_one_message_and_changes_nothing():
    model = bg.build(msd())
    before = model.params
    with pytest.raises(bg.ParameterError) as err:
        model.set_params({"msd/m.m": -1.0, "msd/b.r": 0.0, "msd/lever.n": 0.0, "msd/F.e": math.inf,
                          "msd/k.c": "stiff", "msd/J.m": float("nan"), "msd/x.m": 1.0})
    problems = err.value.problems
    assert len(problems) == 7
    text = str(err.value)
    for culprit in ["parameter 'msd/m.m': found -1.0, expected a finite number ≥ 0 (mass or inertia)",
                    "parameter 'msd/b.r': found 0.0, expected a finite number > 0 (resistance",
                    "parameter 'msd/lever.n': found 0.0, expected a finite non-zero number",
                    "parameter 'msd/F.e': found inf, expected a finite number (effort)",
                    "parameter 'msd/k.c': found 'stiff', expected a finite number ≥ 0 (compliance)",
                    "parameter 'msd/J.m': found nan",
                    "parameter 'msd/x.m': not in model 'msd'"]:
        assert culprit in text
    assert model.params == before
    model.set_params({"msd/m.m": 0.0, "msd/b.r": 7.0, "msd/lever.n": -2.0, "msd/F.e": -3})
    assert model.params["msd/b.r"] == 7.0 and model.params["msd/F.e"] == -3.0


def test_the_same_rule_at_construction_and_in_set_params():
    with pytest.raises(bg.ParameterError) as at_construction:
        bg.I("m", -1.0)
    with pytest.raises(bg.ParameterError) as in_set_params:
        bg.build(msd()).set_params({"msd/m.m": -1.0})
    tail = "found -1.0, expected a finite number ≥ 0 (mass or inertia)"
    assert str(at_construction.value).endswith(tail)
    assert str(in_set_params.value).endswith(tail)


def test_an_active_resistor_keeps_its_own_rule_even_from_the_cache():
    # identical equations: the second build is served from the cache with its own rules
    active = bg.build(msd(r=0.3, passive=False))
    passive = bg.build(msd(r=0.3))
    assert passive.build_times.get("cached") == 1.0 or active.build_times.get("cached") == 1.0
    active.set_params({"msd/b.r": -0.3})
    with pytest.raises(bg.ParameterError, match=r"'msd/b.r': found -0.3, expected a finite number > 0"):
        passive.set_params({"msd/b.r": -0.3})


def test_expressions_of_parameters_are_checked_at_build_and_after_set_params():
    k = sp.Symbol("k")
    M = bg.BondGraph("mod")
    M.add(bg.Se("F", 1.0), bg.One("v"), bg.I("m", 1.0), bg.MR("b", 2 * k - 1))
    for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
        M.connect(a, b)
    with pytest.raises(bg.ParameterError, match=r"parameter 'mod/b.r' = 2\*k - 1: found -3.0, "
                                                r"expected a finite number > 0 \(resistance"):
        bg.build(M, params={"k": -1.0})
    model = bg.build(M, params={"k": 2.0})
    with pytest.raises(bg.ParameterError, match=r"'mod/b.r' = 2\*k - 1: found 0.0"):
        model.set_params({"k": 0.5})
    model.set_params({"k": 3.0})
    assert model.params["k"] == 3.0
    with pytest.raises(bg.ParameterError, match=r"parameter 'k': found nan, expected a finite number"):
        bg.build(M, params={"k": float("nan")})


def test_modulated_parameters_are_not_judged_before_the_run():
    u = bg.Input("u")
    M = bg.BondGraph("valve")
    M.add(bg.Se("p", 1.0), bg.One("q"), bg.MR("orifice", 1e3 * u), bg.I("L", 1.0))
    for a, b in [("p", "q"), ("q", "orifice"), ("q", "L")]:
        M.connect(a, b)
    model = bg.build(M)
    assert model.equations.expr_checks == []


def test_an_empty_model_is_a_structure_error():
    with pytest.raises(bg.ModelStructureError, match=r"model 'nothing': has no elements"):
        bg.build(bg.BondGraph("nothing"))


def test_power_balance_names_its_scale():
    """An undamped oscillator: the net stored-energy change is ~0, the energy in play 0.5 J."""
    M = bg.BondGraph("osc")
    M.add(bg.One("v"), bg.I("m", 1.0, initial=1.0), bg.C.spring("k", 1.0))
    M.connect("v", "m"); M.connect("v", "k")
    res = bg.simulate(bg.build(M), (0, 20), energy=True, rtol=1e-5, atol=1e-7)
    pb = bg.power_balance(res)
    drift = abs(res.stored_energy()[-1] - res.stored_energy()[0])
    assert pb.scale_term == "stored energy" and pb.scale == pytest.approx(0.5, rel=1e-3)
    assert pb.relative == pytest.approx(drift / pb.scale, rel=1e-6)
    assert "of the largest energy flow over the run, the stored energy (0.5 J held or moved)" in str(pb)


def test_power_balance_scale_counts_energy_moved_both_ways():
    """A sinusoidal force on a damper: the source delivers ∫|F·v| dt although its net work is ~0."""
    M = bg.BondGraph("shake")
    M.add(bg.MSe("F", sp.sin(2 * sp.pi * bg.t)), bg.One("v"), bg.I("m", 1e-3), bg.R("b", 1.0))
    for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
        M.connect(a, b)
    res = bg.simulate(bg.build(M), (0, 5), energy=True, rtol=1e-10, atol=1e-12,
                      t_eval=np.linspace(0, 5, 5001))
    pb = bg.power_balance(res)
    # v ≈ F/b: dissipated ≈ ∫ sin² = 2.5 J, the largest flow; the source's moved ≥ its net work
    assert pb.scale_term in ("dissipation", "source work")
    assert pb.scale == pytest.approx(2.5, rel=1e-2)
    assert pb.relative < 1e-7
