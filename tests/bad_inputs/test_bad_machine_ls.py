"""Bad load-sensing circuits in machine files: each raises one named error of our family,
naming the key (and its line, for a file) and saying what was expected."""

import pytest

from bondgraph import ParameterError
from mechanisms.machine import DATA, Machine
from tests.bad_inputs.catalogue import Case, check, ids

EXC = DATA / "excavator.toml"
LS = {"circuit.type": "load-sensing"}


def _build(**over):
    """The excavator's LS circuit with dotted overrides (``__`` for ``.`` in the names)."""
    return lambda: Machine.from_file(EXC, {**LS, **{k.replace("__", "."): v for k, v in over.items()}},
                                     mode="valves")


def _edited(tmp_path_factory, old: str, new: str):
    def call():
        text = EXC.read_text()
        assert old in text
        d = tmp_path_factory.mktemp("ls")
        p = d / "excavator_ls.toml"
        p.write_text(text.replace('type = "fixed"', 'type = "load-sensing"').replace(old, new))
        return Machine.from_file(p, mode="valves")
    return call


def _line(text: str) -> str:
    n = next(i for i, line in enumerate(EXC.read_text().splitlines(), 1) if line.startswith(text))
    return f"line {n}"


LS_KEY = "circuit.load_sensing"
CASES = [
    Case("ls-unknown-key", _build(**{f"{LS_KEY}__marginn": "3 bar"}), ParameterError,
         [f"'{LS_KEY}.marginn'", "unknown key", f"did you mean '{LS_KEY}.margin'"]),
    Case("ls-compensation-word", _build(**{f"{LS_KEY}__compensation": "middle"}), ParameterError,
         [f"'{LS_KEY}.compensation'", "'middle'", '"post"', '"pre"']),
    Case("ls-margin-bare-number", _build(**{f"{LS_KEY}__margin": 3}), ParameterError,
         [f"'{LS_KEY}.margin'", "bare number 3", "bar"]),
    Case("ls-margin-wrong-dimension", _build(**{f"{LS_KEY}__margin": "3 L"}), ParameterError,
         [f"'{LS_KEY}.margin'", "'3 L'", "pressure"]),
    Case("ls-margin-negative", _build(**{f"{LS_KEY}__margin": "-3 bar"}), ParameterError,
         [f"'{LS_KEY}.margin'", "-3 bar", "> 0"]),
    Case("ls-band-zero", _build(**{f"{LS_KEY}__regulation_band": "0 bar"}), ParameterError,
         [f"'{LS_KEY}.regulation_band'", "> 0"]),
    Case("ls-cutoff-below-margin", _build(**{f"{LS_KEY}__cutoff": "2 bar"}), ParameterError,
         [LS_KEY, "cutoff", "above the margin"]),
    Case("ls-swash-order", _build(**{f"{LS_KEY}__swash_order": 3}), ParameterError,
         [f"'{LS_KEY}.swash_order'", "≤ 2"]),
    Case("ls-opening-above-one", _build(**{f"{LS_KEY}__ls_opening": 1.5}), ParameterError,
         [f"'{LS_KEY}.ls_opening'", "≤ 1"]),
    Case("ls-tap-negative", _build(**{f"{LS_KEY}__tap_time_constant": "-2 ms"}), ParameterError,
         [f"'{LS_KEY}.tap_time_constant'", "> 0"]),
    Case("ls-compensator-lag-zero", _build(**{f"{LS_KEY}__compensator_time_constant": "0 s"}),
         ParameterError, [f"'{LS_KEY}.compensator_time_constant'", "> 0"]),
    Case("ls-pre-setting-above-margin", _build(**{f"{LS_KEY}__compensation": "pre",
                                                  f"{LS_KEY}__pre_compensator_setting": "5 bar"}),
         ParameterError, ["boom", "pre-compensator setting", "below the pump margin"]),
    Case("ls-post-offset-above-margin", _build(**{f"{LS_KEY}__post_compensator_offset": "4 bar"}),
         ParameterError, ["boom", "post-compensator spring offset", "below the pump margin"]),
    Case("ls-power-unit-ideal-source", _build(**{"circuit__power_unit__pressure": "200 bar"}),
         ParameterError, ["'circuit.power_unit.pressure'", "fixed circuit", "circuit.load_sensing"]),
    Case("ls-power-unit-unknown", _build(**{"circuit__power_unit__pump_sped": "150 rad/s"}),
         ParameterError, ["'circuit.power_unit.pump_sped'", "did you mean 'circuit.power_unit.pump_speed'"]),
    Case("ls-pump-key-in-power-unit", _build(**{"circuit__power_unit__margin": "3 bar"}),
         ParameterError, ["'circuit.power_unit.margin'", "unknown key"]),
    # read as 25/(2π) rev/s by the LS table's reader (the fixed circuit refused it)
    Case("ls-pump-speed-hz", _build(**{"circuit__power_unit__pump_speed": "25 Hz"}), ParameterError,
         ["'circuit.power_unit.pump_speed'", "25 Hz", "revolutions or radians"]),
    Case("ls-type-misspelt", _build(**{"circuit__type": "load_sensing"}), ParameterError,
         ["'circuit.type'", "'load_sensing'", "did you mean 'load-sensing'"]),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_ls_machine_input(case):
    check(case)


def test_problems_in_the_file_are_named_with_their_lines_all_at_once(tmp_path_factory):
    """Three bad values in an edited file: one error, each named with its key and line."""
    call = _edited(tmp_path_factory, 'margin = "3 bar"', 'margin = "3 m"\nfilter_time_constant = 1')
    call2 = _edited(tmp_path_factory, 'compensation = "post"', 'compensation = "pre"\ncompensaton = 1')
    err = check(Case("ls-file-lines", call, ParameterError,
                     ["'circuit.load_sensing.margin' (excavator_ls.toml, " + _line('margin = "3 bar"'),
                      "'3 m'", "'circuit.load_sensing.filter_time_constant'", "bare number 1"]))
    assert "2 problems" in str(err)
    err = check(Case("ls-file-unknown", call2, ParameterError,
                     ["'circuit.load_sensing.compensaton'", "did you mean 'circuit.load_sensing.compensation'"]))


def test_a_missing_load_sensing_table_is_named(tmp_path_factory):
    text = EXC.read_text()
    cut = text[:text.index("[circuit.load_sensing]")]
    d = tmp_path_factory.mktemp("ls")
    (d / "no_ls.toml").write_text(cut.replace('type = "fixed"', 'type = "load-sensing"'))
    check(Case("ls-missing-table", lambda: Machine.from_file(d / "no_ls.toml", mode="valves"),
               ParameterError, ["'circuit.load_sensing'", "missing table", "margin"]))
    # the fixed circuit of the same cut file still builds: the table is only the LS circuit's
    (d / "fixed.toml").write_text(cut)
    assert Machine.from_file(d / "fixed.toml", mode="valves").circuit.relief_pressure == 300e5
