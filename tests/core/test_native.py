"""The native CVODE path (SUNDIALS driven from C) against the Python-callback path.

Both run the same CVODE (BDF, dense, analytic Jacobian) on the same compiled model;
the native one calls the generated functions by pointer. They must take the same
steps — equal RHS and Jacobian counts — and agree to 1e-9 relative on every model
here: plain models, tables and splines evaluated in C, energy integrals, mechanisms,
the excavator's hydraulics, hybrid models with located guard events, timed switches
and a sampled controller, and the co-simulation adapter. A run that fails natively
reports what the Python path reports, with the same partial results.
"""

from __future__ import annotations

import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

import bondgraph as bg
from bondgraph import ParameterError, SimulationError, simulate
from bondgraph.hybrid import (Above, At, Below, Controller, Discrete, HybridModel, Transition,
                              hysteresis, simulate_hybrid)
from bondgraph.native.driver import load_driver
from bondgraph.native.sundials import sundials_info
from bondgraph.signals import Spline, Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hydraulics"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))             # test_hybrid
sys.path.insert(0, str(Path(__file__).resolve().parent))                 # test_singular

REL = 1e-9


def _close(a: np.ndarray, b: np.ndarray) -> float:
    """Largest difference relative to the largest magnitude of each column."""
    scale = np.maximum(np.max(np.abs(b), axis=0), 1e-300)
    return float(np.max(np.abs(a - b) / scale)) if a.size else 0.0


def test_sundials_libraries_are_version_7_and_the_driver_loads():
    info = sundials_info()
    assert info.ok, info.reason
    assert info.version.startswith("7.")
    assert set(info.paths) >= {"sundials_core", "sundials_cvode", "sundials_nvecserial"}
    drv = load_driver()
    assert drv.ok, drv.reason
    assert drv.lib.bgn_abi_check() == 0       # a 32-bit sunindextype, as declared


# ---------------------------------------------------------------------------- plain models
def _msd_table():
    M = bg.BondGraph("msd")
    M.add(bg.MSe("F", bg.Input("force")), bg.One("v"), bg.I("m", 2.0),
          bg.C.spring("k", 50.0), bg.R("c", 0.8))
    for a, b in [("F", "v"), ("v", "m"), ("v", "k"), ("v", "c")]:
        M.connect(a, b)
    force = Table([0.0, 0.5, 1.0, 2.5, 4.0], [0.0, 3.0, 3.0, -2.0, 0.0])
    return bg.build(M), dict(inputs={"force": force}, t_eval=np.linspace(0, 4, 201))


def _motor():
    M = bg.BondGraph("motor")
    M.add(bg.Se("V", 12.0), bg.One("i"), bg.R("R", 1.2), bg.I("L", 2e-3), bg.GY("K", 0.05),
          bg.One("w"), bg.I("J", 2e-4), bg.R("b", 1e-5))
    for a, c in [("V", "i"), ("i", "R"), ("i", "L"), ("i", "K/1"), ("K/2", "w"), ("w", "J"), ("w", "b")]:
        M.connect(a, c)
    return bg.build(M), dict(t_span=(0.0, 0.3))          # every internal step reported


def _lifted_energy():
    from hyd_rigs import lifted_mass

    return lifted_mass(), dict(t_span=(0.0, 2.0), energy=True, t_eval=np.linspace(0, 2, 101),
                               rtol=1e-8, atol=1e-8)


def _boom_extension():
    from mechanisms import MechanismModel
    from mechanisms.examples import single_boom

    mm = MechanismModel.build(single_boom("extension"))
    lengths = {"boom_cyl": Spline([0.0, 1.0, 2.0], [3.2, 3.5, 3.3])}
    t = np.linspace(0, 2, 101)

    def run(backend):
        return mm.simulate_extensions(lengths, (0.0, 2.0), guess={"boom": 0.4}, t_eval=t,
                                      method="CVODE", rtol=1e-10, atol=1e-12, backend=backend,
                                      progress=False)
    return run


