"""Sweeps: the same table serially, in processes and on a Dask cluster; each point rebuilds
only what its change reaches, and its result does not depend on the points before it."""

import numpy as np
import pandas as pd
import pytest

from mechanisms.analysis import Study, cycle_energy, parse_values, sweep, tool_forces, working_range
from mechanisms.machine import DATA

GRID = {"bucket_cylinder.bore": "90..100 mm:2", "arm.points.G.x": "0.47, 0.51 m"}
OPTIONS = {"n": 8, "functions": ["bucket"]}


def _same(a, b):
    pd.testing.assert_frame_equal(a.drop(columns="rebuilt"), b.drop(columns="rebuilt"), rtol=1e-12)


@pytest.fixture(scope="module")
def serial():
    return sweep(DATA / "excavator.toml", GRID, "tool-forces", options=OPTIONS, processes=1, progress=False)


def test_grid_table(serial):
    assert len(serial) == 4
    assert list(serial.columns[:2]) == ["bucket_cylinder.bore", "arm.points.G.x"]
    assert sorted(zip(serial["bucket_cylinder.bore"], serial["arm.points.G.x"])) == \
        [(0.09, 0.47), (0.09, 0.51), (0.1, 0.47), (0.1, 0.51)]
    assert (serial["error"] == "").all()
    assert serial.attrs["units"]["arm.points.G.x"] == "m" and serial.attrs["units"]["bucket_tool_force"] == "N"
    # the bucket's tool force goes with its bore squared at a given pin
    for x in (0.47, 0.51):
        f = serial[serial["arm.points.G.x"] == x].sort_values("bucket_cylinder.bore")["bucket_tool_force"]
        assert f.iloc[1] / f.iloc[0] == pytest.approx((100 / 90) ** 2, rel=1e-9)


def test_dask_local_cluster_gives_the_serial_table(serial):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        on_dask = sweep(DATA / "excavator.toml", GRID, "tool-forces", options=OPTIONS, client=client,
                        progress=False)
    _same(serial, on_dask)


def test_local_processes_give_the_serial_table(serial):
    _same(serial, sweep(DATA / "excavator.toml", GRID, "tool-forces", options=OPTIONS, processes=2,
                        progress=False))


def test_a_bore_or_a_mass_touches_no_compiled_model():
    s = Study(DATA / "excavator.toml")
    s.grid(8)
    model = s.statics.model
    grid = s.grid(8)
    assert s.update({"bucket_cylinder.bore": "100 mm"}) == {"kinematics": "kept", "extensions": "kept"}
    assert s.update({"bucket.mass": "900 kg"}) == {"kinematics": "kept", "extensions": "parameters"}
    assert s.statics.model is model and s.grid(8) is grid
    assert model.params["bucket.mass"] == 900.0
    log = s.update({"arm.points.G": ["Li", "0.52 m", "0.96 m"]})
    assert log == {"kinematics": "rebuilt", "extensions": "rebuilt"}
    assert s.statics.model is not model


def test_results_do_not_depend_on_the_points_before():
    fresh = {}
    for pt in ({}, {"bucket.mass": "900 kg"}, {"arm.points.G": ["Li", "0.52 m", "0.96 m"]}):
        s = Study(DATA / "excavator.toml", pt)
        fresh[repr(pt)] = (tool_forces(s, n=6, weights=True, functions=["arm"]).summary(),
                           working_range(s, n=6, refine_extremes=False).summary())
    s = Study(DATA / "excavator.toml")
    for pt in ({"arm.points.G": ["Li", "0.52 m", "0.96 m"]}, {"bucket.mass": "900 kg"}, {}):
        s.update(pt)
        got = (tool_forces(s, n=6, weights=True, functions=["arm"]).summary(),
               working_range(s, n=6, refine_extremes=False).summary())
        for a, b in zip(got, fresh[repr(pt)]):
            assert a == pytest.approx(b, rel=1e-12, abs=1e-12), pt


def test_the_working_range_is_kept_while_the_geometry_is_and_equals_a_fresh_one():
    """A bore or a mass leaves the geometry: the working range is not made again (the same
    object), and it is what a study built at that point computes; a pin or the ground is a
    new working range."""
    s = Study(DATA / "excavator.toml")
    first = working_range(s, n=8)
    s.update({"boom_cylinder.bore": "150 mm", "bucket.mass": "900 kg"})
    kept = working_range(s, n=8)
    fresh = working_range(Study(DATA / "excavator.toml", {"boom_cylinder.bore": "150 mm",
                                                          "bucket.mass": "900 kg"}), n=8)
    assert kept is first and kept.summary() == pytest.approx(fresh.summary(), rel=1e-9, abs=1e-12)
    assert working_range(s, n=9) is not first                        # another grid: made
    s.update({"machine.ground": "-1.5 m"})                            # 0.2 m higher: 0.2 m deeper
    low = working_range(s, n=8)
    assert low is not first
    assert low.summary()["max_digging_depth"] == pytest.approx(first.summary()["max_digging_depth"] + 0.2, abs=1e-9)
    s.update({"arm.points.G": ["Li", "0.52 m", "0.96 m"]})
    assert working_range(s, n=8).summary() == pytest.approx(
        working_range(Study(DATA / "excavator.toml", {"arm.points.G": ["Li", "0.52 m", "0.96 m"]}), n=8).summary(),
        rel=1e-9, abs=1e-12)


