"""The excavator command line: help, outputs, errors."""

import math
import subprocess
import sys

import numpy as np
import pytest

from mechanisms.excavator.cli import main
from mechanisms.machine.table import read_csv

REQUIRED = ["time", "tip_x", "tip_y", "boom_length", "arm_length", "bucket_length", "boom_force",
            "arm_force", "bucket_force", "boom_angle", "arm_angle", "bucket_angle"]


def test_help_explains_modes_and_files():
    out = subprocess.run([sys.executable, "-m", "mechanisms.excavator", "run", "--help"],
                         capture_output=True, text=True, check=True).stdout
    for word in ("extensions", "forces", "valves", "--params", "--cycle", "--t-end", "--out",
                 "first\ncolumn is `time`", "--set", "--rtol", "--method", "--dt", "(default: 1e-06)"):
        assert word in out, word


@pytest.mark.parametrize("mode", ["extensions", "valves"])
def test_run_writes_results_plots_and_report(tmp_path, mode):
    rc = main(["run", "--mode", mode, "--t-end", "1.0", "--out", str(tmp_path), "--no-animation",
               "--quiet"])
    assert rc == 0
    cols, units = read_csv(tmp_path / "results.csv")
    for col in REQUIRED:
        assert col in cols
    assert units["tip_x"] == "m" and units["boom_force"] == "N" and units["time"] == "s"
    if mode == "valves":
        assert units["boom_cap_pressure"] == "Pa" and "pump_power" in cols
    assert cols["time"][-1] == pytest.approx(1.0)
    for f in ("trajectory.png", "timeseries.png", "bond_graph.png", "report.txt"):
        assert (tmp_path / f).stat().st_size > 0
    assert "loop closure" in (tmp_path / "report.txt").read_text()


def test_forces_mode_and_a_user_cycle_file(tmp_path):
    cyc = tmp_path / "hold.csv"
    cyc.write_text("time,boom,arm,bucket\n0,80000,-20000,5000\n1,80000,-20000,5000\n")
    rc = main(["run", "--mode", "forces", "--cycle", str(cyc), "--t-end", "0.2", "--out", str(tmp_path / "o"),
               "--no-animation", "--no-bond-graph", "--quiet"])
    assert rc == 0
    cols, _ = read_csv(tmp_path / "o" / "results.csv")
    assert cols["time"][-1] == pytest.approx(0.2)
    for f, value in (("boom", 80000.0), ("arm", -20000.0), ("bucket", 5000.0)):
        assert np.allclose(cols[f"{f}_force"], value, rtol=1e-9), f


def test_bad_cycle_file_is_named(tmp_path, capsys):
    cyc = tmp_path / "bad.csv"
    cyc.write_text("time,boom,arm\n0,0,0\n1,0.5,0\n")
    rc = main(["run", "--mode", "valves", "--cycle", str(cyc), "--out", str(tmp_path), "--quiet"])
    assert rc == 2
    err = capsys.readouterr().err
    assert "bad.csv" in err and "column 'bucket': missing" in err


def test_bad_parameter_file_is_named(tmp_path, capsys):
    from mechanisms.excavator import DEFAULT_FILE

    p = tmp_path / "m.toml"
    text = DEFAULT_FILE.read_text()
    line = text[: text.index('mass = "1307 kg"')].count("\n") + 1
    p.write_text(text.replace('mass = "1307 kg"', 'mass = "1307 m"'))
    rc = main(["run", "--mode", "extensions", "--params", str(p), "--out", str(tmp_path), "--quiet"])
    assert rc == 2
    assert f"'boom.mass' (m.toml, line {line}): found '1307 m' (a length), expected a mass in kg" \
        in capsys.readouterr().err


def test_reference_formulation_runs_through_the_cli(tmp_path):
    """The same command and columns on the Cartesian formulation; its tip agrees with the
    causal run of the same cycle (a second formulation of the same machine)."""
    paths = {}
    for form in ("causal", "cartesian"):
        out = tmp_path / form
        rc = main(["run", "--mode", "extensions", "--formulation", form, "--t-end", "1.0",
                   "--out", str(out), "--no-animation", "--quiet"])
        assert rc == 0
        paths[form] = out
    rows = {k: read_csv(p / "results.csv")[0] for k, p in paths.items()}
    for col in REQUIRED:
        assert col in rows["cartesian"]
    gap = np.max(np.hypot(rows["causal"]["tip_x"] - rows["cartesian"]["tip_x"],
                          rows["causal"]["tip_y"] - rows["cartesian"]["tip_y"]))
    assert gap < 1e-4
    assert "formulation cartesian" in (paths["cartesian"] / "report.txt").read_text()


def test_stiff_joints_converge_to_the_causal_tip_as_one_over_k():
    """Stiff joints miss by their deflection λ/k: ten times stiffer joints, about ten times
    closer to the causal (rigid) tip path."""
    from mechanisms.excavator import Cycle, Excavator

    t_eval = np.linspace(0.0, 1.0, 101)
    kw = dict(t_end=1.0, t_eval=t_eval, rtol=1e-8, atol=1e-10, progress=False)
    ref = Excavator(mode="extensions").run(Cycle.default("extensions"), **kw).table()
    gaps = []
    for k in (1e8, 1e9):
        exc = Excavator(mode="extensions", formulation="stiff", formulation_options={"stiffness": k})
        tab = exc.run(Cycle.default("extensions"), method="Radau", **kw).table()
        gaps.append(np.max(np.hypot(tab["tip_x"] - ref["tip_x"], tab["tip_y"] - ref["tip_y"])))
    assert 5.0 < gaps[0] / gaps[1] < 20.0


def test_hydraulics_need_the_causal_formulation(capsys):
    rc = main(["run", "--mode", "valves", "--formulation", "cartesian", "--t-end", "0.1",
               "--out", "/tmp/never-written", "--quiet"])
    assert rc == 2
    assert "formulation 'cartesian' with mode 'valves'" in capsys.readouterr().err


def test_a_cycle_beyond_a_stroke_is_refused_before_the_run(tmp_path, capsys):
    """Lengthening the boom cylinder past its stroke end: refused before integrating, naming
    the function, the time, the value and the limit; nothing is written."""
    cycle = tmp_path / "overreach.csv"
    cycle.write_text("time,boom,arm,bucket\n0,3.66834,2.96918,3.06618\n2,3.66834,2.96918,3.06618\n"
                     "4,6.0,2.96918,3.06618\n")
    rc = main(["run", "--mode", "extensions", "--cycle", str(cycle), "--out", str(tmp_path / "o"),
               "--no-animation", "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2
    assert "boom: 6.000 m at t = 4 s exceeds the stroke end 3.730 m" in err
    assert not (tmp_path / "o" / "results.csv").exists()
