"""A boom and its cylinder (the reference excavator's boom) riding on a turntable, checked
against hand solutions written here from the parts' data: the swing under a constant motor
torque with the front held (J·φ̈ = τ − friction), the cylinder force that holds the boom
while it swings at a constant rate (gravity and centrifugal loads, by virtual work in the
rotating frame), the kinetic energy ½·J(q)·ω², and the energy balance of a run where both
the front and the swing move."""

import math

import numpy as np
import pytest

from bondgraph import power_balance
from components import Turntable
from mechanisms import MechanismModel
from mechanisms.examples import BOOM, single_boom
from mechanisms.swing import with_swing

G = 9.81
L0 = 3.2                       # boom cylinder held at this length (m)
AXIS = 0.35                    # the swing axis crosses the front's plane at x = 0.35 m
TT = dict(inertia=2.2e4, gear_ratio=110.0, motor_inertia=0.05, axis_x=AXIS)
CYL = dict(m_barrel=60.0, m_rod=35.0, d_barrel=0.7, d_rod=0.5, J_barrel=9.0, J_rod=5.0)
#: an in-plane tensor for the boom (kg·m², boom frame): principal values 700 and 7400 about
#: axes turned 0.3 rad from the frame; with J_n = 8060: J_a + J_b ≥ J_n, |J_a − J_b| ≤ J_n
_c, _s = math.cos(0.3), math.sin(0.3)
TENSOR = tuple(tuple(float(v) for v in row) for row in
               np.array([[_c, -_s], [_s, _c]]) @ np.diag([700.0, 7400.0]) @ np.array([[_c, _s], [-_s, _c]]))


def front(cylinder_masses: bool):
    return single_boom("extension", **(CYL if cylinder_masses else {}))


def hand_geometry(theta: float):
    """Boom CoG, rod-pin B and the cylinder's axis at boom angle θ, from the boom's data."""
    fx, fy = BOOM["foot"]
    c, s = math.cos(theta), math.sin(theta)
    def world(p):
        return np.array([fx + c * p[0] - s * p[1], fy + s * p[0] + c * p[1]])
    G_ = world(BOOM["cog"])
    B = world(BOOM["rod_pin"])
    A = np.array(BOOM["cyl_base"])
    return G_, B, A


def hand_inertia(theta: float, cylinder_masses: bool, tensor: bool) -> float:
    """J about the swing axis at the pose, by hand: turntable, motor through the gear,
    boom m·r² and its inertia about the vertical, cylinder barrel and rod m·r² and theirs."""
    G_, B, A = hand_geometry(theta)
    J = TT["inertia"] + TT["gear_ratio"] ** 2 * TT["motor_inertia"]
    J += BOOM["mass"] * (G_[0] - AXIS) ** 2
    if tensor:   # about the vertical: e_y in the boom frame is (sin θ, cos θ)
        e = np.array([math.sin(theta), math.cos(theta)])
        J += float(e @ np.array(TENSOR) @ e)
    else:        # slender along its pin line C–F (the boom frame's x axis): J_n·cos²θ
        J += BOOM["inertia"] * math.cos(theta) ** 2
    if cylinder_masses:
        u = (B - A) / np.linalg.norm(B - A)
        L = np.linalg.norm(B - A)
        barrel = A + CYL["d_barrel"] * u
        rod = A + (L - CYL["d_rod"]) * u
        J += CYL["m_barrel"] * (barrel[0] - AXIS) ** 2 + CYL["m_rod"] * (rod[0] - AXIS) ** 2
        J += (CYL["J_barrel"] + CYL["J_rod"]) * u[0] ** 2      # slender along the axis: J·cos²φ
    return J


def model(cylinder_masses=False, tensor=False, **tt):
    swung = with_swing(front(cylinder_masses), Turntable("swing", **{**TT, **tt}),
                       tensors={"boom": TENSOR} if tensor else None)
    return swung, MechanismModel.build(swung)


@pytest.mark.parametrize("cylinder_masses,tensor", [(False, False), (True, False), (False, True)])
def test_swing_under_constant_torque_with_the_front_held(cylinder_masses, tensor):
    """J·φ̈ = i·τ_m − c·φ̇ from rest: φ = (τ/c)·t − (τ·J/c²)·(1 − e^(−c·t/J))."""
    c, tau_m = 4.0e4, 180.0
    swung, mm = model(cylinder_masses, tensor, viscous=c)
    T = 3.0
    t = np.linspace(0.0, T, 31)
    res = mm.simulate_extensions({"boom_cyl": ([0.0, T], [L0, L0])}, (0.0, T), guess={"boom": 0.4},
                                 inputs={"swing.torque": tau_m}, t_eval=t, rtol=1e-11, atol=1e-12,
                                 progress=False)
    theta = float(res[mm.state("boom", "theta")][0])
    J = hand_inertia(theta, cylinder_masses, tensor)
    tau = TT["gear_ratio"] * tau_m
    phi = tau / c * t - tau * J / c ** 2 * (1.0 - np.exp(-c * t / J))
    assert np.max(np.abs(res[swung.swing_state("angle")] - phi)) <= 1e-6
    assert np.max(np.abs(res[mm.state("boom", "theta")] - theta)) <= 1e-9       # the front held


