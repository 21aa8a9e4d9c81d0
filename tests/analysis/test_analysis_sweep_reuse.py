"""What a sweep reuses from point to point is keyed by every input it reads: each point of a
fast sweep equals a fresh analysis of a machine built with that point's values, a value
that changes the kinematics or the statics changes the result, and the lazy packages a
user's function may hold travel to other processes."""

import pickle

import numpy as np
import pytest

from mechanisms.analysis import Study, sweep, tool_forces
from mechanisms.analysis.reuse import EvaluationMemo, reusing
from mechanisms.machine import DATA

OPTIONS = {"n": 8, "weights": True}


def _fresh(point):
    """A tool-force analysis of a study built with the point's values, nothing reused (a
    coordinate folded into its point as the file gives it: ``arm.points.G = ["Li", x, y]``)."""
    from mechanisms.analysis.sweeps import _overrides
    from mechanisms.machine import MachineDescription

    base = MachineDescription.load(DATA / "excavator.toml")
    return tool_forces(Study(base, _overrides(base, point)), progress=False, **OPTIONS).summary()


def _assert_rows_equal_fresh(df, keys_units):
    for _, row in df.iterrows():
        point = {k: f"{row[k] * scale:.12g} {unit}" for k, (unit, scale) in keys_units.items()}
        fresh = _fresh(point)
        assert row["error"] == ""
        for k, v in fresh.items():
            assert row[k] == pytest.approx(v, rel=1e-9, abs=1e-6), (point, k)


def test_every_point_of_a_sweep_equals_a_fresh_analysis_of_its_machine():
    """3 × 2: the boom bore (no input of the arm's and bucket's tool forces: reused) × the
    bucket mass (a parameter of the statics model: evaluated again)."""
    grid = {"boom_cylinder.bore": "120..160 mm:3", "bucket.mass": "600, 1000 kg"}
    df = sweep(DATA / "excavator.toml", grid, "tool-forces", options=OPTIONS, processes=1, progress=False)
    assert len(df) == 6
    _assert_rows_equal_fresh(df, {"boom_cylinder.bore": ("mm", 1e3), "bucket.mass": ("kg", 1.0)})
    by_mass = df.groupby("bucket.mass")["arm_tool_force"].agg(["min", "max"])
    assert (by_mass["min"] == by_mass["max"]).all()                  # the boom bore reaches none of them
    assert by_mass["max"].iloc[0] != by_mass["max"].iloc[1]          # the bucket's mass does (weights on)


def test_a_value_that_changes_the_kinematics_changes_the_result():
    """The arm's pivot on the boom moved (a new geometry, grid and statics model) with the arm
    bore (read by the arm's tool force only): every point equals its fresh analysis and the
    pivot's points differ."""
    grid = {"arm.points.G.x": "0.47, 0.51 m", "arm_cylinder.bore": "130, 140 mm"}
    df = sweep(DATA / "excavator.toml", grid, "tool-forces", options=OPTIONS, processes=1, progress=False)
    _assert_rows_equal_fresh(df, {"arm.points.G.x": ("m", 1.0), "arm_cylinder.bore": ("mm", 1e3)})
    at = {x: df[df["arm.points.G.x"] == x].sort_values("arm_cylinder.bore") for x in (0.47, 0.51)}
    for col in ("arm_tool_force", "bucket_tool_force", "bucket_tipping_limit"):
        assert not np.allclose(at[0.47][col].to_numpy(), at[0.51][col].to_numpy(), rtol=1e-6), col
    # the arm's bore scales its force at a pin, the bucket's is the same
    for x in (0.47, 0.51):
        assert at[x]["arm_tool_force"].iloc[0] != at[x]["arm_tool_force"].iloc[1]
        assert at[x]["bucket_tool_force"].iloc[0] == at[x]["bucket_tool_force"].iloc[1]


def test_the_memo_reuses_only_what_no_changed_input_reaches():
    """Within :func:`reusing`, a boom bore replays the arm's and bucket's evaluations (hits,
    no new ones), a bucket mass evaluates again (misses) — and both equal fresh analyses."""
    memo = EvaluationMemo()
    s = Study(DATA / "excavator.toml")
    with reusing(memo):
        first = tool_forces(s, progress=False, **OPTIONS).summary()
        misses = memo.misses
        s.update({"boom_cylinder.bore": "150 mm"})
        bore = tool_forces(s, progress=False, **OPTIONS).summary()
        assert memo.misses == misses and memo.hits > 0                 # nothing evaluated again
        s.update({"bucket.mass": "900 kg"})
        mass = tool_forces(s, progress=False, **OPTIONS).summary()
        assert memo.misses > misses
    assert bore == first
    assert bore == pytest.approx(_fresh({"boom_cylinder.bore": "150 mm"}), rel=1e-9)
    assert mass == pytest.approx(_fresh({"bucket.mass": "900 kg"}), rel=1e-9)
    assert mass["arm_tool_force"] != first["arm_tool_force"]


def test_a_kept_result_cannot_be_written_into():
    memo = EvaluationMemo()
    s = Study(DATA / "excavator.toml")
    with reusing(memo):
        tf = tool_forces(s, progress=False, **OPTIONS)
    assert memo.misses > 0
    from mechanisms.analysis.digging import _evaluate

    grid = tf.grid
    L = {c: np.array([grid.axes[c][1]]) for c in grid.cylinders}
    args = (s, grid, L, ("arm",), {"arm": 1.0}, tf.pressures, True, tf.base, None)
    with reusing(memo):
        ev = _evaluate(*args)
        with pytest.raises(ValueError):
            ev["arm"]["hydraulic"][0] = 0.0
        assert _evaluate(*args)["arm"]["hydraulic"][0] == ev["arm"]["hydraulic"][0]


