"""Hybrid models (the Toshiba hybrid-simulation patent): modes, guards, the switching table, events, external control.

The seed's example — an air cylinder with a valve, a piston and a spring, the
valve switched by ``Right`` / ``Left`` events — is checked against the
closed-form solution of each phase (a damped oscillator under a constant
force), with the switching instants found from those closed forms.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from bondgraph import MSe, BondGraph, C, I, Input, One, R, SimulationError, ParameterError
from bondgraph.hybrid import (Above, At, Below, Controller, Discrete, Exceeds, HybridModel, Transition,
                              When, hysteresis, simulate_hybrid)

# air cylinder: 6 bar on a 32 mm piston, moving mass, return spring, damping
P_SUPPLY, BORE = 6e5, 0.032
AREA = math.pi * BORE**2 / 4
F_AIR = P_SUPPLY * AREA          # 482.5 N
M, K, D = 0.5, 2000.0, 20.0
X_RIGHT, X_LEFT = 0.15, 0.05     # limit switches


def air_cylinder(transitions, initial="Right"):
    valve = Discrete("valve", {"Left": -1.0, "Right": 1.0}, initial=initial)
    bg = BondGraph("air")
    piston = One("piston", displacement="x")
    bg.add(piston, I("m", M), C.spring("spring", K), R("damper", D),
           MSe("air", F_AIR * valve.symbol))
    for el in ("m", "spring", "damper"):
        bg.connect("piston", el)
    bg.connect("air", "piston")
    return HybridModel.build(bg, [valve], transitions)


LIMITS = [Transition("valve", "Right", "Left", Above("air/piston.x", X_RIGHT), name="Left"),
          Transition("valve", "Left", "Right", Below("air/piston.x", X_LEFT), name="Right")]


def phase(F, x0, v0):
    """Closed form of m·ẍ + d·ẋ + k·x = F from (x0, v0): x(τ), v(τ)."""
    wn = math.sqrt(K / M)
    z = D / (2 * math.sqrt(K * M))
    wd = wn * math.sqrt(1 - z * z)
    xs = F / K
    a = x0 - xs
    b = (v0 + z * wn * a) / wd

    def x(tau):
        return xs + np.exp(-z * wn * tau) * (a * np.cos(wd * tau) + b * np.sin(wd * tau))

    def v(tau):
        e = np.exp(-z * wn * tau)
        return e * (-z * wn * (a * np.cos(wd * tau) + b * np.sin(wd * tau))
                    + wd * (-a * np.sin(wd * tau) + b * np.cos(wd * tau)))
    return x, v


def analytic(t_end):
    """Switching times and a piecewise closed-form trajectory."""
    t0, x0, v0, F = 0.0, 0.0, 0.0, F_AIR
    pieces, switches = [], []
    while t0 < t_end:
        x, v = phase(F, x0, v0)
        target, sign = (X_RIGHT, 1) if F > 0 else (X_LEFT, -1)
        g = lambda tau: sign * (x(tau) - target)  # noqa: E731
        grid = np.linspace(1e-9, t_end - t0, 20001)
        vals = g(grid)
        idx = np.flatnonzero((vals[:-1] < 0) & (vals[1:] >= 0))
        if not idx.size:
            pieces.append((t0, t_end, x, v))
            break
        tau = brentq(g, grid[idx[0]], grid[idx[0] + 1], xtol=1e-15, rtol=1e-15)
        pieces.append((t0, t0 + tau, x, v))
        switches.append((t0 + tau, "Left" if F > 0 else "Right"))
        t0, x0, v0, F = t0 + tau, float(x(tau)), float(v(tau)), -F
    return switches, pieces


def at(pieces, t):
    for a, b, x, v in pieces:
        if a <= t <= b:
            return float(x(t - a)), float(v(t - a))
    raise AssertionError(t)


@pytest.mark.parametrize("method", ["LSODA", "CVODE"])
def test_air_cylinder_matches_each_phase(method):
    hm = air_cylinder(LIMITS)
    T = 0.6
    switches, pieces = analytic(T)
    assert len(switches) >= 4  # several Right/Left cycles
    t_eval = np.linspace(0, T, 241)
    res = simulate_hybrid(hm, (0, T), method=method, rtol=1e-11, atol=1e-13, t_eval=t_eval)
    got = [(r.time, r.target) for r in res.transitions]
    assert [g[1] for g in got] == [s[1] for s in switches]
    for (tg, _), (ts, _) in zip(got, switches):
        assert abs(tg - ts) < 1e-7
    for ti, xi, vi in zip(res.t, res["air/piston.x"], res["air/m.f"]):
        xr, vr = at(pieces, ti)
        assert abs(xi - xr) < 1e-7 * 0.25 and abs(vi - vr) < 1e-6 * 3.0
    # the air force follows the mode sample by sample
    F = res.effort("air/air")
    assert np.allclose(F, np.where(res.mode("valve") == "Right", F_AIR, -F_AIR))


def test_mode_table_lists_each_mode_with_its_equation_of_motion():
    hm = air_cylinder(LIMITS)
    table = hm.table()
    text = str(table)
    assert "2 modes, 2 transitions" in text
    right = " ".join(table.equations(valve="Right"))
    left = " ".join(table.equations(valve="Left"))
    assert "+ 965.09" in right and "- 965.09" in left     # ±F_air/m
    assert "der(air/piston.x) = air/m.f" in table.common
    assert "→ valve=Left when air/piston.x > 0.15" in text
    assert "→ valve=Right when air/piston.x < 0.05" in text


def test_timed_events_and_log():
    """'Right'/'Left' events issued at given times (the valve operating schedule)."""
    tr = [Transition("valve", "Right", "Left", At(0.1, 0.3)),
          Transition("valve", "Left", "Right", At(0.2))]
    hm = air_cylinder(tr)
    res = simulate_hybrid(hm, (0, 0.4), rtol=1e-10, atol=1e-12)
    assert [(round(r.time, 12), r.target) for r in res.transitions] == \
        [(0.1, "Left"), (0.2, "Right"), (0.3, "Left")]
    # closed form through the first switch
    x, v = phase(F_AIR, 0.0, 0.0)
    i = np.flatnonzero(res.t <= 0.1)[-1]
    assert abs(res["air/piston.x"][i] - x(res.t[i])) < 1e-8


def test_controller_issues_external_events_and_sets_inputs():
    """A sampled controller (the machine's control software) commands the valve mode."""
    valve = Discrete("valve", {"Left": -1.0, "Right": 1.0}, initial="Left")
    bg = BondGraph("ext")
    bg.add(One("piston", displacement="x"), I("m", M), C.spring("spring", K), R("damper", D),
           MSe("air", Input("p_supply") * AREA * valve.symbol))
    for el in ("m", "spring", "damper"):
        bg.connect("piston", el)
    bg.connect("air", "piston")
    hm = HybridModel.build(bg, [valve], [])

    def control(t, y):
        return {"valve": "Right" if t >= 0.05 else "Left", "p_supply": P_SUPPLY}

    res = simulate_hybrid(hm, (0, 0.2), controller=Controller(control, ["p_supply"], period=0.01),
                          rtol=1e-10, atol=1e-12)
    assert [(round(r.time, 9), r.target, r.cause) for r in res.transitions] == \
        [(0.05, "Right", "controller")]
    x, _ = phase(F_AIR, 0.0, 0.0)
    i = len(res.t) - 1
    x_l, v_l = phase(-F_AIR, 0.0, 0.0)
    x5, v5 = float(x_l(0.05)), float(v_l(0.05))
    x_r, _ = phase(F_AIR, x5, v5)
    assert abs(res["ext/piston.x"][i] - x_r(0.15)) < 1e-8
    assert res["p_supply"][-1] == P_SUPPLY


def test_discrete_pi_controller_tracks_a_setpoint():
    bg = BondGraph("servo")
    bg.add(One("v", displacement="x"), I("m", 1.0), R("b", 5.0), MSe("F", Input("force")))
    for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
        bg.connect(a, b)
    hm = HybridModel.build(bg, [], [])
    state = {"i": 0.0}
    h = 0.005

    def pi(t, y):
        e = 0.3 - y["servo/v.x"]
        state["i"] += e * h
        return {"force": 200.0 * e + 600.0 * state["i"] - 20.0 * y["servo/m.f"]}

    res = simulate_hybrid(hm, (0, 4.0), controller=Controller(pi, ["force"], period=h),
                          method="CVODE", rtol=1e-8, atol=1e-10)
    assert abs(res["servo/v.x"][-1] - 0.3) < 1e-3
    assert res.stats["segments"] >= 4.0 / h - 1


def servo() -> HybridModel:
    """A unit mass pushed by the input 'force' (states servo/v.x, servo/m.f)."""
    bg = BondGraph("servo")
    bg.add(One("v", displacement="x"), I("m", 1.0), MSe("F", Input("force")))
    bg.connect("F", "v")
    bg.connect("v", "m")
    return HybridModel.build(bg, [], [])


def test_continuous_controller():
    hm = servo()
    # u = −k·x − c·v: a critically damped oscillator x(t) = (1 + ωt)·e^{−ωt}
    w = 3.0
    ctl = Controller(lambda t, y: {"force": -w * w * y["servo/v.x"] - 2 * w * y["servo/m.f"]},
                     ["force"])
    res = simulate_hybrid(hm, (0, 2.0), x0={"servo/v.x": 1.0}, controller=ctl, rtol=1e-10,
                          atol=1e-12, t_eval=np.array([2.0]))
    assert abs(res["servo/v.x"][-1] - (1 + 2 * w) * math.exp(-2 * w)) < 1e-7


def test_dithering_command_with_hysteresis_and_dwell_is_bounded():
    """A command dithering at 200 Hz around the switching threshold must not stall."""
    valve = Discrete("valve", {"Left": -1.0, "Right": 1.0}, initial="Left")
    bg = BondGraph("dither")
    bg.add(One("piston", displacement="x"), I("m", M), C.spring("spring", K), R("damper", D),
           MSe("air", F_AIR * valve.symbol))
    for el in ("m", "spring", "damper"):
        bg.connect("piston", el)
    bg.connect("air", "piston")
    tr = hysteresis("valve", "Left", "Right", "cmd", 0.5, band=0.02, dwell=0.02)
    hm = HybridModel.build(bg, [valve], tr, signals=["cmd"])
    cmd = lambda t: 0.5 + 0.05 * math.sin(2 * math.pi * 200 * t)  # noqa: E731
    res = simulate_hybrid(hm, (0, 1.0), signals={"cmd": cmd}, rtol=1e-8, atol=1e-10)
    assert len(res.transitions) > 10          # it does switch, repeatedly
    assert res.events_per_second() <= 1 / 0.02 + 1
    assert res.t[-1] == pytest.approx(1.0)


def test_zeno_chattering_is_detected():
    """Bang-bang on the sign of the velocity with no band: detected, not a hang."""
    s = Discrete("s", {"neg": -1.0, "pos": 1.0}, initial="pos")
    bg = BondGraph("zeno")
    bg.add(One("v"), I("m", 1.0), MSe("F", -1.0 * s.symbol + 0.5))
    bg.connect("F", "v")
    bg.connect("v", "m")
    tr = [Transition("s", "pos", "neg", Below("zeno/m.f", 0.0)),
          Transition("s", "neg", "pos", Above("zeno/m.f", 0.0))]
    hm = HybridModel.build(bg, [s], tr)
    with pytest.raises(SimulationError, match="chattering"):
        simulate_hybrid(hm, (0, 5.0), x0={"zeno/m.f": 1.0}, rtol=1e-8, atol=1e-10)


def test_errors_name_the_culprits():
    valve = Discrete("valve", {"Left": -1.0, "Right": 1.0})
    bg = BondGraph("e")
    bg.add(One("v"), I("m", 1.0), MSe("F", valve.symbol))
    bg.connect("F", "v")
    bg.connect("v", "m")
    with pytest.raises(ParameterError) as err:
        HybridModel.build(bg, [valve], [
            Transition("valve", "Up", "Left", Above("e/m.f", 1.0)),
            Transition("valf", "Left", "Right", Above("e/m.f", 1.0)),
            Transition("valve", "Left", "Right", Above("e/m.g", 1.0))])
    msg = str(err.value)
    assert "no mode 'Up'" in msg and "no discrete variable 'valf'" in msg and "'e/m.g'" in msg
    with pytest.raises(ParameterError, match="at least 2"):
        Discrete("x", ["only"])


def _bouncer():
    """A ball dropped from 1 m (states ball/v.h, ball/m.f) and its logical phase variable."""
    hit = Discrete("phase", ["fly", "fly2"])
    bg = BondGraph("ball")
    bg.add(One("v", displacement="h", initial=1.0), I("m", 1.0), MSe("g", -9.81 + 0 * hit.symbol))
    bg.connect("g", "v")
    bg.connect("v", "m")
    return HybridModel.build(bg, [hit], []), hit


def test_when_guard_and_reset():
    """A bouncing ball: a custom guard and a state reset (restitution 0.5)."""
    hm0, hit = _bouncer()
    ih = hm0.model.state_index("ball/v.h")
    iv = hm0.model.state_index("ball/m.f")

    def reset(t, x):
        x = x.copy()
        x[iv] *= -0.5
        return x

    tr = [Transition("phase", "*", "fly2", When(lambda t, x: -x[ih], "h < 0"), reset=reset),
          Transition("phase", "*", "fly", When(lambda t, x: -x[ih], "h < 0"), reset=reset)]
    hm = HybridModel(hm0.model, [hit], tr)
    res = simulate_hybrid(hm, (0, 1.2), rtol=1e-10, atol=1e-12)
    t1 = math.sqrt(2 / 9.81)
    v1 = 9.81 * t1 * 0.5
    assert res.transitions[0].time == pytest.approx(t1, abs=1e-8)
    assert res.transitions[1].time == pytest.approx(t1 + 2 * v1 / 9.81, abs=1e-7)


# ---------------------------------------------------------------- short guards (issue 10)
# An undamped oscillator x = A·sin(ωt) (1 Hz). The guard x > A·cos(ω·τ/2) holds for exactly
# τ = 0.58 ms around each maximum, at t_k = (π/2 + 2πk ∓ ωτ/2)/ω: 3 periods, 6 switches.
# Each switch turns a 1 N force on a separate 1 kg mass on or off, so that mass ends at
# v = 3·τ·1 N/1 kg. The integrators' steps (~5–10 ms here) are much longer than τ: a sign
# test at step ends alone sees none of these (Radau 2, LSODA/BDF/CVODE 0 of 6 before).
SG_A, SG_TAU, SG_W = 1.0, 0.58e-3, 2 * math.pi


def short_guard_model():
    flag = Discrete("flag", ["off", "on"])
    bg = BondGraph("osc")
    bg.add(One("v"), I("m", 1.0, initial=SG_A * SG_W), C("k", 1 / SG_W**2, state="energy"),
           One("w"), I("M", 1.0), MSe("F", flag.symbol))
    for a, b in [("v", "m"), ("v", "k"), ("F", "w"), ("w", "M")]:
        bg.connect(a, b)
    th = SG_A * math.cos(SG_W * SG_TAU / 2)
    return HybridModel.build(bg, [flag], [Transition("flag", "off", "on", Above("osc/k.q", th)),
                                          Transition("flag", "on", "off", Below("osc/k.q", th))])


@pytest.mark.parametrize("method", ["Radau", "LSODA", "BDF", "CVODE"])
def test_a_guard_true_for_half_a_millisecond_is_caught_by_every_method(method):
    hm = short_guard_model()
    res = simulate_hybrid(hm, (0, 3.0), method=method, rtol=1e-10, atol=1e-12)
    ref = sorted((math.pi / 2 + 2 * math.pi * k + s * SG_W * SG_TAU / 2) / SG_W
                 for k in range(3) for s in (-1, 1))
    assert [r.target for r in res.transitions] == ["on", "off"] * 3
    # the guard is nearly tangent to the peak: a state error δx moves a switch by δx/ẋ with
    # ẋ = A·ω·sin(ωτ/2) ≈ 0.011 m/s, so ~1e-8 m of integration error is ~1e-6 s
    assert np.max(np.abs(np.array([r.time for r in res.transitions]) - ref)) < 5e-6
    assert res["osc/M.f"][-1] == pytest.approx(3 * SG_TAU, rel=0.02)
    assert res.stats["steps"] < 3.0 / SG_TAU      # with steps longer than the guard


def test_a_short_guard_is_caught_by_a_user_event_too():
    from bondgraph import simulate
    hm = short_guard_model()
    th = SG_A * math.cos(SG_W * SG_TAU / 2)
    iq = hm.model.state_index("osc/k.q")

    def peak(t, x):
        return x[iq] - th
    res = simulate(hm.model, (0, 3.0), rtol=1e-10, atol=1e-12, events=[peak], progress=False)
    ref = sorted((math.pi / 2 + 2 * math.pi * k + s * SG_W * SG_TAU / 2) / SG_W
                 for k in range(3) for s in (-1, 1))
    assert np.max(np.abs(res.events[0] - ref)) < 5e-6


# ---------------------------------------------------------------- user functions that fail

def test_a_guard_that_raises_is_named_with_time_state_and_partial_results():
    hm0, hit = _bouncer()
    ih = hm0.model.state_index("ball/v.h")

    def ground(t, x):
        if t > 0.2:
            raise ZeroDivisionError("sensor lost")
        return -x[ih]
    hm = HybridModel(hm0.model, [hit], [Transition("phase", "*", "fly2", When(ground, "h < 0"),
                                                   name="bounce")])
    from bondgraph.errors import UserCallableError
    with pytest.raises(UserCallableError) as exc:
        simulate_hybrid(hm, (0, 1.0), rtol=1e-10, atol=1e-12)
    err = exc.value
    msg = str(err)
    assert "guard of transition 'bounce' (h < 0)" in msg and "function 'test_a_guard_that_raises" in msg
    assert "ZeroDivisionError: sensor lost" in msg and isinstance(err.original, ZeroDivisionError)
    assert err.time > 0.2 and "ball/v.h" in err.state
    assert err.results is not None and 0 < err.results.t[-1] <= err.time


def test_a_controller_that_raises_or_returns_nonsense_is_named():
    from bondgraph.errors import UserCallableError
    hm = servo()

    def broken(t, y):
        if t > 0.05:
            raise KeyError("gain")
        return {"force": 1.0}

    def nan_force(t, y):
        return {"force": float("nan")}
    for fn, period, text in ((broken, 0.01, "KeyError"), (broken, None, "KeyError"),
                             (nan_force, 0.01, "'force' = nan"), (nan_force, None, "'force' = nan")):
        with pytest.raises(UserCallableError) as exc:
            simulate_hybrid(hm, (0, 1.0), controller=Controller(fn, ["force"], period=period))
        msg = str(exc.value)
        assert "controller (inputs force)" in msg and text in msg and fn.__name__ in msg
        assert exc.value.results is not None and exc.value.state is not None


def test_a_reset_that_returns_the_wrong_shape_is_named():
    from bondgraph.errors import UserCallableError
    hm0, hit = _bouncer()
    ih = hm0.model.state_index("ball/v.h")
    hm = HybridModel(hm0.model, [hit], [Transition("phase", "*", "fly2",
                                                   When(lambda t, x: -x[ih], "h < 0"),
                                                   reset=lambda t, x: x[:1], name="bounce")])
    with pytest.raises(UserCallableError) as exc:
        simulate_hybrid(hm, (0, 1.0), rtol=1e-10, atol=1e-12)
    msg = str(exc.value)
    assert "reset of transition 'bounce'" in msg and "expected 2 finite state values" in msg
    assert exc.value.time == pytest.approx(math.sqrt(2 / 9.81), abs=1e-8)


def test_a_guard_whose_outputs_cannot_be_computed_is_named(monkeypatch):
    """A guard reading a model output where the outputs fail (a singular block met at an
    interpolated time): a named error with the time and partial results, not a raw
    FloatingPointError."""
    import bondgraph as bg
    from bondgraph.errors import UserCallableError

    sw = Discrete("sw", {"a": 0.0, "b": 1.0}, initial="a")
    M = bg.BondGraph("pushed")
    M.add(bg.MSe("F", 1.0 + 0 * sw.symbol), bg.One("v"), bg.I("m", 1.0), bg.R("r", 1.0))
    for a_, b_ in [("F", "v"), ("v", "m"), ("v", "r")]:
        M.connect(a_, b_)
    effort = next(n for n in bg.build(M).system.output_names if n.startswith("e["))
    hm = HybridModel.build(M, [sw], [Transition("sw", "a", "b", Above(effort, 1e9))])
    real = hm.model.system.outputs

    def failing(t, x):
        if t > 0.5:
            raise FloatingPointError("singular equations for der(pushed/m.f)")
        return real(t, x)
    monkeypatch.setattr(hm.model.system, "outputs", failing)
    with pytest.raises(UserCallableError) as exc:
        simulate_hybrid(hm, (0.0, 1.0), backend="python")
    err = exc.value
    assert effort in str(err) and "cannot be computed" in str(err)
    assert 0.5 < err.time <= 1.0 and err.results is not None and err.results.t[-1] <= err.time


def _race():
    """Two unit masses from rest: ``a`` pushed by 1 N, ``b`` by 3 N while behind and by
    -1 N once ahead (mode ``ahead``). Hand solution: v_a = t; b gets 0.5 m/s ahead of a at
    t = 0.25 s (3t = t + 0.5), then v_b = 1 - t, and a gets 0.5 m/s ahead of b at t = 0.75 s
    (t = 1 - t + 0.5); after that v_b = 0.25 + 3 (t - 0.75), so v_b(1) = 1."""
    s = Discrete("lead", {"behind": 0.0, "ahead": 1.0}, initial="behind")
    bg = BondGraph("race")
    bg.add(One("a"), I("ma", 1.0), MSe("Fa", 1.0), One("b"), I("mb", 1.0), MSe("Fb", 3.0 - 4.0 * s.symbol))
    for u, v in (("Fa", "a"), ("a", "ma"), ("Fb", "b"), ("b", "mb")):
        bg.connect(u, v)
    return HybridModel.build(bg, [s], [
        Transition("lead", "behind", "ahead", Exceeds("race/mb.f", "race/ma.f", 0.5)),
        Transition("lead", "ahead", "behind", Exceeds("race/ma.f", "race/mb.f", 0.5))])


@pytest.mark.parametrize("backend", ["native", "python"])
def test_a_quantity_exceeding_another_switches_at_the_hand_times(backend):
    """`Exceeds` compares two named quantities; the native driver evaluates it in C (a
    hybrid model whose guards are all of this kind stays native)."""
    res = simulate_hybrid(_race(), (0, 1.0), x0={"race/ma.f": 0.0, "race/mb.f": 0.0},
                          method="CVODE", rtol=1e-10, atol=1e-12, backend=backend)
    assert res.stats["backend"] == backend
    assert [(r.source, r.target) for r in res.transitions] == [("behind", "ahead"), ("ahead", "behind")]
    assert [r.time for r in res.transitions] == pytest.approx([0.25, 0.75], abs=1e-9)
    assert res["race/mb.f"][-1] == pytest.approx(1.0, abs=1e-8)
    assert res["race/ma.f"][-1] == pytest.approx(1.0, abs=1e-8)


def test_exceeds_margin_must_be_a_number():
    s = Discrete("lead", ["behind", "ahead"])
    bg = BondGraph("race")
    bg.add(One("a"), I("ma", 1.0), MSe("Fa", 1.0 + 0 * s.symbol))
    bg.connect("Fa", "a")
    bg.connect("a", "ma")
    with pytest.raises(ParameterError, match=r"guard margin nan, expected a finite number"):
        HybridModel.build(bg, [s], [Transition("lead", "behind", "ahead",
                                               Exceeds("race/ma.f", "race/ma.f", float("nan")))])


def test_outputs_after_the_run_use_each_samples_mode_and_name_non_finite_values():
    """Outputs read after a hybrid run take each sample's mode: the air source's effort is
    +F_AIR while the valve is Right and −F_AIR while Left (from the mode log, not from a
    run). A law evaluated outside its domain (√(t − 1) before 1 s) gives NaN outputs that
    are named in a warning, as for a plain run, not handed on silently."""
    import warnings

    import sympy as sp

    from bondgraph.errors import BondGraphWarning

    tr = [Transition("valve", "Right", "Left", At(0.1, 0.3)),
          Transition("valve", "Left", "Right", At(0.2))]
    hm = air_cylinder(tr)
    res = simulate_hybrid(hm, (0, 0.4), rtol=1e-8, atol=1e-10)
    (bond,) = [k for _, _, k in hm.model.graph.out_edges("air/air", keys=True)]
    sign = np.where(res.mode("valve") == "Right", 1.0, -1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert res.outputs()[f"e[{bond}]"] == pytest.approx(F_AIR * sign, rel=1e-12)
    assert set(res.mode("valve")) == {"Left", "Right"}

    sw = Discrete("sw", {"a": 1.0, "b": 2.0}, initial="a")
    M = BondGraph("z")
    M.add(MSe("src", sw.symbol * sp.sqrt(sp.Symbol("t") - 1)), One("j"), R("r", 2.0))
    M.connect("src", "j")
    M.connect("j", "r")
    zm = HybridModel.build(M, [sw], [Transition("sw", "a", "b", At(1.5))])
    zres = simulate_hybrid(zm, (0, 2), t_eval=[0, 0.5, 1, 1.25, 2])
    with pytest.warns(BondGraphWarning, match=r"not finite at 2 of 5 output times, from t = 0 s"):
        out = zres.outputs()
    (b1,) = [k for _, _, k in zm.model.graph.out_edges("z/src", keys=True)]
    assert out[f"e[{b1}]"][2:] == pytest.approx([0.0, 0.5, 2.0 * 1.0])   # sw·√(t − 1)


def test_a_controllers_until_ends_the_run_as_a_run_to_that_sample_would():
    """``until`` ends the run at the first sample it is true at; the results are those of a
    run to that time (x = t²/2 under a unit force: 0.405 m at 0.9 s, 0.5 m at 1.0 s)."""
    push = dict(fn=lambda t, y: {"force": 1.0}, inputs=["force"], period=0.1)
    seen = []

    def until(t, y):
        seen.append(round(t, 9))
        return y["servo/v.x"] > 0.45

    t_eval = np.linspace(0.0, 5.0, 51)
    short = simulate_hybrid(servo(), (0.0, 5.0), controller=Controller(**push, until=until), t_eval=t_eval,
                            rtol=1e-10, atol=1e-12)
    ref = simulate_hybrid(servo(), (0.0, 1.0), controller=Controller(**push), t_eval=t_eval[:11],
                          rtol=1e-10, atol=1e-12)
    assert seen == [round(0.1 * k, 9) for k in range(1, 11)]       # not at the first sample
    assert short.message == "ended by the controller at t = 1 s" and ref.message == "ok"
    np.testing.assert_allclose(short.t, ref.t, rtol=0, atol=1e-15)
    np.testing.assert_allclose(short["servo/v.x"], ref["servo/v.x"], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(short["servo/v.x"], 0.5 * short.t ** 2, rtol=1e-8, atol=1e-12)


def test_a_bad_until_is_refused_by_name():
    from bondgraph.errors import UserCallableError
    with pytest.raises(ParameterError, match="until = 3 is not callable"):
        Controller(lambda t, y: {}, ["force"], period=0.1, until=3)
    with pytest.raises(ParameterError, match="until given to a continuous controller"):
        Controller(lambda t, y: {}, ["force"], until=lambda t, y: True)

    def broken(t, y):
        raise KeyError("done")
    with pytest.raises(UserCallableError, match="its until.*KeyError"):
        simulate_hybrid(servo(), (0, 1.0), controller=Controller(lambda t, y: {"force": 1.0}, ["force"],
                                                                   period=0.1, until=broken))