PLAIN = {"msd-table": _msd_table, "dc-motor": _motor, "lifted-mass-energy": _lifted_energy}


@pytest.mark.parametrize("case", sorted(PLAIN))
def test_native_and_python_paths_take_the_same_steps(case):
    model, kw = PLAIN[case]()
    kw = dict(kw)
    t_span = kw.pop("t_span", (0.0, 4.0))
    kw.setdefault("rtol", 1e-10)
    kw.setdefault("atol", 1e-12)
    py = simulate(model, t_span, method="CVODE", backend="python", progress=False, **kw)
    nat = simulate(model, t_span, method="CVODE", backend="native", progress=False, **kw)
    assert py.stats["backend"] == "python" and nat.stats["backend"] == "native"
    assert (nat.stats["nfev"], nat.stats["njev"]) == (py.stats["nfev"], py.stats["njev"])
    np.testing.assert_array_equal(nat.t, py.t)
    assert _close(nat.x, py.x) < REL
    assert nat.stats["steps"] > 0


@pytest.mark.parametrize("case", ["boom-extension"])
def test_native_and_python_agree_on_machines(case):
    run = {"boom-extension": _boom_extension}[case]()
    py, nat = run("python"), run("native")
    assert nat.stats["backend"] == "native"
    assert (nat.stats["nfev"], nat.stats["njev"]) == (py.stats["nfev"], py.stats["njev"])
    np.testing.assert_array_equal(nat.t, py.t)
    assert _close(nat.x, py.x) < REL


def test_auto_takes_the_native_path_with_cvode_and_python_otherwise():
    model, kw = _msd_table()
    auto = simulate(model, (0, 4), method="CVODE", progress=False, **kw)
    assert auto.stats["backend"] == "native"
    assert simulate(model, (0, 4), progress=False, **kw).stats["backend"] == "python"   # LSODA
    # a Python callable input: the Python path, chosen without being asked
    res = simulate(model, (0, 1), method="CVODE", inputs={"force": lambda t: math.sin(t)},
                   progress=False)
    assert res.stats["backend"] == "python"


def test_forcing_native_where_it_cannot_run_says_why():
    model, _ = _msd_table()
    with pytest.raises(ParameterError) as err:
        simulate(model, (0, 1), backend="native", inputs={"force": lambda t: t}, progress=False)
    assert "backend 'native'" in str(err.value) and "force" in str(err.value)
    with pytest.raises(ParameterError) as err:
        simulate(model, (0, 1), method="LSODA", backend="native", inputs={"force": 1.0},
                 progress=False)
    assert "CVODE only" in str(err.value)
    with pytest.raises(ParameterError, match="backend 'fast'"):
        simulate(model, (0, 1), backend="fast", inputs={"force": 1.0})


# ---------------------------------------------------------------------------- the step loop's rules
def _both(run):
    """``run(backend)`` on both paths: (results, error, warnings) of each; a failed run's
    results are its partial results."""
    out = []
    for backend in ("python", "native"):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            try:
                res, err = run(backend), None
            except SimulationError as exc:
                res, err = exc.results, exc
        out.append((res, err, [(w.category.__name__, str(w.message)) for w in rec]))
    return out


def _assert_same(py, nat, *, counts: bool = True) -> None:
    """The same run on both paths: the same failure (time, message, named state), the same
    warnings, results and transitions to 1e-9, and the same steps (RHS, Jacobian, steps)."""
    (rp, ep, wp), (rn, en, wn) = py, nat
    assert (en is None) == (ep is None), (ep, en)
    if ep is not None:
        assert type(en) is type(ep)
        assert en.time == pytest.approx(ep.time, rel=REL, abs=1e-12)
        assert str(en) == str(ep)
        assert list(en.state) == list(ep.state)
        assert np.allclose(list(en.state.values()), list(ep.state.values()), rtol=REL, atol=0)
    assert wn == wp
    assert rn.stats["backend"] == "native" and rp.stats["backend"] == "python"
    if counts:
        assert [rn.stats[k] for k in ("nfev", "njev", "steps")] == \
            [rp.stats[k] for k in ("nfev", "njev", "steps")]
    np.testing.assert_allclose(rn.t, rp.t, rtol=REL, atol=1e-12)
    assert _close(rn.x, rp.x) < REL
    if hasattr(rp, "transitions"):
        assert [(r.variable, r.source, r.target, r.cause) for r in rn.transitions] == \
            [(r.variable, r.source, r.target, r.cause) for r in rp.transitions]
        np.testing.assert_allclose([r.time for r in rn.transitions], [r.time for r in rp.transitions],
                                   rtol=REL, atol=1e-12)


