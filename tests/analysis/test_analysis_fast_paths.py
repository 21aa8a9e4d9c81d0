"""The analyses' fast paths against the straightforward computations they replace, bit
for bit: the envelope's raster (segments sampled in groups, written in place) against the
concatenate-and-round raster, on folded grids and the excavator's; its hole filling against
``scipy.ndimage.binary_fill_holes``; the block Newton against the loop that evaluates the
residual once more; a grid point of one part's chain against the full grid's points; the
tool forces' kept optimum against a run that searches for it alone; ``evaluate_many``'s
kept name index against a fresh one."""

import numpy as np
import pytest

from mechanisms.analysis.reach import _raster, envelope


def _segments(x, y):
    """Every grid edge whose two ends are finite: ``(ax, ay, bx, by)`` per axis."""
    segs = []
    for i in range(x.ndim):
        if x.shape[i] < 2:
            continue
        a = [slice(None)] * x.ndim
        b = [slice(None)] * x.ndim
        a[i], b[i] = slice(0, -1), slice(1, None)
        ax, bx, ay, by = x[tuple(a)].ravel(), x[tuple(b)].ravel(), y[tuple(a)].ravel(), y[tuple(b)].ravel()
        good = np.isfinite(ax) & np.isfinite(bx) & np.isfinite(ay) & np.isfinite(by)
        segs.append((ax[good], ay[good], bx[good], by[good]))
    return segs


def _reference_raster(xs, ys, segs, h):
    """The raster the straightforward way: every sample of every segment concatenated,
    then rounded to its cell."""
    total = sum(float(np.sum(np.hypot(s[2] - s[0], s[3] - s[1]))) for s in segs)
    h = max(h, total / 4e6)
    px, py = [xs], [ys]
    for ax, ay, bx, by in segs:
        n = np.maximum(1, np.ceil(np.hypot(bx - ax, by - ay) / h).astype(np.int64))
        idx = np.repeat(np.arange(len(n)), n)
        t = (np.arange(idx.size) - np.repeat(np.cumsum(n) - n, n)) / n[idx]
        px.append(ax[idx] + t * (bx - ax)[idx])
        py.append(ay[idx] + t * (by - ay)[idx])
    X, Y = np.concatenate(px), np.concatenate(py)
    pad = 4
    x0, y0 = X.min() - pad * h, Y.min() - pad * h
    nx = int(np.ceil((X.max() - x0) / h)) + pad + 1
    ny = int(np.ceil((Y.max() - y0) / h)) + pad + 1
    img = np.zeros((ny, nx), bool)
    img[np.round((Y - y0) / h).astype(int), np.round((X - x0) / h).astype(int)] = True
    return img, x0, y0, h


def _folded(n, seed):
    """A 3-D grid mapped onto the plane by a folding map (an arm of three links), with
    holes (NaN) — the shape of a working range's point cloud."""
    rng = np.random.default_rng(seed)
    a, b, c = np.meshgrid(*(np.linspace(lo, hi, n) for lo, hi in ((0.2, 1.4), (-2.4, -0.5), (-2.5, 0.6))),
                          indexing="ij")
    l1, l2, l3 = 5.7, 2.9, 1.5
    x = l1 * np.cos(a) + l2 * np.cos(a + b) + l3 * np.cos(a + b + c)
    y = l1 * np.sin(a) + l2 * np.sin(a + b) + l3 * np.sin(a + b + c)
    hole = rng.random(x.shape) < 0.03
    return np.where(hole, np.nan, x), np.where(hole, np.nan, y)


@pytest.mark.parametrize("n, seed, h", [(7, 0, 0.02), (15, 1, 0.05), (25, 2, 0.013), (4, 3, 1.0)])
def test_raster_is_the_reference_raster_cell_for_cell(n, seed, h):
    x, y = _folded(n, seed)
    ok = np.isfinite(x) & np.isfinite(y)
    segs = _segments(x, y)
    img, x0, y0, hh = _raster(x[ok], y[ok], segs, h)
    ref, rx0, ry0, rh = _reference_raster(x[ok], y[ok], segs, h)
    assert (x0, y0, hh) == (rx0, ry0, rh)
    assert img.shape == ref.shape and np.array_equal(img, ref)
    assert img.sum() > x.size // 10        # drawn, not empty


