"""The tool forces' cheaper paths against the straightforward code they replace, bit for bit.

Kept here as references: the block residual that computes every point of every member and
adds the Jacobian's terms into zeros (``_reference_residual``), the block Newton through
``np.linalg`` with row copies at every step (``_reference_newton``), ``np.argmin`` for the
governing limit, a fresh probe at the refined extreme, every probe's blocks solved anew.
Each fast path is compared with its reference on the shipped machines, and the whole
analysis run both ways (excavator, mini excavator, wheel loader; weights on and off) gives
the same numbers to the last bit. The Jacobian is also checked against central differences
of the residual (it is the derivative, not only the same code's numbers).
"""

from __future__ import annotations

import numpy as np
import pytest

MACHINES = ["excavator", "excavator_mini", "wheel_loader", "knuckle_crane"]


def _study(machine):
    from mechanisms.analysis import Study
    from mechanisms.machine import DATA

    return Study(DATA / f"{machine}.toml")


def _reference_residual(kin, b, a, lengths, frame, jac=True):
    """The loop-closure rows and Jacobian the plain way: every point of every member, the
    Jacobian's terms added into zeros (``J −= sign·(y − y₀)``, ``J += sign·(x − x₀)``)."""
    pts = dict(frame)
    roots = {}
    for k, name in enumerate(b.unknowns):
        parent = kin.parent[name]
        root = kin.mechanism.fixed[(name, kin.parts[name].root.name)] if parent is None else pts[parent]
        roots[name] = root
        pose = kin._pose(name, root, a[:, k], lengths.get(name))
        for pn, xy in kin.parts[name].world_points(pose).items():
            pts[(name, pn)] = xy
    M, k = a.shape
    r = np.empty((M, k))
    J = np.zeros((M, k, k)) if jac else None
    col = {u: i for i, u in enumerate(b.unknowns)}
    for i, (pd, pr) in enumerate(b.hinges):
        xa, ya = pts[(pd.part, pd.name)]
        xb, yb = pts[(pr.part, pr.name)]
        r[:, 2 * i] = xa - xb
        r[:, 2 * i + 1] = ya - yb
        if not jac:
            continue
        for hp, sign in ((pd, 1.0), (pr, -1.0)):
            for q, exit_pt in kin._chain(hp.part, hp.name):
                if q not in col:
                    break
                ex, ey = pts[(q, exit_pt)]
                ox, oy = roots[q]
                J[:, 2 * i, col[q]] -= sign * (ey - oy)
                J[:, 2 * i + 1, col[q]] += sign * (ex - ox)
    return r, J


def _reference_frame_points(kin, b, rel, lengths):
    """The block's frame points the plain way: every point of every outside part."""
    F = b.base
    world: dict = {}
    if F is not None:
        world[F] = kin.parts[F].world_points((0.0, 0.0, 0.0))
    need = set()
    for a in b.attach:
        for q in kin._ancestors(a):
            if q == F or q is None:
                break
            need.add(q)
    for name in kin.order:
        if name not in need:
            continue
        parent = kin.parent[name]
        root = (kin.mechanism.fixed[(name, kin.parts[name].root.name)] if parent is None
                else world[parent[0]][parent[1]])
        world[name] = kin.parts[name].world_points(kin._pose(name, root, kin._angle(name, F, rel), lengths.get(name)))
    return {(name, pn): xy for name, pts in world.items() for pn, xy in pts.items()}


def _reference_newton(kin, b, a0, lengths, frame, *, jump, iters=25, max_step=0.5):
    """The block Newton the plain way (``np.linalg``, the rows copied at every step, the
    residual evaluated once more after the loop), on the reference residual."""
    from mechanisms.analysis.kinematics import TOL

    a = np.array(a0, dtype=float)
    alive = np.all(np.isfinite(a), axis=1)
    for _ in range(iters):
        r, J = _reference_residual(kin, b, np.where(alive[:, None], a, 0.0), lengths, frame)
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
    r, _ = _reference_residual(kin, b, np.where(alive[:, None], a, 0.0), lengths, frame, jac=False)
    ok = alive & (np.max(np.abs(r), axis=1) < 1e-9) & (np.max(np.abs(a - a0), axis=1) <= jump)
    a[~ok] = np.nan
    return a


def _scattered(kin, M, seed):
    rng = np.random.default_rng(seed)
    return rng, {c: rng.uniform(*kin.parts[c].length_limits, M) for c in kin.cylinders}