def _one(name, law=None, *, initial=0.0, r=1.0):
    """ẋ = law(x, t) on a 1-junction whose displacement is x (an MSf into a resistor)."""
    M = bg.BondGraph(name)
    j = bg.One("j", displacement="x", initial=initial)
    M.add(bg.MSf("Q", law(j.displacement)), j, bg.R("r", r))
    M.connect("Q", "j")
    M.connect("j", "r")
    return bg.build(M)


def _vanishing_mass():
    M = bg.BondGraph("mass")
    M.add(bg.Se("F", 1.0), bg.One("v"), bg.I("m", 1 - bg.t))
    M.connect("F", "v")
    M.connect("v", "m")
    return bg.build(M)


def _coupled():
    import sympy as sp

    G = bg.BondGraph("cpl")
    G.add(bg.Se("F1", 0.0), bg.One("v1"), bg.I("m1", 0.0, prefer="state"), bg.Se("F2", 1.0),
          bg.One("v2"), bg.I("m2", 1.0, prefer="state"), bg.MTF("t1", sp.cos(bg.t)),
          bg.MTF("t2", 1.0 + 0 * bg.t), bg.Zero("z"), bg.One("vm"), bg.I("M", 2.0, prefer="dependent"))
    for a, b in [("F1", "v1"), ("v1", "m1"), ("F2", "v2"), ("v2", "m2"), ("v1", "t1/1"),
                 ("t1/2", "z"), ("v2", "t2/1"), ("t2/2", "z"), ("z", "vm"), ("vm", "M")]:
        G.connect(a, b)
    return bg.build(G)


def _osc(k=1.0):
    M = bg.BondGraph("osc")
    M.add(bg.One("v"), bg.I("m", 1.0, initial=1.0), bg.C.spring("k", k))
    M.connect("v", "m")
    M.connect("v", "k")
    return bg.build(M)


