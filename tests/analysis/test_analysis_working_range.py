"""Working range of the shipped excavator against an independent forward-kinematics sweep
(plain trigonometry of its triangles and four-bar), and its envelope against real runs."""

import numpy as np
import pytest
from scipy.optimize import minimize

from mechanisms.analysis import Study, working_range
from mechanisms.machine import DATA, Machine
from reference.excavator_trig import load

FUNCS = ("boom", "arm", "bucket")
CYL = ("boom_cylinder", "arm_cylinder", "bucket_cylinder")


@pytest.fixture(scope="module")
def ex():
    return load(DATA / "excavator.toml")


@pytest.fixture(scope="module")
def wr():
    return working_range(DATA / "excavator.toml", n=50)


def _reference_dimensions(ex):
    """Every dimension by a dense trigonometric sweep, then a local refinement."""
    g = ex.ground
    lim = [ex.stroke_limits(c) for c in CYL]
    axes = [np.linspace(lo, hi, 61) for lo, hi in lim]
    S = np.meshgrid(*axes, indexing="ij")
    w = ex.world(*(s.ravel() for s in S))
    x, y = w["bucket/Q"]
    px, py = w["arm/K"]

    def tip(s):
        q = ex.world(*s)["bucket/Q"]
        return float(q[0]), float(q[1])

    def best(values, sign, f, s0=None, vary=(0, 1, 2), cons=None):
        i = int(np.argmax(sign * values))
        x0 = np.array([S[k].ravel()[i] for k in range(3)]) if s0 is None else np.array(s0, float)
        free = list(vary)

        def full(u):
            s = x0.copy()
            s[free] = u
            return s

        kw = dict(bounds=[lim[k] for k in free])
        if cons is None:
            r = minimize(lambda u: -sign * f(full(u)), x0[free], method="L-BFGS-B",
                         options={"ftol": 1e-15, "gtol": 1e-12}, **kw)
        else:
            r = minimize(lambda u: -sign * f(full(u)), x0[free], method="SLSQP",
                         constraints=[{"type": "eq", "fun": lambda u: cons(full(u))}],
                         options={"ftol": 1e-14, "maxiter": 500}, **kw)
        s = full(r.x)
        return max(sign * f(s), sign * values[i]) * sign if cons is None else f(s), s

    out = {}
    out["max_reach"], _ = best(x, 1, lambda s: tip(s)[0])
    depth, _ = best(y, -1, lambda s: tip(s)[1])
    out["max_digging_depth"] = g - depth
    height, _ = best(y, 1, lambda s: tip(s)[1])
    out["max_cutting_height"] = height - g
    # reach at ground level: the farthest crossing of the ground on the dense grid, refined
    near = np.abs(y - g) < 0.05
    i = int(np.argmax(np.where(near, x, -np.inf)))
    out["max_reach_ground"], _ = best(np.where(near, x, -np.inf), 1, lambda s: tip(s)[0],
                                      s0=[S[k].ravel()[i] for k in range(3)], cons=lambda s: tip(s)[1] - g)
    # the bucket pin highest (boom and arm); ISO 7135 dump height: the bucket in its dump
    # position there (turned fully open: its cylinder retracted); the dump clearance: the tip's
    # lowest point as the bucket turns
    pin_h, s_pin = best(py, 1, lambda s: float(ex.world(*s)["arm/K"][1]), vary=(0, 1))
    out["max_pin_height"] = pin_h - g
    out["max_dump_height"] = tip([s_pin[0], s_pin[1], lim[2][0]])[1] - g
    s3 = np.linspace(*lim[2], 2001)
    low = ex.world(np.full_like(s3, s_pin[0]), np.full_like(s3, s_pin[1]), s3)["bucket/Q"][1]
    k = int(np.argmin(low))
    r = minimize(lambda u: tip([s_pin[0], s_pin[1], u[0]])[1], [s3[k]], method="L-BFGS-B",
                 bounds=[lim[2]], options={"ftol": 1e-15, "gtol": 1e-12})
    out["dump_clearance"] = min(float(r.fun), float(low[k])) - g
    return out


