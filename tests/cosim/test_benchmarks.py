"""Benchmarks B1, B2, B3 against independent references (analytic, expm, solve_ivp)."""

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from bondgraph.cosim import (Cosimulation, CosimulationWarning, ErrorPolicy, Glue, TimeManager,
                             cosimulate)
from bondgraph.cosim import examples as ex
from bondgraph.errors import CosimulationError


# ------------------------------------------------------------------ references
def test_b1_reference_is_the_analytic_solution_of_the_ode():
    # The closed form must satisfy m x'' + c x' + k x = F0 sin(2 pi t) from rest:
    # compare with an independent numerical solution of the whole oscillator.
    p = ex.B1
    sol = solve_ivp(lambda t, y: [y[1], (p["F0"] * math.sin(p["Omega"] * t) - p["k"] * y[0]
                                         - p["c"] * y[1]) / p["m"]],
                    (0, 0.5), [0.0, 0.0], method="DOP853", rtol=1e-12, atol=1e-15,
                    dense_output=True)
    t = np.linspace(0, 0.5, 2001)
    assert np.abs(sol.sol(t)[0] - ex.b1_reference(t)).max() < 1e-10
    assert abs(np.abs(ex.b1_reference(np.linspace(0, 4, 400001))).max() - 4.081e-3) < 5e-7


def test_b2_reference_matches_a_monolithic_ode_solve():
    t = np.linspace(0, 0.3, 31)
    p = ex.B2

    def rhs(_, z):
        x1, v1, x2, v2 = z
        fc = p["kc"] * (x1 - x2) + p["dc"] * (v1 - v2)
        return [v1, (-p["k1"] * x1 - p["d1"] * v1 - fc) / p["m1"],
                v2, (-p["k2"] * x2 - p["d2"] * v2 + fc) / p["m2"]]
    sol = solve_ivp(rhs, (0, 0.3), [p["x10"], 0, 0, 0], method="DOP853", rtol=1e-12,
                    atol=1e-14, t_eval=t)
    assert np.abs(sol.y[[0, 2]].T - ex.b2_reference(t)).max() < 1e-9


def test_b3_reference_reproduces_the_quoted_values_at_one_second():
    x, v, p = ex.b3_reference()(1.0)
    qx, qv, qp = ex.B3_QUOTED
    assert abs(x - qx) < 1e-6 and abs(v - qv) < 1e-6 and abs(p - qp) < 1.0


# ------------------------------------------------------------------ B1
def b1_error(step, glue, **kw):
    res = cosimulate(list(ex.b1_subsystems()), ex.B1_RELATIONS, step=step, end=4.0, glue=glue,
                     **kw)
    return float(np.abs(res["mass.x"] - ex.b1_reference(res.time)).max()), res


def test_b1_zoh_at_1ms_is_reported_as_diverged():
    with pytest.raises(CosimulationError) as info:
        b1_error(1e-3, "zoh")
    err = info.value
    assert "divergence" in str(err) and "bond spring.F*mass.v: the coupling created" in str(err)
    res = err.results
    assert res.aborted and res.time[-1] == pytest.approx(err.time)
    # caught within the first tenth of a second, long before the 4 s end
    assert 0 < err.time <= 0.1
    # the partial data are the run up to the abort, finite and already far off
    assert np.all(np.isfinite(res.outputs))
    assert np.abs(res["mass.x"] - ex.b1_reference(res.time)).max() > 1e-3


@pytest.mark.slow
def test_b1_quadratic_errors_and_convergence():
    e1, res = b1_error(1e-3, "quadratic")
    assert res.status == "completed" and len(res) == 4001
    assert e1 <= 5e-5
    e01, _ = b1_error(1e-4, "quadratic")
    assert e01 <= 2e-6
    e005, _ = b1_error(5e-5, "quadratic")
    assert e01 / e005 >= 6


# ------------------------------------------------------------------ B2
@pytest.mark.parametrize("step,bound", [(1e-3, 1.5e-2), (5e-4, 2e-3)])
def test_b2_quadratic_jacobi(step, bound):
    res = cosimulate(list(ex.b2_subsystems()), ex.B2_RELATIONS, step=step, end=2.0,
                     glue="quadratic")
    assert ex.b2_error(res) <= bound


