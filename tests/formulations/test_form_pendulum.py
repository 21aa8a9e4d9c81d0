"""Double pendulum (two uniform rods 1 m, 1 kg, released at 90° and 0°) in the three formulations.

Must hold: each agrees with ``sympy.physics.mechanics`` (Kane, ``reference.pendulum``)
to 1e-6 rad over 2 s; the Cartesian form's constraint drift stays ≤ 1e-8 m.
The causal pendulum is built from :class:`FreeBody` (a main body without
``Pd``: no actuator, its ``J`` in integral causality).
"""

from __future__ import annotations

import numpy as np
import pytest

import reference as ref
from bondgraph import ConnectionRuleError
from mechanisms.formulations import FreeBody, build_formulation, double_pendulum, pendulum_angles
from mechanisms.formulations.metrics import stiffness_ratio

T = np.linspace(0.0, 2.0, 201)
TIGHT = dict(rtol=1e-10, atol=1e-12, progress=False)


@pytest.fixture(scope="module")
def kane():
    return ref.double_pendulum_kane(T)


@pytest.fixture(scope="module")
def pendulum():
    return double_pendulum()


def _errors(f, res, kane):
    a = pendulum_angles(f.angles(res))
    return (float(np.max(np.abs(a["rod1"] - kane["theta1"]))),
            float(np.max(np.abs(a["rod2"] - kane["theta2"]))))


def test_causal_pendulum_matches_kane(pendulum, kane):
    mech, pose = pendulum
    f = build_formulation(mech, "causal")
    res = f.simulate_forces({}, (0.0, 2.0), pose, t_eval=T, **TIGHT)
    assert max(_errors(f, res, kane)) <= 1e-6
    # the rotations are the independent states, the CoG inertias dependent
    assert sorted(f.model.report.states) == ["pendulum/rod1/J.f", "pendulum/rod2/J.f"]
    tip = f.point(res, "rod2/T")
    assert np.max(np.abs(tip - kane["tip2"])) <= 2e-6


def test_cartesian_pendulum_matches_kane_without_drift(pendulum, kane):
    mech, pose = pendulum
    f = build_formulation(mech, "cartesian")
    res = f.simulate_forces({}, (0.0, 2.0), pose, t_eval=T, **TIGHT)
    assert max(_errors(f, res, kane)) <= 1e-6
    drift = max(float(np.max(g)) for g in f.loop_closure(res).values())
    assert drift <= 1e-8
    energy = sum(res[f"energy[pendulum/{b}]"] for b in ("rod1", "rod2"))
    assert np.max(np.abs(energy - kane["energy"])) <= 1e-6


def test_stiff_pendulum_matches_kane(pendulum, kane):
    mech, pose = pendulum
    f = build_formulation(mech, "stiff", stiffness=1e10)
    res = f.simulate_forces({}, (0.0, 2.0), pose, t_eval=T, method="Radau", rtol=1e-6, atol=1e-9,
                            progress=False)
    assert max(_errors(f, res, kane)) <= 1e-6
    assert 0 < f.deflection_bound(res) < 2e-8  # ~120 N on a 1e10 N/m joint
    assert not f.model.report.derivative  # every inertia in integral causality


def test_stiff_pendulum_at_default_stiffness_misses_by_its_deflection(pendulum, kane):
    """With k = 1e8 N/m the joints stretch by ~0.4 µm: the error is that, not the integrator's."""
    mech, pose = pendulum
    f = build_formulation(mech, "stiff")
    res = f.simulate_forces({}, (0.0, 2.0), pose, t_eval=T, method="Radau", rtol=1e-6, atol=1e-9,
                            progress=False)
    err = max(_errors(f, res, kane))
    delta = f.deflection_bound(res)
    assert 1e-6 < err < 100 * delta


def test_stiffness_of_the_three_forms(pendulum):
    mech, pose = pendulum
    ratios = {}
    for kind in ("causal", "cartesian", "stiff"):
        f = build_formulation(mech, kind)
        res = f.simulate_forces({}, (0.0, 1e-3), pose, progress=False)
        ratios[kind] = stiffness_ratio(f.model, res)
    assert ratios["causal"][0] < 10
    assert ratios["stiff"][1] > 1e4  # sqrt(k/m) and c/m: 1e4 .. 1e5 1/s
    assert ratios["stiff"][0] > 1e3 * ratios["causal"][0]


def test_free_body_takes_no_actuator_point():
    with pytest.raises(ConnectionRuleError, match=r"rod \(free body\): has a Pd port"):
        FreeBody("rod", mass=1.0, inertia=0.1, cog=(0.5, 0.0),
                 points={"O": ("Rt", (0, 0)), "P": ("Pd", (1, 0))})
    with pytest.raises(ConnectionRuleError, match="has 0 Rt ports"):
        FreeBody("rod", mass=1.0, inertia=0.1, cog=(0.5, 0.0), points={"T": ("Li", (1, 0))})
