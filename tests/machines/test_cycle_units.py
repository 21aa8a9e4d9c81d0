"""Cycle files with units in their headers, and a run's results.csv fed back as a cycle."""

import numpy as np
import pytest

from bondgraph import ParameterError
from mechanisms.machine import DATA, Cycle, Machine
from mechanisms.machine.cli import main
from mechanisms.machine.table import read_csv

FUNCS = ("boom", "arm", "bucket")


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_units_in_the_headers_are_converted_to_si(tmp_path):
    si = Cycle.from_csv(write(tmp_path, "si.csv", "time,boom,arm,bucket\n0,3.6683,2.9692,3.0662\n"
                                                  "0.5,3.6026,2.9179,3.0887\n"), "extensions", FUNCS)
    mm = Cycle.from_csv(write(tmp_path, "mm.csv", "time [ms],boom [mm],arm [cm],bucket [m]\n"
                                                  "0,3668.3,296.92,3.0662\n500,3602.6,291.79,3.0887\n"),
                        "extensions", FUNCS)
    np.testing.assert_allclose(mm.time, [0.0, 0.5])
    for f in FUNCS:
        np.testing.assert_allclose(mm.values[f], si.values[f], rtol=1e-12)
    kn = Cycle.from_csv(write(tmp_path, "kn.csv", "time [s],boom [kN],arm [N],bucket\n0,12.5,-300,7\n"
                                                  "1,-1.5,200,8\n"), "forces", FUNCS)
    assert kn.values["boom"].tolist() == [12500.0, -1500.0]       # kN → N
    assert kn.values["arm"].tolist() == [-300.0, 200.0]
    assert kn.values["bucket"].tolist() == [7.0, 8.0]             # bare: SI, as always


@pytest.mark.parametrize("unit, scale", [("-", 1.0), ("1", 1.0), ("", 1.0), ("%", 0.01)])
def test_spool_commands_are_plain_numbers(tmp_path, unit, scale):
    head = "time [s]," + ",".join(f"{f} [{unit}]" if unit else f for f in FUNCS)
    big = 50 if unit == "%" else 0.5
    c = Cycle.from_csv(write(tmp_path, "v.csv", f"{head}\n0,0,0,0\n1,{big},{-big},0\n"), "valves", FUNCS)
    assert c.values["boom"].tolist() == [0.0, big * scale]
    assert c.values["arm"].tolist() == [0.0, -big * scale]


def test_a_unit_of_the_wrong_dimension_is_named_with_file_and_column(tmp_path):
    p = write(tmp_path, "wrong.csv", "time [m],boom [kg],arm [mm],bucket [-]\n0,1,2000,3\n1,1,2000,3\n")
    with pytest.raises(ParameterError) as e:
        Cycle.from_csv(p, "extensions", FUNCS)
    text = str(e.value)
    assert "wrong.csv" in text and "3 problems" in text            # every problem at once
    assert "column 'time [m]': the unit 'm' is a length, expected a time" in text
    assert "column 'boom [kg]': the unit 'kg' is a mass, expected a length" in text
    assert "column 'bucket [-]': the unit '-' is a plain number, expected a length" in text
    assert "arm" not in text.replace("line 1", "")                 # [mm] is right
    with pytest.raises(ParameterError, match=r"column 'boom \[m\]'.*is a length, expected a plain number"):
        Cycle.from_csv(write(tmp_path, "v.csv", "time,boom [m],arm,bucket\n0,0,0,0\n1,0,0,0\n"), "valves", FUNCS)
    with pytest.raises(ParameterError, match=r"column 'boom \[N\]'.*is a force, expected a length"):
        Cycle.from_csv(write(tmp_path, "f.csv", "time,boom [N],arm,bucket\n0,1,1,1\n1,1,1,1\n"), "extensions", FUNCS)


def test_a_header_unit_that_is_no_unit_is_named(tmp_path):
    p = write(tmp_path, "nonsense.csv", "time,boom [blorp],arm,bucket\n0,1,1,1\n1,1,1,1\n")
    with pytest.raises(ParameterError, match=r"(?s)nonsense.csv.*column 'boom \[blorp\]': 'blorp' is not a unit"):
        Cycle.from_csv(p, "forces", FUNCS)


def test_an_unknown_column_stays_named_as_unknown_whatever_its_unit(tmp_path):
    p = write(tmp_path, "extra.csv", "time,boom,arm,bucket,stick [kg]\n0,1,1,1,1\n1,1,1,1,1\n")
    with pytest.raises(ParameterError, match=r"column 'stick': unknown"):
        Cycle.from_csv(p, "forces", FUNCS)


def test_a_unit_header_and_a_bare_one_of_one_function_are_a_duplicate(tmp_path):
    p = write(tmp_path, "dup.csv", "time,boom,arm,bucket,boom [mm]\n0,1,1,1,1\n1,1,1,1,1\n")
    with pytest.raises(ParameterError, match=r"column 'boom' appears twice \(columns 2 and 5\)"):
        Cycle.from_csv(p, "forces", FUNCS)