def test_valves_machine_takes_a_new_bore_as_parameters_and_equals_a_fresh_build():
    s = Study(DATA / "excavator.toml")
    cycle_energy(s, t_end=1.0)
    machine = s.machine("valves")
    assert s.update({"boom_cylinder.bore": "150 mm"})["valves"] == "parameters"
    assert s.machine("valves") is machine
    reused = cycle_energy(s, t_end=1.0).terms
    fresh = cycle_energy(Study(DATA / "excavator.toml", {"boom_cylinder.bore": "150 mm"}), t_end=1.0).terms
    for k in fresh:
        assert reused[k] == pytest.approx(fresh[k], rel=1e-9, abs=1e-6), k


def test_sample_and_value_syntaxes():
    assert parse_values("k", "1..2 m:3") == ["1 m", "1.5 m", "2 m"]
    assert parse_values("k", ["1 m", "2 m"]) == ["1 m", "2 m"]
    assert parse_values("k", (np.array([0.5]), "m")) == ["0.5 m"]
    df = sweep(DATA / "excavator.toml", {"bucket.mass": "600..900 kg:2", "arm.mass": "650..750 kg:2"},
               "tool-forces", options={"n": 8, "functions": ["arm"], "weights": True}, sample=5, seed=3,
               processes=1, progress=False)
    assert len(df) == 5
    assert df["bucket.mass"].between(600, 900).all() and df["arm.mass"].between(650, 750).all()
    assert len(set(np.round(df["bucket.mass"], 6))) == 5          # a Latin hypercube: all distinct
    assert (df["rebuilt"] == "extensions parameters").sum() >= 4    # masses: parameter values only


def test_a_failing_point_is_named_and_the_others_go_on():
    df = sweep(DATA / "excavator.toml", {"boom.points.B.y": "1.18, 3.5 m"}, "working-range",
               options={"n": 6}, processes=1, progress=False)
    assert df.loc[0, "error"] == "" and np.isfinite(df.loc[0, "max_reach"])
    assert "start pose" in df.loc[1, "error"] and np.isnan(df.loc[1, "max_reach"])


def test_cli_sweep_writes_its_table(tmp_path):
    from mechanisms.machine.cli import main

    assert main(["sweep", "excavator", "--set-grid", "bucket_cylinder.bore=90..100 mm:2", "--analysis",
                 "tool-forces", "--functions", "bucket", "--n", "8", "--processes", "1", "--out",
                 str(tmp_path), "--quiet"]) == 0
    lines = (tmp_path / "sweep.csv").read_text().splitlines()
    assert lines[0].startswith("bucket_cylinder.bore [m],bucket_tool_force [N]") and len(lines) == 3
    assert (tmp_path / "sweep.png").stat().st_size > 5000


def test_cli_analyse_prints_the_lift_table_and_writes_its_files(tmp_path, capsys):
    from mechanisms.machine.cli import main

    assert main(["analyse", "excavator", "--analysis", "lift-capacity", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "rated lift capacity over the front / over the side [t]" in out and "lift_capacity.csv" in out
    assert (tmp_path / "lift_capacity.png").stat().st_size > 10_000


def _bucket_and_bore(study):
    """What the point's description holds: the bucket's mass and the boom cylinder's bore."""
    from types import SimpleNamespace

    parts = study.description.parts
    vals = {"bucket_mass": parts["bucket"].values["mass"],
            "boom_bore": parts["boom_cylinder"].values["bore"]}
    return SimpleNamespace(summary=lambda: vals, summary_units={"bucket_mass": "kg", "boom_bore": "m"})


@pytest.mark.parametrize("processes", [1, 2])
def test_a_study_with_overrides_is_swept_with_them(processes):
    # the sweep's points go on top of the study's own overrides (its description), the
    # point's value winning on a key both set
    study = Study(DATA / "excavator.toml", {"bucket.mass": "900 kg", "boom_cylinder.bore": "150 mm"})
    df = sweep(study, {"boom_cylinder.bore": "130, 140 mm"}, _bucket_and_bore, processes=processes,
               progress=False)
    assert (df["error"] == "").all()
    assert df["bucket_mass"].tolist() == [900.0, 900.0]
    assert df["boom_bore"].tolist() == pytest.approx([0.13, 0.14], rel=1e-12)
    plain = sweep(DATA / "excavator.toml", {"boom_cylinder.bore": "130 mm"}, _bucket_and_bore,
                  processes=1, progress=False)
    assert plain["bucket_mass"].iloc[0] != 900.0      # the file's own mass: the check above can fail


def test_a_study_of_a_study_starts_where_the_other_is():
    other = Study(DATA / "excavator.toml", {"bucket.mass": "900 kg"})
    same = Study(other)
    assert same.description.parts["bucket"].values["mass"] == 900.0
    more = Study(other, {"boom_cylinder.bore": "150 mm"})
    assert more.description.parts["bucket"].values["mass"] == 900.0
    assert more.description.parts["boom_cylinder"].values["bore"] == pytest.approx(0.15, rel=1e-12)
    assert Study(DATA / "excavator.toml").description.parts["bucket"].values["mass"] != 900.0