def test_coulomb_friction_of_the_slew_bearing():
    """J·φ̈ = τ − T_C·tanh(φ̇/ω_C) − c·φ̇, J by hand, integrated here as one equation."""
    from scipy.integrate import solve_ivp

    c, Tc, wc, tau_m = 5.0e3, 9.0e3, 0.02, 150.0
    swung, mm = model(coulomb=Tc, coulomb_rate=wc, viscous=c)
    T = 2.0
    t = np.linspace(0.0, T, 21)
    res = mm.simulate_extensions({"boom_cyl": ([0.0, T], [L0, L0])}, (0.0, T), guess={"boom": 0.4},
                                 inputs={"swing.torque": tau_m}, t_eval=t, rtol=1e-11, atol=1e-12,
                                 progress=False)
    J = hand_inertia(float(res[mm.state("boom", "theta")][0]), False, False)
    tau = TT["gear_ratio"] * tau_m
    ref = solve_ivp(lambda _t, y: [y[1], (tau - Tc * math.tanh(y[1] / wc) - c * y[1]) / J], (0.0, T),
                    [0.0, 0.0], t_eval=t, rtol=1e-12, atol=1e-14, method="LSODA")
    assert np.max(np.abs(res[swung.swing_state("angle")] - ref.y[0])) <= 1e-6


def hand_force(theta: float, omega: float, tensor: bool) -> float:
    """The boom cylinder's force holding the boom at θ while it swings at ω (massless
    cylinder), by virtual work in the turning frame: F·dL = dV, with the potential
    V(θ) = m·g·y_G − ½·ω²·(m·r_G² + J_vertical(θ))."""
    m, (cx, cy) = BOOM["mass"], BOOM["cog"]
    G_, B, A = hand_geometry(theta)
    s, c = math.sin(theta), math.cos(theta)
    dG = np.array([-s * cx - c * cy, c * cx - s * cy])                    # dG/dθ
    bx, by = BOOM["rod_pin"]
    dB = np.array([-s * bx - c * by, c * bx - s * by])
    if tensor:
        e, de = np.array([s, c]), np.array([c, -s])
        dJv = 2.0 * float(de @ np.array(TENSOR) @ e)
    else:
        dJv = -2.0 * BOOM["inertia"] * c * s
    dV = m * G * dG[1] - 0.5 * omega ** 2 * (2.0 * m * (G_[0] - AXIS) * dG[0] + dJv)
    dL = float((B - A) @ dB) / float(np.linalg.norm(B - A))
    return dV / dL


@pytest.mark.parametrize("tensor", [False, True])
def test_cylinder_holds_the_centrifugal_load_at_constant_swing_rate(tensor):
    omega = 0.6
    swung, mm = model(tensor=tensor, rate0=omega)
    T = 1.0
    res = mm.simulate_extensions({"boom_cyl": ([0.0, T], [L0, L0])}, (0.0, T), guess={"boom": 0.4},
                                 inputs={"swing.torque": 0.0}, t_eval=np.linspace(0, T, 11),
                                 rtol=1e-11, atol=1e-12, progress=False)
    theta = float(res[mm.state("boom", "theta")][0])
    F = mm.cylinder_force(res, "boom_cyl")
    F_static = hand_force(theta, 0.0, tensor)
    F_ref = hand_force(theta, omega, tensor)
    assert abs(F_ref - F_static) > 0.01 * abs(F_static)            # the centrifugal part matters
    assert np.max(np.abs(F - F_ref)) <= 1e-6 * abs(F_ref)
    assert np.max(np.abs(res[swung.swing_state("rate")] - omega)) <= 1e-9


def test_kinetic_energy_of_the_swing_is_half_J_omega_squared():
    omega = 0.45
    swung, mm = model(cylinder_masses=True, rate0=omega)
    res = mm.simulate_extensions({"boom_cyl": ([0.0, 0.2], [L0, L0])}, (0.0, 0.2), guess={"boom": 0.4},
                                 inputs={"swing.torque": 0.0}, rtol=1e-11, atol=1e-12, progress=False)
    theta = float(res[mm.state("boom", "theta")][0])
    J = hand_inertia(theta, True, False)
    assert float(res.stored_energy()[0]) == pytest.approx(0.5 * J * omega ** 2, rel=1e-9)


