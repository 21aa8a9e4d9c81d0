"""Solvers, events, inputs with corners, outputs and CSV."""

import csv
import math

import numpy as np
import pytest

import bondgraph as bg


def falling_mass():
    M = bg.BondGraph("fall")
    M.add(bg.Se("g", -9.81), bg.One("v", displacement="y", initial=10.0), bg.I("m", 1.0))
    M.connect("g", "v"); M.connect("v", "m")
    return bg.build(M)


@pytest.mark.parametrize("method", ["LSODA", "BDF", "Radau", "RK45", "CVODE"])
def test_every_method_agrees_with_the_analytic_fall(method):
    res = bg.simulate(falling_mass(), (0, 1), method=method, rtol=1e-10, atol=1e-12,
                      t_eval=np.linspace(0, 1, 11))
    assert np.allclose(res["fall/v.y"], 10.0 - 9.81 * res.t**2 / 2, atol=1e-8)
    assert list(res.t) == pytest.approx(list(np.linspace(0, 1, 11)))


@pytest.mark.parametrize("method", ["LSODA", "CVODE"])
def test_terminal_event_stops_at_ground_contact(method):
    model = falling_mass()
    iy = model.state_index("fall/v.y")

    def ground(t, x):
        return x[iy]
    ground.terminal = True
    ground.direction = -1
    res = bg.simulate(model, (0, 5), events=[ground], method=method, rtol=1e-10, atol=1e-12)
    assert res.stopped
    assert res.events[0][0] == pytest.approx(math.sqrt(2 * 10.0 / 9.81), rel=1e-8)
    assert res.t[-1] == pytest.approx(res.events[0][0], rel=1e-8)


def test_table_input_corners_are_integration_restarts():
    M = bg.BondGraph("ramp")
    M.add(bg.MSe("F", bg.Input("F")), bg.One("v", displacement="x"), bg.I("m", 2.0))
    M.connect("F", "v"); M.connect("v", "m")
    table = bg.Table([0, 1, 2, 3], [0, 4, 4, 0])
    res = bg.simulate(bg.build(M), (0, 3), inputs={"F": table}, rtol=1e-11, atol=1e-13)
    # the run restarted at t = 1 and t = 2 exactly
    assert np.any(np.isclose(res.t, 1.0, rtol=0, atol=1e-15)) and np.any(np.isclose(res.t, 2.0, rtol=0, atol=1e-15))
    v_end = (0.5 * 4 + 4 + 0.5 * 4) / 2.0  # impulse / m
    assert res["ramp/m.f"][-1] == pytest.approx(v_end, rel=1e-9)
    assert res["F"][-1] == pytest.approx(0.0)


@pytest.mark.parametrize("method", ["LSODA", "CVODE"])
def test_output_times_on_every_table_knot_appear_once(method):
    """A table with a corner at every requested output time: each segment restarts at
    a corner, and each requested time is reported exactly once, in order (a tiny
    first step lands within rounding of the first time; it must not be reported twice)."""
    M = bg.BondGraph("ramp")
    M.add(bg.MSe("F", bg.Input("F")), bg.One("v", displacement="x"), bg.I("m", 2.0))
    M.connect("F", "v"); M.connect("v", "m")
    knots = np.linspace(0, 0.5, 251)
    table = bg.Table(knots, np.sin(40 * knots))
    res = bg.simulate(bg.build(M), (0, 0.5), inputs={"F": table}, method=method,
                      rtol=1e-10, atol=1e-12, t_eval=knots, first_step=1e-14)
    assert np.array_equal(res.t, knots)


def test_outputs_bond_power_and_csv(tmp_path):
    M = bg.BondGraph("drag")
    M.add(bg.Se("F", 2.0), bg.One("v"), bg.I("m", 1.0), bg.R("b", 0.5))
    for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
        M.connect(a, b)
    res = bg.simulate(bg.build(M), (0, 2), t_eval=np.linspace(0, 2, 5), rtol=1e-10, atol=1e-12)
    v = res["drag/m.f"]
    assert np.allclose(res.flow("b"), v)
    assert np.allclose(res.effort("b"), 0.5 * v)
    assert np.allclose(res.power("b"), 0.5 * v**2)
    assert np.allclose(res.stored_energy("drag/m"), 0.5 * v**2)
    path = res.to_csv(tmp_path / "out" / "run.csv", columns=["drag/m.f", "e[drag/b3]"])
    rows = list(csv.reader(open(path)))
    assert rows[0] == ["time", "drag/m.f", "e[drag/b3]"]
    assert float(rows[-1][1]) == pytest.approx(v[-1], rel=1e-15)
    with pytest.raises(bg.UnknownNameError, match="did you mean"):
        res["drag/m.ff"]


def test_causal_report_names_the_forcing_path():
    from mechanisms.examples import single_boom

    model = bg.build(single_boom("force").bond_graph())
    rep = model.report
    J = next(d for d in rep.derivative if d.element.endswith("boom/J"))
    assert J.path[-1].startswith("boom_lift/boom/B.y (Pd: y (axial) flow-in")
    assert rep.states == ["boom_lift/boom_cyl_piston.f"]
    text = str(rep)
    assert "derivative causality (dependent storage):" in text and "conflicts" in rep.summary()


def _source_into_resistor():
    m = bg.BondGraph("sr")
    m.add(bg.MSe("s", bg.Input("u")), bg.R("r", 2.0), bg.One("j"))
    m.connect("s", "j")
    m.connect("j", "r")
    return bg.build(m)


@pytest.mark.parametrize("method, backend", [("CVODE", "auto"), ("CVODE", "python"), ("LSODA", "auto"),
                                             ("RK45", "auto")])
def test_a_model_without_states_runs_with_every_method(method, backend):
    """Nothing to integrate: the outputs at the output times, exactly the algebra (f = e/R);
    CVODE used to take an empty vector and crash the interpreter (a segmentation fault)."""
    model = _source_into_resistor()
    assert model.state_names == []
    t = np.linspace(0, 1, 11)
    res = bg.simulate(model, (0, 1), inputs={"u": lambda s: 3.0 * s}, method=method, backend=backend,
                      t_eval=t, progress=False)
    assert res.t.tolist() == t.tolist() and res.stats["backend"] == "none"
    np.testing.assert_allclose(res.flow("sr/b2"), 3.0 * t / 2.0, rtol=0, atol=1e-15)     # the bond into r


def test_a_model_without_states_refuses_what_it_cannot_do():
    model = _source_into_resistor()
    with pytest.raises(bg.ParameterError, match="no states: nothing is integrated, so events"):
        bg.simulate(model, (0, 1), inputs={"u": 1.0}, events=[lambda t, x: t - 0.5], progress=False)
    with pytest.raises(bg.ParameterError, match="backend 'native'.*no states"):
        bg.simulate(model, (0, 1), inputs={"u": 1.0}, method="CVODE", backend="native", progress=False)


def test_native_cvode_on_an_empty_vector_is_refused_not_a_crash():
    """The native entry point checks what C cannot (run in a child: a crash would kill it)."""
    import subprocess
    import sys

    code = ("import bondgraph as bg\n"
            "from bondgraph.native import driver\n"
            "m = bg.BondGraph('sr'); m.add(bg.Se('s', 1.0), bg.R('r', 2.0), bg.One('j'))\n"
            "m.connect('s', 'j'); m.connect('j', 'r'); model = bg.build(m)\n"
            "try:\n"
            "    driver.Session(driver.load_driver(), model.system)\n"
            "except bg.ParameterError as e:\n"
            "    print('refused:', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "refused: native CVODE on a model with no states" in out.stdout