def test_dimensions_equal_an_independent_trigonometric_sweep(ex, wr):
    ref = _reference_dimensions(ex)
    got = wr.summary()
    for key, value in ref.items():
        assert abs(got[key] - value) <= 1e-3, f"{key}: {got[key]:.5f} m vs the trigonometric {value:.5f} m"


def test_each_dimension_is_measured_at_its_posture(ex, wr):
    """The posture reported with each dimension puts the measured point where it says."""
    g = ex.ground
    for d in wr.dimensions.values():
        w = ex.world(*(d.lengths[f] for f in FUNCS))
        p = w["arm/K"] if "pin" in d.measured else w["bucket/Q"]
        assert np.allclose([float(p[0]), float(p[1])], d.point, atol=1e-9), d.key
        for f, c in zip(FUNCS, CYL):
            lo, hi = ex.stroke_limits(c)
            assert lo - 1e-12 <= d.lengths[f] <= hi + 1e-12
    assert wr.dimensions["max_reach_ground"].point[1] == pytest.approx(g, abs=1e-7)
    # an interior extreme: the largest reach has the boom cylinder part-way out
    lo, hi = ex.stroke_limits("boom_cylinder")
    assert lo + 0.05 < wr.dimensions["max_reach"].lengths["boom"] < hi - 0.05


def test_grid_poses_equal_the_trigonometry(ex, wr):
    g = wr.grid
    x, y = g.point("bucket", "Q")
    L = g.lengths()
    S = [np.broadcast_to(L[c], g.shape).ravel() for c in CYL]
    q = ex.world(*S)["bucket/Q"]
    assert np.max(np.hypot(q[0] - x.ravel(), q[1] - y.ravel())) < 1e-9
    assert g.ok.all()


def test_envelope_contains_every_tip_point_of_every_cycle_run(wr):
    study = wr.study
    runs = [Machine(study.description, "extensions").run(progress=False),
            Machine(study.description, "valves").run(progress=False)]
    for run in runs:
        tab = run.table()
        inside = wr.contains(tab["tip_x"], tab["tip_y"])
        assert inside.all(), f"{run.mode}: {np.sum(~inside)} tip points outside the envelope"
    # and it is tight: the grid's extreme points lie within two cells of its outline
    x, y = wr.envelope[:, 0], wr.envelope[:, 1]
    assert x.max() - wr.dimensions["max_reach"].value < 0.05
    assert wr.ground - y.min() - wr.dimensions["max_digging_depth"].value < 0.05


def test_chart_and_files(wr, tmp_path):
    files = wr.write(tmp_path)
    assert [f.name for f in files] == ["working_range.csv", "working_range.png"]
    head = (tmp_path / "working_range.csv").read_text().splitlines()[0]
    assert "value [m]" in head and "boom_length [m]" in head
    fig = wr.plot()
    assert fig.axes[0].get_title().startswith("excavator: working range")


def test_study_reuses_the_grid_and_rebuilds_it_for_a_new_pin():
    s = Study(DATA / "excavator.toml")
    g1 = s.grid(8)
    assert s.grid(8) is g1
    assert s.update({"bucket.mass": "900 kg"}).get("kinematics") == "kept"
    assert s.grid(8) is g1
    assert s.update({"arm.points.K": ["Li", "3.60 m", "0 m"]})["kinematics"] == "rebuilt"
    g2 = s.grid(8)
    assert g2 is not g1
    assert not np.allclose(g2.point("bucket", "Q")[0], g1.point("bucket", "Q")[0])


