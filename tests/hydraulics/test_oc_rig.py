"""Open-centre circuit with negative flow control on the load rig.

References are computed here by hand from the documented laws, not from the
model: the negative-control orifice ``p_n = ρ/2·(Q/(C_d·A))²``, the pump's
displacement law ``α = clip((p_n,max − p_n)/(p_n,max − p_n,min), d_min, 1)``,
the nominal-flow orifice of the metering edge and of the bypass, and the
flow balance ``Q_pump = Q_cylinder + Q_bypass`` solved with a scalar root finder.
"""

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from bondgraph import Input, Table, power_balance, simulate
from components.hydraulics.ls_rigs import RIG_NEGATIVE_CONTROL, RIG_NFC_PUMP, load_rig

SIM = dict(method="CVODE", rtol=1e-8, atol=1e-6, progress=False)
VISCOUS = 50e3                     # N·s/m: damps the oil-column mode of the rig (≈30 Hz)
Q_N, DP_N = 150 / 6e4, 10e5        # metering edge: 150 L/min at 10 bar
Q_B, DP_B, X_C = 150 / 6e4, 5e5, 0.5   # bypass: 150 L/min at 5 bar, closed at half stroke
RHO = 870.0


@pytest.fixture(scope="module")
def rig():
    return load_rig({"a": Input("a.F")}, circuit="open-centre", q_nominal="150 L/min",
                    dp_nominal="10 bar", bypass_flow="150 L/min", bypass_dp="5 bar",
                    bypass_closed=X_C, viscous=VISCOUS)


def _run(rig, cmd, force, t_end=1.0, x0=None, **kw):
    start = dict(rig.x0)
    start[rig.cap_pressure("a")] = force / rig.area["a"]
    start.update(x0 or {})
    return simulate(rig.model, (0.0, t_end), x0=start, inputs={"a.cmd": cmd, "a.F": force},
                    **{**SIM, **kw})


def _orifice_area():
    return math.pi * RIG_NEGATIVE_CONTROL.diameter ** 2 / 4


def _hand_steady_state(x, force, area):
    """(p_n, Q_pump, Q_cylinder, p_P) of one section at command x against a constant force."""
    pump, cd = RIG_NFC_PUMP, RIG_NEGATIVE_CONTROL.cd
    q_max = 100e-6 * 1500 / 60
    a_orf = _orifice_area()

    def flows(pn):
        alpha = min(1.0, max(0.2, (30e5 - pn) / (30e5 - 8e5)))
        q_pump = q_max * alpha
        q_bypass = cd * a_orf * math.sqrt(2 * pn / RHO)
        opening = max(1 - abs(x) / X_C, 0.0)
        p_pump = pn + DP_B * (q_bypass / (Q_B * opening)) ** 2

        def cyl(q):                   # metering edge against the load and the viscous force
            return q - Q_N * x * math.sqrt(max(p_pump - (force + VISCOUS * q / area) / area, 0) / DP_N)
        q_cyl = brentq(cyl, 0.0, q_max) if cyl(0.0) < 0 else 0.0
        return q_pump, q_bypass, q_cyl, p_pump

    pn = brentq(lambda p: (lambda qp, qb, qc, _: qp - qb - qc)(*flows(p)), 1.0, 39e5)
    q_pump, _, q_cyl, p_pump = flows(pn)
    assert pump.max_flow == pytest.approx(q_max, rel=1e-12)       # the rig is what we think
    return pn, q_pump, q_cyl, p_pump


def test_centred_spool_rests_at_standby(rig):
    """From full displacement and empty volumes: the pump destrokes to d_min and p_n is the
    orifice law at the stand-by flow; nothing reaches the cylinder."""
    res = _run(rig, 0.0, 50e3, t_end=1.5, x0={"rig/hyd/pu/swash/x.value": 1.0,
                                               rig.pump_pressure: 0.0, rig.negacon_pressure: 0.0})
    q_min = 0.2 * 100e-6 * 1500 / 60                                  # 30 L/min
    pn_ref = RHO / 2 * (q_min / (RIG_NEGATIVE_CONTROL.cd * _orifice_area())) ** 2
    assert 30e5 < pn_ref < 40e5                                       # above p_n,max: stand-by
    assert res[rig.negacon_pressure][-1] == pytest.approx(pn_ref, rel=0.01)
    assert rig.displacement(res)[-1] == pytest.approx(0.2, rel=1e-3)
    assert np.max(np.abs(res[rig.velocity("a")])) < 1e-9              # the meter-in edges are shut
    assert rig.displacement(res).max() == pytest.approx(1.0)          # it did start at full


def test_shifted_spool_closes_the_gallery_and_strokes_the_pump(rig):
    """x = 1 (bypass closed at half stroke): p_n → tank, α → 1, v = D·n/A."""
    res = _run(rig, 1.0, 50e3)
    late = res.t >= 0.6
    assert np.max(np.abs(res[rig.negacon_pressure][late])) < 0.01e5
    assert rig.displacement(res)[late].min() > 0.999
    v_ref = 100e-6 * 1500 / 60 / (math.pi * 0.08 ** 2 / 4)            # pump flow / cap area
    v = res[rig.velocity("a")][late]
    assert np.max(np.abs(v - v_ref)) / v_ref <= 0.02


