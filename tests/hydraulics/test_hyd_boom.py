"""Boom oil-column mode (docs/reference/excavator_data.md section E): linearisation and a simulated ring-down.

Reference (section E, derived there by hand): k = β·(A_cap²/V_cap + A_rod²/V_rod),
lever arm 0.840 m, inertia about the foot 71 383 kg·m² → 5.9 / 7.0 / 8.6 Hz at
β = 0.7 / 1.0 / 1.5 GPa.
"""

import math

import numpy as np
import pytest

from bondgraph import simulate
from bondgraph.linearize import equilibrium, linearize
from components.hydraulics import Friction
from hyd_rigs import boom_rig

PRE = "rig/hyd/boom/cyl/"
START = {"boom_cyl": 3.668}


def operating_point(mech, model, p_rod=1e6):
    pose = mech.solve_pose(START, guess={"boom": math.radians(50)})
    x0 = {k: v for k, v in pose.states().items() if k in model.state_names}
    x0[PRE + "C_B.e"] = p_rod
    return equilibrium(model, x0, free=[PRE + "C_A.e"], inputs={"boom.cmd": 0.0})


@pytest.fixture(scope="module")
def rig():
    mech, model, hc = boom_rig(beta=1.0e9)
    return mech, model, hc, operating_point(mech, model)


def test_start_pose_and_static_pressure(rig):
    mech, model, hc, xe = rig
    pose = mech.solve_pose(START, guess={"boom": math.radians(50)})
    assert math.degrees(pose.angle("boom")) == pytest.approx(50.0, abs=0.05)
    pA, pB = xe[model.state_index(PRE + "C_A.e")], xe[model.state_index(PRE + "C_B.e")]
    # section E: 77.8 kN total boom-cylinder force holds the front
    assert hc.force(pA, pB) == pytest.approx(77.8e3, rel=0.01)


@pytest.mark.parametrize("beta, f_ref", [(0.7e9, 5.9), (1.0e9, 7.0), (1.5e9, 8.6)])
def test_oil_column_frequency(rig, beta, f_ref):
    mech, model, hc, xe = rig
    betas = {k: beta for k in model.params if k.endswith(".beta")}
    saved = {k: model.params[k] for k in betas}
    model.set_params(betas)
    try:
        lin = linearize(model, xe, inputs={"boom.cmd": 0.0})
    finally:
        model.set_params(saved)
    modes = lin.modes(oscillatory_only=True)
    assert len(modes) == 1
    assert modes[0].frequency == pytest.approx(f_ref, rel=0.02)
    names = [n for n, _ in modes[0].dominant]
    assert PRE + "C_B.e" in names and PRE + "m.f" in names


def test_ring_down_agrees_with_linear_estimate():
    mech, model, hc = boom_rig(beta=1.0e9, friction=Friction(viscous=2e5))
    xe = operating_point(mech, model)
    lin = linearize(model, xe, inputs={"boom.cmd": 0.0})
    mode = lin.modes(oscillatory_only=True)[0]
    x0 = xe.copy()
    x0[model.state_index(PRE + "m.f")] = 0.01          # a 1 cm/s kick of the rod
    T = 1.0
    t = np.linspace(0, T, 20001)
    res = simulate(model, (0, T), x0=x0, inputs={"boom.cmd": 0.0}, method="CVODE", rtol=1e-9,
                   atol=1e-9, t_eval=t, progress=False)
    v = res[PRE + "m.f"]
    up = np.flatnonzero((v[:-1] < 0) & (v[1:] >= 0))
    tz = t[up] - v[up] * (t[up + 1] - t[up]) / (v[up + 1] - v[up])
    f_sim = (len(tz) - 1) / (tz[-1] - tz[0])
    assert f_sim == pytest.approx(mode.damped_frequency, rel=0.005)
    # decay of the velocity peaks against the linear damping ratio
    peaks = [np.max(v[(t >= a) & (t < b)]) for a, b in zip(tz[:-1], tz[1:])]
    zeta_sim = math.log(peaks[0] / peaks[-1]) / (2 * math.pi * (len(peaks) - 1))
    zeta_sim /= math.sqrt(1 + (zeta_sim) ** 2) if zeta_sim < 1 else 1
    assert zeta_sim == pytest.approx(mode.damping, rel=0.05)
