"""A boom and its cylinder (the reference excavator's boom) on a travelling carrier, checked
against references written here from the parts' data: the whole machine accelerated by a
constant tractive force against rolling resistance (Newton, by hand), the energy balance
of a run where the front and the carrier move, the total momentum along the ground kept
while the front moves with no force on the carrier, and the ground-frame velocity of the
boom's centre of gravity (its frame velocity, from the boom's angle and rate, plus v)."""

import math

import numpy as np
import pytest

from bondgraph import ParameterError, Table, power_balance
from mechanisms import MechanismModel
from mechanisms.examples import BOOM, single_boom
from mechanisms.travel import Carrier, with_travel

G = 9.81
L0 = 3.2
CYL = dict(m_barrel=60.0, m_rod=35.0, d_barrel=0.7, d_rod=0.5, J_barrel=9.0, J_rod=5.0)
M_C = 12000.0                                          # chassis, kg
M_TOTAL = M_C + BOOM["mass"] + CYL["m_barrel"] + CYL["m_rod"]   # by hand: everything that travels


def model(**carrier):
    moving = with_travel(single_boom("extension", **CYL), Carrier("travel", **{"mass": M_C, **carrier}))
    return moving, MechanismModel.build(moving)


def test_constant_tractive_force_accelerates_the_whole_machine():
    """Front held: M·v̇ = F − C_rr·M·g (v ≫ v_r, tanh = 1): v = v0 + a·t, x = v0·t + a·t²/2."""
    F, crr, v0 = 30.0e3, 0.04, 1.0
    moving, mm = model(rolling=crr, v0=v0, rolling_speed=0.01)
    T = 3.0
    t = np.linspace(0.0, T, 31)
    res = mm.simulate_extensions({"boom_cyl": ([0.0, T], [L0, L0])}, (0.0, T), guess={"boom": 0.4},
                                 inputs={"travel.force": F}, t_eval=t, rtol=1e-11, atol=1e-12, progress=False)
    a = (F - crr * M_TOTAL * G) / M_TOTAL
    assert a > 0.5
    assert np.max(np.abs(res[moving.travel_state("speed")] - (v0 + a * t))) <= 1e-6
    assert np.max(np.abs(res[moving.travel_state("position")] - (v0 * t + a * t ** 2 / 2))) <= 1e-6
    assert np.max(np.abs(res[mm.state("boom", "theta")] - res[mm.state("boom", "theta")][0])) <= 1e-9
    assert moving.total_mass() == pytest.approx(M_TOTAL, rel=1e-12)


def test_energy_balance_with_the_front_and_the_carrier_moving():
    """The boom lifts and lowers while the carrier is pushed, coasts and rolls to a stop:
    stored energy change = source work − dissipation (rolling, cylinder's none)."""
    moving, mm = model(rolling=0.05)
    T = 4.0
    force = Table([0.0, 1.5, 1.6, 4.0], [25.0e3, 25.0e3, 0.0, 0.0])
    res = mm.simulate_extensions({"boom_cyl": ([0.0, 1.5, 3.0, 4.0], [3.0, 3.5, 3.1, 3.3])}, (0.0, T),
                                 guess={"boom": 0.4}, inputs={"travel.force": force}, energy=True,
                                 rtol=1e-10, atol=1e-10, progress=False)
    pb = power_balance(res)
    assert pb.relative <= 1e-4, str(pb)
    v = res[moving.travel_state("speed")]
    assert v.max() > 1.0 and v[-1] < 0.5 * v.max()           # it was pushed, then rolled out
    assert res.dissipated()[-1] > 0.1 * res.source_work().max()


def hand_cog_velocity(theta, omega):
    """The boom's centre of gravity's x velocity in the front's frame, from θ and θ̇."""
    cx, cy = BOOM["cog"]
    return (-np.sin(theta) * cx - np.cos(theta) * cy) * omega


def test_front_motion_moves_the_free_carrier_keeping_the_momentum_along_the_ground():
    """No tractive force, no rolling resistance: M_c·v + Σ m·Ẋ stays at its start value
    while the boom lifts and lowers (the carrier recoils), and the boom's Ẋ is its frame
    velocity (by hand) plus v."""
    v0 = 0.5
    moving, mm = model(v0=v0)
    T = 2.0
    t = np.linspace(0.0, T, 41)
    res = mm.simulate_extensions({"boom_cyl": ([0.0, 1.0, 2.0], [2.6, 3.6, 3.0])}, (0.0, T),
                                 guess={"boom": 0.4}, inputs={"travel.force": 0.0}, t_eval=t,
                                 rtol=1e-11, atol=1e-12, progress=False)
    v = res[moving.travel_state("speed")]
    name = moving.name
    P = M_C * v
    for elem, m in (("boom_m_x", BOOM["mass"]), ("boom_cyl_m_barrel_x", CYL["m_barrel"]),
                    ("boom_cyl_m_rod_x", CYL["m_rod"])):
        P = P + m * res.flow(f"{name}/tr_{elem}_m")
    assert np.ptp(v) > 0.02                                 # the carrier did recoil
    assert np.max(np.abs(P - M_TOTAL * v0)) <= 1e-6 * M_TOTAL * v0
    theta = res[mm.state("boom", "theta")]
    omega = res.flow(f"{name}/boom/J")
    Xdot = res.flow(f"{name}/tr_boom_m_x_m")
    assert np.max(np.abs(Xdot - (hand_cog_velocity(theta, omega) + v))) <= 1e-9


def test_prescribed_speed_takes_the_rolling_force_at_steady_speed():
    """drive="speed" at a steady 1.5 m/s, front held: the tractive force is C_rr·W (hand)."""
    crr = 0.03
    moving, mm = model(rolling=crr, drive="speed")
    res = mm.simulate_extensions({"boom_cyl": ([0.0, 1.0], [L0, L0])}, (0.0, 1.0), guess={"boom": 0.4},
                                 inputs={"travel.speed": 1.5}, rtol=1e-10, atol=1e-10, progress=False)
    F = moving.tractive_force(res)
    assert F[-1] == pytest.approx(crr * M_TOTAL * G * math.tanh(1.5 / 0.02), rel=1e-9)
    assert res[moving.travel_state("position")][-1] == pytest.approx(1.5, rel=1e-9)


def test_bad_carrier_and_front_are_named():
    with pytest.raises(ParameterError, match="mass: found -5.0"):
        Carrier("travel", mass=-5.0)
    moving, _ = model()
    with pytest.raises(ParameterError, match="TravelMechanism"):
        with_travel(moving, Carrier("travel", mass=1.0))
