"""Dead centres and singular divisors: named, located at the true time, never passed silently.

The model is a crank of inertia ``J`` driven by a cylinder force ``F`` through the
transformer ``n(θ) = dL/dθ = r·d·sin θ / L(θ)`` (cylinder length ``L`` from its base at
distance ``d`` from the crank pivot to the crank pin at radius ``r``), with the rod mass
``m`` on the cylinder side. With enough speed it turns round, passing the cylinder's dead
centres (θ = kπ, where n = 0) twice a turn. The reference is the Lagrange equation
``(J + m·n²)·θ̈ + m·n·n'·θ̇² = n·F`` integrated by scipy, written here.
"""

import math
import warnings

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

import bondgraph as bg
from bondgraph.errors import SingularityWarning

R_, D_, J_, M_, F_ = 0.3, 1.0, 0.5, 2.0, 100.0
TH0, W0 = 0.5, 8.0


def crank(crank_state: bool):
    """``crank_state``: the crank inertia is the state (no division); else the rod mass is
    (``prefer="state"``), and the crank's speed is ω = v/n(θ): the equations divide by the
    modulus."""
    M = bg.BondGraph("crank")
    w = bg.One("w", displacement="theta", initial=TH0)
    th = w.displacement
    n = R_ * D_ * sp.sin(th) / sp.sqrt(R_**2 + D_**2 - 2 * R_ * D_ * sp.cos(th))
    if crank_state:
        parts = [bg.I("J", J_, initial=W0, prefer="state"), w, bg.One("v"), bg.I("m", M_)]
    else:  # the rod mass takes the state, the crank inertia becomes dependent
        parts = [bg.I("m", M_, initial=_n(TH0) * W0, prefer="state"), bg.One("v"), w, bg.I("J", J_)]
    M.add(*parts, bg.Se("F", F_), bg.MTF("rod", n))
    for a, b in [("w", "J"), ("w", "rod/1"), ("rod/2", "v"), ("v", "m"), ("F", "v")]:
        M.connect(a, b)
    return bg.build(M)


def _n(th):
    return R_ * D_ * math.sin(th) / math.sqrt(R_**2 + D_**2 - 2 * R_ * D_ * math.cos(th))


def _dn(th):
    L = math.sqrt(R_**2 + D_**2 - 2 * R_ * D_ * math.cos(th))
    return R_ * D_ * math.cos(th) / L - (R_ * D_ * math.sin(th)) ** 2 / L**3


def lagrange(t, y):
    th, om = y
    n, dn = _n(th), _dn(th)
    return [om, (n * F_ - M_ * n * dn * om * om) / (J_ + M_ * n * n)]


@pytest.fixture(scope="module")
def reference():
    dead = lambda t, y: math.sin(y[0])  # noqa: E731 - n = 0 exactly where sin θ = 0
    return solve_ivp(lagrange, (0, 3), [TH0, W0], rtol=1e-12, atol=1e-12, events=dead,
                     dense_output=True)


@pytest.fixture(scope="module")
def divided():
    return crank(crank_state=False)


@pytest.mark.parametrize("method", ["LSODA", "BDF", "Radau", "RK45", "CVODE"])
def test_dead_centre_stops_at_the_true_time_naming_the_element(divided, reference, method):
    t_dead = reference.t_events[0][0]                      # the first dead centre, θ = π
    assert "crank/m.f" in divided.state_names               # the division is really there
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularityWarning)  # the approach is warned first
        with pytest.raises(bg.SimulationError) as exc:
            bg.simulate(divided, (0, 3), method=method, rtol=1e-8, atol=1e-10, progress=False)
    err = exc.value
    assert err.time == pytest.approx(t_dead, abs=1e-6)
    msg = str(err)
    assert "MTF 'crank/rod' modulus" in msg and "crossed zero" in msg
    assert "pose: crank/w.theta = 3.14159" in msg and "prefer='state'" in msg
    assert err.state["crank/w.theta"] == pytest.approx(math.pi, abs=1e-6)
    part = err.results                                      # kept up to the crossing
    assert part.t[-1] == pytest.approx(err.time) and len(part.t) > 10
    early = part.t < 0.9 * t_dead
    assert np.allclose(part["crank/w.theta"][early], reference.sol(part.t[early])[0], atol=1e-5)


def test_approach_warns_once_then_warn_mode_goes_on(divided, reference):
    with pytest.warns(SingularityWarning) as rec:
        res = bg.simulate(divided, (0, 0.5), rtol=1e-8, atol=1e-10, singular="warn", progress=False)
    texts = [str(w.message) for w in rec if issubclass(w.category, SingularityWarning)]
    ill = [m for m in texts if "ill-conditioned" in m]
    crossed = [m for m in texts if "crossed zero" in m]
    assert len(ill) == 1 and "of its start value" in ill[0] and "crank/rod" in ill[0]
    assert len(crossed) == 1 and "crank/rod" in crossed[0]
    assert res.t[-1] == 0.5                                 # went on past both dead centres
    t_dead = reference.t_events[0][0]
    when = float(crossed[0].split("crossed zero at t = ")[1].split(" s")[0])
    assert when == pytest.approx(t_dead, abs=1e-6)