@pytest.mark.parametrize("force", [20e3, 30e3])
def test_metering_matches_the_hand_steady_state(rig, force):
    x = 0.47
    pn, q_pump, q_cyl, p_pump = _hand_steady_state(x, force, rig.area["a"])
    res = _run(rig, x, force)
    assert res[rig.negacon_pressure][-1] == pytest.approx(pn, rel=0.01)
    assert res[rig.pump_pressure][-1] == pytest.approx(p_pump, rel=0.01)
    assert res.flow(rig.pump_source)[-1] == pytest.approx(q_pump, rel=0.01)
    assert res[rig.velocity("a")][-1] * rig.area["a"] == pytest.approx(q_cyl, rel=0.01)


def test_open_centre_flow_depends_on_the_load_unlike_a_compensated_valve(rig):
    """The same command against 20 and 30 kN: the open-centre section loses most of its
    flow to the bypass at the higher load; a pre-compensated LS section does not."""
    x = 0.47
    q_oc = {F: _run(rig, x, F)[rig.velocity("a")][-1] * rig.area["a"] for F in (20e3, 30e3)}
    assert q_oc[30e3] < 0.5 * q_oc[20e3]
    ls = load_rig({"a": Input("a.F")}, commands={"a": x}, compensation="pre", name="ls")
    q_ls = {}
    for F in (20e3, 30e3):
        res = simulate(ls.model, (0.0, 0.6), x0={ls.cap_pressure("a"): F / ls.area["a"]},
                       inputs={"a.F": F}, **SIM)
        q_ls[F] = res[ls.velocity("a")][-1] * ls.area["a"]
    assert q_ls[30e3] == pytest.approx(q_ls[20e3], rel=0.02)


def test_energy_balance_and_native_backend(rig):
    """Open, close (the pump flow hits the re-opening gallery: the negacon relief acts),
    reopen fully: ΔE_stored = source work − dissipation to 1e-4, run natively."""
    cmd = Table([0.0, 0.2, 0.23, 0.4, 0.43, 0.7], [0.47, 0.47, 0.0, 0.0, 1.0, 1.0])
    res = _run(rig, cmd, 40e3, t_end=0.7, rtol=1e-9, atol=1e-7, energy=True)
    assert res.stats["backend"] == "native"
    bal = power_balance(res)
    assert bal.relative <= 1e-4, str(bal)
    pump_work = np.trapezoid(res.power(rig.pump_source), res.t)
    assert pump_work > 0.5 * bal.source_work > 0


def test_a_wide_orifice_holds_the_pump_above_stand_by():
    """A 4.5 mm orifice passes the stand-by flow below p_n,max: the regulator settles where
    Q = Q_max·(p_n,max − p_n)/(p_n,max − p_n,min) and p_n = ρ/2·(Q/(C_d·A))² (hand root)."""
    from components.hydraulics import NegativeControl

    ctl = NegativeControl("4.5 mm", cd=0.7)
    rig = load_rig({"a": 50e3}, commands={"a": 0.0}, circuit="open-centre", control=ctl, name="wide")
    q_max, area = 100e-6 * 1500 / 60, math.pi * 4.5e-3 ** 2 / 4
    pn = brentq(lambda p: q_max * (30e5 - p) / 22e5 - 0.7 * area * math.sqrt(2 * p / RHO), 8e5, 30e5)
    res = simulate(rig.model, (0.0, 1.5), x0={**rig.x0, "wide/hyd/pu/swash/x.value": 1.0,
                                              "wide/hyd/neg/C_N.e": 0.0, "wide/hyd/pu/C_P.e": 0.0}, **SIM)
    assert res["wide/hyd/neg/C_N.e"][-1] == pytest.approx(pn, rel=0.01)
    assert rig.displacement(res)[-1] == pytest.approx((30e5 - pn) / 22e5, rel=0.01)
    assert rig.x0["wide/hyd/neg/C_N.e"] == pytest.approx(pn, rel=1e-6)    # the rig starts there


@pytest.mark.parametrize("limit", [None, "100 N*m"])
def test_the_horsepower_control_holds_the_pump_torque(limit):
    """A negative-control pump at full command into a laminar load Q = G·p: without a limit
    α = 1 and p = Q_max/G; with T_max the steady state is on the hyperbola α·p = 2π·T_max/D,
    so α = sqrt(k·G/Q_max) by hand and the shaft torque D·α·p/(2π) = T_max."""
    from bondgraph import BondGraph, build
    from components.hydraulics import NFCPowerUnit, NFCPump, Oil, Orifice

    D, n, G = 100e-6, 1500 / 60, 2e-10
    bg = BondGraph("hp")
    pump = NFCPump("100 cm^3/rev", "1500 rpm", min_displacement=0.1, time_constant="20 ms", torque_limit=limit)
    pu = bg.add(NFCPowerUnit("pu", oil=Oil(), pump=pump, volume="1 L", control_pressure=Input("p_n")))
    bg.add(Orifice("load", conductance=G))
    p, t = pu.consumer("load")
    bg.connect(f"pu/{p}", "load/A")
    bg.connect("load/B", f"pu/{t}")
    res = simulate(build(bg), (0, 2.0), inputs={"p_n": 0.0}, **SIM)
    alpha, pressure = res["hp/pu/swash/x.value"][-1], res["hp/pu/C_P.e"][-1]
    q_max = D * n
    if limit is None:
        assert alpha == pytest.approx(1.0, rel=1e-6)
        assert pressure == pytest.approx(q_max / G, rel=1e-6)
    else:
        k = 2 * math.pi * 100.0 / D
        assert alpha == pytest.approx(math.sqrt(k * G / q_max), rel=1e-6)
        assert D * alpha * pressure / (2 * math.pi) == pytest.approx(100.0, rel=1e-6)
        assert pu.torque_limited([alpha], [pressure])[0]