def test_processes_and_a_second_sweep_give_the_serial_table():
    """The chunks keep a mass's points together; the evaluations are forgotten between sweeps
    (a second sweep computes the same table)."""
    grid = {"boom_cylinder.bore": "120, 160 mm", "bucket.mass": "600..1000 kg:3"}
    one = sweep(DATA / "excavator.toml", grid, "tool-forces", options=OPTIONS, processes=1, progress=False)
    two = sweep(DATA / "excavator.toml", grid, "tool-forces", options=OPTIONS, processes=2, progress=False)
    again = sweep(DATA / "excavator.toml", grid, "tool-forces", options=OPTIONS, processes=1, progress=False)
    cols = [c for c in one.columns if c != "rebuilt"]
    assert one[cols].equals(two[cols]) and one[cols].equals(again[cols])
    from mechanisms.analysis import sweeps

    assert sweeps._MEMOS == {}


def test_chunks_keep_a_group_together_and_every_worker_busy():
    from mechanisms.analysis.sweeps import _chunks

    items = [(i, {"m": i // 3, "b": i % 3}) for i in range(12)]          # 4 groups of 3
    parts = _chunks(items, 8, lambda it: it[1]["m"], workers=2)
    assert sorted(i for p in parts for i, _ in p) == list(range(12))
    assert len(parts) == 2 and [len(p) for p in parts] == [6, 6]          # one chunk per worker
    groups = [{it[1]["m"] for it in p} for p in parts]
    assert not groups[0] & groups[1]                                      # a group in one chunk only
    assert all([i for i, _ in p] == sorted(i for i, _ in p) for p in parts)
    few = _chunks(items[:6], 8, lambda it: it[1]["m"], workers=2)          # 2 groups, 2 workers: split
    assert len(few) > 2 and sorted(i for p in few for i, _ in p) == list(range(6))


def test_a_lazy_package_pickles_by_name_for_a_users_function():
    """A function whose globals hold ``mechanisms.analysis`` (a notebook's analysis sent to a
    Dask worker) pickles; the package comes back as itself."""
    cloudpickle = pytest.importorskip("cloudpickle")
    import mechanisms.analysis as ma

    assert pickle.loads(pickle.dumps(ma)) is ma
    ns = {"ma": ma}
    exec("def reach(study):\n    return ma.working_range(study, n=6, refine_extremes=False)", ns)
    back = pickle.loads(cloudpickle.dumps(ns["reach"]))
    assert back.__globals__["ma"] is ma


def test_points_side_by_side_solve_together_and_get_what_they_get_alone():
    """Two bucket masses analysed in lockstep (each on a snapshot of one study, its own
    parameters put in whenever it runs): fewer batched solves than the solves asked for, and
    each summary exactly the one the point gets alone."""
    from mechanisms.analysis.lockstep import Lockstep

    s = Study(DATA / "excavator.toml")
    jobs, enters = [], []
    for m in ("600 kg", "1000 kg"):
        s.update({"bucket.mass": m})
        s.kinematics, s.statics
        view, enter = s._snapshot()
        jobs.append(lambda v=view: tool_forces(v, progress=False, **OPTIONS).summary())
        enters.append(enter)
    ls = Lockstep()
    together = ls.run(jobs, enters)
    assert ls.batches < ls.requests and ls.requests > 20
    alone = [_fresh({"bucket.mass": m}) for m in ("600 kg", "1000 kg")]
    assert together == alone
    assert together[0]["arm_tool_force"] != together[1]["arm_tool_force"]


def test_a_failing_point_among_points_side_by_side_is_named_and_the_others_go_on():
    """A start pose out of its stroke fails its point (named) in a tool-force sweep; the other
    points of its batch are those of a fresh analysis."""
    df = sweep(DATA / "excavator.toml", {"boom.points.B.y": "1.18, 3.5 m", "bucket.mass": "600, 1000 kg"},
               "tool-forces", options=OPTIONS, processes=1, progress=False)
    bad = df["boom.points.B.y"] == 3.5
    assert df.loc[bad, "error"].str.contains("start pose").all()
    assert df.loc[bad, "arm_tool_force"].isna().all()
    _assert_rows_equal_fresh(df[~bad], {"boom.points.B.y": ("m", 1.0), "bucket.mass": ("kg", 1.0)})


def test_a_users_function_holding_the_package_runs_on_dask_worker_processes():
    """A notebook's analysis (defined in ``__main__``, its globals holding the lazy package
    ``mechanisms.analysis``) sent to a worker process: the same table as serially."""
    distributed = pytest.importorskip("distributed")
    import logging

    import mechanisms.analysis as ma

    ns = {"ma": ma, "__name__": "__main__"}
    exec("def reach(study):\n    return ma.working_range(study, n=6, refine_extremes=False)", ns)
    grid = {"bucket.mass": "600, 900 kg"}
    serial = sweep(DATA / "excavator.toml", grid, ns["reach"], processes=1, progress=False)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=logging.CRITICAL) as cluster, distributed.Client(cluster) as client:
        on_dask = sweep(DATA / "excavator.toml", grid, ns["reach"], client=client, progress=False)
    cols = [c for c in serial.columns if c != "rebuilt"]
    assert (on_dask["error"] == "").all() and on_dask[cols].equals(serial[cols])
