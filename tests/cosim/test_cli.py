"""``python -m bondgraph.cosim``: configurations, CSV output, exit codes, messages."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bondgraph.cosim import examples as ex
from bondgraph.cosim import load_config
from bondgraph.cosim.__main__ import main
from bondgraph.errors import ParameterError

ROOT = Path(__file__).resolve().parents[2]

B1_TOML = """
step = {step}
end = {end}
glue = "{glue}"
relations = ["mass.x -> spring.x", "mass.v -> spring.v", "spring.F -> mass.F"]
bonds = [["spring.F", "mass.v"]]

[[subsystems]]
factory = "bondgraph.cosim.examples:b1_mass"

[[subsystems]]
factory = "bondgraph.cosim.examples:b1_spring"
name = "spring"
"""


def write(tmp_path, name, **kw):
    path = tmp_path / name
    path.write_text(B1_TOML.format(**{"step": 1e-3, "end": 0.5, "glue": "quadratic", **kw}))
    return path


def test_run_writes_the_csv_next_to_the_config(tmp_path, capsys):
    cfg = write(tmp_path, "b1.toml")
    assert main(["run", str(cfg)]) == 0
    out = tmp_path / "b1.csv"
    assert f"wrote {out} (501 points" in capsys.readouterr().out
    data = np.loadtxt(out, delimiter=",", skiprows=1)
    assert data.shape[0] == 501
    assert np.abs(data[:, 1] - ex.b1_reference(data[:, 0])).max() < 5e-5


def test_an_aborted_run_writes_partial_results_and_exits_1(tmp_path, capsys):
    cfg = write(tmp_path, "zoh.toml", glue="zoh", end=4.0)
    out = tmp_path / "partial.csv"
    assert main(["run", str(cfg), "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert "aborted" in captured.out
    assert "bond spring.F*mass.v: the coupling created" in captured.err
    rows = np.loadtxt(out, delimiter=",", skiprows=1)
    assert 10 < rows.shape[0] < 4001


def test_json_config_and_table(tmp_path, capsys):
    cfg = {"step": 1e-3, "end": 0.01, "scheme": "gauss-seidel", "glue": "linear",
           "relations": ["side2.x -> side1.x2", "side2.v -> side1.v2", "side1.F -> side2.F"],
           "subsystems": [{"factory": "bondgraph.cosim.examples:b2_subsystems"}]}
    path = tmp_path / "b2.json"
    path.write_text(json.dumps(cfg))
    assert main(["table", str(path)]) == 2          # the factory returns a tuple
    assert "returned tuple, expected a Subsystem" in capsys.readouterr().err
    cfg["subsystems"] = [{"factory": "bondgraph.cosim.examples:b1_mass"},
                         {"factory": "bondgraph.cosim.examples:b1_spring"}]
    cfg["relations"] = ["mass.x -> spring.x", "mass.v -> spring.v", "spring.F -> mass.F"]
    path.write_text(json.dumps(cfg))
    assert main(["table", str(path)]) == 0
    assert "spring -> mass\n  spring.F [N]  -> mass.F [N]" in capsys.readouterr().out
    setup = load_config(path)
    assert setup.simulation.timing.scheme == "gauss-seidel" and setup.output is None


def test_config_problems_are_listed_together(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({
        "step": 1e-3, "ends": 1.0, "relations": [],
        "subsystems": [{"factory": "bondgraph.cosim.examples:b1_mass", "colour": "red"},
                       {"fmu": "x.fmu"},
                       {"factory": "no.such.module:make"},
                       {"factory": "bondgraph.cosim.examples:b1_spring", "name": "damper"}]}))
    with pytest.raises(ParameterError) as info:
        load_config(path)
    text = str(info.value)
    assert "configuration 'bad.json'" in text
    assert "unknown key 'ends'" in text and "missing key 'end'" in text
    assert "subsystems[0]: unknown key 'colour'" in text
    assert "subsystems[1]: an FMU entry needs a 'name'" in text
    assert "subsystems[2]: factory 'no.such.module:make': cannot import module" in text
    assert ("subsystems[3] ('damper'): name 'damper' given, but the factory built subsystem "
            "'spring'") in text


def test_unparsable_config(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("step = = 1")
    with pytest.raises(ParameterError, match=r"configuration '.*broken.toml': cannot parse TOML"):
        load_config(path)


def test_module_entry_point_runs(tmp_path):
    cfg = write(tmp_path, "b1.toml", end=0.05)
    proc = subprocess.run([sys.executable, "-m", "bondgraph.cosim", "run", str(cfg)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "b1.csv").exists()


@pytest.mark.skipif(importlib.util.find_spec("pythonfmu") is None,
                    reason="FMU export needs pythonfmu (the 'fmi' extra)")
def test_export_command(tmp_path, capsys):
    assert main(["export", "bondgraph.cosim.examples:b1_spring", "--name", "Spring",
                 "--out", str(tmp_path), "--kwargs", '{"k": 100.0}']) == 0
    assert (tmp_path / "Spring.fmu").exists()
    assert main(["export", "bondgraph.cosim.examples:b1_spring", "--name", "Spring",
                 "--kwargs", "{k}"]) == 2
    assert "--kwargs: not valid JSON" in capsys.readouterr().err