def _rule_cases():
    """Name → (model factory, simulate keywords): the models of test_failures.py and
    test_singular.py, run with CVODE, and a step-size underflow."""
    import sympy as sp

    from test_failures import growth as _growth
    from test_singular import crank

    tight = dict(rtol=1e-8, atol=1e-10)
    return {
        "R5-finite-time-blow-up": (lambda: _one("blow", lambda x: sp.exp(50 * x), r=2.0),
                                   dict(t_span=(0, 1), **tight)),
        "R5-blow-up-with-outputs": (lambda: _one("blow", lambda x: sp.exp(50 * x), r=2.0),
                                    dict(t_span=(0, 1), t_eval=np.linspace(0, 1, 41), **tight)),
        "R5-growth-past-the-bound": (_growth, dict(t_span=(0, 10), **tight)),
        "R5-blowup-option": (_growth, dict(t_span=(0, 10), blowup=1e3, **tight)),
        "R1-law-turning-non-finite": (lambda: _one("sq", lambda x: sp.sqrt(1 - bg.t)),
                                      dict(t_span=(0, 2), **tight)),
        "R2-step-size-underflow": (lambda: _one("st", lambda x: -1 / x, initial=1.0),
                                   dict(t_span=(0, 1), rtol=1e-8, atol=1e-12)),
        "R2-underflow-ignore": (lambda: _one("st", lambda x: -1 / x, initial=1.0),
                                dict(t_span=(0, 1), rtol=1e-8, atol=1e-12, singular="ignore")),
        "R10-max-steps": (_osc, dict(t_span=(0, 100), max_steps=50)),
        "R6-vanishing-mass": (_vanishing_mass, dict(t_span=(0, 2))),
        "R6-vanishing-mass-warn": (_vanishing_mass, dict(t_span=(0, 2), singular="warn")),
        "R6-dead-centre": (lambda: crank(False), dict(t_span=(0, 3), **tight)),
        "R6-dead-centres-warn": (lambda: crank(False), dict(t_span=(0, 0.5), singular="warn", **tight)),
        "R6-dead-centres-ignore": (lambda: crank(False), dict(t_span=(0, 0.5), singular="ignore", **tight)),
        "R6-ten-dead-centres-passed": (lambda: crank(True), dict(t_span=(0, 3), rtol=1e-10, atol=1e-12,
                                                                  t_eval=np.linspace(0, 3, 301))),
        "R0-divisor-zero-at-start": (lambda: crank(False), dict(t_span=(0, 1), x0={"crank/w.theta": 0.0,
                                                                                  "crank/m.f": 0.0})),
        "R6-coupled-block-singular": (_coupled, dict(t_span=(0, 3))),
        "first-step-longer-than-a-segment": (lambda: _msd_table()[0], dict(
            t_span=(0, 4), first_step=0.5, rtol=1e-10, atol=1e-12, inputs=_msd_table()[1]["inputs"])),
        "per-state-atol-with-energy": (lambda: _lifted_energy()[0], dict(
            t_span=(0, 1), energy=True, rtol=1e-8, atol=np.full(len(_lifted_energy()[0].state_names), 1e-8))),
    }


RULES = _rule_cases()


@pytest.mark.parametrize("case", sorted(RULES))
def test_the_step_loops_rules_give_the_same_run_on_both_paths(case):
    make, kw = RULES[case]
    model, kw = make(), dict(kw)
    t_span = kw.pop("t_span")
    py, nat = _both(lambda backend: simulate(model, t_span, method="CVODE", backend=backend,
                                             progress=False, **kw))
    _assert_same(py, nat)
    if case.startswith(("R0", "R1", "R2", "R5", "R10")) or case in ("R6-dead-centre", "R6-vanishing-mass",
                                                                     "R6-coupled-block-singular"):
        assert nat[1] is not None                  # these runs fail, on both paths
    if case.endswith("-warn"):
        assert any("crossed zero" in w[1] or "ill-conditioned" in w[1] for w in nat[2])


def test_the_wall_clock_guard_stops_a_native_run():
    start = time.perf_counter()
    with pytest.raises(SimulationError) as exc:
        simulate(_osc(1e6), (0, 1e6), method="CVODE", backend="native", rtol=1e-10, atol=1e-12,
                 timeout=0.3, max_steps=10**9, progress=False)   # ~2 µs a step: many
    assert time.perf_counter() - start < 5.0
    err = exc.value
    assert "wall-clock guard (timeout = 0.3 s" in str(err)
    assert 0 < err.time < 1e6 and err.results.t[-1] == pytest.approx(err.time)
    assert err.results.stats["backend"] == "native"


# ---------------------------------------------------------------------------- hybrid models
def _cart():
    push = Discrete("push", {"Left": -1.0, "Right": 1.0}, initial="Right")
    M = bg.BondGraph("cart")
    M.add(bg.MSe("F", 2.0 * push.symbol), bg.One("v", displacement="x"), bg.I("m", 1.0))
    M.connect("F", "v")
    M.connect("v", "m")
    hm = HybridModel.build(M, [push], [Transition("push", "Right", "Left", Above("cart/v.x", 1.0)),
                                       Transition("push", "Left", "Right", Below("cart/v.x", 0.0))])
    return hm, dict(t_span=(0.0, 9.0), rtol=1e-10, atol=1e-12)


