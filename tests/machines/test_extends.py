"""``[machine] extends``: a machine file that starts from another one."""

import shutil

import pytest

from bondgraph import ParameterError
from mechanisms.machine import DATA, Machine, MachineDescription


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_an_extending_file_is_the_base_with_its_tables_laid_over(tmp_path):
    f = _write(tmp_path / "heavy.toml", f'[machine]\nextends = "{DATA / "excavator.toml"}"\nname = "heavy"\n'
                                        '[bucket]\nmass = "900 kg"\n')
    base = MachineDescription.load(DATA / "excavator.toml")
    by_override = MachineDescription.load(DATA / "excavator.toml", {"bucket.mass": "900 kg"})
    heavy = MachineDescription.load(f)
    assert heavy.name == "heavy"
    assert heavy.parts["bucket"].values == by_override.parts["bucket"].values
    assert heavy.parts["bucket"].values["mass"] == 900.0 and base.parts["bucket"].values["mass"] == 700.0
    assert heavy.parts["boom"].values == base.parts["boom"].values
    # the base's cycle files are found next to the base, not next to this file
    assert heavy.cycles["dig_lift_dump"]["valves"] == base.cycles["dig_lift_dump"]["valves"]
    # the same machine as the override gives: the same start state
    a = Machine(heavy, mode="extensions").start_state()
    b = {k.replace("excavator/", "heavy/", 1): v for k, v in Machine(by_override, mode="extensions").start_state().items()}
    assert a.keys() == b.keys() and all(abs(a[k] - b[k]) <= 1e-12 * max(1.0, abs(b[k])) for k in a)


def test_a_relative_base_and_a_saved_copy_are_self_contained(tmp_path):
    shutil.copy(DATA / "excavator.toml", tmp_path / "excavator.toml")
    for f in DATA.glob("dig_lift_dump_*.csv"):
        shutil.copy(f, tmp_path / f.name)
    f = _write(tmp_path / "b.toml", '[machine]\nextends = "excavator.toml"\nname = "b"\n')
    d = MachineDescription.load(f)
    out = d.save(tmp_path / "out" / "b_full.toml")
    text = out.read_text(encoding="utf-8")
    assert "extends" not in text                                   # written out whole
    again = MachineDescription.load(out)
    assert again.values == d.values and again.name == "b"


def test_an_inherited_key_is_named_in_its_own_file(tmp_path):
    _write(tmp_path / "base.toml", (DATA / "excavator.toml").read_text(encoding="utf-8")
           .replace('mass = "1307 kg"', 'mass = "-1307 kg"'))
    for f in DATA.glob("dig_lift_dump_*.csv"):
        shutil.copy(f, tmp_path / f.name)
    f = _write(tmp_path / "child.toml", '[machine]\nextends = "base.toml"\nname = "child"\n'
                                        '[arm]\nmass = "-1 kg"\n')
    with pytest.raises(ParameterError) as e:
        MachineDescription.load(f)
    msg = str(e.value)
    line = next(i for i, s in enumerate((tmp_path / "base.toml").read_text().splitlines(), 1) if "-1307 kg" in s)
    assert f"'boom.mass' (base.toml, line {line}, extended by child.toml)" in msg
    assert "'arm.mass' (child.toml, line 5)" in msg


@pytest.mark.parametrize("text, found", [
    ('[machine]\nextends = "nothing.toml"\nname = "x"\n', "does not exist"),
    ('[machine]\nextends = 3\nname = "x"\n', "expected the name of a machine file"),
    ('[machine]\nextends = "loop.toml"\nname = "x"\n', "a circle: loop.toml → loop.toml"),
])
def test_bad_extends_are_named(tmp_path, text, found):
    f = _write(tmp_path / "loop.toml", text)
    with pytest.raises(ParameterError, match="'machine.extends' \\(loop.toml, line 2\\)") as e:
        MachineDescription.load(f)
    assert found in str(e.value)