def test_ignore_watches_nothing(divided):
    with warnings.catch_warnings():
        warnings.simplefilter("error", SingularityWarning)
        res = bg.simulate(divided, (0, 0.5), rtol=1e-8, atol=1e-10, singular="ignore",
                          progress=False)
    assert res.t[-1] == 0.5


def test_crank_inertia_as_state_passes_ten_dead_centres(reference):
    model = crank(crank_state=True)
    assert "crank/J.f" in model.state_names
    assert len(reference.t_events[0]) == 10                # the reference turns through 10
    t = np.linspace(0, 3, 301)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SingularityWarning)  # and nothing is ill-conditioned
        res = bg.simulate(model, (0, 3), rtol=1e-10, atol=1e-12, t_eval=t, progress=False)
    assert np.max(np.abs(res["crank/w.theta"] - reference.sol(t)[0])) < 1e-6
    assert np.max(np.abs(res["crank/J.f"] - reference.sol(t)[1])) < 1e-5


def test_divisors_are_recorded_with_their_elements(divided):
    labels = [d.label for d in divided.equations.divisors]
    assert "MTF 'crank/rod' modulus (divides by sin(crank/w.theta))" in labels
    mods = [d for d in divided.equations.divisors if d.kind == "modulus"]
    assert mods[0].elements == ("crank/rod",)
    vals, st = divided.system.monitors(0.0, divided.initial_state())
    assert st == 0 and vals[labels.index(mods[0].label)] == pytest.approx(math.sin(TH0))
    # the crank inertia as state divides only by the cylinder length L² > 0 (its modulus
    # multiplies): the monitor sees it, it never comes near zero
    model = crank(crank_state=True)
    assert not any("modulus" in d.label for d in model.equations.divisors)


def test_divisor_zero_at_the_start_is_named(divided):
    with pytest.raises(bg.SimulationError) as exc:
        bg.simulate(divided, (0, 1), x0={"crank/w.theta": 0.0, "crank/m.f": 0.0}, progress=False)
    msg = str(exc.value)
    assert exc.value.time == 0.0 and "MTF 'crank/rod' modulus" in msg and "is zero at the start" in msg


def test_coupled_block_becoming_singular_is_located():
    """Two masses drive a third through v_M = cos(t)·v1 + v2 with m1 massless: the coupled
    block E = [[M·n², M·n], [M·n, m2 + M]] (n = cos t) has det = M·m2·n², singular at t = π/2.
    Its normalised determinant det/(‖row1‖‖row2‖) is checked against numpy."""
    Mm, m2 = 2.0, 1.0
    G = bg.BondGraph("cpl")
    G.add(bg.Se("F1", 0.0), bg.One("v1"), bg.I("m1", 0.0, prefer="state"), bg.Se("F2", 1.0),
          bg.One("v2"), bg.I("m2", m2, prefer="state"), bg.MTF("t1", sp.cos(bg.t)),
          bg.MTF("t2", 1.0 + 0 * bg.t), bg.Zero("z"), bg.One("vm"), bg.I("M", Mm, prefer="dependent"))
    for a, b in [("F1", "v1"), ("v1", "m1"), ("F2", "v2"), ("v2", "m2"), ("v1", "t1/1"),
                 ("t1/2", "z"), ("v2", "t2/1"), ("t2/2", "z"), ("z", "vm"), ("vm", "M")]:
        G.connect(a, b)
    model = bg.build(G)
    (d,) = model.equations.divisors
    assert d.kind == "block" and d.unknowns == ("der(cpl/m1.f)", "der(cpl/m2.f)")
    assert {"cpl/m1", "cpl/m2", "cpl/M", "cpl/t1"} <= set(d.elements)
    for tq in (0.0, 1.0, 1.5):
        n = math.cos(tq)
        E = np.array([[Mm * n * n, Mm * n], [Mm * n, m2 + Mm]])
        ref = np.linalg.det(E) / np.prod(np.linalg.norm(E, axis=1))
        assert model.system.monitors(tq, model.initial_state())[0][0] == pytest.approx(ref, rel=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularityWarning)
        with pytest.raises(bg.SimulationError) as exc:
            bg.simulate(model, (0, 3), progress=False)
    assert exc.value.time == pytest.approx(math.pi / 2, abs=1e-8)
    msg = str(exc.value)
    assert "coupled block of der(cpl/m1.f), der(cpl/m2.f)" in msg and "became singular" in msg
