"""State events on the native path, located on CVODE's last-step polynomial by numpy.

A native step where a guard on states may cross (rule R7 of :mod:`bondgraph.stepping`) is
finished in Python; for a guard linear in the state the crossings and the extremum inside
the step are the real roots of the step's polynomial and of its derivative
(:mod:`bondgraph.native.steppoly`), not Brent's methods (scipy.optimize). Checked here
against independent references: analytic crossing times of models whose solution is known
(``x = t²``, ``x = t³``, ``x = ½·sin 2t``), a maximum just above / just below the level
inside one step (found / not found), the direction filter, the Python path's Brent on the
same runs, Brent on the native path's own steps (to ~1e-12 s), CVODE's own interpolation
(the polynomial read from the Nordsieck derivatives), and that such a run loads no
scipy.optimize.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

import bondgraph as bg
from bondgraph import simulate
from bondgraph.events import StateEvent
from bondgraph.native.driver import Session, load_driver
from bondgraph.native.steppoly import GuardPolynomial, guard_polynomial
from bondgraph.signals import Table

pytestmark = pytest.mark.skipif(not load_driver().ok, reason="no native CVODE driver here")

TIGHT = dict(method="CVODE", rtol=1e-12, atol=1e-14, progress=False)


def _cart():
    """2 N on 1 kg from rest: ``x = t²`` (exactly a polynomial of degree 2)."""
    M = bg.BondGraph("cart")
    M.add(bg.MSe("F", 2.0), bg.One("v", displacement="x"), bg.I("m", 1.0))
    M.connect("F", "v")
    M.connect("v", "m")
    return bg.build(M)


def _jerk():
    """A force ramp ``F = 6t`` (a table, evaluated in C) on 1 kg from rest: ``x = t³``."""
    M = bg.BondGraph("jerk")
    M.add(bg.MSe("F", bg.Input("force")), bg.One("v", displacement="x"), bg.I("m", 1.0))
    M.connect("F", "v")
    M.connect("v", "m")
    return bg.build(M), {"force": Table([0.0, 10.0], [0.0, 60.0])}


def _oscillator():
    """1 kg on a 4 N/m spring, 1 m/s at x = 0: ``x = ½·sin 2t`` (peaks ½ at π/4 + kπ)."""
    M = bg.BondGraph("osc")
    M.add(bg.One("v", displacement="x"), bg.I("m", 1.0, initial=1.0), bg.C.spring("k", 4.0))
    M.connect("v", "m")
    M.connect("v", "k")
    return bg.build(M)


def _events_of(res, k: int) -> np.ndarray:
    te, ie = res.events[0], res.events[1]
    return np.asarray(te[ie == k], dtype=float)


@pytest.fixture
def brent(monkeypatch):
    """The native path with Brent's methods on CVodeGetDky (the locator before the polynomial)."""
    def use():
        monkeypatch.setattr(Session, "guard_polynomial", lambda self, events, i: None)
    return use


# ---------------------------------------------------------------------------- the polynomial itself
def test_the_steps_polynomial_is_cvodes_own_interpolant_on_the_last_step():
    """``Σ d_k (t − tn)^k / k!`` from bgn_taylor equals CVodeGetDky(t, 0) inside the step,
    the step Python finishes is [tn − hu, tn], and the degree is the step's order."""
    from bondgraph.native.cvode import native_session
    from bondgraph.stepping import Watch, run_segment

    model = _oscillator()
    session = native_session(model, "native", "CVODE", subject="osc")
    x0 = model.initial_state()
    checked = 0
    for b in (0.37, 1.91, 4.2):      # a few steps of different orders and lengths
        watch = Watch(model, 0.0, b, x0, method="CVODE", timeout=None, blowup=None,
                      singular="ignore", max_steps=100_000)
        session.attach(watch)
        run_segment("CVODE", None, None, 0.0, b, x0, watch, rtol=1e-9, atol=1e-12,
                    max_step=np.inf, first_step=None, native=session)
        tn, hu, d = session.taylor()
        assert 1 <= len(d) - 1 <= 5 and d.shape[1] == session.n
        assert session.t_old == pytest.approx(tn - hu, abs=4 * np.spacing(tn))
        assert session.t == pytest.approx(tn, abs=4 * np.spacing(tn))
        for s in np.linspace(tn - hu, tn, 7):
            poly = sum(d[k] * (s - tn) ** k / math.factorial(k) for k in range(len(d)))
            ref = session(s)
            assert np.max(np.abs(poly - ref)) <= 1e-14 * max(1.0, np.max(np.abs(ref)))
            checked += 1
        # and the guard polynomial evaluates the guard as the driver does (bgn_guards)
        session.set_guards([("state", 0, -1.0, 0.1, 0.0, 0.0, 0)])
        g = guard_polynomial(session._guard_specs[0], tn, hu, d)
        for s in (tn - hu, tn - 0.3 * hu, tn):
            assert g(s) == pytest.approx(float(session.guard_values(s, session(s))[0]), abs=1e-15)
    assert checked == 21