@pytest.mark.parametrize("machine", MACHINES)
def test_block_residual_is_the_reference_and_its_jacobian_the_derivative(machine):
    """Every block of every shipped machine at scattered angles and lengths: rows and
    Jacobian equal the reference's bit for bit, and the Jacobian matches central
    differences of the rows."""
    kin = _study(machine).kinematics
    rng, L = _scattered(kin, 30, 3)
    rel: dict = {}
    for b in kin.blocks:
        frame = kin._frame_points(b, rel, L)
        a = np.tile(kin._relative(b, kin.start), (30, 1)) + rng.normal(0, 0.3, (30, len(b.unknowns)))
        r, J = kin._residual(b, a, L, frame)
        r0, J0 = _reference_residual(kin, b, a, L, frame)
        assert np.array_equal(r, r0) and np.array_equal(J, J0)
        assert np.array_equal(kin._residual(b, a, L, frame, jac=False)[0], r0)
        h = 1e-6
        for c in range(len(b.unknowns)):
            e = np.zeros(len(b.unknowns))
            e[c] = h
            fd = (_reference_residual(kin, b, a + e, L, frame, jac=False)[0]
                  - _reference_residual(kin, b, a - e, L, frame, jac=False)[0]) / (2 * h)
            assert np.allclose(J[:, :, c], fd, rtol=1e-6, atol=1e-7)
        sol = kin._newton(b, np.tile(kin._relative(b, kin.start), (30, 1)), L, frame, jump=np.pi)
        for k, u in enumerate(b.unknowns):
            rel[u] = sol[:, k]


@pytest.mark.parametrize("machine", MACHINES)
@pytest.mark.parametrize("iters", [25, 2])
def test_block_newton_is_the_reference_newton(machine, iters):
    """Every block from scattered starts (some far off, a NaN row, some failing): the fast
    Newton (LAPACK's gufuncs, no copies when every row steps, the step scale skipped when
    it is 1) gives the reference's angles bit for bit."""
    kin = _study(machine).kinematics
    M = 40
    rng, L = _scattered(kin, M, 5)
    rel: dict = {}
    for b in kin.blocks:
        frame = kin._frame_points(b, rel, L)
        a0 = np.tile(kin._relative(b, kin.start), (M, 1)) + rng.normal(0, 0.4, (M, len(b.unknowns)))
        a0[3] = np.nan
        got = kin._newton(b, a0, L, frame, jump=0.6, iters=iters)
        ref = _reference_newton(kin, b, a0, L, frame, jump=0.6, iters=iters)
        assert np.array_equal(got, ref, equal_nan=True)
        near = np.tile(kin._relative(b, kin.start), (M, 1)) + rng.normal(0, 1e-3, (M, len(b.unknowns)))
        assert np.array_equal(kin._newton(b, near, L, frame, jump=0.6),     # every row steps together
                              _reference_newton(kin, b, near, L, frame, jump=0.6), equal_nan=True)
        sol = kin._newton(b, np.tile(kin._relative(b, kin.start), (M, 1)), L, frame, jump=np.pi)
        for k, u in enumerate(b.unknowns):
            rel[u] = sol[:, k]


@pytest.mark.parametrize("machine", MACHINES)
def test_named_points_and_forward_points_are_every_points_ones(machine):
    """A part's points asked by name (``world_points(pose, names)``) and ``forward(points=)``
    are those of the full computation, bit for bit, on a solved grid."""
    study = _study(machine)
    kin, grid = study.kinematics, study.grid(6)
    poses, every = kin.forward(grid.angles, grid.lengths())
    for name, pose in poses.items():
        part = kin.parts[name]
        for pn in part.points:
            x, y = part.world_points(pose, [pn])[pn]
            assert np.array_equal(x, every[f"{name}/{pn}"][0]) and np.array_equal(y, every[f"{name}/{pn}"][1])
    for key in every:
        _, one = kin.forward(grid.angles, grid.lengths(), points=[key])
        assert np.array_equal(one[key][0], every[key][0]) and np.array_equal(one[key][1], every[key][1]), key


def test_memo_of_solved_blocks_gives_the_unmemoised_solution():
    """Probes solved with a shared memo (some blocks met again, some not) give what each
    solve gives on its own, bit for bit; a block met again is taken from the memo."""
    study = _study("excavator")
    kin, grid = study.kinematics, study.grid(12)
    rng = np.random.default_rng(7)
    base = {c: rng.uniform(*kin.parts[c].length_limits) for c in kin.cylinders}
    memo: dict = {}
    for trial in range(6):
        L = {c: np.full(5, v) for c, v in base.items()}
        moved = kin.cylinders[trial % 3]
        L[moved] = L[moved] + rng.normal(0, 0.01, 5)       # one cylinder moves: the others' blocks repeat
        plain = kin.solve(L, near=grid, limits=False)
        kept = kin.solve(L, near=grid, limits=False, memo=memo)
        assert np.array_equal(plain[1], kept[1])
        for u in plain[0]:
            assert np.array_equal(plain[0][u], kept[0][u], equal_nan=True), u
    assert 0 < len(memo) < 6 * len(kin.blocks)          # blocks whose inputs did not change were kept