def _relief():
    from components.hydraulics import EndStop, FixedPump, Friction, ReliefValve
    from hyd_rigs import drive_rig

    relief_mode = Discrete("relief", {"closed": 0.0, "relieving": 1.0})
    relief = ReliefValve(crack="200 bar", full="210 bar", q_rated="60 L/min", mode=relief_mode.symbol)
    model, _ = drive_rig(command=1.0, pump=FixedPump("20 cm^3/rev", "1500 rpm"), relief=relief,
                         x0=0.45, end_stop=EndStop(stiffness=1e8, damping=2e5),
                         friction=Friction(viscous=5e3), params={"relief": 0.0}, name="relief")
    tr = hysteresis("relief", "closed", "relieving", "relief/hyd/pu/C_P.e", 200e5, band=1e4)
    return HybridModel(model, [relief_mode], tr), dict(t_span=(0.0, 1.0), rtol=1e-7, atol=1e-6,
                                                       t_eval=np.linspace(0, 1, 101))


def _output_guard():
    """A guard on a model output (a bond effort computed in C) and a timed switch."""
    gate = Discrete("gate", {"open": 1.0, "shut": 0.0}, initial="open")
    M = bg.BondGraph("tank")
    M.add(bg.MSf("in", 2.0 * gate.symbol), bg.Zero("p"), bg.C("V", 0.5), bg.R("out", 1.5))
    for a, b in [("in", "p"), ("p", "V"), ("p", "out")]:
        M.connect(a, b)
    model = bg.build(M, {"gate": 1.0})
    eff = [n for n in model.system.output_names if n.startswith("e[")][0]
    trs = [Transition("gate", "open", "shut", Above(eff, 2.5)),
           Transition("gate", "shut", "open", At(1.5))]
    return HybridModel(model, [gate], trs), dict(t_span=(0.0, 3.0), rtol=1e-10, atol=1e-12)


def _sampled_pi():
    M = bg.BondGraph("servo")
    M.add(bg.One("v", displacement="x"), bg.I("m", 1.0), bg.R("b", 5.0), bg.MSe("F", bg.Input("force")))
    for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
        M.connect(a, b)
    hm = HybridModel.build(M, [], [])
    h = 0.01

    def make():
        state = {"i": 0.0}

        def pi(t, y):
            e = 0.3 - y["servo/v.x"]
            state["i"] += e * h
            return {"force": 200.0 * e + 600.0 * state["i"] - 20.0 * y["servo/m.f"]}
        return Controller(pi, ["force"], period=h)
    return hm, dict(t_span=(0.0, 1.0), rtol=1e-8, atol=1e-10, controller=make)


def _short_guard(t_eval=None):
    """test_hybrid's guard true for 0.58 ms around each peak of a 1 Hz oscillator: found by
    the slopes at the step ends (an extremum inside a step), six switches."""
    from test_hybrid import short_guard_model

    kw = dict(t_span=(0.0, 3.0), rtol=1e-10, atol=1e-12)
    if t_eval is not None:
        kw["t_eval"] = t_eval
    return short_guard_model(), kw


def _bounce():
    """A ball dropped from 1 m (bounces at 0.4515 s, then every half of the last flight:
    Zeno at 1.3546 s), its height guarded in C, its speed reset (restitution 0.5)
    by a Python function between segments; a discrete-variable guard counts the bounces."""
    phase = Discrete("phase", ["down", "up"], initial="down")
    count = Discrete("count", ["none", "some"])
    M = bg.BondGraph("ball")
    M.add(bg.One("v", displacement="h", initial=1.0), bg.I("m", 1.0),
          bg.MSe("g", -9.81 + 0 * phase.symbol + 0 * count.symbol))
    M.connect("g", "v")
    M.connect("v", "m")
    hm0 = HybridModel.build(M, [phase, count], [])
    ih, iv = hm0.model.state_index("ball/v.h"), hm0.model.state_index("ball/m.f")

    def rebound(t, x):
        y = np.array(x, dtype=float)
        y[iv] = -0.5 * y[iv]
        return y
    trs = [Transition("phase", "down", "up", Below("ball/v.h", 0.0), reset=rebound),
           Transition("phase", "up", "down", Below("ball/m.f", 0.0)),
           Transition("count", "none", "some", Above("phase", 0.5))]
    return HybridModel(hm0.model, [phase, count], trs), dict(t_span=(0.0, 1.2), rtol=1e-10, atol=1e-12)


