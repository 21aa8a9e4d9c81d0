"""A second machine from the same templates, with no new equation code: a knuckle-boom crane."""

import numpy as np
import pytest
import sympy as sp

import bondgraph as bg
from components import Cylinder, MainBody
from mechanisms.examples import knuckle_crane
from mechanisms.model import MechanismModel

G = 9.81
LENGTHS = {"lift_cyl": 1.45, "fold_cyl": 1.35}
GUESS = {"inner": 0.3, "outer": -0.5}


def potential(mech, lengths):
    """Gravity potential from the position-level kinematics only (no dynamics)."""
    pose = mech.solve_pose(lengths, guess=GUESS)
    V = 0.0
    for name, part in mech.parts.items():
        v = pose.values[name]
        if isinstance(part, MainBody):
            V += part.mass * G * part.world_cog(v)[1]
        elif isinstance(part, Cylinder):
            rx, ry, phi, s = v
            V += part.m_barrel * G * (ry + part.d_barrel * np.sin(phi))
            V += part.m_rod * G * (ry + (s - part.d_rod) * np.sin(phi))
    return V


def test_holding_forces_equal_virtual_work():
    mech = knuckle_crane("extension")
    mm = MechanismModel.build(mech)
    assert mm.model.report.states == []  # both cylinders prescribed: no free state
    res = mm.simulate_extensions({c: bg.Spline([0, 1], [s, s]) for c, s in LENGTHS.items()}, (0, 0.1),
                                 guess=GUESS, t_eval=np.array([0.0, 0.1]), rtol=1e-10, atol=1e-12)
    for cyl in LENGTHS:
        h = 1e-6
        plus, minus = dict(LENGTHS), dict(LENGTHS)
        plus[cyl] += h
        minus[cyl] -= h
        F_vw = (potential(mech, plus) - potential(mech, minus)) / (2 * h)  # F = dV/ds holds the load
        F = mm.cylinder_force(res, cyl)
        assert F[-1] == pytest.approx(F_vw, rel=1e-6)


def test_crane_dynamics_conserve_energy_and_close_loops():
    mech = knuckle_crane("force")
    mm = MechanismModel.build(mech)
    assert len(mm.model.report.states) == 2  # one mechanical degree of freedom per cylinder
    pose = mech.solve_pose(LENGTHS, guess=GUESS)
    ext = MechanismModel.build(knuckle_crane("extension"))
    hold = ext.simulate_extensions({c: bg.Spline([0, 1], [s, s]) for c, s in LENGTHS.items()}, (0, 0.01),
                                   guess=GUESS, t_eval=np.array([0.0]))
    F = {c: float(ext.cylinder_force(hold, c)[0]) for c in LENGTHS}
    forces = {"lift_cyl": F["lift_cyl"] * (1 + 0.03 * sp.sin(3 * bg.t)),
              "fold_cyl": F["fold_cyl"] * (1 - 0.03 * sp.sin(2 * bg.t))}
    res = mm.simulate_forces(forces, (0, 3), pose, rtol=1e-9, atol=1e-11, energy=True)
    assert bg.power_balance(res).relative < 1e-6
    assert max(float(np.max(g)) for g in mm.loop_closure(res).values()) < 1e-6
    s = mm.coordinates(res, "lift_cyl")["s"]
    assert np.ptp(s) > 1e-3  # it moved
