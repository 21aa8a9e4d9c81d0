"""The swing driven by a hydraulic swing motor with crossover relief, the boom held: the
motor's torque D/2π·Δp through the gear against the hand solution; a swing stopped by its
motor against closed ports (the crossover relief takes the kinetic energy): torque balance
with the pressures read from the run, the relief holding the pressure drop between its
cracking and full-open pressures, and the energy balance."""

import math

import numpy as np
import pytest
from scipy.integrate import cumulative_trapezoid

from bondgraph import Se, Sf, power_balance
from components import Turntable
from components.hydraulics import Oil, ReliefValve, SwingMotor
from mechanisms import MechanismModel, swing_inertia, with_swing
from mechanisms.examples import single_boom

L0, I_GEAR, D = 3.2, 110.0, 180e-6          # m, ω_motor/φ̇, m³/rev
RELIEF = ReliefValve(crack="250 bar", full="270 bar", q_rated="300 L/min")


def build_swing(ports, **tt):
    """The boom on a turntable driven by a swing motor whose ports A, B end in ``ports``
    (element factories)."""
    motor = SwingMotor("swing_motor", displacement=D, oil=Oil(), volume_A="1.5 L", volume_B="1.5 L",
                       crossover=RELIEF, leakage=tt.pop("leakage", 0.0))
    swung = with_swing(single_boom("extension"), Turntable("swing", inertia=2.2e4, gear_ratio=I_GEAR,
                                                           motor=motor, **tt), terminals=ports)
    mm = MechanismModel.build(swung)
    pose = swung.solve_pose({"boom_cyl": L0}, guess={"boom": 0.4})
    return swung, mm, swing_inertia(swung, pose)


def run(mm, T, n, **kw):
    return mm.simulate_extensions({"boom_cyl": ([0.0, T], [L0, L0])}, (0.0, T), guess={"boom": 0.4},
                                  t_eval=np.linspace(0.0, T, n), progress=False, **kw)


def test_motor_torque_from_the_port_pressures():
    pA, pB, c = 120e5, 10e5, 4.0e4
    swung, mm, J = build_swing({"A": Se("p_A", pA), "B": Se("p_B", pB)}, viscous=c)
    T = 2.0
    res = run(mm, T, 21, rtol=1e-11, atol=1e-12)
    t = res.t
    tau = I_GEAR * D / (2 * math.pi) * (pA - pB)
    phi = tau / c * t - tau * J / c ** 2 * (1.0 - np.exp(-c * t / J))
    assert np.max(np.abs(res[swung.swing_state("angle")] - phi)) <= 1e-6


@pytest.fixture(scope="module")
def stop():
    """Swinging at 0.8 rad/s, the valve centred (ports blocked): the motor brakes it."""
    c = 2.0e3
    swung, mm, J = build_swing({"A": Sf("blocked_A", 0.0), "B": Sf("blocked_B", 0.0)}, viscous=c,
                               rate0=0.8, leakage=2e-12)
    res = run(mm, 1.5, 3001, rtol=1e-9, atol=1e-9, energy=True)
    return swung, mm, J, c, res


def test_the_swing_stops_against_the_crossover_relief(stop):
    swung, mm, J, c, res = stop
    dp = res["boom_lift/swing/swing_motor/C_A.e"] - res["boom_lift/swing/swing_motor/C_B.e"]
    rate = res[swung.swing_state("rate")]
    assert abs(rate[-1]) < 0.05 * 0.8                                   # stopped
    assert np.max(np.abs(dp)) > RELIEF.crack_pressure                   # the relief opened...
    assert np.max(np.abs(dp)) < RELIEF.full_pressure                    # ...and held it


def test_torque_balance_of_the_stop(stop):
    """ω(t) = ω₀ + ∫ (i·D/2π·(p_A − p_B) − c·ω) dt / J, with the run's pressures (coasting,
    the motor pumps from A to B: p_A − p_B < 0 brakes)."""
    swung, mm, J, c, res = stop
    dp = res["boom_lift/swing/swing_motor/C_A.e"] - res["boom_lift/swing/swing_motor/C_B.e"]
    rate = res[swung.swing_state("rate")]
    torque = I_GEAR * D / (2 * math.pi) * dp - c * rate
    ref = 0.8 + cumulative_trapezoid(torque, res.t, initial=0.0) / J
    assert np.min(dp) < -RELIEF.crack_pressure
    assert np.max(np.abs(rate - ref)) <= 1e-4 * 0.8


def test_energy_balance_of_the_stop(stop):
    swung, mm, J, c, res = stop
    pb = power_balance(res)
    assert pb.relative <= 1e-4, str(pb)
    assert float(res.stored_energy()[0]) == pytest.approx(0.5 * J * 0.8 ** 2, rel=1e-9)
    assert res.dissipated()[-1] > 0.9 * 0.5 * J * 0.8 ** 2 - float(res.stored_energy()[-1])


def test_valve_driven_swing_accelerates_against_the_crossover_relief():
    """A 300 bar supply through a fully opened valve (sized so that its flow stays within the
    relief's rating): the motor's port pressure is held by the crossover relief (below its
    full-open pressure) while the swing accelerates, the swing rate follows the torque
    balance with the run's pressures, and the energy closes (valve throttling, relief and
    bearing losses)."""
    from bondgraph import BondGraph, Zero
    from components.hydraulics import DirectionalValve, PowerUnit

    hyd = BondGraph("hyd")
    pu = PowerUnit("pu", oil=Oil(), pressure="300 bar")
    p, t = pu.consumer("swing")
    hyd.add(pu, DirectionalValve("valve", q_nominal="80 L/min", dp_nominal="5 bar", command=1.0),
            Zero("nA"), Zero("nB"))
    for a, b in [(f"pu/{p}", "valve/P"), ("valve/T", f"pu/{t}"), ("valve/A", "nA"), ("nB", "valve/B")]:
        hyd.connect(a, b)
    hyd.expose("A", "nA")
    hyd.expose("B", "nB")
    c = 2.0e3
    swung, mm, J = build_swing({"A": (hyd, "A"), "B": (hyd, "B")}, viscous=c, leakage=1e-12)
    res = run(mm, 2.0, 4001, rtol=1e-9, atol=1e-9, energy=True)
    dp = res["boom_lift/swing/swing_motor/C_A.e"] - res["boom_lift/swing/swing_motor/C_B.e"]
    rate = res[swung.swing_state("rate")]
    assert np.max(dp) > RELIEF.crack_pressure and np.max(dp) < RELIEF.full_pressure
    assert rate[-1] > 0.3                                             # it got going
    torque = I_GEAR * D / (2 * math.pi) * dp - c * rate
    ref = cumulative_trapezoid(torque, res.t, initial=0.0) / J
    assert np.max(np.abs(rate - ref)) <= 1e-4 * np.max(rate)
    pb = power_balance(res)
    assert pb.relative <= 1e-4, str(pb)