def _controller_raises():
    """A sampled controller (called between native segments) that raises at t > 0.05: a
    UserCallableError naming it, on both paths alike."""
    from test_hybrid import servo

    def broken(t, y):
        if t > 0.05:
            raise KeyError("gain")
        return {"force": 1.0}
    return servo(), dict(t_span=(0.0, 1.0), rtol=1e-8, atol=1e-10,
                         controller=lambda: Controller(broken, ["force"], period=0.01))


HYBRID = {"sampled-controller-raises": _controller_raises, "cart-state-guards": _cart, "relief-valve": _relief, "output-guard-and-timed": _output_guard,
          "sampled-controller": _sampled_pi, "short-guard": _short_guard,
          "short-guard-with-outputs": lambda: _short_guard(np.linspace(0, 3, 1001)),
          "bounce-reset-and-discrete-guard": _bounce}


@pytest.mark.parametrize("case", sorted(HYBRID))
def test_hybrid_native_and_python_agree(case, monkeypatch):
    # The same steps after a restart at a located guard need the located time bit for bit:
    # the native path locates here with Brent on CVodeGetDky, as the Python path does. Its
    # own locator for guards on states (the roots of the step's polynomial, to an ulp of
    # Brent's, after which CVODE's restarted step sequence drifts by ~1e-6 s on both
    # paths alike) is checked against Brent and analytic times in test_native_events.py.
    from bondgraph.native.driver import Session

    monkeypatch.setattr(Session, "guard_polynomial", lambda self, events, i: None)
    hm, kw = HYBRID[case]()
    kw = dict(kw)
    t_span = kw.pop("t_span")
    ctl = kw.pop("controller", None)

    def run(backend):
        extra = {"controller": ctl()} if ctl else {}
        return simulate_hybrid(hm, t_span, method="CVODE", backend=backend, **kw, **extra)
    py, nat = _both(run)
    _assert_same(py, nat)
    assert nat[0].transitions or case.startswith("sampled-controller")
    assert (nat[1] is not None) == (case == "sampled-controller-raises")


def test_hybrid_guard_events_are_located_natively():
    """The cart's x = t² until x = 1 (t = 1), then x = 1 + 2τ − τ², back at 0 after
    τ = 1 + √2: switches at 1 and 2 + √2."""
    hm, kw = _cart()
    res = simulate_hybrid(hm, (0.0, 4.0), method="CVODE", backend="native", rtol=1e-10, atol=1e-12)
    assert [round(r.time, 7) for r in res.transitions] == [1.0, round(2 + math.sqrt(2), 7)]


def test_hybrid_native_needs_c_evaluable_guards():
    hm, kw = _cart()
    from bondgraph.hybrid import When

    hm2 = HybridModel(hm.model, list(hm.variables.values()),
                      [Transition("push", "Right", "Left", When(lambda t, x: x[0] - 1.0))])
    res = simulate_hybrid(hm2, (0.0, 2.0), method="CVODE", rtol=1e-8, atol=1e-10)
    assert res.stats["backend"] == "python"
    with pytest.raises(ParameterError, match="guard that needs Python"):
        simulate_hybrid(hm2, (0.0, 2.0), backend="native")


# ---------------------------------------------------------------------------- machines
def _machine_runs(name, mode, cycle=None, **kw):
    """A shipped machine's run on both paths (its stroke-end contact events are
    StateEvents, checked in C natively; the CLI's Ctrl-C flag is polled)."""
    from bondgraph.native import auto_backend
    from mechanisms.machine import DATA, Machine
    from mechanisms.machine.run import Interrupt

    m = Machine.from_file(DATA / f"{name}.toml", mode=mode)
    out = []
    for backend in ("python", "native"):
        with auto_backend(backend), warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            run = m.run(cycle, progress=False, interrupt=Interrupt(), **kw)
        out.append((run, [str(w.message) for w in rec]))
    return out


