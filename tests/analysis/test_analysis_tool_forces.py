"""ISO 6015 tool forces against a hand virtual-work computation on the excavator's
trigonometry: velocity ratios, weights, tipping; the relief pressure enters linearly."""

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from mechanisms.analysis import Study, tool_forces
from mechanisms.machine import DATA
from reference.excavator_trig import load

FUNCS = ("boom", "arm", "bucket")
POSES = [(3.0, 3.1, 2.8), (2.7, 2.5, 2.45), (3.5, 3.7, 3.1)]   # boom, arm, bucket lengths (m)
P_RELIEF = 300e5


@pytest.fixture(scope="module")
def ex():
    return load(DATA / "excavator.toml")


@pytest.fixture(scope="module")
def study():
    return Study(DATA / "excavator.toml")


def _tip_velocity(ex, s, k, h=1e-6):
    """∂(tip)/∂s_k by central differences of the trigonometry."""
    sp, sm = list(s), list(s)
    sp[k] += h
    sm[k] -= h
    qp, qm = ex.world(*sp)["bucket/Q"], ex.world(*sm)["bucket/Q"]
    return (np.asarray(qp, float) - np.asarray(qm, float)) / (2 * h)


def _holding(ex, s, k, h=1e-6):
    """Cylinder force holding the front: F = ∂V/∂s_k (virtual work of the weights)."""
    sp, sm = list(s), list(s)
    sp[k] += h
    sm[k] -= h
    return (float(ex.potential(*sp)) - float(ex.potential(*sm))) / (2 * h)


def _areas(ex, f):
    return ex.areas(f"{f}_cylinder")


def test_tool_forces_at_three_poses_equal_virtual_work(ex, study):
    tf = tool_forces(study, n=10)
    got = tf.at({f: [p[i] for p in POSES] for i, f in enumerate(FUNCS)})
    for j, s in enumerate(POSES):
        for k, f in enumerate(FUNCS):
            v = _tip_velocity(ex, s, k)
            a_cap, _ = _areas(ex, f)
            F_ref = P_RELIEF * a_cap / np.hypot(*v)
            assert got[f]["hydraulic"][j] == pytest.approx(F_ref, rel=1e-6), (f, s)
            # the force acts along the tip's own path, in the digging (extending) sense
            assert np.allclose([got[f]["dx"][j], got[f]["dy"][j]], v / np.hypot(*v), atol=1e-7)


def test_weights_enter_through_the_holding_force(ex, study):
    tf = tool_forces(study, n=10, weights=True, functions=("arm", "bucket"))
    got = tf.at({f: [p[i] for p in POSES] for i, f in enumerate(FUNCS)})
    for j, s in enumerate(POSES):
        for k, f in ((1, "arm"), (2, "bucket")):
            v = _tip_velocity(ex, s, k)
            a_cap, _ = _areas(ex, f)
            F_ref = (P_RELIEF * a_cap - _holding(ex, s, k)) / np.hypot(*v)
            assert got[f]["hydraulic"][j] == pytest.approx(F_ref, rel=1e-6), (f, s)


def test_relief_pressure_enters_linearly(study):
    L = {f: [p[i] for p in POSES] for i, f in enumerate(FUNCS)}
    base = tool_forces(study, n=10, relief="300 bar", tipping=False).at(L)
    double = tool_forces(study, n=10, relief="600 bar", tipping=False).at(L)
    tank = tool_forces(study, n=10, relief="300 bar", tank="5 bar", tipping=False).at(L)
    for f in FUNCS:
        assert np.allclose(double[f]["hydraulic"], 2 * base[f]["hydraulic"], rtol=1e-12)
        # tank pressure on the rod side: F = (p_r·A_cap − p_t·A_rod)/|v|, affine in both
        a_cap, a_rod = study.description.areas(f)
        ratio = (300e5 * a_cap - 5e5 * a_rod) / (300e5 * a_cap)
        assert np.allclose(tank[f]["hydraulic"], ratio * base[f]["hydraulic"], rtol=1e-12)