def test_energy_balance_with_the_front_and_the_swing_moving():
    """The boom lifts and lowers while the swing accelerates, coasts and brakes: stored energy
    change = source work − dissipation (bearing, brake)."""
    from bondgraph import Table

    swung, mm = model(cylinder_masses=True, tensor=True, viscous=3.0e3, coulomb=4.0e3, brake=5.0e5)
    T = 4.0
    lengths = ([0.0, 1.5, 3.0, 4.0], [3.0, 3.5, 3.1, 3.3])
    torque = Table([0.0, 1.0, 1.01, 4.0], [400.0, 400.0, 0.0, 0.0])
    brake = Table([0.0, 2.5, 2.6, 4.0], [0.0, 0.0, 1.0, 1.0])
    res = mm.simulate_extensions({"boom_cyl": lengths}, (0.0, T), guess={"boom": 0.4},
                                 inputs={"swing.torque": torque, "swing.brake": brake}, energy=True,
                                 rtol=1e-10, atol=1e-10, progress=False)
    pb = power_balance(res)
    assert pb.relative <= 1e-4, str(pb)
    rate = res[swung.swing_state("rate")]
    assert rate.max() > 0.05 and abs(rate[-1]) < 0.2 * rate.max()     # it swung, then was braked
    assert res.dissipated()[-1] > 0.1 * res.source_work().max()


@pytest.mark.parametrize("cylinder_masses,tensor", [(True, False), (False, True)])
def test_angular_momentum_about_the_swing_axis_is_kept_while_the_boom_moves(cylinder_masses, tensor):
    """No torque, no friction: J(q)·φ̇ stays at its start value while the boom lifts, J by
    hand along the run (the Coriolis torque on the swing, all of it: the swing slows as the
    boom reaches out and speeds up as it comes in)."""
    omega = 0.5
    swung, mm = model(cylinder_masses, tensor, rate0=omega)
    T = 2.0
    t = np.linspace(0.0, T, 41)
    res = mm.simulate_extensions({"boom_cyl": ([0.0, 1.0, 2.0], [2.6, 3.6, 3.0])}, (0.0, T),
                                 guess={"boom": 0.4}, inputs={"swing.torque": 0.0}, t_eval=t,
                                 rtol=1e-11, atol=1e-12, progress=False)
    theta = res[mm.state("boom", "theta")]
    H = np.array([hand_inertia(th, cylinder_masses, tensor) for th in theta]) * res[swung.swing_state("rate")]
    rate = res[swung.swing_state("rate")]
    assert np.ptp(rate) > 0.05 * omega                   # the swing rate did change
    assert np.max(np.abs(H - H[0])) <= 1e-6 * abs(H[0])


@pytest.mark.parametrize("cylinder_masses,tensor", [(False, False), (True, True)])
def test_swing_inertia_read_out_equals_the_hand_inertia(cylinder_masses, tensor):
    from mechanisms.swing import swing_inertia

    swung, _ = model(cylinder_masses, tensor)
    pose = swung.solve_pose({"boom_cyl": L0}, guess={"boom": 0.4})
    assert swing_inertia(swung, pose) == pytest.approx(hand_inertia(pose.angle("boom"), cylinder_masses,
                                                                     tensor), rel=1e-12)


def test_front_free_under_the_hand_forces_stays_put_while_swinging():
    """Forward dynamics: the cylinder pushes with the force of the virtual-work statics at
    ω (by hand); the boom, free to move, stays where it is while the upper structure swings
    at ω. With the statics at rest instead, the centrifugal load moves it."""
    omega, T = 0.6, 1.0
    swung = with_swing(single_boom("force"), Turntable("swing", **{**TT, "rate0": omega}))
    mm = MechanismModel.build(swung)
    pose = swung.solve_pose({"boom_cyl": L0}, guess={"boom": 0.4})
    theta = pose.angle("boom")
    t = np.linspace(0.0, T, 11)
    res = mm.simulate_forces({"boom_cyl": hand_force(theta, omega, False)}, (0.0, T), pose,
                             inputs={"swing.torque": 0.0}, t_eval=t, rtol=1e-11, atol=1e-12, progress=False)
    assert np.max(np.abs(res[mm.state("boom", "theta")] - theta)) <= 1e-6
    assert np.max(np.abs(res[swung.swing_state("rate")] - omega)) <= 1e-6
    still = mm.simulate_forces({"boom_cyl": hand_force(theta, 0.0, False)}, (0.0, T), pose,
                               inputs={"swing.torque": 0.0}, t_eval=t, rtol=1e-11, atol=1e-12, progress=False)
    assert np.max(np.abs(still[mm.state("boom", "theta")] - theta)) > 1e-3