@pytest.mark.parametrize("name", ["excavator", "wheel_loader", "knuckle_crane", "excavator_mini"])
def test_shipped_machines_run_the_same_on_both_paths(name):
    (py, wp), (nat, wn) = _machine_runs(name, "valves")
    assert nat.results.stats["backend"] == "native" and py.results.stats["backend"] == "python"
    assert [nat.results.stats[k] for k in ("nfev", "njev", "steps")] == \
        [py.results.stats[k] for k in ("nfev", "njev", "steps")]
    np.testing.assert_array_equal(nat.results.t, py.results.t)
    assert _close(nat.results.x, py.results.x) < REL
    assert wn == wp and nat.contacts == py.contacts


def test_an_end_stop_contact_is_found_alike_on_both_paths():
    """test_machine_layer's 1e9 N on the boom: the stroke-end events (direction 0, not
    terminal) located natively by the same code, the same contacts reported."""
    from mechanisms.machine import Cycle

    cyc = Cycle("forces", [0, 0.1, 1.0], {"boom": [0, 1e9, 1e9], "arm": [0, 0, 0], "bucket": [0, 0, 0]},
                ("boom", "arm", "bucket"))
    (py, _), (nat, _) = _machine_runs("excavator", "forces", cyc)
    assert nat.results.stats["backend"] == "native"
    boom = [c for c in nat.contacts if c.function == "boom"]
    assert boom and boom[0].end == "outer" and boom[-1].ongoing
    assert [(c.function, c.end, c.ongoing, c.bounces) for c in nat.contacts] == \
        [(c.function, c.end, c.ongoing, c.bounces) for c in py.contacts]
    np.testing.assert_allclose([c.start for c in nat.contacts], [c.start for c in py.contacts], rtol=REL)
    np.testing.assert_allclose(nat.results.events[0], py.results.events[0], rtol=REL)
    np.testing.assert_array_equal(nat.results.events[1], py.results.events[1])
    assert _close(nat.results.x, py.results.x) < REL


# ---------------------------------------------------------------------------- co-simulation adapter
def _cosim(backend: str):
    from bondgraph.cosim import Cosimulation, Glue, Relations, TimeManager
    from bondgraph.cosim.model import ModelSubsystem
    from bondgraph.cosim.relations import PowerBond

    m_, c_, g_, beta, vol, q0 = 1000.0, 2e4, 9.81, 1.2e9, 2e-3, 1e-3
    area = math.pi * 0.05**2
    mech = bg.BondGraph("mech")
    mech.add(bg.MSe("F", bg.Input("F")), bg.Se("g", -m_ * g_), bg.One("v", displacement="x"),
             bg.I("m", m_), bg.R("c", c_))
    for a, b in [("F", "v"), ("g", "v"), ("v", "m"), ("v", "c")]:
        mech.connect(a, b)
    hyd = bg.BondGraph("hyd")
    hyd.add(bg.MSf("Q0", bg.Input("q")), bg.Zero("p"), bg.C("oil", vol / beta, initial=m_ * g_ / area),
            bg.R("leak", 1e12), bg.TF("area", 1 / area), bg.One("rod"), bg.MSf("motion", bg.Input("v")))
    for a, b in [("Q0", "p"), ("p", "oil"), ("p", "leak"), ("p", "area/1"), ("area/2", "rod"),
                 ("motion", "rod")]:
        hyd.connect(a, b)
    hm = bg.build(hyd)
    fb = next(k for u, v, k in hm.graph.edges(keys=True) if u == "hyd/area" and v == "hyd/rod")
    kw = dict(method="CVODE", backend=backend, rtol=1e-9, atol=1e-11)
    subs = [ModelSubsystem(bg.build(mech), "mech", inputs={"F": ("F", "N")},
                           outputs={"x": ("mech/v.x", "m"), "v": ("mech/m.f", "m/s")}, **kw),
            ModelSubsystem(hm, "hyd", inputs={"v": ("v", "m/s")},
                           outputs={"F": (f"e[{fb}]", "N"), "p": ("hyd/oil.e", "Pa")},
                           signals={"q": Table([0.0, 0.2, 0.5], [0.0, q0, q0])}, **kw)]
    rel = Relations(["mech.v -> hyd.v", "hyd.F -> mech.F"], bonds=[PowerBond(effort="hyd.F", flow="mech.v")])
    return Cosimulation(subs, rel, TimeManager(step=2e-3, end=0.5), Glue("quadratic", "reduced")), subs