def test_guard_polynomials_of_states_and_constants_only():
    d = np.array([[1.0, 3.0], [2.0, -1.0], [2.0, 0.0]])     # x = t², y = 4 − t about tn = 1
    # x − y − 0 crosses where t² = 4 − t: t = (−1 + √17)/2 = 1.5616 (outside [0.5, 1]); in
    # [1, 2] (the polynomial extrapolated, as a check of the algebra only)
    g = guard_polynomial(("state", 0, 1.0, 0.0, 0.0, 0.0, 0, "state", 1, 0.0), 1.0, 0.5, d)
    assert g.root(1.0, 2.0) == pytest.approx((-1 + math.sqrt(17)) / 2, rel=1e-15)
    # a constant, a sign, a tolerance: −(x − 0.36) − 0 = 0 at t = 0.6
    g = guard_polynomial(("state", 0, -1.0, 0.36, 0.0, 0.0, 0), 1.0, 0.5, d)
    assert g.root(0.5, 1.0) == pytest.approx(0.6, rel=1e-15)
    g = guard_polynomial(("const", 0, 1.0, 0.0, 0.01, 2.0, 1), 1.0, 0.5, d)     # 2 − 0.01
    assert g(0.7) == pytest.approx(1.99) and g.root(0.5, 1.0) == 1.0           # no crossing: b
    for spec in [("output", 0, 1.0, 0.0, 0.0, 0.0, 1), ("input", 0, 1.0, 0.0, 0.0, 0.0, 1),
                 ("state", 0, 1.0, 0.0, 0.0, 0.0, 1, "output", 2, 0.0)]:
        assert guard_polynomial(spec, 1.0, 0.5, d) is None


def test_the_ends_of_a_root_are_those_of_brent_on_the_interpolant():
    g = GuardPolynomial([0.0, 1.0], 1.0, 1.0)            # g = t − 1 on [0, 1]
    assert g.root(0.5, 1.0) == 1.0                        # zero at b
    assert GuardPolynomial([0.5, 1.0], 1.0, 1.0).root(0.5, 1.0) == 0.5   # zero at a
    assert GuardPolynomial([1.0, 0.0, 1.0], 1.0, 1.0).root(0.0, 1.0) == 1.0   # no sign change: b
    g = GuardPolynomial([-0.25, 0.0, -1.0], 1.0, 1.0)    # −¼ − u²: a maximum −¼ at t = 1
    assert g.extremum(0.0, 1.0, +1) == (1.0, -0.25)
    g = GuardPolynomial([0.0, 0.0, -1.0, 0.0], 1.0, 1.0)  # −u², exact zero coefficients trimmed
    assert g.extremum(0.0, 0.9, +1)[0] == 0.9


# ---------------------------------------------------------------------------- analytic references
def test_a_crossing_of_a_polynomial_solution_is_located_exactly():
    model = _cart()                                       # x = t²: the interpolant is exact
    wall = StateEvent(model, "cart/v.x", 1.0, terminal=True)
    res = simulate(model, (0, 5), events=[wall], **TIGHT)
    assert res.stats["backend"] == "native"
    assert res.events[0][0] == pytest.approx(1.0, abs=1e-13)
    assert res.t[-1] == res.events[0][0]


def test_a_crossing_of_a_cubic_is_located_against_its_cube_root():
    model, inputs = _jerk()
    ev = StateEvent(model, "jerk/v.x", 2.0, terminal=True)
    res = simulate(model, (0, 5), inputs=inputs, events=[ev], **TIGHT)
    assert res.stats["backend"] == "native"
    assert res.events[0][0] == pytest.approx(2 ** (1 / 3), rel=1e-10)