def test_first_least_is_argmin():
    """The governing limit's code is ``np.argmin``'s: the first least row, ties and inf included."""
    from mechanisms.analysis.digging import _first_least

    rng = np.random.default_rng(2)
    rows = rng.integers(0, 4, (3, 2000)).astype(float)
    rows[rng.random(rows.shape) < 0.2] = np.inf
    rows[:, :5] = np.inf
    assert np.array_equal(_first_least(rows), np.argmin(rows, axis=0))
    assert _first_least(rows).dtype == np.argmin(rows, axis=0).dtype


def test_refined_extreme_reads_the_probe_where_it_has_been():
    """The refined extreme's values are a fresh probe's at its lengths, bit for bit, without
    probing there again."""
    from mechanisms.analysis.optimise import Probe, refine

    study = _study("excavator")
    grid = study.grid(12)
    probe = Probe(study.kinematics, grid, [("bucket", "Q")])
    calls = []
    real = probe.at
    probe.at = lambda L: calls.append(L) or real(L)
    x, _ = grid.point("bucket", "Q")
    i = np.unravel_index(np.nanargmax(x), grid.shape)
    best = refine(probe, lambda p: p["bucket/Q"][0], {c: grid.axes[c][k] for c, k in zip(grid.cylinders, i)},
                  maximise=True)
    assert best.refined and all(len(next(iter(L.values()))) > 1 for L in calls)   # no single-pose probe
    fresh, _ = real({c: np.array([v]) for c, v in best.lengths.items()})
    for k, v in best.points.items():
        want = tuple(float(a[0]) for a in fresh[k]) if isinstance(fresh[k], tuple) else float(fresh[k][0])
        assert v == want, k
    assert best.value == float(fresh["bucket/Q"][0][0])


def test_root_and_branch_pairs_follow_the_parts_and_hinges():
    """The kept root point and Pd–Pr pairs are found again when the points or hinges change."""
    from components.ports import HingePoint, PortClass

    study = _study("excavator")
    mech = study.kinematics.mechanism
    part = mech.parts["boom"]
    old = part.root
    assert part.root is old
    moved = HingePoint(old.part, old.name, old.cls, (old.local[0] + 1.0, old.local[1]))
    saved = part.points[old.name]
    part.points[old.name] = moved
    try:
        assert part.root is moved
    finally:
        part.points[old.name] = saved
    assert part.root is saved
    pairs = mech._branch_pairs()
    assert pairs == [(a, b) if a.cls is PortClass.PD else (b, a) for a, b in mech.hinges
                     if {a.cls, b.cls} == {PortClass.PD, PortClass.PR}]
    kept = list(mech.hinges)
    mech.hinges = kept[:-1]
    try:
        assert len(mech._branch_pairs()) == len([h for h in kept[:-1]
                                                 if {h[0].cls, h[1].cls} == {PortClass.PD, PortClass.PR}])
    finally:
        mech.hinges = kept
    assert mech._branch_pairs() == pairs


def _numbers(tf) -> dict:
    """Every public number and array of a tool-forces result, flattened by name."""
    out: dict = {}

    def walk(obj, key):
        if isinstance(obj, dict):
            for k, v in obj.items():
                walk(v, f"{key}/{k}")
        elif isinstance(obj, (list, tuple)):
            for i, v in enumerate(obj):
                walk(v, f"{key}[{i}]")
        elif hasattr(obj, "__dataclass_fields__"):
            for k in obj.__dataclass_fields__:
                walk(getattr(obj, k), f"{key}.{k}")
        else:
            out[key] = obj

    walk({"maps": tf.maps, "tip": tf.tip, "optimum": tf.optimum, "summary": tf.summary(),
          "angles": tf.grid.angles, "ok": tf.grid.ok}, "")
    return out