def test_dump_height_is_the_tip_with_the_bucket_dumped_at_the_highest_pin(ex, wr):
    """ISO 7135 maximum dumping height (issue 20): the bucket pin at its highest and the
    bucket in its dump position, turned fully open (its cylinder retracted) — the posture
    named; it was the tip's lowest point with the bucket curled, which stays as the dump
    clearance. Both against the trigonometry (``_reference_dimensions``: the same posture
    by a bounded search) and the posture's lengths."""
    e, pin, clear = (wr.dimensions[k] for k in ("max_dump_height", "max_pin_height", "dump_clearance"))
    lo, hi = ex.stroke_limits("bucket_cylinder")
    assert e.lengths["bucket"] == pytest.approx(lo, abs=1e-12)
    assert e.lengths["boom"] == pytest.approx(pin.lengths["boom"], abs=1e-9)
    assert e.lengths["arm"] == pytest.approx(pin.lengths["arm"], abs=1e-9)
    assert "dump position: bucket cylinder fully retracted" in e.posture and "ISO 7135" in e.remark()
    q = ex.world(*(e.lengths[f] for f in FUNCS))["bucket/Q"]
    assert e.value == pytest.approx(float(q[1]) - ex.ground, abs=1e-9)
    assert clear.value < e.value and clear.lengths["bucket"] > lo + 0.5       # the curled one, lower
    assert [d.letter for d in wr.dimensions.values()] == ["A", "B", "C", "D", "E", "F", "G"]


def test_spec_sheet_chart(wr, tmp_path, monkeypatch):
    """The chart as a spec sheet draws it (issue 20): the ground at zero, a 1 m grid, the
    machine's silhouette (its tracks from [base]), lettered dimension lines and their table,
    no two labels on top of each other, the legend inside the saved image; where the envelope
    reaches into the tracks it is flagged, at the x range a direct check of the outline finds."""
    from matplotlib.figure import Figure
    from matplotlib.text import Text

    saved = []
    original = Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda fig, *a, **k: (saved.append(k), original(fig, *a, **k))[1])
    fig = wr.plot(tmp_path / "wr.png")
    ax, panel = fig.axes
    g = wr.ground
    ground = [ln for ln in ax.get_lines() if ln.get_label() == "ground"]
    assert ground and list(ground[0].get_ydata()) == [0.0, 0.0] and "above the ground" in ax.get_ylabel()
    for ticks in (ax.get_xticks(), ax.get_yticks()):
        assert np.allclose(np.diff(ticks), 1.0)
    # the tracks: from the rear to the front tipping line, rounded by the idlers, track_height high
    base = wr.study.description.base
    tracks = wr.undercarriage()
    r = base["track_height"] / 2
    assert tracks[:, 0].min() == pytest.approx(base["rear_tipping_line"] - r)
    assert tracks[:, 0].max() == pytest.approx(base["tipping_line"] + r)
    assert tracks[:, 1].max() - g == pytest.approx(base["track_height"])
    # letters on the dimension lines, their table in the panel, nothing overlapping
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    letters = [t for t in ax.texts if t.get_text() in "ABCDEFG" and t.get_text()]
    assert sorted(t.get_text() for t in letters) == list("ABCDEFG")
    boxes = [t.get_window_extent(renderer) for t in letters]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not a.overlaps(b), "two letters overlap"
    cells = {c.get_text().get_text() for c in panel.tables[0].get_celld().values()}
    for d in wr.dimensions.values():
        assert d.letter in cells and d.title in cells and f"{d.value:.2f} m" in cells
    legend = panel.get_legend()
    assert legend is not None and fig.bbox.contains(*legend.get_window_extent(renderer).p0) \
        and fig.bbox.contains(*legend.get_window_extent(renderer).p1)
    assert saved and saved[-1].get("bbox_inches") == "tight"
    # interference: the envelope covers the front of the tracks
    from matplotlib.path import Path as MplPath

    X, Y = np.meshgrid(np.arange(-3, 3, 0.01), np.arange(g, g + 1.0, 0.01))
    P = np.column_stack([X.ravel(), Y.ravel()])
    both = MplPath(tracks).contains_points(P) & wr.contains(P[:, 0], P[:, 1])
    assert both.any()
    msg = wr.interference
    lo_x, hi_x = (float(v) for v in msg.split(" at x ")[1].split(" m")[0].split(" … "))
    assert lo_x == pytest.approx(P[both, 0].min(), abs=0.03) and hi_x == pytest.approx(P[both, 0].max(), abs=0.03)
    assert msg in wr.table_text() and any(isinstance(t, Text) and t.get_text().startswith("INTERFERENCE")
                                          for t in panel.texts)
