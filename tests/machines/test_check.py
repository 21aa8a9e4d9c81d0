"""``hydrobond check`` builds every section of a machine file — the linkage, the selected
circuit with its start state, the tables of the circuit types not selected, the cycle
files — and reports every problem at once, each with its section."""

import pytest

from bondgraph import AssemblyError, ParameterError
from mechanisms.machine import DATA
from mechanisms.machine.check import check_file
from mechanisms.machine.cli import main

EXC = (DATA / "excavator.toml").read_text()
MACHINES = ["excavator", "wheel_loader", "knuckle_crane", "excavator_mini"]


def _file(tmp_path, *pairs, name="m.toml"):
    text = EXC
    for old, new in pairs:
        assert old in text, old
        text = text.replace(old, new, 1)
    p = tmp_path / name
    p.write_text(text)
    for csv in DATA.glob("dig_lift_dump_*.csv"):
        (tmp_path / csv.name).write_text(csv.read_text())
    return p


@pytest.mark.parametrize("name", MACHINES)
def test_every_shipped_machine_checks(name):
    text = check_file(DATA / f"{name}.toml")
    assert "fully actuated" in text and "the start state holds the start pose" in text


def test_a_bad_fixed_circuit_fails_the_check(tmp_path, capsys):
    """A negative valve flow and a misspelt power-unit key: the forces-mode build never read
    [circuit], so check passed; now both are named, with their lines, and check exits 2."""
    p = _file(tmp_path, ('flow = "0.01 m^3/s"                          # OpenHydraulics\n',
                         'flow = "-0.01 m^3/s"\n'), ('volume = "5 L"', 'volum = "5 L"'))
    with pytest.raises(ParameterError) as err:
        check_file(p)
    msg = str(err.value)
    assert "hydrobond check of m.toml: 2 problems" in msg
    assert "[circuit]: 'circuit.valves.arm.flow' (m.toml, line" in msg and "expected a value > 0" in msg
    assert "[circuit]: 'circuit.power_unit.volum'" in msg and "did you mean 'circuit.power_unit.volume'" in msg
    assert main(["check", str(p)]) == 2
    err = capsys.readouterr()
    assert "circuit.valves.arm.flow" in err.err and "circuit.power_unit.volum" in err.err and err.out == ""
    assert main(["check", str(p), "--verbose"]) == 2              # the same problems, verbose or not
    assert capsys.readouterr().err == err.err


def test_a_bad_load_sensing_circuit_fails_the_check(tmp_path):
    p = _file(tmp_path, ('type = "fixed"', 'type = "load-sensing"'),
              ('compensation = "post"', 'compensation = "mid"'))
    with pytest.raises(ParameterError) as err:
        check_file(p)
    assert "[circuit]: 'circuit.load_sensing.compensation'" in str(err.value)
    assert "found 'mid'" in str(err.value)


def test_the_table_of_a_circuit_not_selected_is_read(tmp_path):
    """The file selects the fixed circuit and carries a load-sensing one: a bad key of
    [circuit.load_sensing] is found (only that table's problems: the fixed circuit's
    power-unit keys are not the LS builder's business)."""
    p = _file(tmp_path, ('margin = "3 bar"', 'margin = "3 m"'))
    with pytest.raises(ParameterError) as err:
        check_file(p)
    msg = str(err.value)
    assert "1 problem" in msg
    assert "[circuit.load_sensing] (circuit type 'load-sensing', not selected): 'circuit.load_sensing.margin'" in msg


def test_every_section_is_reported_at_once(tmp_path):
    """A start pose outside the boom's stroke, a bad valve and a cycle beyond the arm's
    stroke: three sections, one error (of the first section's class)."""
    p = _file(tmp_path, ('boom = "50 deg"', 'boom = "250 deg"'),
              ('dp = "0.3 MPa"', 'dp = "0 MPa"'))
    lengths = (tmp_path / "dig_lift_dump_lengths.csv")
    rows = lengths.read_text().splitlines()
    head, first = rows[0], rows[1].split(",")
    cols = head.split(",")
    first[cols.index("arm")] = "4.5"
    lengths.write_text("\n".join([head, ",".join(first)] + rows[2:]) + "\n")
    with pytest.raises((AssemblyError, ParameterError)) as err:
        check_file(p)
    msg = str(err.value)
    assert "linkage: " in msg and "boom_cylinder" in msg
    assert "[circuit]: 'circuit.valves.boom.dp'" in msg
    assert "[cycles.dig_lift_dump] extensions:" in msg and "arm: 4.500 m" in msg
