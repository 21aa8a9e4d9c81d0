"""The bleed-off operator: the same lever lifts a heavier payload slower on the open centre, not on LS.

References, written out here by hand (not the product's :mod:`open_centre_law`):

* open centre, one section stroked to ``x``, the others centred, the oil settled: the pump
  pressure ``p_s`` is where the negative-control pump's flow equals the bypass flow plus the
  boom's. The boom meters in series through its two edges, ``Q = K·x·√Δ`` with
  ``Δ = (p_s·A_cap − F)/(A_cap + φ²·A_rod)``; the bypasses (each ``Q_bp·o·√(Δp/Δp_bp)``,
  laminar below 1 bar as the valve template's orifice law, ``o = 1 − |x|/0.5``) and the
  negative-control orifice (``C_d·A·√(2·p_n/ρ)``) in series; the pump
  ``D·ω/(2π)·clip((p_n,max − p_n)/(p_n,max − p_n,min), d_min, 1)``. ``F`` and ``ω`` are read
  from the run (the load and the engine speed at that moment), the rest is the file's data.
* load sensing: the post-compensated section holds its metering drop at the pump's margin,
  so the flow is ``K·x·√(margin)`` whatever the load (less the regulator's droop).
"""

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from bondgraph import ParameterError
from mechanisms.machine import DATA, Machine
from mechanisms.machine.bleed_off import BleedOffOperator

FILE = DATA / "excavator.toml"
LEVER = 0.485
#: the boom low, with its stroke ahead (the dig file's start pose); two payloads a tonne apart
POSE = {"start.boom": "18.5 deg", "start.arm": "-95.8 deg", "start.bucket": "107.3 deg"}
LIGHT, HEAVY = "700 kg", "1700 kg"
T_END, SAMPLES = 3.0, (1.5, 2.5)


def _run(circuit: str, bucket_mass: str):
    m = Machine.from_file(FILE, {"circuit.type": circuit, "bucket.mass": bucket_mass, **POSE}, mode="valves")
    run = BleedOffOperator(m, {"boom": LEVER}).drive(T_END, progress=False)
    return m, run.table()


@pytest.fixture(scope="module")
def open_centre():
    return {mass: _run("open-centre", mass) for mass in (LIGHT, HEAVY)}


@pytest.fixture(scope="module")
def load_sensing():
    return {mass: _run("load-sensing", mass) for mass in (LIGHT, HEAVY)}


def _signed_sqrt(dp: float, p_tr: float) -> float:
    if abs(dp) >= p_tr:
        return math.copysign(math.sqrt(abs(dp)), dp)
    u = dp / p_tr
    return math.sqrt(p_tr) * (5 * u - u ** 3) / 4


def hand_open_centre_rate(m, x: float, force: float, omega: float) -> float:
    """The boom's steady rate at stroke ``x`` against ``force`` with the pump shaft at ``omega``."""
    hc = m.circuit.hydraulic
    pu, ctl, boom = hc.power_unit, hc.control, hc.sections["boom"]
    a_cap, a_rod = m.circuit.areas["boom"]
    phi = a_rod / a_cap
    k = boom.q_nominal / math.sqrt(boom.dp_nominal)
    rho, area = pu.oil.density, math.pi * ctl.diameter ** 2 / 4
    pump = pu.pump
    q_max = pu.shaft_displacement * omega / (2 * math.pi)
    openings = [max(1 - abs(x if f == "boom" else 0.0) / hc.sections[f].bypass_closed, 0.0) for f in hc.order]

    def bypass_drop(q: float, o: float, v) -> float:     # the drop at which one bypass passes q
        s = q * math.sqrt(v.bypass_dp) / (v.bypass_flow * o)  # = √Δp above the laminar band
        if s * s >= v.p_tr:
            return s * s
        return brentq(lambda dp: _signed_sqrt(dp, v.p_tr) - s, 0.0, v.p_tr, xtol=1e-6)

    def gallery(ps: float) -> tuple[float, float]:       # (bypass flow, p_n) at pump pressure ps
        if min(openings) == 0.0:
            return 0.0, 0.0

        def excess(q):
            pn = rho / 2 * (q / (ctl.cd * area)) ** 2
            return pn + sum(bypass_drop(q, o, hc.sections[f]) for f, o in zip(hc.order, openings)) - ps
        q = brentq(excess, 0.0, 0.1, xtol=1e-12)
        return q, rho / 2 * (q / (ctl.cd * area)) ** 2

    def boom_flow(ps: float) -> float:
        drop = (ps * a_cap - force) / (a_cap + phi ** 2 * a_rod)
        return k * x * math.sqrt(drop) if drop > 0 else 0.0

    def balance(ps: float) -> float:
        q_bp, pn = gallery(ps)
        alpha = min(1.0, max(pump.min_displacement, (pump.control_max - pn) / (pump.control_max - pump.control_min)))
        return q_max * alpha - q_bp - boom_flow(ps)

    ps = brentq(balance, 1e5, 300e5, xtol=1.0)
    return boom_flow(ps) / a_cap


