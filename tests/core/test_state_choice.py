"""Independent storage is chosen by a rule, not by the order elements were added (issue 10, item 3).

Every insertion order of a pendulum and of a slider-crank built from core elements gives the
same state set and the same trajectory, checked against a hand-written Lagrange equation
integrated by scipy; the start is the bottom pose / a dead centre, where choosing the wrong
storage element makes the equations divide by a modulus that is zero.
"""

import itertools
import math

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

import bondgraph as bg
from bondgraph.state_choice import storage_order

TIGHT = dict(rtol=1e-12, atol=1e-12)
L, M, JB, G = 1.0, 1.0, 0.1, 9.81


# ------------------------------------------------------------------------------ models
def pendulum(order, *, th0=0.0, w0=3.0, with_J=True, prefer=None):
    """A bob of mass M at distance L with its own rotational inertia JB; θ = 0 hanging down.

    ``order`` is the insertion order of the storage elements; the rest follows in a fixed order.
    """
    P = bg.BondGraph("pend")
    w = bg.One("w", displacement="theta", initial=th0)
    th = w.displacement
    prefer = prefer or {}
    storage = {"J": bg.I("J", JB, initial=w0, prefer=prefer.get("J")),
               "mx": bg.I("mx", M, initial=L * math.cos(th0) * w0, prefer=prefer.get("mx")),
               "my": bg.I("my", M, initial=L * math.sin(th0) * w0, prefer=prefer.get("my"))}
    if not with_J:
        del storage["J"]
    P.add(*[storage[k] for k in order if k in storage])
    P.add(w, bg.One("vx"), bg.One("vy"), bg.Se("grav", -M * G), bg.Zero("px"), bg.Zero("py"),
          bg.Sf("fx", 0.0), bg.Sf("fy", 0.0), bg.MTF("tx", -L * sp.cos(th)),
          bg.MTF("ty", -L * sp.sin(th)))
    bonds = [("vx", "mx"), ("vy", "my"), ("grav", "vy"), ("vx", "px"), ("vy", "py"),
             ("w", "tx/1"), ("tx/2", "px"), ("w", "ty/1"), ("ty/2", "py"), ("fx", "px"),
             ("fy", "py")]
    if with_J:
        bonds.insert(0, ("w", "J"))
    for a, b in bonds:
        P.connect(a, b)
    return P


def pendulum_reference(t, th0, w0, with_J=True):
    """(J + m L²) θ̈ = −m g L sin θ, integrated by scipy."""
    inertia = (JB if with_J else 0.0) + M * L**2
    sol = solve_ivp(lambda _, y: [y[1], -M * G * L * math.sin(y[0]) / inertia], (t[0], t[-1]),
                    [th0, w0], t_eval=t, method="DOP853", rtol=1e-13, atol=1e-13)
    return sol.y[0]


R_CRANK, L_ROD, J_CRANK, M_SLIDER, F_SLIDER = 0.3, 1.0, 0.02, 0.5, 1.0
_TH = sp.Symbol("th")
_X = R_CRANK * sp.cos(_TH) + sp.sqrt(L_ROD**2 - R_CRANK**2 * sp.sin(_TH) ** 2)  # slider position


def slider_crank(order, *, w0=12.0, prefer=None):
    """Crank (angle θ, inertia J) driving a slider of mass m through the exact kinematic modulus
    a(θ) = dx/dθ, which is zero at both dead centres; a constant force F pushes the slider."""
    S = bg.BondGraph("sc")
    w = bg.One("w", displacement="theta", initial=0.0)
    a = sp.diff(_X, _TH).subs(_TH, w.displacement)
    prefer = prefer or {}
    storage = {"J": bg.I("J", J_CRANK, initial=w0, prefer=prefer.get("J")),
               "m": bg.I("m", M_SLIDER, initial=0.0, prefer=prefer.get("m"))}
    S.add(*[storage[k] for k in order])
    S.add(w, bg.MTF("link", a), bg.One("v"), bg.Se("F", F_SLIDER))
    for x, y in [("w", "J"), ("w", "link/1"), ("link/2", "v"), ("v", "m"), ("F", "v")]:
        S.connect(x, y)
    return S


def slider_crank_reference(t, w0):
    """Lagrange: (J + m a²) θ̈ + m a a' θ̇² = F a, with a = dx/dθ (hand derivation)."""
    a = sp.lambdify(_TH, sp.diff(_X, _TH))
    da = sp.lambdify(_TH, sp.diff(_X, _TH, 2))

    def f(_, y):
        th, om = y
        ai = a(th)
        return [om, (F_SLIDER * ai - M_SLIDER * ai * da(th) * om**2) / (J_CRANK + M_SLIDER * ai**2)]

    sol = solve_ivp(f, (t[0], t[-1]), [0.0, w0], t_eval=t, method="DOP853", rtol=1e-13, atol=1e-13)
    return sol.y[0]


ORDERS3 = list(itertools.permutations(["J", "mx", "my"]))


# ------------------------------------------------------------------------------ pendulum
@pytest.mark.parametrize("order", ORDERS3, ids=["-".join(o) for o in ORDERS3])
def test_pendulum_same_states_and_trajectory_in_every_insertion_order(order):
    """From the bottom pose, where vy = L·sin θ·ω is zero: the rotational inertia is the state."""
    model = bg.build(pendulum(order))
    assert sorted(model.state_names) == ["pend/J.f", "pend/w.theta"]
    assert model.report.choice["pend/J"].startswith("on the coordinate pend/w.theta")
    t = np.linspace(0.0, 3.0, 301)
    res = bg.simulate(model, (0.0, 3.0), t_eval=t, **TIGHT)
    ref = pendulum_reference(t, 0.0, 3.0)
    assert np.max(np.abs(res["pend/w.theta"] - ref)) < 1e-8
    assert np.max(np.abs(ref)) > 0.9  # a large swing, not a linear one


