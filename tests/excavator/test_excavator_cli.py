"""The excavator command line: help, outputs, errors."""

import csv
import subprocess
import sys

import pytest

from mechanisms.excavator.cli import main

REQUIRED = ["time", "tip_x", "tip_y", "boom_length", "arm_length", "bucket_length", "boom_force",
            "arm_force", "bucket_force", "boom_angle", "arm_angle", "bucket_angle"]


def test_help_explains_modes_and_files():
    out = subprocess.run([sys.executable, "-m", "mechanisms.excavator", "run", "--help"],
                         capture_output=True, text=True, check=True).stdout
    for word in ("extensions", "forces", "valves", "--params", "--cycle", "--t-end", "--out",
                 "first column is `time`"):
        assert word in out


@pytest.mark.parametrize("mode", ["extensions", "valves"])
def test_run_writes_results_plots_and_report(tmp_path, mode):
    rc = main(["run", "--mode", mode, "--t-end", "1.0", "--out", str(tmp_path), "--no-animation",
               "--quiet"])
    assert rc == 0
    rows = list(csv.reader(open(tmp_path / "results.csv")))
    head = rows[0]
    for col in REQUIRED:
        assert col in head
    if mode == "valves":
        assert "boom_cap_pressure" in head and "pump_power" in head
    assert float(rows[-1][head.index("time")]) == pytest.approx(1.0)
    for f in ("trajectory.png", "timeseries.png", "bond_graph.png", "report.txt"):
        assert (tmp_path / f).stat().st_size > 0
    assert "loop closure" in (tmp_path / "report.txt").read_text()


def test_forces_mode_and_a_user_cycle_file(tmp_path):
    cyc = tmp_path / "hold.csv"
    cyc.write_text("time,boom,arm,bucket\n0,80000,-20000,5000\n1,80000,-20000,5000\n")
    rc = main(["run", "--mode", "forces", "--cycle", str(cyc), "--t-end", "0.2", "--out", str(tmp_path / "o"),
               "--no-animation", "--no-bond-graph", "--quiet"])
    assert rc == 0


def test_bad_cycle_file_is_named(tmp_path, capsys):
    cyc = tmp_path / "bad.csv"
    cyc.write_text("time,boom,arm\n0,0,0\n1,0.5,0\n")
    rc = main(["run", "--mode", "valves", "--cycle", str(cyc), "--out", str(tmp_path), "--quiet"])
    assert rc == 2
    err = capsys.readouterr().err
    assert "bad.csv" in err and "column 'bucket': missing" in err


def test_bad_parameter_file_is_named(tmp_path, capsys):
    p = tmp_path / "m.toml"
    from mechanisms.excavator.params import DEFAULT_FILE

    p.write_text(DEFAULT_FILE.read_text().replace('mass = "1307 kg"', 'mass = "1307 m"'))
    rc = main(["run", "--mode", "extensions", "--params", str(p), "--out", str(tmp_path), "--quiet"])
    assert rc == 2
    assert "'boom.mass': found '1307 m'" in capsys.readouterr().err