def test_crossings_of_an_oscillator_against_arcsin_with_the_direction_filter():
    model = _oscillator()
    up = StateEvent(model, "osc/v.x", 0.3, direction=1)       # ½ sin 2t = 0.3 upwards
    down = StateEvent(model, "osc/v.x", 0.3, direction=-1)
    both = StateEvent(model, "osc/v.x", -0.2)                 # both directions
    res = simulate(model, (0, 7), events=[up, down, both], **TIGHT)
    assert res.stats["backend"] == "native"
    a, b = math.asin(0.6) / 2, math.asin(0.4) / 2
    ref_up = [a + k * math.pi for k in range(3)]
    ref_down = [math.pi / 2 - a + k * math.pi for k in range(2)]
    ref_both = sorted([math.pi / 2 + b + k * math.pi for k in range(2)] +
                      [math.pi - b + k * math.pi for k in range(2)])
    np.testing.assert_allclose(_events_of(res, 0), ref_up, atol=1e-9)
    np.testing.assert_allclose(_events_of(res, 1), ref_down, atol=1e-9)
    np.testing.assert_allclose(_events_of(res, 2), ref_both, atol=1e-9)


@pytest.mark.parametrize("delta, found", [(1e-8, True), (-1e-8, False)])
def test_a_maximum_just_above_or_just_below_the_level_inside_one_step(delta, found):
    """``½ sin 2t`` exceeds ``½ − δ`` for ``|t − π/4| < √δ`` (0.1 ms at δ = 1e-8): inside one
    step, whose ends are both below the level, so only the extremum rule can see it."""
    model = _oscillator()
    level = 0.5 - delta
    evs = [StateEvent(model, "osc/v.x", level), StateEvent(model, "osc/v.x", level, direction=1),
           StateEvent(model, "osc/v.x", level, direction=-1)]
    res = simulate(model, (0, 1.5), events=evs, **TIGHT)
    assert res.stats["backend"] == "native"
    peak = math.pi / 4
    # the premise: every step ends below the level (else a sign change would find it)
    assert res.stats["steps"] == len(res.t) - 1 and np.all(res["osc/v.x"] < level)
    if not found:
        assert res.events[0].size == 0
        return
    half = math.acos(1 - 2 * delta) / 2       # ½ cos 2τ = ½ − δ
    t_up, t_down = _events_of(res, 0)
    np.testing.assert_array_equal(_events_of(res, 1), [t_up])       # the direction filter
    np.testing.assert_array_equal(_events_of(res, 2), [t_down])
    # the peak's time is the phase of the solution (tight); the half-width (1e-4 s) of a
    # nearly flat crossing moves by (amplitude error)/ẋ with ẋ = 2e-4 m/s there: 1 % of it
    # allows 2e-10 m of amplitude error (BDF's numerical damping over a quarter period)
    assert (t_up + t_down) / 2 == pytest.approx(peak, abs=1e-9)
    assert (t_down - t_up) / 2 == pytest.approx(half, rel=1e-2)


# ---------------------------------------------------------------------------- against Brent
def _runs(brent_fixture, run):
    """``run()`` natively with the step's polynomial, natively with Brent, on the Python path."""
    poly = run("native")
    py = run("python")
    brent_fixture()
    return poly, run("native"), py


@pytest.mark.parametrize("case", ["cart", "jerk", "oscillator"])
def test_event_times_agree_with_brent_natively_and_on_the_python_path(case, brent):
    def run(backend):
        if case == "cart":
            m, inputs = _cart(), None
            evs = [StateEvent(m, "cart/v.x", 1.0), StateEvent(m, "cart/v.x", 3.0, terminal=True)]
        elif case == "jerk":
            (m, inputs) = _jerk()
            evs = [StateEvent(m, "jerk/v.x", v) for v in (0.5, 2.0, 7.0)]
        else:
            m, inputs = _oscillator(), None
            evs = [StateEvent(m, "osc/v.x", v) for v in (0.3, -0.2, 0.5 - 1e-8)]
        res = simulate(m, (0, 6), inputs=inputs, events=evs, backend=backend, method="CVODE",
                       rtol=1e-10, atol=1e-12, progress=False)
        assert res.stats["backend"] == backend
        return res
    poly, brt, py = _runs(brent, run)
    assert poly.events[0].size >= 2
    for other, tol in ((brt, 1e-12), (py, 1e-9)):
        np.testing.assert_array_equal(poly.events[1], other.events[1])
        np.testing.assert_allclose(poly.events[0], other.events[0], rtol=tol, atol=tol)
    # the events do not touch the integration: the same steps, the same states (up to a
    # terminal event's located time, the last row)
    np.testing.assert_array_equal(poly.t[:-1], brt.t[:-1])
    np.testing.assert_array_equal(poly.x[:-1], brt.x[:-1])
    assert poly.t[-1] == pytest.approx(brt.t[-1], abs=1e-12)


