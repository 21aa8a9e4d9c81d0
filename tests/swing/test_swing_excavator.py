"""The reference excavator's whole front (boom, arm, bucket, its linkage, three cylinders)
riding on a turntable whose axis is the front's origin (the machine file's frame). The
references are computed here from the parts' data at the pose, with the templates' own
planar kinematics (``world_cog``) and nothing of the swing coupling: the inertia about the
swing axis by hand (Σ m·r² + each part's inertia about the vertical, slender along its pin
line), and the cylinder forces at a constant swing rate by virtual work on the potential
of gravity and of the centrifugal field, differentiated numerically over poses solved at
neighbouring cylinder lengths."""

import math

import numpy as np
import pytest

from bondgraph import power_balance
from components import Cylinder, MainBody, Turntable
from mechanisms import MechanismModel
from mechanisms.machine import DATA, Machine
from mechanisms.swing import with_swing

TT = dict(inertia=3.0e4, gear_ratio=100.0)


@pytest.fixture(scope="module")
def machine():
    return Machine.from_file(DATA / "excavator.toml", mode="extensions")


def value(x, params):
    """A template value: a number, or an expression of run-time parameters (by name)."""
    if hasattr(x, "free_symbols") and x.free_symbols:
        return float(x.subs({f: params[str(f)] for f in x.free_symbols}))
    return float(x)


def masses_at(mech, pose, params):
    """``[(mass, x, y)]`` of every mass and ``[(J_n, angle of the pin line)]`` of every
    part, from the templates' data and planar kinematics at the pose."""
    pts, rot = [], []
    for name, part in mech.parts.items():
        v = pose.values[name]
        if isinstance(part, Cylinder):
            rx, ry, phi, s = v
            u = np.array([math.cos(phi), math.sin(phi)])
            for m, d in ((part.m_barrel, part.d_barrel), (part.m_rod, s - part.d_rod)):
                x, y = np.array([rx, ry]) + d * u
                pts.append((value(m, params), x, y))
            rot.append((value(part.J_barrel, params) + value(part.J_rod, params), phi))
            continue
        x, y = part.world_cog(v)
        pts.append((value(part.mass, params), float(x), float(y)))
        if isinstance(part, MainBody):     # pin line: root pin to the farthest hinge point
            r = np.array(part.root.local)
            far = max(part.points.values(), key=lambda p: np.hypot(*(np.array(p.local) - r)))
            d = np.array(far.local) - r
            rot.append((value(part.inertia, params), v[2] + math.atan2(d[1], d[0])))
        else:
            rot.append((value(part.inertia, params), v[2]))
    return pts, rot


def hand_J(mech, pose, params):
    pts, rot = masses_at(mech, pose, params)
    return TT["inertia"] + sum(m * x ** 2 for m, x, _ in pts) + sum(J * math.cos(a) ** 2 for J, a in rot)


def potential(mech, pose, params, omega):
    """V = Σ m·g·y − ½·ω²·(Σ m·x² + Σ J_n·cos²(pin line)) in the frame turning with the swing."""
    g = params["machine.gravity"]
    pts, rot = masses_at(mech, pose, params)
    return (sum(m * g * y for m, _, y in pts)
            - 0.5 * omega ** 2 * (sum(m * x ** 2 for m, x, _ in pts) + sum(J * math.cos(a) ** 2 for J, a in rot)))


def virtual_work_forces(mech, pose, params, omega, h=2e-4):
    """F_c = ∂V/∂L_c (others held), central differences with Richardson extrapolation."""
    L = {c: pose.length(c) for c in mech.drives}
    guess = {n: pose.angle(n) for n in mech.parts}
    out = {}
    for c in L:
        def dV(step):
            vals = []
            for sgn in (1.0, -1.0):
                p = mech.solve_pose({**L, c: L[c] + sgn * step}, guess=guess)
                vals.append(potential(mech, p, params, omega))
            return (vals[0] - vals[1]) / (2.0 * step)
        out[c] = (4.0 * dV(h / 2) - dV(h)) / 3.0
    return out


@pytest.fixture(scope="module")
def swung(machine):
    return with_swing(machine.mechanism, Turntable("swing", **TT, viscous=2.5e4))


def test_whole_front_held_swings_as_one_inertia(machine, swung):
    mm = MechanismModel.build(swung, machine.params)
    pose = machine.pose()
    L = {c: pose.length(c) for c in swung.drives}
    tau_m, c, T = 250.0, 2.5e4, 3.0
    t = np.linspace(0.0, T, 31)
    res = mm.simulate_extensions({k: ([0.0, T], [v, v]) for k, v in L.items()}, (0.0, T),
                                 guess={n: pose.angle(n) for n in swung.parts},
                                 inputs={"swing.torque": tau_m}, t_eval=t, rtol=1e-11, atol=1e-12,
                                 progress=False)
    J = hand_J(swung, pose, machine.params)
    tau = TT["gear_ratio"] * tau_m
    phi = tau / c * t - tau * J / c ** 2 * (1.0 - np.exp(-c * t / J))
    assert np.max(np.abs(res[swung.swing_state("angle")] - phi)) <= 1e-6


def test_cylinders_hold_gravity_and_centrifugal_loads_of_every_part(machine):
    omega = 0.7
    sw = with_swing(machine.mechanism, Turntable("swing", **TT, rate0=omega))
    mm = MechanismModel.build(sw, machine.params)
    pose = machine.pose()
    L = {c: pose.length(c) for c in sw.drives}
    res = mm.simulate_extensions({k: ([0.0, 0.5], [v, v]) for k, v in L.items()}, (0.0, 0.5),
                                 guess={n: pose.angle(n) for n in sw.parts},
                                 inputs={"swing.torque": 0.0}, t_eval=[0.0, 0.25, 0.5],
                                 rtol=1e-11, atol=1e-12, progress=False)
    ref = virtual_work_forces(sw, pose, machine.params, omega)
    still = virtual_work_forces(sw, pose, machine.params, 0.0)
    for cyl, F_ref in ref.items():
        F = mm.cylinder_force(res, cyl)
        assert abs(F_ref - still[cyl]) > 1e-3 * abs(still[cyl]), cyl      # the swing adds to it
        assert np.max(np.abs(F - F_ref)) <= 1e-6 * abs(F_ref), (cyl, F, F_ref)


def test_energy_balance_of_a_front_move_while_swinging(machine):
    from bondgraph import Table

    sw = with_swing(machine.mechanism, Turntable("swing", **TT, viscous=5e3, coulomb=3e3, brake=4e5))
    mm = MechanismModel.build(sw, machine.params)
    pose = machine.pose()
    L = {c: pose.length(c) for c in sw.drives}
    lengths = {c: ([0.0, 1.5, 3.0], [v, v - 0.25, v - 0.1]) for c, v in L.items()}
    res = mm.simulate_extensions(lengths, (0.0, 3.0), guess={n: pose.angle(n) for n in sw.parts},
                                 inputs={"swing.torque": Table([0, 1.0, 1.01, 3.0], [300.0, 300.0, 0.0, 0.0]),
                                         "swing.brake": Table([0, 2.0, 2.1, 3.0], [0.0, 0.0, 1.0, 1.0])},
                                 energy=True, rtol=1e-10, atol=1e-10, progress=False)
    pb = power_balance(res)
    assert pb.relative <= 1e-4, str(pb)
    assert res[sw.swing_state("rate")].max() > 0.05