def test_inertial_frame_masses_are_dependent_storages_in_the_causal_report():
    swung, mm = model(cylinder_masses=True)
    dependent = {d.element for d in mm.model.report.derivative}
    for name in ("boom_lift/sw_boom_m_x_X_m", "boom_lift/sw_boom_m_x_Z_m",
                 "boom_lift/sw_boom_cyl_m_rod_x_X_m", "boom_lift/sw_boom_Ja_Y_m"):
        assert name in dependent, sorted(dependent)
    assert mm.model.report.states == [swung.swing_state("rate")]


def test_a_payload_point_mass_rides_at_its_own_radius():
    """A body's point mass (a payload at the arm pin's end) adds m·r² at its own radius."""
    from components import MainBody

    front = single_boom("extension")
    boom = front.parts["boom"]
    front.replace(boom.evolve(point_masses={"payload": ("450 kg", (7.4, -0.3))}))
    swung = with_swing(front, Turntable("swing", **TT, viscous=4.0e4))
    mm = MechanismModel.build(swung)
    T, c, tau_m = 2.0, 4.0e4, 180.0
    t = np.linspace(0.0, T, 21)
    res = mm.simulate_extensions({"boom_cyl": ([0.0, T], [L0, L0])}, (0.0, T), guess={"boom": 0.4},
                                 inputs={"swing.torque": tau_m}, t_eval=t, rtol=1e-11, atol=1e-12,
                                 progress=False)
    theta = float(res[mm.state("boom", "theta")][0])
    fx, fy = BOOM["foot"]
    xp = fx + math.cos(theta) * 7.4 + math.sin(theta) * 0.3        # boom frame → world
    J = hand_inertia(theta, False, False) + 450.0 * (xp - AXIS) ** 2
    tau = TT["gear_ratio"] * tau_m
    phi = tau / c * t - tau * J / c ** 2 * (1.0 - np.exp(-c * t / J))
    assert isinstance(swung.parts["boom"], MainBody)
    assert np.max(np.abs(res[swung.swing_state("angle")] - phi)) <= 1e-6


def test_prescribed_swing_takes_the_torque_of_the_changing_inertia():
    """Inverse dynamics of both motions: the boom lifts while the swing follows a prescribed
    angle; the torque at the swing axis is d(J(θ)·φ̇)/dt + c·φ̇ = J·φ̈ + (dJ/dθ)·θ̇·φ̇ + c·φ̇,
    J and dJ/dθ by hand, θ̇ from the prescribed cylinder rate through dL/dθ by hand."""
    from bondgraph import Spline
    from mechanisms import extension_signals

    c = 3.0e3
    swung = with_swing(front(False), Turntable("swing", **{**TT, "drive": "rate", "viscous": c}))
    mm = MechanismModel.build(swung)
    swing = Spline([0.0, 1.0, 2.0, 3.0], [0.0, 0.3, 1.2, 1.5])
    lengths = ([0.0, 1.5, 3.0], [2.7, 3.5, 3.0])
    t = np.linspace(0.0, 3.0, 61)
    res = mm.simulate_extensions({"boom_cyl": lengths}, (0.0, 3.0), guess={"boom": 0.4},
                                 inputs={"swing.rate": swing.rate(name="swing.rate")}, t_eval=t,
                                 rtol=1e-11, atol=1e-12, progress=False)
    torque = swung.turntable.drive_torque(res, swung.name)
    w, dw = swing.rate().values_at(t), swing.rate().derivatives_at(t)
    Ldot = extension_signals({"boom_cyl": lengths})["boom_cyl"].rate().values_at(t)
    m, (cx, cy), Jn = BOOM["mass"], BOOM["cog"], BOOM["inertia"]
    ref = []
    for k, th in enumerate(res[mm.state("boom", "theta")]):
        G_, B, A = hand_geometry(th)
        s_, c_ = math.sin(th), math.cos(th)
        bx, by = BOOM["rod_pin"]
        dL = float((B - A) @ np.array([-s_ * bx - c_ * by, c_ * bx - s_ * by])) / float(np.linalg.norm(B - A))
        dJ = 2.0 * m * (G_[0] - AXIS) * (-s_ * cx - c_ * cy) - 2.0 * Jn * c_ * s_
        ref.append(hand_inertia(th, False, False) * dw[k] + dJ * (Ldot[k] / dL) * w[k] + c * w[k])
    ref = np.array(ref)
    assert np.max(np.abs(torque - ref)) <= 1e-6 * np.max(np.abs(ref))
    coriolis = np.max(np.abs([r - hand_inertia(th, False, False) * a - c * v for r, th, a, v in
                              zip(ref, res[mm.state("boom", "theta")], dw, w)]))
    assert coriolis > 0.05 * np.max(np.abs(ref))          # the changing inertia's share matters