def test_hybrid_transitions_on_states_agree_with_brent(brent):
    """Terminal guards restart the integration at the located time: each switch time agrees
    with Brent's to ~1e-12 s (the later steps drift by the restart's own sensitivity)."""
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
    from test_native import HYBRID
    from bondgraph.hybrid import simulate_hybrid

    for case in ("cart-state-guards", "short-guard", "bounce-reset-and-discrete-guard"):
        hm, kw = HYBRID[case]()
        kw = dict(kw)
        t_span = kw.pop("t_span")
        runs = []
        for use_brent in (False, True):
            if use_brent:
                brent()
            runs.append(simulate_hybrid(hm, t_span, method="CVODE", backend="native", **kw))
        poly, brt = runs
        assert [(r.variable, r.target) for r in poly.transitions] == \
            [(r.variable, r.target) for r in brt.transitions]
        np.testing.assert_allclose([r.time for r in poly.transitions],
                                   [r.time for r in brt.transitions], rtol=1e-12, atol=1e-12)


def test_an_end_stop_hammered_by_the_boom_gives_brents_contact_times(brent):
    """test_native's 1e9 N on the excavator's boom: dozens of stroke-end crossings (impacts
    and bounces, non-terminal, direction 0), each within 1e-12 s of Brent's on the same
    native steps, and the run itself unchanged."""
    from mechanisms.machine import DATA, Cycle, Machine

    cyc = Cycle("forces", [0, 0.1, 1.0], {"boom": [0, 1e9, 1e9], "arm": [0, 0, 0], "bucket": [0, 0, 0]},
                ("boom", "arm", "bucket"))
    m = Machine.from_file(DATA / "excavator.toml", mode="forces")
    poly = m.run(cyc, progress=False)
    brent()
    brt = m.run(cyc, progress=False)
    assert poly.results.stats["backend"] == "native" and len(poly.results.events[0]) > 20
    np.testing.assert_array_equal(poly.results.events[1], brt.results.events[1])
    np.testing.assert_allclose(poly.results.events[0], brt.results.events[0], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(poly.results.t, brt.results.t)
    np.testing.assert_array_equal(poly.results.x, brt.results.x)
    assert [(c.function, c.end, c.bounces, c.ongoing) for c in poly.contacts] == \
        [(c.function, c.end, c.bounces, c.ongoing) for c in brt.contacts]


# ---------------------------------------------------------------------------- no scipy.optimize
def test_a_native_run_with_state_events_loads_no_scipy_optimize():
    code = """
import json, sys
import numpy as np
import bondgraph as bg
from bondgraph.events import StateEvent
M = bg.BondGraph("osc")
M.add(bg.One("v", displacement="x"), bg.I("m", 1.0, initial=1.0), bg.C.spring("k", 4.0))
M.connect("v", "m"); M.connect("v", "k")
model = bg.build(M)
before = "scipy.optimize" in sys.modules
evs = [StateEvent(model, "osc/v.x", 0.3), StateEvent(model, "osc/v.x", 0.5 - 1e-8),
       StateEvent(model, "osc/v.x", 0.5 + 1e-8), StateEvent(model, "osc/v.x", -0.45, terminal=True)]
res = bg.simulate(model, (0, 5), events=evs, method="CVODE", rtol=1e-10, atol=1e-12, progress=False)
print(json.dumps([before, "scipy.optimize" in sys.modules, res.stats["backend"],
                  sorted(set(int(i) for i in res.events[1]))]))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    before, after, backend, which = json.loads(out.stdout.strip().splitlines()[-1])
    assert backend == "native" and which == [0, 1, 3]   # crossings, a grazing peak, a stop
    assert not before and not after
