"""Soil cutting checked against hand calculations of the published formula.

The hand values write McKyes' (1985) N-factors out again here, with the failure wedge found
by a brute-force search over β (not by our minimiser), and the draft force of a flat blade
moving horizontally, ``H = P·sin(α+δ) + c_a·d·w·cot α``. The bond-graph tool is driven at a
constant depth and speed by flow sources: the force on the drive, the fill of the bucket and
the energy balance are compared with them.
"""

import math

import numpy as np
import pytest
import sympy as sp

from bondgraph import BondGraph, One, Sf, build, simulate
from bondgraph.errors import ParameterError, UnknownNameError
from components.soil import PRESETS, SoilProperties, draft_force, preset
from components.soil_tool import GroundProfile, SoilTool


def hand_draft(d, alpha_deg, w, gamma, c, phi_deg, delta_deg, ca, q):
    """McKyes' flat blade, written out: P at the β minimising Nγ (searched on a 1e-4° grid)."""
    a, phi, delta = (math.radians(v) for v in (alpha_deg, phi_deg, delta_deg))
    betas = np.radians(np.arange(0.5, 180.0 - alpha_deg - phi_deg - delta_deg, 1e-4))
    den = np.cos(a + delta) + np.sin(a + delta) / np.tan(betas + phi)
    n_gamma = (1 / math.tan(a) + 1 / np.tan(betas)) / (2 * den)
    k = int(np.argmin(n_gamma))
    b = betas[k]
    D = den[k]
    Ng = n_gamma[k]
    Nc = (1 + 1 / math.tan(b) / math.tan(b + phi)) / D
    Nca = (1 - 1 / math.tan(a) / math.tan(b + phi)) / D
    Nq = (1 / math.tan(a) + 1 / math.tan(b)) / D
    P = w * (gamma * d**2 * Ng + c * d * Nc + ca * d * Nca + q * d * Nq)
    return P * math.sin(a + delta) + ca * d * w / math.tan(a)


SOILS = {name: s for name, s in PRESETS.items()}


@pytest.mark.parametrize("name", sorted(SOILS))
@pytest.mark.parametrize("alpha", [25.0, 47.3, 71.0, 90.0])
def test_the_pure_function_is_the_hand_formula(name, alpha):
    s = SOILS[name]
    s = s.with_values(surcharge=3e3)          # every term of the equation in play
    H = float(draft_force(0.35, alpha, 1.3, s)[0])
    ref = hand_draft(0.35, alpha, 1.3, s.unit_weight, s.cohesion, s.friction_angle,
                     s.tool_friction_angle, s.adhesion, s.surcharge)
    assert H == pytest.approx(ref, rel=1e-4)


def test_a_vertical_smooth_blade_is_rankine():
    """α = 90°, δ = 0, c = 0: the passive Rankine thrust γ d² K_p / 2, K_p = tan²(45° + φ/2)."""
    s = SoilProperties(unit_weight=18e3, cohesion=0.0, friction_angle=32.0, tool_friction_angle=0.0,
                       adhesion=0.0, surcharge=0.0)
    Kp = math.tan(math.radians(45 + 16)) ** 2
    assert float(draft_force(0.5, 90.0, 1.0, s)[0]) == pytest.approx(18e3 * 0.25 * Kp / 2, rel=1e-6)


def _rig(soil, *, depth, speed, face_deg, capacity=1.0, width=1.2, t_end=1.0):
    bg = BondGraph("rig")
    X = One("X", displacement="x", initial=0.0)
    tool = SoilTool("soil", soil, width=width, capacity=capacity, position=(X.displacement, -depth),
                    face_angle=math.radians(face_deg), ground=0.0)
    bg.add(X, One("Y"), One("L"), Sf("vx", -speed), Sf("vy", 0.0), Sf("vl", 0.0), tool)
    for a, b in [("vx", "X"), ("vy", "Y"), ("vl", "L"), ("X", "soil/x"), ("Y", "soil/y"), ("L", "soil/load")]:
        bg.connect(a, b)
    model = build(bg)
    res = simulate(model, (0, t_end), rtol=1e-8, atol=1e-10, energy=True, progress=False)
    return model, res


@pytest.mark.parametrize("name", ["loose_sand", "dense_clay", "gravel"])
def test_a_constant_cut_meets_the_hand_draft_force(name):
    """A straight cut 0.35 m deep at 0.4 m/s, face 55° from the ground: the force on the
    drive equals the hand value to 1 % (the tool's N-factors are fits of the wedge solution)."""
    s = SOILS[name]
    model, res = _rig(s, depth=0.35, speed=0.4, face_deg=55.0, t_end=0.5)
    F = res["e[rig/b4]"]                      # the bond X → soil/x: the force on the edge
    ref = hand_draft(0.35, 55.0, 1.2, s.unit_weight, s.cohesion, s.friction_angle, s.tool_friction_angle,
                     s.adhesion, s.surcharge)
    assert abs(F[-1]) == pytest.approx(ref, rel=0.01)


