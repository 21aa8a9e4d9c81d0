"""Self-checks of the independent reference solutions in ``tests/reference``.

Each check compares two independent routes inside the references (Kane vs
closed-form kinematics, Kane vs virtual work, Kane vs hand-derived Lagrange,
closed form vs matrix exponential, energy balances) or a published figure.
"""

from __future__ import annotations

import ast
import dataclasses
import pathlib

import numpy as np
import pytest
from scipy.integrate import solve_ivp

try:  # ``tests/`` is on sys.path under pytest's default (prepend) import mode
    import reference as ref
except ImportError:  # pragma: no cover - when ``tests`` is a package
    from tests import reference as ref

DEG = np.pi / 180.0


def rel(a, b):
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))) / max(np.max(np.abs(b)), 1e-300))


# ---------------------------------------------------------------------------
# independence
# ---------------------------------------------------------------------------
def test_references_import_nothing_from_the_toolkit():
    for path in pathlib.Path(ref.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            for n in names:
                assert n.split(".")[0] not in {"bondgraph", "components", "mechanisms"}, (path, n)


# ---------------------------------------------------------------------------
# linear systems
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("c", [0.0, 1.3, 4.0, 4.0 + 1e-7, 9.0, 300.0])
def test_mass_spring_damper_closed_form_vs_expm(c):
    m, k, x0, v0, F0 = 1.0, 4.0, 0.3, -1.2, 2.0
    t = np.linspace(0.0, 4.0, 41)
    r = ref.mass_spring_damper(m, k, c, x0, v0, F0, t)
    X = ref.linear_step_response([[0, 1], [-k / m, -c / m]], [0, F0 / m], [x0, v0], t)
    assert np.max(np.abs(r["x"] - X[:, 0])) < 1e-12
    assert np.max(np.abs(r["v"] - X[:, 1])) < 1e-12
    expected = "under" if c < 4.0 else ("critical" if c == 4.0 else "over")
    assert r["regime"] == expected


def test_dc_motor_expm_vs_ode_and_steady_state():
    par = dict(V=24.0, R=0.8, L=2e-3, K=0.07, J=3e-4, b=2e-5)
    t = np.linspace(0.0, 0.5, 26)
    r = ref.dc_motor(**par, t=t, tau_load=0.05)
    V, R, L, K, J, b = par.values()
    sol = solve_ivp(lambda _t, y: [(V - R * y[0] - K * y[1]) / L, (K * y[0] - b * y[1] - 0.05) / J], (0, 0.5), [0, 0],
                    method="DOP853", t_eval=t, rtol=1e-12, atol=1e-12)
    assert rel(r["i"], sol.y[0]) < 1e-9 and rel(r["omega"], sol.y[1]) < 1e-9
    long = ref.dc_motor(**par, t=np.array([50.0]), tau_load=0.05)
    assert abs(long["omega"][0] / long["omega_ss"] - 1) < 1e-10
    assert abs(long["i"][0] / long["i_ss"] - 1) < 1e-10


def test_lever_equals_reflected_mass_spring_damper():
    m1, k, n, F1, c = 2.0, 150.0, 1.7, -2.0 * 9.81, 3.0
    t = np.linspace(0.0, 3.0, 31)
    r = ref.lever(m1, k, n, F1, t, c=c, x1_0=0.01, v1_0=0.2)
    msd = ref.mass_spring_damper(m1, n * n * k, n * n * c, 0.01, 0.2, F1, t)
    assert np.max(np.abs(r["x1"] - msd["x"])) < 1e-12
    assert np.max(np.abs(r["v1"] - msd["v"])) < 1e-12


# ---------------------------------------------------------------------------
# pendulums
# ---------------------------------------------------------------------------
def test_exact_period_small_angle_limit():
    for kind in ("point", "rod"):
        T0 = ref.pendulum_period_small_angle(0.8, 9.81, kind)
        assert abs(ref.pendulum_period_exact(0.8, 1e-5, 9.81, kind) / T0 - 1) < 1e-10
        # series T = T0 (1 + th^2/16 + 11 th^4/3072)
        th = 0.1
        series = T0 * (1 + th**2 / 16 + 11 * th**4 / 3072)
        assert abs(ref.pendulum_period_exact(0.8, th, 9.81, kind) / series - 1) < 1e-7


@pytest.mark.parametrize("theta0", [1e-3, 1.0, 2.5])
def test_kane_rod_pendulum_period(theta0):
    L, g = 1.3, 9.81
    T = ref.pendulum_period_exact(L, theta0, g, kind="rod")
    r = ref.rod_pendulum_kane(np.array([0.0, T / 2, T]), L=L, m=2.0, g=g, theta0=theta0)
    # at T/2 the rod is at -theta0 with zero speed; the period error is ~ 2 w / alpha
    dT = 2 * r["theta_dot"][1] / r["theta_ddot"][1]
    assert abs(dT / T) < 1e-9
    assert abs(r["theta"][1] + theta0) < 1e-9 * max(theta0, 1e-3)
    assert abs(r["theta"][2] - theta0) < 1e-9 * max(theta0, 1e-3)
    if theta0 <= 1e-3:
        assert abs(T / ref.pendulum_period_small_angle(L, g, kind="rod") - 1) < 1e-7
    assert np.ptp(r["energy"]) < 1e-10 * 2.0 * g * L


def test_double_pendulum_energy_and_lagrange():
    t = np.linspace(0.0, 2.0, 401)
    k = ref.double_pendulum_kane(t)
    E = k["energy"]
    assert abs(E[0] - (-0.5 * 9.81)) < 1e-12  # rod 2 CoG at y = -0.5, rod 1 CoG at y = 0
    assert np.max(np.abs(E - E[0])) / abs(E[0]) < 1e-9
    lag = ref.double_pendulum_lagrange(t)
    for key in ("theta1", "theta2", "omega1", "omega2"):
        assert np.max(np.abs(k[key] - lag[key])) < 1e-8, key
    assert np.allclose(np.linalg.norm(k["tip1"], axis=1), 1.0, atol=1e-14)
    assert np.allclose(np.linalg.norm(k["tip2"] - k["tip1"], axis=1), 1.0, atol=1e-14)
    np.testing.assert_allclose(k["tip1"][0], [1.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(k["cog2"][0], [1.0, -0.5], atol=1e-15)


# ---------------------------------------------------------------------------
# boom + cylinder
# ---------------------------------------------------------------------------
BOOMS = [ref.OPENHYDRAULICS_BOOM, ref.OPENHYDRAULICS_BOOM_MASSLESS_CYLINDER]


@pytest.mark.parametrize("geom", BOOMS, ids=["massive", "massless"])
def test_boom_kane_kinematics_vs_law_of_cosines(geom):
    t = np.linspace(0.0, 2.0, 81)
    s = lambda t: 2.6 + 0.3 * np.sin(t) ** 2  # noqa: E731
    sd = lambda t: 0.3 * np.sin(2 * t)  # noqa: E731
    sdd = lambda t: 0.6 * np.cos(2 * t)  # noqa: E731
    r = ref.boom_cylinder_inverse(geom, s, sd, sdd, t)
    k = ref.boom_kinematics(geom, s(t), sd(t), sdd(t))
    for key in ("theta", "theta_dot", "theta_ddot", "phi", "phi_dot"):
        assert np.max(np.abs(r[key] - k[key])) < 1e-10, key
    assert np.max(np.abs(r["B"] - k["B"])) < 1e-10
    assert np.max(np.abs(ref.boom_length_from_theta(geom, r["theta"]) - s(t))) < 1e-10
    assert r["constraint_residual"].max() < 1e-12
    # dynamics: Kane's inverse force vs Lagrange in s with closed-form kinematics
    lag = ref.boom_lagrange_force(geom, s(t), sd(t), sdd(t))
    assert rel(r["F"], lag) < 1e-9


@pytest.mark.parametrize("geom", BOOMS, ids=["massive", "massless"])
def test_boom_kane_static_force_vs_virtual_work(geom):
    th = np.linspace(-0.6, 1.2, 10)
    s = ref.boom_length_from_theta(geom, th)
    r = ref.boom_cylinder_inverse(geom, s, 0.0, 0.0, np.arange(th.size, dtype=float))
    assert rel(r["F"], ref.boom_static_force(geom, th)) < 1e-10
    # massless cylinder: plain moment balance of the boom about C
    if geom.m1 == geom.m2 == 0.0:
        C, A = np.array(geom.C), np.array(geom.A)
        for i, thi in enumerate(th):
            Rm = np.array([[np.cos(thi), -np.sin(thi)], [np.sin(thi), np.cos(thi)]])
            B = C + Rm @ np.array(geom.B_body)
            G = C + Rm @ np.array(geom.G_body)
            e = (B - A) / np.linalg.norm(B - A)
            lever = (B - C)[0] * e[1] - (B - C)[1] * e[0]
            assert abs(r["F"][i] - geom.m_b * geom.g * (G[0] - C[0]) / lever) < 1e-8 * abs(r["F"][i])


@pytest.mark.parametrize("geom", BOOMS, ids=["massive", "massless"])
def test_boom_forward_inverse_energy(geom):
    t = np.linspace(0.0, 2.0, 201)
    F0 = float(ref.boom_static_force(geom, ref.boom_theta_from_length(geom, 2.7)))
    f = ref.boom_cylinder_forward(geom, lambda tt: F0 * (1 + 0.1 * np.sin(3 * tt)), t, 2.7)
    assert f["length"].max() - f["length"].min() > 0.1  # it really moves
    inv = ref.boom_cylinder_inverse(geom, f["length"], f["length_dot"], f["length_ddot"], t)
    assert rel(inv["F"], f["F"]) < 1e-10
    k = ref.boom_kinematics(geom, f["length"], f["length_dot"], f["length_ddot"])
    for key in ("theta", "theta_dot", "theta_ddot", "phi", "phi_dot"):
        assert np.max(np.abs(f[key] - k[key])) < 1e-10, key
    # constant force: E_kin + E_pot - F s is conserved
    c = ref.boom_cylinder_forward(geom, lambda tt: 1.05 * F0, t, 2.7)
    H = c["kinetic_energy"] + c["potential_energy"] - 1.05 * F0 * c["length"]
    assert np.max(np.abs(H - H[0])) < 1e-9 * np.max(c["kinetic_energy"])


# ---------------------------------------------------------------------------
# four-bar + cylinder
# ---------------------------------------------------------------------------
FOURBARS = [ref.DEFAULT_FOURBAR, dataclasses.replace(ref.DEFAULT_FOURBAR, m1=0.0, m2=0.0, J1=0.0, J2=0.0)]
FB_KEYS = ("theta_a", "theta_b", "theta_c", "omega_a", "omega_b", "omega_c", "alpha_a", "alpha_b", "alpha_c", "phi", "phi_dot")


def test_fourbar_default_is_grashof_crank_rocker():
    g = ref.DEFAULT_FOURBAR
    links = sorted([g.a, g.b, g.c, float(np.hypot(g.O2[0] - g.O1[0], g.O2[1] - g.O1[1]))])
    assert links[0] + links[3] <= links[1] + links[2] and links[0] == g.a
    th = np.linspace(-np.pi, np.pi, 721)
    ang = ref.fourbar_angles(g, th)
    mu = np.degrees(np.abs(np.angle(np.exp(1j * (ang["theta_b"] - ang["theta_c"])))))
    assert mu.min() > 40 and mu.max() < 95
    s = ref.fourbar_length_from_crank(g, th)
    back = ref.fourbar_crank_from_length(g, s[(th > 15 * DEG) & (th < 111 * DEG)])
    assert np.max(np.abs(back - th[(th > 15 * DEG) & (th < 111 * DEG)])) < 1e-12


@pytest.mark.parametrize("geom", FOURBARS, ids=["massive", "massless"])
def test_fourbar_kane_kinematics_vs_closed_form(geom):
    t = np.linspace(0.0, 2.0, 81)
    s = lambda t: 0.6 + 0.14 * np.sin(2 * t)  # noqa: E731
    sd = lambda t: 0.28 * np.cos(2 * t)  # noqa: E731
    sdd = lambda t: -0.56 * np.sin(2 * t)  # noqa: E731
    r = ref.fourbar_cylinder_inverse(geom, s, sd, sdd, t)
    k = ref.fourbar_kinematics(geom, s(t), sd(t), sdd(t))
    for key in FB_KEYS:
        assert np.max(np.abs(r[key] - k[key])) < 1e-10, key
    assert np.max(np.abs(r["Q"] - k["Q"])) < 1e-10
    assert r["constraint_residual"].max() < 1e-12
    lag = ref.fourbar_lagrange_force(geom, s(t), sd(t), sdd(t))
    assert rel(r["F"], lag) < 1e-9


@pytest.mark.parametrize("geom", FOURBARS, ids=["massive", "massless"])
def test_fourbar_kane_static_force_vs_virtual_work(geom):
    s = np.linspace(0.46, 0.76, 9)
    r = ref.fourbar_cylinder_inverse(geom, s, 0.0, 0.0, np.arange(s.size, dtype=float))
    assert rel(r["F"], ref.fourbar_static_force(geom, s)) < 1e-10


@pytest.mark.parametrize("geom", FOURBARS, ids=["massive", "massless"])
def test_fourbar_forward_inverse_energy(geom):
    t = np.linspace(0.0, 0.6, 121)
    F0 = float(ref.fourbar_static_force(geom, 0.6))
    f = ref.fourbar_cylinder_forward(geom, lambda tt: F0 * (1 + 0.2 * np.sin(3 * tt)), t, 0.6)
    assert f["length"].max() - f["length"].min() > 0.05
    inv = ref.fourbar_cylinder_inverse(geom, f["length"], f["length_dot"], f["length_ddot"], t)
    assert rel(inv["F"], f["F"]) < 1e-10
    k = ref.fourbar_kinematics(geom, f["length"], f["length_dot"], f["length_ddot"])
    for key in FB_KEYS:
        assert np.max(np.abs(f[key] - k[key])) < 1e-10, key
    c = ref.fourbar_cylinder_forward(geom, lambda tt: 1.2 * F0, t, 0.6)
    H = c["kinetic_energy"] + c["potential_energy"] - 1.2 * F0 * c["length"]
    assert np.max(np.abs(H - H[0])) < 1e-9 * np.max(c["kinetic_energy"])


# ---------------------------------------------------------------------------
# hydraulic lifted mass
# ---------------------------------------------------------------------------
def test_lifted_mass_published_figures():
    t = np.linspace(0.0, 1.0, 11)
    r = ref.lifted_mass_cylinder(t, variable_volume=True)
    assert abs(r["x"][-1] / 0.1270547 - 1) < 1e-6
    assert abs(r["v"][-1] / 0.1271287 - 1) < 1e-6
    assert abs(r["p"][-1] / 1.572784e6 - 1) < 1e-6
    c = ref.lifted_mass_cylinder(t, variable_volume=False)
    assert abs(c["x"][-1] / 0.127053 - 1) < 1e-5
    assert abs(c["v"][-1] / 0.127128 - 1) < 1e-5
    assert abs(c["p"][-1] / 1.572725e6 - 1) < 1e-5
    for res in (r, c):
        assert rel(res["oil_mass"], res["oil_mass_balance"]) < 1e-10


def test_lifted_mass_constant_volume_vs_expm():
    A = np.pi * 0.05**2
    m, b, V0, cc, G, Q0, g = 1000.0, 1.2e9, 2e-3, 2e4, 1e-12, 1e-3, 9.81
    t = np.linspace(0.0, 1.0, 51)
    r = ref.lifted_mass_cylinder(t, variable_volume=False)
    Amat = [[0, 1, 0], [0, -cc / m, A / m], [0, -b / V0 * A, -b / V0 * G]]
    X = ref.linear_step_response(Amat, [0, -g, b / V0 * Q0], [0, 0, m * g / A], t)
    assert np.max(np.abs(r["x"] - X[:, 0])) < 1e-10
    assert np.max(np.abs(r["v"] - X[:, 1])) < 1e-9
    assert np.max(np.abs(r["p"] / X[:, 2] - 1)) < 1e-9


# ---------------------------------------------------------------------------
# excavator static holding check
# ---------------------------------------------------------------------------
POSE = np.radians([50.0, -80.0, 20.0])


def test_excavator_cylinder_lengths_published():
    L = ref.excavator_cylinder_lengths(*POSE)
    assert abs(L["boom"] - 3.668) <= 1e-3
    assert abs(L["arm"] - 2.969) <= 1e-3
    assert abs(L["bucket"] - 3.066) <= 1e-3
    other = ref.excavator_cylinder_lengths(*POSE, branch=-1)
    assert abs(other["bucket"] - 3.066) > 0.1
    p = ref.excavator_points(*POSE)
    assert abs(np.linalg.norm(p["rocker_joint"] - p["rocker_pivot"]) - 0.717) < 1e-12
    assert abs(np.linalg.norm(p["rocker_joint"] - p["link_pin"]) - 0.674) < 1e-12
    # boom length from the boom-cylinder closed form of the boom reference
    assert abs(ref.boom_length_from_theta(ref.OPENHYDRAULICS_BOOM, POSE[0]) - L["boom"]) < 1e-12


def test_excavator_static_boom_force_published():
    r = ref.excavator_static_boom_force(POSE)
    assert abs(r["gravity_moment"] / 65.4e3 - 1) < 0.01
    assert abs(r["force"] / 77.8e3 - 1) < 0.01
    assert abs(r["cap_pressure_bar"] / 27.2 - 1) < 0.01
    # independent route: virtual work of the boom reference with a massless
    # cylinder and the boom carrying arm + bucket as one rigid body
    p = ref.excavator_points(*POSE)
    geo = ref.OPENHYDRAULICS_EXCAVATOR
    C = np.array(geo.boom_foot)
    masses = np.array([geo.boom_mass, geo.arm_mass, geo.bucket_mass])
    cogs = np.array([p["boom_cog"], p["arm_cog"], p["bucket_cog"]])
    M = masses.sum()
    G_world = (masses[:, None] * cogs).sum(0) / M
    c, s_ = np.cos(POSE[0]), np.sin(POSE[0])
    G_body = np.array([[c, s_], [-s_, c]]) @ (G_world - C)
    boom = dataclasses.replace(ref.OPENHYDRAULICS_BOOM_MASSLESS_CYLINDER, m_b=float(M), G_body=tuple(G_body))
    assert abs(float(ref.boom_static_force(boom, POSE[0])) / r["force"] - 1) < 1e-12