def test_retracting_stroke_pulls_with_the_rod_side(ex, study):
    L = {f: [p[i] for p in POSES] for i, f in enumerate(FUNCS)}
    push = tool_forces(study, n=10, functions=["bucket"], tipping=False).at(L)["bucket"]
    pull = tool_forces(study, n=10, functions=["bucket"], direction="retract", tipping=False).at(L)["bucket"]
    a_cap, a_rod = _areas(ex, "bucket")
    assert np.allclose(pull["hydraulic"] / push["hydraulic"], a_rod / a_cap, rtol=1e-12)
    assert np.allclose([pull["dx"], pull["dy"]], [-push["dx"], -push["dy"]])


def test_tipping_limit_equals_a_moment_balance(ex, study):
    tf = tool_forces(study, n=10)
    got = tf.at({f: [p[i] for p in POSES] for i, f in enumerate(FUNCS)})
    g, grav = ex.ground, ex.gravity
    for j, s in enumerate(POSES):
        tip = np.asarray(ex.world(*s)["bucket/Q"], float)
        weights = ex.weight_points(*s) + list(ex.base.values())
        for k, f in enumerate(FUNCS):
            v = _tip_velocity(ex, s, k)
            d = v / np.hypot(*v)                       # the tool pushes the soil along d; the soil pushes back
            limits = []
            for xt, over in ((ex.tipping_line, -1.0), (ex.rear_tipping_line, 1.0)):
                # counter-clockwise moments about the line; tipping over the front is clockwise
                M_w = sum(-m * grav * (float(p[0]) - xt) for m, p in weights)
                m_F = (tip[0] - xt) * (-d[1]) - (tip[1] - g) * (-d[0])
                Mw, mF = over * M_w, over * m_F         # tipping sense positive
                limits.append(-Mw / mF if mF > 0 else np.inf)
            assert got[f]["tipping"][j] == pytest.approx(min(limits), rel=1e-6), (f, s)
            assert got[f]["force"][j] == min(got[f]["tipping"][j], got[f]["hydraulic"][j])


def test_optimum_is_the_best_pose_of_the_grid_and_refined(study):
    tf = tool_forces(study, n=12)
    for f in FUNCS:
        o = tf.optimum[f]["hydraulic"]
        assert o.force >= np.nanmax(tf.maps[f]["hydraulic"]) - 1e-6
        again = tf.at({g: [o.lengths[g]] for g in FUNCS})[f]["hydraulic"][0]
        assert again == pytest.approx(o.force, rel=1e-12)
        gov = tf.optimum[f]["governing"]
        assert gov.force <= o.force + 1e-6
        assert gov.force >= np.nanmax(tf.maps[f]["force"]) - 1e-6
    # the bucket's rated force depends on its own cylinder only (no weights): the relief
    # force over the least tip speed per unit bucket-cylinder rate along its stroke, found
    # on the hand trigonometry (a grid, then a bounded 1-D search around its best point)
    ex = load(DATA / "excavator.toml")
    lo, hi = study.description.stroke_limits("bucket")

    def speed(sb):
        return np.hypot(*_tip_velocity(ex, (3.0, 3.1, sb), 2))

    grid = np.linspace(lo, hi, 401)
    k = int(np.argmin([speed(x) for x in grid]))
    best = minimize_scalar(speed, bounds=(grid[max(k - 1, 0)], grid[min(k + 1, len(grid) - 1)]),
                           method="bounded", options={"xatol": 1e-10})
    F_ref = P_RELIEF * _areas(ex, "bucket")[0] / best.fun
    assert tf.summary()["bucket_tool_force"] == pytest.approx(F_ref, rel=1e-5)


def test_table_plot_and_files(study, tmp_path):
    tf = tool_forces(study, n=10, functions=["arm", "bucket"])
    df = tf.table()
    assert list(df["function"]) == ["arm", "arm", "bucket", "bucket"]
    assert set(df["limit"]) <= {"hydraulic", "tipping over the front", "tipping over the rear"}
    files = tf.write(tmp_path)
    assert (tmp_path / "tool_forces.csv").read_text().splitlines()[0].startswith("function,optimum,tool_force [N]")
    assert files[1].stat().st_size > 10_000
