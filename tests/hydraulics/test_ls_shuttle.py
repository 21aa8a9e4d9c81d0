"""Shuttle network: smooth-maximum bounds, the hybrid shuttle's event rate, agreement.

The hybrid shuttle is the event-driven model (a discrete mode per section,
hysteresis band, dwell). Documented rate bound: at most ``1/dwell`` changes
per second, whatever the loads do — checked with loads that cross at 5 Hz and
carry a 150 Hz dither larger than the band (so without the dwell every dither
period would switch twice).
"""

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings, strategies as st

from bondgraph import simulate, simulate_hybrid, t as T
from components.hydraulics import HybridShuttle, smooth_max
from components.hydraulics.ls_rigs import load_rig

SIM = dict(method="CVODE", rtol=1e-8, atol=1e-6)
A_, B_ = sp.symbols("a b", real=True)
EPS = 0.5e5
_SMAX = sp.lambdify((A_, B_), smooth_max(A_, B_, EPS))


@settings(max_examples=200, deadline=None)
@given(st.floats(-50e5, 400e5), st.floats(-50e5, 400e5))
def test_smooth_max_bounds(a, b):
    m, true = _SMAX(a, b), max(a, b)
    assert m >= true - 1e-9 * abs(true)
    assert m - true <= EPS / 2 * (1 + 1e-9)
    d = abs(a - b)
    if d >= 10 * EPS:
        assert m - true <= EPS**2 / (4 * d) * 1.001 + 1e-6


def _crossing_loads(area):
    """Load a oscillates ±30 % around load b at 5 Hz, with a 150 Hz dither of ±2 bar."""
    p_b = 100e5
    p_a = p_b * (1 + 0.3 * sp.sin(2 * sp.pi * 5 * T)) + 2e5 * sp.sin(2 * sp.pi * 150 * T)
    return {"a": p_a * area, "b": p_b * area}, p_b


def test_hybrid_shuttle_is_event_safe():
    dwell = 0.005
    probe = load_rig({"a": 1.0, "b": 1.0}, commands={"a": 0.3, "b": 0.3})
    forces, p_b = _crossing_loads(probe.area["a"])
    rig = load_rig(forces, commands={"a": 0.3, "b": 0.3},
                   shuttle=HybridShuttle("0.5 bar", f"{dwell} s"))
    x0 = {rig.cap_pressure(f): p_b for f in "ab"}
    res = simulate_hybrid(rig.hybrid, (0.0, 1.0), x0=x0, **SIM)
    assert res.t[-1] == pytest.approx(1.0)
    n = len(res.transitions)
    assert 8 <= n <= 30                                     # ≈ 10 crossings, a few dither-doubled
    assert res.events_per_second() <= 1 / dwell
    gaps = np.diff([r.time for r in res.transitions])
    assert gaps.min() >= dwell * (1 - 1e-9)                 # the dwell holds between switches
    # away from the crossings the selected section is the one with the higher load pressure
    pa, pb = (res[f"rig/hyd/{f}/ls/C.e"] for f in "ab")
    mode = res.mode("ls_shuttle")
    clear = np.abs(pa - pb) > 10e5
    higher = np.where(pa > pb, "a", "b")
    assert np.mean(mode[clear] == higher[clear]) > 0.98


def test_hybrid_and_smooth_shuttles_agree():
    """Same crossing loads: the pump pressure of both models stays within the shuttles'
    error bounds of each other (ε/2 + band), away from the switching instants."""
    probe = load_rig({"a": 1.0, "b": 1.0}, commands={"a": 0.3, "b": 0.3})
    forces, p_b = _crossing_loads(probe.area["a"])
    t = np.linspace(0.1, 1.0, 901)
    smooth = load_rig(forces, commands={"a": 0.3, "b": 0.3})
    x0 = {smooth.cap_pressure(f): p_b for f in "ab"}
    rs = simulate(smooth.model, (0.0, 1.0), x0=x0, t_eval=t, progress=False, **SIM)
    hybrid = load_rig(forces, commands={"a": 0.3, "b": 0.3}, shuttle=HybridShuttle("0.5 bar", "5 ms"))
    rh = simulate_hybrid(hybrid.hybrid, (0.0, 1.0), x0=x0, t_eval=t, **SIM)
    ps, ph = rs[smooth.pump_pressure], rh[hybrid.pump_pressure]
    switch = np.array([r.time for r in rh.transitions])
    far = np.array([np.min(np.abs(switch - ti)) > 0.02 for ti in t])
    assert far.mean() > 0.4
    assert np.max(np.abs(ps - ph)[far]) <= (0.25e5 + 0.5e5) * 1.05