def test_raster_caps_the_samples_like_the_reference():
    """A cell far below the segments' total length: both grow it the same way."""
    x, y = _folded(20, 4)
    ok = np.isfinite(x) & np.isfinite(y)
    segs = _segments(x, y)
    img, *rest = _raster(x[ok], y[ok], segs, 1e-6)
    ref, *ref_rest = _reference_raster(x[ok], y[ok], segs, 1e-6)
    assert rest == ref_rest and rest[2] > 1e-6 and np.array_equal(img, ref)


def test_excavator_envelope_raster_is_the_reference_one():
    from mechanisms.analysis import Study
    from mechanisms.machine import DATA

    grid = Study(DATA / "excavator.toml").grid(20)
    x, y = grid.point("bucket", "Q")
    ok = np.isfinite(x) & np.isfinite(y)
    segs = _segments(x, y)
    img, *rest = _raster(x[ok], y[ok], segs, 0.02)
    ref, *ref_rest = _reference_raster(x[ok], y[ok], segs, 0.02)
    assert rest == ref_rest and np.array_equal(img, ref)
    e = envelope(grid, x, y)
    assert np.allclose(e[0], e[-1]) and len(e) > 100


def test_tool_optimum_found_once_for_the_arms_sae_pose_and_its_own(monkeypatch):
    """The bucket's hydraulic optimum, searched for the arm's SAE J1179 pose, is the one it
    gets in its own turn — the same as a run asking for the bucket alone — and is searched
    for once."""
    import mechanisms.analysis.digging as digging
    from mechanisms.analysis import Study, tool_forces
    from mechanisms.machine import DATA

    study = Study(DATA / "excavator.toml")
    alone = tool_forces(study, functions=("bucket",), n=20).optimum["bucket"]["hydraulic"]
    starts = []
    real = digging.refine

    def spy(probe, objective, start, **kw):
        starts.append((probe.only, tuple(sorted(start.items())), tuple(kw.get("vary") or ())))
        return real(probe, objective, start, **kw)

    monkeypatch.setattr(digging, "refine", spy)
    both = tool_forces(study, functions=("arm", "bucket"), n=20)
    assert "sae_j1179" in both.optimum["arm"]
    got = both.optimum["bucket"]["hydraulic"]
    assert (got.hydraulic, got.tipping, got.point, got.lengths, got.free) == \
        (alone.hydraulic, alone.tipping, alone.point, alone.lengths, alone.free)
    assert len(starts) == len(set(starts)), "a search made twice"


def _reference_newton(kin, b, a0, lengths, frame, jump, iters=25, max_step=0.5):
    """The block Newton the plain way: the residual evaluated once more after the loop."""
    from mechanisms.analysis.kinematics import TOL

    a = np.array(a0, dtype=float)
    alive = np.all(np.isfinite(a), axis=1)
    for _ in range(iters):
        r, J = kin._residual(b, np.where(alive[:, None], a, 0.0), lengths, frame)
        todo = alive & ~(np.max(np.abs(r), axis=1) < TOL)
        if not todo.any():
            break
        Jt, rt = J[todo], r[todo]
        det = np.linalg.det(Jt)
        good = np.isfinite(det) & (np.abs(det) > 1e-14)
        idx = np.flatnonzero(todo)
        alive[idx[~good]] = False
        if not good.any():
            continue
        da = np.linalg.solve(Jt[good], -rt[good][..., None])[..., 0]
        step = np.max(np.abs(da), axis=1)
        da *= np.minimum(1.0, max_step / np.maximum(step, 1e-300))[:, None]
        a[idx[good]] += da
    r, _ = kin._residual(b, np.where(alive[:, None], a, 0.0), lengths, frame, jac=False)
    ok = alive & (np.max(np.abs(r), axis=1) < 1e-9) & (np.max(np.abs(a - a0), axis=1) <= jump)
    a[~ok] = np.nan
    return a