def _at(tab, t: float) -> int:
    return int(np.searchsorted(tab["time"], t))


def test_the_open_centre_boom_rises_at_the_hand_computed_rate_for_each_payload(open_centre):
    for mass, (m, tab) in open_centre.items():
        a_cap, a_rod = m.circuit.areas["boom"]
        for t in SAMPLES:
            i = _at(tab, t)
            force = tab["boom_cap_pressure"][i] * a_cap - tab["boom_rod_pressure"][i] * a_rod
            hand = hand_open_centre_rate(m, LEVER, force, tab["engine_speed"][i])
            assert hand > 0.05, (mass, t)                    # m/s: it moves, well away from the dead band
            assert tab["boom_rate"][i] == pytest.approx(hand, rel=0.02), (mass, t)
            # the operator's own steady law (the open-centre tracking operator's feedforward) agrees
            law = BleedOffOperator(m, {}).steady({"boom": LEVER}, {"boom": force},
                                                 tab["engine_speed"][i] / m.circuit.supply["engine/J.f"])
            assert law.rates["boom"] == pytest.approx(hand, rel=0.01), (mass, t)


def test_the_same_lever_lifts_a_heavier_payload_slower_on_the_open_centre_not_on_load_sensing(open_centre,
                                                                                             load_sensing):
    def mean_rate(tab):            # over the last 2 s: the load-sensing boom rocks about its mean
        i = _at(tab, 1.0)
        return (tab["boom_length"][-1] - tab["boom_length"][i]) / (tab["time"][-1] - tab["time"][i])

    oc = {mass: mean_rate(tab) for mass, (_, tab) in open_centre.items()}
    ls = {mass: mean_rate(tab) for mass, (_, tab) in load_sensing.items()}
    # open centre: the tonne more needs more pump pressure, which bleeds more oil off
    assert oc[HEAVY] < 0.7 * oc[LIGHT]
    # load sensing: the compensated flow K·x·√margin, nearly the same for both
    m = load_sensing[LIGHT][0]
    k = m.circuit.valve_gains["boom"]
    margin = 3e5                                            # the file's [circuit.load_sensing] margin
    hand = k * LEVER * math.sqrt(margin) / m.circuit.areas["boom"][0]
    assert ls[HEAVY] == pytest.approx(ls[LIGHT], rel=0.10)
    for mass in (LIGHT, HEAVY):
        assert ls[mass] == pytest.approx(hand, rel=0.15)     # the regulator's droop and its rocking


def test_a_heavier_load_needs_more_lever_before_the_boom_moves():
    m = Machine.from_file(FILE, {"circuit.type": "open-centre"}, mode="valves")
    op = BleedOffOperator(m, {})
    a_cap = m.circuit.areas["boom"][0]
    omega = m.circuit.supply["engine/J.f"]
    light, heavy = (op.start_lever("boom", p * a_cap) for p in (50e5, 100e5))
    assert 0 < light < heavy < m.circuit.hydraulic.sections["boom"].bypass_closed
    # just past it the hand law has the boom moving, just before it not
    for x0 in (light, heavy):
        force = (50e5 if x0 == light else 100e5) * a_cap
        assert hand_open_centre_rate(m, x0 + 2e-3, force, omega) > 0
        assert hand_open_centre_rate(m, x0 - 2e-3, force, omega) == 0


def test_bad_levers_are_refused_with_every_problem():
    m = Machine.from_file(FILE, mode="valves")
    with pytest.raises(ParameterError) as e:
        BleedOffOperator(m, {"boom": 1.5, "stick": 0.2}, period=0)
    for part in ("lever 'boom' = 1.5", "'stick': no such function", "period = 0"):
        assert part in str(e.value)
    with pytest.raises(ParameterError, match="centre bypass"):
        BleedOffOperator(m, {}).start_lever("boom", 1e5)
    with pytest.raises(ParameterError, match="expected 'valves'"):
        BleedOffOperator(Machine.from_file(FILE, mode="extensions"), {})