def test_fill_is_the_swept_volume_times_swell_and_stops_at_capacity():
    s = SOILS["dense_clay"]
    w, d, v = 1.2, 0.3, 0.5
    _, res = _rig(s, depth=d, speed=v, face_deg=55.0, capacity=0.5, width=w, t_end=3.0)
    V = res["rig/soil/fill.volume"]
    t = res.t
    swept = w * d * v * t * s.swell                        # loose volume of the bite
    early = t < 0.9 * 0.5 / (w * d * v * s.swell)          # before the cap
    assert np.allclose(V[early], swept[early], rtol=0.01, atol=1e-6)
    assert V[-1] == pytest.approx(0.5, rel=0.01)           # capped at the heaped capacity
    payload = -res["e[rig/soil/b16]"]                      # the payload's weight (N)
    assert payload[-1] == pytest.approx(0.5 / s.swell * s.unit_weight, rel=0.01)


def test_soil_work_is_the_drive_work():
    """Energy: what the drive puts in is what the cutting resistor dissipates (to 1e-4)."""
    s = SOILS["gravel"]
    model, res = _rig(s, depth=0.25, speed=0.3, face_deg=40.0, t_end=1.0)
    out = res.outputs()
    t = res.t
    p_drive = -out["e[rig/b1]"] * out["f[rig/b1]"]
    W_drive = -float(np.trapezoid(p_drive, t)) if hasattr(np, "trapezoid") else -float(np.trapz(p_drive, t))
    H = hand_draft(0.25, 40.0, 1.2, s.unit_weight, s.cohesion, s.friction_angle, s.tool_friction_angle,
                   s.adhesion, s.surcharge)
    assert W_drive == pytest.approx(H * 0.3 * 1.0, rel=0.01)      # force × distance
    D = res.dissipated()
    assert float(D[-1] - D[0]) == pytest.approx(W_drive, rel=1e-4)


def test_no_force_above_the_ground():
    _, res = _rig(SOILS["gravel"], depth=-0.1, speed=0.3, face_deg=40.0, t_end=0.2)
    assert np.max(np.abs(res["e[rig/b4]"])) == 0.0
    assert np.max(np.abs(res["rig/soil/fill.volume"])) == 0.0


def test_ground_profile_and_errors_name_things():
    g = GroundProfile([(-2.0, 0.0), (0.0, 0.0), (1.0, 1.0)])
    assert float(g.height(0.5)) == 0.5 and float(g.slope(0.5)) == 1.0 and float(g.height(5.0)) == 1.0
    h, sig = g.expressions(sp.Float(0.5))
    assert float(h) == pytest.approx(0.5) and float(sig) == pytest.approx(math.pi / 4)
    with pytest.raises(ParameterError) as exc:
        GroundProfile([(0.0, 0.0), (0.0, 1.0), (-1.0, 0.0)])
    assert len(exc.value.problems) == 2
    with pytest.raises(UnknownNameError, match="loose_sand, dense_clay, gravel"):
        preset("peat")
    with pytest.raises(ParameterError) as exc:
        SoilProperties(unit_weight=-1.0, cohesion=-5.0, friction_angle=20.0, tool_friction_angle=30.0,
                       adhesion=0.0, surcharge=0.0, swell=0.9)
    assert len(exc.value.problems) == 4


@pytest.mark.parametrize("phi, table", [(0.0, (5.14, 1.00, 0.00)), (20.0, (14.83, 6.40, 5.39)),
                                        (30.0, (30.14, 18.40, 22.40)), (38.0, (61.35, 48.93, 78.03))])
def test_bearing_factors_are_vesics_table(phi, table):
    # Vesić (1973) / Das (2010), bearing capacity factors, as printed (two decimals)
    from components.soil import bearing_factors

    np.testing.assert_allclose(bearing_factors(phi), table, atol=0.006)


def test_the_penetration_pressure_is_winkler_at_first_and_the_bearing_capacity_deep():
    from components.soil import bearing_capacity, penetration_pressure

    for name in ("loose_sand", "dense_clay", "gravel"):
        s = preset(name)
        d = 1e-6                                           # k_s·d far below q_ult
        assert penetration_pressure(d, 0.025, s) == pytest.approx(s.subgrade_modulus * d, rel=1e-3)
        d = 0.3                                            # k_s·d far above q_ult: the capacity, by hand
        c = s.cohesion
        phi = math.radians(s.friction_angle)
        nq = math.exp(math.pi * math.tan(phi)) * math.tan(math.pi / 4 + phi / 2) ** 2
        nc = (nq - 1) / math.tan(phi)
        ng = 2 * (nq + 1) * math.tan(phi)
        q = c * nc + s.unit_weight * d * nq + 0.5 * s.unit_weight * 0.025 * ng
        assert bearing_capacity(d, 0.025, s) == pytest.approx(q, rel=1e-12)
        assert penetration_pressure(d, 0.025, s) == pytest.approx(q, rel=1e-3)