def test_cosimulation_adapter_steps_natively_as_the_python_path_does():
    runs = {}
    for backend in ("python", "native"):
        sim, subs = _cosim(backend)
        runs[backend] = sim.run()
        assert all(bool(s._native) == (backend == "native") for s in subs)
    py, nat = runs["python"], runs["native"]
    for name in ("mech.x", "mech.v", "hyd.p", "hyd.F"):
        a, b = np.asarray(nat[name]), np.asarray(py[name])
        assert np.max(np.abs(a - b)) <= REL * np.max(np.abs(b)), name
    assert np.max(np.asarray(nat["mech.x"])) > 1e-3          # the piston did move


def test_without_the_driver_auto_falls_back_with_a_warning_and_native_says_why(monkeypatch):
    import bondgraph.native as native
    from bondgraph.native import driver

    model, kw = _msd_table()
    fake = driver.Driver(False, "no C compiler found (set $CC or install gcc)")
    monkeypatch.setattr(driver, "_DRIVER", [fake])
    monkeypatch.setattr(native, "_WARNED", set())
    with pytest.warns(RuntimeWarning, match="Python path: no C compiler"):
        res = simulate(model, (0, 4), method="CVODE", progress=False, **kw)
    assert res.stats["backend"] == "python"
    with pytest.raises(ParameterError, match="no C compiler found"):
        simulate(model, (0, 4), backend="native", progress=False, **kw)


def test_input_tables_belong_to_one_model_and_are_taken_back():
    """Two models built alike share one cached library; tables set for a run of one (even
    a run refused before it starts) never reach the other, nor the next run of the same."""
    (a, kw), (b, _) = _msd_table(), _msd_table()
    assert a.system.path == b.system.path
    a.system.set_native_inputs([Table([0.0, 1.0], [5.0, 5.0]).pack()], [-1])
    b.system.set_inputs(np.array([1.0]))
    x = np.array([0.0, 0.0])
    assert b.system.rhs(0.0, x)[0] == pytest.approx(1.0 / 2.0)      # F/m with b's own input
    a.system.set_native_inputs(None)
    with pytest.raises(ParameterError):                              # refused: driver missing
        simulate(a, (0, 1), method="LSODA", backend="native", progress=False, **kw)
    assert a.system.native_inputs_address == 0
    a.system.set_inputs(np.array([2.0]))
    assert a.system.rhs(0.0, x)[0] == pytest.approx(2.0 / 2.0)


@pytest.mark.parametrize("backend", ["python", "native"])
def test_a_flag_raised_before_the_run_stops_it_at_the_start(backend):
    """Ctrl-C before a run started: the flag shows no sign change (it is raised from the start),
    so it is looked at when each segment starts; the run ends at t0 with the event recorded."""
    from bondgraph.events import Flag
    from bondgraph.native import auto_backend

    stop = Flag()
    stop.requested = True
    with auto_backend(backend):
        res = bg.simulate(_osc(), (0.0, 1.0), events=[stop], method="CVODE", progress=False)
    assert res.t.tolist() == [0.0] and res.stopped
    assert res.events[0].tolist() == [0.0] and res.events[1].tolist() == [0]
