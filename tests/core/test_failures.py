"""Every method stops, in bounded time, at the true failure time, saying why.

* Finite-time blow-up: ``MSf("Q", exp(50·x))`` on a 1-junction (with a resistor) whose
  displacement is ``x``: ``ẋ = exp(50x)``, ``x(0) = 0``, so ``e^(−50x) = 1 − 50t`` and
  ``x → ∞`` at ``T* = 1/50 s``. (LSODA never returned here before: NaN fed back to it.)
* Exponential growth: a mass ``m`` on an active resistance ``R = −1e3`` (``passive=False``): ``m·v̇ = 1e3·v``,
  ``v = v0·e^(1000 t/m)``; the blow-up bound ``1e12·max(1, |v0|)`` is crossed at
  ``t_B = (m/1000)·ln(1e12)`` (it reached 1e308 at 0.71 s and LSODA said "failed at 10 s").
* A law that turns non-finite at ``t = 1`` (``√(1 − t)``): the failure lies between the
  last good step and the reported time, both at 1.
"""

import math
import time

import numpy as np
import pytest
import sympy as sp

import bondgraph as bg
from bondgraph.simulate import SOLVE_IVP_METHODS

METHODS = list(SOLVE_IVP_METHODS) + ["CVODE"]


@pytest.fixture(scope="module")
def blowup_model():
    M = bg.BondGraph("blow")
    j = bg.One("j", displacement="x")
    M.add(bg.MSf("Q", sp.exp(50 * j.displacement)), j, bg.R("r", 2.0))
    M.connect("Q", "j")
    M.connect("j", "r")
    return bg.build(M)


def growth():
    """A mass on an active resistance R = −1e3: m·v̇ = 1e3·v."""
    M = bg.BondGraph("grow")
    M.add(bg.One("v"), bg.I("m", 1.0, initial=1.0), bg.R("r", -1e3, passive=False))
    M.connect("v", "m")
    M.connect("v", "r")
    return bg.build(M)


@pytest.fixture(scope="module")
def growth_model():
    return growth()


@pytest.mark.parametrize("method", METHODS)
def test_finite_time_blowup_stops_at_the_true_time(blowup_model, method):
    t_star = 1 / 50
    start = time.perf_counter()
    with pytest.raises(bg.SimulationError) as exc:
        bg.simulate(blowup_model, (0, 1), method=method, rtol=1e-8, atol=1e-10, progress=False)
    assert time.perf_counter() - start < 10.0
    err = exc.value
    # the integrator creeps up to T*: 1 − 50·t equals e^(−50x) at the last good step
    x_last = err.state["blow/j.x"]
    assert err.time == pytest.approx(t_star, rel=1e-5)
    assert err.time <= t_star * (1 + 1e-5) and x_last > 0.3
    msg = str(err)
    assert "blow-up" in msg and "blow/j.x" in msg and ".state" not in msg.split("states")[0]
    assert f"integration failed at t = {err.time:.9g} s ({method})" in msg
    part = err.results
    assert part.t[-1] == pytest.approx(err.time) and len(part.t) > 20
    good = part.t < 0.019
    assert np.allclose(part["blow/j.x"][good], -np.log(1 - 50 * part.t[good]) / 50, rtol=1e-5, atol=1e-9)


@pytest.mark.parametrize("method", METHODS)
def test_exponential_growth_stops_where_the_bound_is_crossed(growth_model, method):
    t_bound = 1e-3 * math.log(1e12)
    with pytest.raises(bg.SimulationError) as exc:
        bg.simulate(growth_model, (0, 10), method=method, rtol=1e-8, atol=1e-10, progress=False)
    err = exc.value
    assert err.time == pytest.approx(t_bound, rel=1e-6)
    assert err.state["grow/m.f"] == pytest.approx(1e12, rel=1e-6)
    msg = str(err)
    assert "grow/m.f passed the bound 1e+12" in msg and "growing at 1e+15/s" in msg
    assert err.results.t[-1] == pytest.approx(t_bound, rel=1e-6)


def test_blowup_bound_is_an_option(growth_model):
    with pytest.raises(bg.SimulationError) as exc:
        bg.simulate(growth_model, (0, 10), blowup=1e3, rtol=1e-8, atol=1e-10, progress=False)
    assert exc.value.time == pytest.approx(1e-3 * math.log(1e3), rel=1e-6)