@pytest.mark.parametrize("mode", ["extensions", "forces", "valves"])
def test_to_csv_writes_units_and_reads_back(tmp_path, mode):
    vals = {"extensions": [3.0, 3.1], "forces": [1e4, -2e4], "valves": [0.0, 0.4]}[mode]
    c = Cycle(mode, [0.0, 1.5], {f: vals for f in FUNCS}, FUNCS)
    p = c.to_csv(tmp_path / "c.csv")
    unit = {"extensions": "m", "forces": "N", "valves": "1"}[mode]
    assert p.read_text().splitlines()[0] == f"time [s],boom [{unit}],arm [{unit}],bucket [{unit}]"
    back = Cycle.from_csv(p, mode, FUNCS)
    assert back.time.tolist() == c.time.tolist()
    assert all(back.values[f].tolist() == vals for f in FUNCS)


@pytest.fixture(scope="module")
def lengths_run(tmp_path_factory):
    m = Machine.from_file(DATA / "excavator.toml", mode="extensions")
    run = m.run(progress=False)
    folder = tmp_path_factory.mktemp("run")
    run.to_csv(folder / "results.csv")
    return m, run, folder


def test_a_runs_lengths_fed_back_reproduce_the_run(lengths_run):
    m, run, folder = lengths_run
    cyc = Cycle.from_csv(folder / "results.csv", "extensions", m.functions)   # recognised as results
    assert cyc.source == "results.csv" and len(cyc.time) == len(run.t)
    # the spline through the run's output samples follows the file's own cycle between the samples
    # (the lengths are written with 10 significant digits: ~5e-10 m at 3 m)
    t = np.linspace(run.t[0], run.t[-1], 4999)                   # off the 0.01 s grid
    ref, back = m.cycle().sample(t), cyc.sample(t)
    for f in m.functions:
        assert np.max(np.abs(back[f] - ref[f])) < 1e-8, f
    again = m.run(cyc, progress=False).table()
    first = run.table()
    for f in m.functions:
        np.testing.assert_allclose(again[f"{f}_length"], first[f"{f}_length"], atol=1e-8, rtol=0)
    np.testing.assert_allclose(again["tip_x"], first["tip_x"], atol=1e-7, rtol=0)


def test_from_results_takes_the_modes_column(lengths_run):
    m, run, folder = lengths_run
    cols, units = read_csv(folder / "results.csv")
    assert units["boom_force"] == "N" and units["boom_length"] == "m"
    forces = Cycle.from_results(folder, "forces", m.functions)          # the folder will do
    for f in m.functions:
        np.testing.assert_allclose(forces.values[f], cols[f"{f}_force"], rtol=0, atol=0)
    with pytest.raises(ParameterError) as e:
        Cycle.from_results(folder, "valves", m.functions)      # an extensions run has no commands
    text = str(e.value)
    assert "3 problems" in text and all(f"column '{f}_command': missing" in text for f in m.functions)
    assert "runs of mode valves write" in text


def test_a_valves_runs_commands_fed_back_are_the_cycles(tmp_path):
    m = Machine.from_file(DATA / "excavator.toml", mode="valves")
    run = m.run(t_end=1.0, progress=False)
    run.to_csv(tmp_path / "results.csv")
    cyc = Cycle.from_csv(tmp_path, "valves", m.functions)           # a run folder
    t = np.linspace(0.0, 1.0, 777)
    ref, back = m.cycle().sample(t), cyc.sample(t)
    for f in m.functions:   # the table's breakpoints (every 0.25 s) are output times: exact
        np.testing.assert_allclose(back[f], ref[f], atol=1e-12, rtol=0)


def test_the_cli_runs_a_results_file_as_its_cycle(lengths_run, tmp_path, capsys):
    m, run, folder = lengths_run
    out = tmp_path / "again"
    assert main(["run", "excavator", "--mode", "extensions", "--cycle", str(folder / "results.csv"),
                 "--out", str(out), "--no-animation", "--no-bond-graph", "--quiet"]) == 0
    cols, _ = read_csv(out / "results.csv")
    first = run.table()
    for f in m.functions:
        np.testing.assert_allclose(cols[f"{f}_length"], first[f"{f}_length"], atol=1e-8, rtol=0)


def test_a_wrong_unit_and_a_bad_value_are_reported_together(tmp_path):
    p = write(tmp_path, "both.csv", "time,boom [kg],arm,bucket\n0,1,x,1\n1,1,1,1\n")
    with pytest.raises(ParameterError) as e:
        Cycle.from_csv(p, "extensions", FUNCS)
    text = str(e.value)
    assert "2 problems" in text and "'boom [kg]'" in text and "line 2, column 'arm': 'x' is not a number" in text


def test_the_csv_holds_every_value_to_ten_digits(lengths_run):
    """Each cell is the table's value printed as ``%.10g`` (printf's rounding), every row
    and column in the table's order; the header names each column with its unit."""
    _, run, folder = lengths_run
    tab = run.table()
    lines = (folder / "results.csv").read_text().splitlines()
    assert lines[0].split(",") == [f"{k} [{run.units.get(k, '1')}]" for k in tab]
    assert len(lines) == len(tab["time"]) + 1
    for i in (0, 1, len(lines) // 2, len(lines) - 2):
        assert lines[i + 1].split(",") == ["%.10g" % float(np.asarray(tab[k])[i]) for k in tab]