@pytest.mark.parametrize("order", [("mx", "my"), ("my", "mx")])
@pytest.mark.parametrize("th0, state", [(0.0, "pend/mx.f"), (1.4, "pend/my.f")])
def test_point_mass_pendulum_keeps_the_well_conditioned_velocity(order, th0, state):
    """No rotational inertia: the velocity that is the larger multiple of θ̇ at the start is the
    state (horizontal at the bottom, vertical near the horizontal pose)."""
    w0 = 2.0
    model = bg.build(pendulum(order, th0=th0, w0=w0, with_J=False))
    assert sorted(model.state_names) == sorted([state, "pend/w.theta"])
    t = np.linspace(0.0, 0.7, 71)
    res = bg.simulate(model, (0.0, 0.7), t_eval=t, **TIGHT)
    ref = pendulum_reference(t, th0, w0, with_J=False)
    # the chosen velocity stays away from its zero over these 0.7 s (|θ − θ_zero| > 0.3 rad);
    # from 1.4 rad the bob reaches the bottom, where vy = L·sin θ·θ̇ has no θ̇ in it, at
    # t = 0.80 s: simulate stops there (the modulus of 'pend/ty' crosses zero)
    assert np.max(np.abs(res["pend/w.theta"] - ref)) < 1e-8


def test_storage_order_does_not_depend_on_insertion_order():
    ranks = {tuple(r.element for r in storage_order(bg.assemble(pendulum(o)))) for o in ORDERS3}
    assert ranks == {("pend/J", "pend/mx", "pend/my")}


def test_user_preference_overrides_the_rule():
    """prefer="state" on the vertical inertia: it is the state, as asked (the user's choice)."""
    rep = bg.assign_causality(bg.assemble(pendulum(("J", "mx", "my"), th0=0.5,
                                                   prefer={"my": "state"})))
    assert "pend/my.f" in rep.states and "pend/J.f" not in rep.states
    assert rep.choice["pend/my"] == "prefer='state'"
    rep = bg.assign_causality(bg.assemble(pendulum(("J", "mx", "my"), prefer={"J": "dependent"})))
    assert rep.states == ["pend/mx.f"]  # best conditioned at the bottom pose
    assert "pend/J" in [d.element for d in rep.derivative]


def test_report_says_why_a_state_was_chosen():
    rep = bg.assign_causality(bg.assemble(pendulum(("my", "mx", "J"))))
    assert "states chosen by rule: pend/J (on the coordinate pend/w.theta)" in str(rep)


# ------------------------------------------------------------------------------ slider-crank
@pytest.mark.parametrize("order", [("J", "m"), ("m", "J")])
def test_slider_crank_through_dead_centres_in_every_insertion_order(order):
    """Starting at a dead centre (a(0) = 0) and turning through four more: the crank's inertia
    is the state, so no equation divides by a(θ)."""
    w0 = 12.0
    model = bg.build(slider_crank(order, w0=w0))
    assert sorted(model.state_names) == ["sc/J.f", "sc/w.theta"]
    t = np.linspace(0.0, 2.0, 401)
    res = bg.simulate(model, (0.0, 2.0), t_eval=t, **TIGHT)
    ref = slider_crank_reference(t, w0)
    assert ref[-1] > 4 * math.pi  # crossed the dead centres at π, 2π, 3π and 4π
    assert np.max(np.abs(res["sc/w.theta"] - ref)) < 1e-8


def test_slider_crank_with_the_slider_preferred_is_what_the_user_asked():
    rep = bg.assign_causality(bg.assemble(slider_crank(("J", "m"), prefer={"m": "state"})))
    assert rep.states == ["sc/m.f"]
    assert [d.element for d in rep.derivative] == ["sc/J"]


# ------------------------------------------------------------------------------ templates
def test_template_bodies_prefer_their_rotational_inertia():
    from components.body import MainBody
    from components.lever import Lever

    body = MainBody.from_polar("b", mass=10.0, inertia=2.0, points={
        "C": ("Rt", 3.0, math.radians(258)), "B": ("Pd", 0.6, math.radians(231))})
    lever = Lever("l", length=1.0, mass=3.0)
    for part in (body, lever):
        assert part["J"].prefer == "state"
        assert part["m_x"].prefer is None


def test_a_displacement_no_law_uses_is_not_a_coordinate():
    """Rule 3 counts a junction's displacement only where a law uses it: a junction's own
    handle is not a law of it (it made every displacement junction a 'coordinate')."""
    from bondgraph.state_choice import coordinate_junctions

    m = bg.BondGraph("arm")
    w = bg.One("w", displacement="theta")
    m.add(bg.Se("T", 1.0), w, bg.I("J", 1.0), bg.MTF("t", sp.cos(w.displacement)), bg.One("v"),
          bg.I("m", 1.0), bg.One("free", displacement="x"), bg.I("n", 1.0), bg.Se("F", 1.0))
    for a, b in [("T", "w"), ("w", "J"), ("w", "t/1"), ("t/2", "v"), ("v", "m"),
                 ("F", "free"), ("free", "n")]:
        m.connect(a, b)
    g = bg.assemble(m)
    assert coordinate_junctions(g) == {"arm/w": "arm/w.theta"}
    reasons = {r.element: r.reason for r in storage_order(g)}
    assert reasons["arm/J"] == "on the coordinate arm/w.theta"
    assert reasons["arm/n"] == "by name"