@pytest.mark.parametrize("iters", [25, 2])
def test_block_newton_is_the_reference_newton(iters):
    """Every block of the excavator from scattered starts (some far off, some failing, a
    NaN row): the same angles bit for bit, converged, cut short (``iters=2``) or refused."""
    from mechanisms.analysis import Study
    from mechanisms.machine import DATA

    kin = Study(DATA / "excavator.toml").kinematics
    rng = np.random.default_rng(5)
    M = 40
    L = {c: rng.uniform(*kin.parts[c].length_limits, M) for c in kin.cylinders}
    rel: dict = {}
    for b in kin.blocks:
        frame = kin._frame_points(b, rel, L)
        a0 = np.tile(kin._relative(b, kin.start), (M, 1)) + rng.normal(0, 0.4, (M, len(b.unknowns)))
        a0[3] = np.nan
        got = kin._newton(b, a0, L, frame, jump=0.6, iters=iters)
        ref = _reference_newton(kin, b, a0, L, frame, 0.6, iters=iters)
        assert np.array_equal(got, ref, equal_nan=True)
        assert np.isnan(got[3]).all()
        assert np.isfinite(got).any() == (iters == 25)     # cut short: nothing settles, every row refused
        sol = kin._newton(b, np.tile(kin._relative(b, kin.start), (M, 1)), L, frame, jump=np.pi)
        for k, u in enumerate(b.unknowns):
            rel[u] = sol[:, k]


def test_output_index_is_remade_when_the_names_change():
    """The kept name → position index of :func:`evaluate_many` is the plain one, and a list
    changed in place is indexed afresh (never a stale position)."""
    from bondgraph.batch import _index_of

    names = [f"e[m/b{i}]" for i in range(300)]
    assert _index_of(names) == {nm: i for i, nm in enumerate(names)}
    assert _index_of(names) is _index_of(names)
    names.reverse()
    assert _index_of(names)["e[m/b0]"] == 299
    names.append("spring_energy")
    assert _index_of(names)["spring_energy"] == 300


@pytest.mark.parametrize("seed, p", [(0, 0.3), (1, 0.5), (2, 0.7), (3, 0.0), (4, 1.0)])
def test_fill_holes_is_scipys(seed, p):
    """Random images (pieces touching the border, nested holes, all empty, all full): the
    labelling pass fills what ``scipy.ndimage.binary_fill_holes`` fills."""
    from scipy import ndimage

    from mechanisms.analysis.reach import _fill_holes

    rng = np.random.default_rng(seed)
    img = rng.random((61, 47)) < p
    img[20:40, 10:30] = True
    img[25:35, 15:25] = False          # a hole
    img[28:32, 18:22] = p > 0.99       # an island in it (unless full)
    assert np.array_equal(_fill_holes(img), ndimage.binary_fill_holes(img))


def test_grid_point_of_one_part_is_the_full_grid_one():
    """A point read before every point is solved (only its part's chain) is the one read
    from all the grid's points, for every hinge point of the excavator."""
    from mechanisms.analysis import Study
    from mechanisms.machine import DATA

    study = Study(DATA / "excavator.toml")
    lazy = study.kinematics.solve_grid({c: np.linspace(*study.kinematics.parts[c].length_limits, 9)
                                        for c in study.kinematics.cylinders})
    keys = [k.split("/") for k in study.grid(9).points()]
    got = {f"{a}/{b}": lazy.point(a, b) for a, b in keys}
    assert lazy._points is None                 # not solved for every part
    full = study.grid(9)
    for key, (x, y) in got.items():
        fx, fy = full.point(*key.split("/"))
        assert np.array_equal(x, fx, equal_nan=True) and np.array_equal(y, fy, equal_nan=True), key


@pytest.mark.parametrize("n, seed, h", [(9, 5, 0.02), (18, 6, 0.011)])
def test_raster_in_c_is_the_numpy_raster(n, seed, h, monkeypatch):
    """The segments sampled and marked in C (:mod:`mechanisms.analysis.raster`) against the
    numpy drawing that runs without a compiler: the same origin, cell and image."""
    from mechanisms.analysis import reach

    x, y = _folded(n, seed)
    ok = np.isfinite(x) & np.isfinite(y)
    segs = _segments(x, y)
    native = _raster(x[ok], y[ok], segs, h)
    monkeypatch.setattr(reach, "_raster_native", lambda *a: None)
    plain = _raster(x[ok], y[ok], segs, h)
    assert native[1:] == plain[1:] and np.array_equal(native[0], plain[0])
    assert native[0].sum() > x.size // 10