@pytest.mark.parametrize("method", ["LSODA", "BDF", "Radau", "CVODE"])
def test_law_turning_non_finite_is_bracketed(method):
    M = bg.BondGraph("sq")
    j = bg.One("j", displacement="x")
    M.add(bg.MSf("Q", sp.sqrt(1 - bg.t)), j, bg.R("r", 1.0))
    M.connect("Q", "j")
    M.connect("j", "r")
    with pytest.raises(bg.SimulationError) as exc:
        bg.simulate(bg.build(M), (0, 2), method=method, rtol=1e-8, atol=1e-10, progress=False)
    err = exc.value
    last = err.results.t[-1]
    # the law ends at t = 1: the last good step is before it, the failure at it; a step
    # method that gives up with a step below the spacing of the numbers there reports
    # the time it reached, which may be the double just below 1 (seen with Radau)
    assert last <= 1.0 <= err.time + 4 * np.spacing(1.0) and err.time - last < 1e-3
    assert "non-finite" in str(err) and "sq/j.x" in str(err)
    assert err.state["sq/j.x"] == pytest.approx(2 / 3 * (1 - (1 - last) ** 1.5), rel=1e-6)


def test_wall_clock_guard_says_it_stopped_the_run():
    M = bg.BondGraph("osc")
    M.add(bg.One("v"), bg.I("m", 1.0, initial=1.0), bg.C.spring("k", 1e6))
    M.connect("v", "m")
    M.connect("v", "k")
    start = time.perf_counter()
    with pytest.raises(bg.SimulationError) as exc:
        bg.simulate(bg.build(M), (0, 1e4), method="RK45", rtol=1e-10, atol=1e-12, timeout=0.3,
                    progress=False)
    assert time.perf_counter() - start < 5.0
    err = exc.value
    assert "wall-clock guard (timeout = 0.3 s" in str(err)
    assert 0 < err.time < 1e4 and err.results.t[-1] == pytest.approx(err.time)


def test_max_steps_stops_the_run():
    M = bg.BondGraph("osc")
    M.add(bg.One("v"), bg.I("m", 1.0, initial=1.0), bg.C.spring("k", 1.0))
    M.connect("v", "m")
    M.connect("v", "k")
    with pytest.raises(bg.SimulationError, match="more than max_steps = 50 steps"):
        bg.simulate(bg.build(M), (0, 100), max_steps=50, progress=False)


def test_singular_block_mid_run_names_unknowns_and_elements():
    # a mass that vanishes at t = 1 (m = 1 − t): m·v̇ = F has no solution there
    M = bg.BondGraph("mass")
    M.add(bg.Se("F", 1.0), bg.One("v"), bg.I("m", 1 - bg.t))
    M.connect("F", "v")
    M.connect("v", "m")
    model = bg.build(M)
    assert [d.label for d in model.equations.divisors] == [
        "coefficient of der(mass/m.f) (elements mass/m)"]
    with pytest.raises(bg.SimulationError) as exc, \
            pytest.warns(bg.errors.SingularityWarning, match="ill-conditioned"):
        bg.simulate(model, (0, 2), progress=False)
    err = exc.value
    assert err.time == pytest.approx(1.0, abs=1e-9)
    msg = str(err)
    assert "coefficient of der(mass/m.f) (elements mass/m)" in msg


@pytest.mark.parametrize("method", ["LSODA", "CVODE"])
def test_first_step_longer_than_a_segment_between_restarts(method):
    M = bg.BondGraph("cart")
    M.add(bg.MSe("F", bg.Input("force")), bg.One("v"), bg.I("m", 1.0))
    M.connect("F", "v")
    M.connect("v", "m")
    res = bg.simulate(bg.build(M), (0, 1), first_step=0.5, method=method, rtol=1e-10, atol=1e-12,
                      inputs={"force": bg.Table([0, 0.1, 1], [0, 1, 1])}, progress=False)
    assert res["cart/m.f"][-1] == pytest.approx(0.05 + 0.9, rel=1e-8)   # ∫F dt


def test_per_state_atol_with_energy_integrals():
    M = bg.BondGraph("drag")
    M.add(bg.Se("F", 1.0), bg.One("v"), bg.I("m", 1.0), bg.R("b", 1.0))
    for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
        M.connect(a, b)
    res = bg.simulate(bg.build(M), (0, 2), atol=np.array([1e-12]), rtol=1e-10, energy=True,
                      progress=False)
    assert bg.power_balance(res).relative < 1e-8