def test_b2_zoh_diverges_and_a_warning_level_lets_it_run_to_the_end():
    with pytest.warns(CosimulationWarning, match=r"bond side1\.F\*side2\.v: the coupling created"):
        res = cosimulate(list(ex.b2_subsystems()), ex.B2_RELATIONS, step=5e-4, end=2.0,
                         glue="zoh", policy=ErrorPolicy(divergence="warning"))
    assert res.status == "completed" and res.time[-1] == pytest.approx(2.0)
    assert [e.kind for e in res.events] == ["divergence"]
    assert ex.b2_error(res) > 0.5


@pytest.mark.parametrize("sequence", [("side1", "side2"), ("side2", "side1")])
def test_b2_gauss_seidel_converges_at_third_order(sequence):
    errs = []
    for step in (1e-3, 5e-4):
        sim = Cosimulation(list(ex.b2_subsystems()), ex.B2_RELATIONS,
                           TimeManager(step=step, end=2.0, scheme="gauss-seidel",
                                       sequence=sequence), Glue("quadratic"))
        errs.append(ex.b2_error(sim.run()))
    assert errs[0] <= 1.5e-2
    assert math.log2(errs[0] / errs[1]) > 2.7


# ------------------------------------------------------------------ B3
def b3_velocity_error(step, start="derivatives", subsystems=None, scheme="jacobi"):
    subs = subsystems or ex.b3_subsystems()
    sim = Cosimulation(list(subs), ex.B3_RELATIONS,
                       TimeManager(step=step, end=1.0, scheme=scheme), Glue("quadratic", start))
    res = sim.run()
    v_ref = ex.b3_reference()(res.time)[1]
    return float(np.abs(res["mech.v"] - v_ref).max() / np.abs(v_ref).max()), res


def test_b3_quadratic_at_1ms():
    err, res = b3_velocity_error(1e-3)
    assert err <= 1.2e-2
    # and the end state is close to the quoted reference
    assert res["mech.x"][-1] == pytest.approx(ex.B3_QUOTED[0], rel=1e-3)
    assert res["hyd.p"][-1] == pytest.approx(ex.B3_QUOTED[2], rel=1e-3)


def test_b3_derivative_start_gives_third_order():
    errs = [b3_velocity_error(h)[0] for h in (1e-3, 5e-4, 2.5e-4)]
    orders = [math.log2(errs[i] / errs[i + 1]) for i in range(2)]
    assert min(orders) >= 2.8


def test_b3_reduced_start_is_only_second_order():
    # without output derivatives the first steps run at reduced order: O(H^2) globally
    errs = [b3_velocity_error(h, start="reduced")[0] for h in (5e-4, 2.5e-4)]
    assert 1.8 < math.log2(errs[0] / errs[1]) < 2.3


def test_b3_with_ode_subsystems_matches_the_exact_steps():
    err_ode, res_ode = b3_velocity_error(1e-3, subsystems=ex.b3_ode_subsystems())
    assert err_ode <= 1.2e-2
    # same glue and start-up: the solve_ivp steps agree with the exact ones
    _, a = b3_velocity_error(1e-3, start="reduced", subsystems=ex.b3_ode_subsystems())
    _, b = b3_velocity_error(1e-3, start="reduced")
    assert np.abs(a["mech.v"] - b["mech.v"]).max() < 1e-8


def test_state_space_step_is_exact_for_a_quadratic_input():
    # independent check of the exact discretisation used by B2/B3
    mech, _ = ex.b3_subsystems()
    mech.setup(0.0, 1.0, 0.01)
    u0, u1, u2 = 1.2e4, -3e3, 5e4
    mech.set_inputs(0.0, np.array([u0]), np.array([[u1], [u2]]))
    mech.do_step(0.0, 0.01)
    p = ex.B3
    sol = solve_ivp(lambda t, y: [y[1], (u0 + u1 * t + u2 * t * t / 2 - p["m"] * p["g"]
                                         - p["c"] * y[1]) / p["m"]], (0, 0.01), [0.0, 0.0],
                    method="DOP853", rtol=1e-13, atol=1e-16)
    assert np.allclose(mech.get_outputs(), sol.y[:, -1], rtol=1e-9, atol=1e-14)