def _reference_paths(monkeypatch):
    """Swap the straightforward code back in: the reference residual and Newton, argmin,
    a fresh probe at every extreme, no memo of solved blocks."""
    import mechanisms.analysis.digging as digging
    import mechanisms.analysis.optimise as optimise
    from mechanisms.analysis.kinematics import BoxKinematics

    from collections import Counter

    calls: Counter = Counter()

    def newton(self, b, a0, L, frame, *, jump, iters=25, max_step=0.5):
        calls["newton"] += 1
        return _reference_newton(self, b, a0, L, frame, jump=jump, iters=iters, max_step=max_step)

    monkeypatch.setattr(BoxKinematics, "_residual",
                        lambda self, b, a, L, frame, jac=True: _reference_residual(self, b, a, L, frame, jac))
    monkeypatch.setattr(BoxKinematics, "_newton", newton)
    monkeypatch.setattr(BoxKinematics, "_frame_points",
                        lambda self, b, rel, L: _reference_frame_points(self, b, rel, L))
    monkeypatch.setattr(digging, "_first_least", lambda rows: np.argmin(rows, axis=0))
    real_extreme = optimise._extreme
    monkeypatch.setattr(optimise, "_extreme", lambda *a, **k: real_extreme(*a[:6]))   # no known values
    real_solve = digging.solve_kinematics
    monkeypatch.setattr(digging, "solve_kinematics", lambda kin, L, grid, memo=None: real_solve(kin, L, grid))
    return calls


@pytest.mark.parametrize("machine, options", [
    ("excavator", {}), ("excavator", {"weights": True}),
    ("excavator_mini", {}), ("excavator_mini", {"weights": True}),
    ("wheel_loader", {"generic": True}), ("wheel_loader", {"generic": True, "weights": True}),
])
def test_tool_forces_are_the_reference_paths_ones(machine, options, monkeypatch):
    """The whole analysis (grid, maps, every optimum) with the fast paths and with the
    reference code: every public number and array the same, bit for bit."""
    from mechanisms.analysis import tool_forces

    fast = _numbers(tool_forces(_study(machine), n=14, progress=False, **options))
    with monkeypatch.context() as m:
        calls = _reference_paths(m)
        ref = _numbers(tool_forces(_study(machine), n=14, progress=False, **options))
        assert calls["newton"] > 100          # the grid and the probes went the reference way
    assert fast.keys() == ref.keys()
    for k, v in ref.items():
        if isinstance(v, np.ndarray):
            assert np.array_equal(fast[k], v, equal_nan=True), k
        else:
            assert fast[k] == v or (v != v and fast[k] != fast[k]), (k, fast[k], v)


def _reference_solve(kin, lengths, near, jump=0.6, limits=True):
    """Scattered poses the plain way: the start of each block read from the grid broadcast
    to its full shape, every array broadcast (the previous code of :meth:`BoxKinematics.solve`)."""
    from mechanisms.analysis.kinematics import limit_margins

    L = {c: np.atleast_1d(np.asarray(lengths[c], dtype=float)) for c in kin.cylinders}
    M = max(len(v) for v in L.values())
    L = {c: np.broadcast_to(v, (M,)).copy() for c, v in L.items()}
    idx = tuple(np.argmin(np.abs(near.axes[c][:, None] - L[c][None, :]), axis=0) for c in near.cylinders)
    rel: dict = {}
    ok = np.ones(M, bool)
    for b in kin.blocks:
        a0 = np.stack([np.broadcast_to(near.relative[u], near.shape)[idx] for u in b.unknowns], axis=1)
        sol = kin._newton(b, a0, L, kin._frame_points(b, rel, L), jump=jump)
        for k, u in enumerate(b.unknowns):
            rel[u] = sol[:, k]
        ok &= np.all(np.isfinite(sol), axis=1)
    ang = {u: np.broadcast_to(np.asarray(kin._angle(u, None, rel), dtype=float), (M,)) for u in kin.order}
    if limits:
        for below, above in limit_margins(ang, near.limits).values():
            ok &= (below >= -1e-12) & (above >= -1e-12)
    return ang, ok


@pytest.mark.parametrize("machine", MACHINES)
def test_scattered_solve_is_the_reference_solve(machine):
    """Scattered lengths (one shared length among them) solved from a grid: the same angles
    and the same ``ok`` as the plain code, bit for bit, with and without the joint ranges."""
    study = _study(machine)
    kin, grid = study.kinematics, study.grid(9)
    _, L = _scattered(kin, 25, 11)
    L[kin.cylinders[0]] = np.float64(L[kin.cylinders[0]][0])        # one length for every pose
    for limits in (True, False):
        got = kin.solve(L, near=grid, limits=limits)
        ref = _reference_solve(kin, L, grid, limits=limits)
        assert np.array_equal(got[1], ref[1])
        for u in ref[0]:
            assert np.array_equal(got[0][u], ref[0][u], equal_nan=True), u
