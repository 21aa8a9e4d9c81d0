"""The machine-file reference of the documentation covers every key the reader accepts.

``docs/_ext/machine_keys.py`` renders the tables of ``docs/guide/machine_files.md`` from
the key lists the machine-file reader and the circuit builders check files against. A key
without a description would show an empty cell; the docs build fails on it, and so does
this test, which needs no Sphinx.
"""

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _machine_keys():
    spec = importlib.util.spec_from_file_location("machine_keys", ROOT / "docs" / "_ext" / "machine_keys.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("machine_keys", mod)    # its dataclass looks its module up
    spec.loader.exec_module(sys.modules["machine_keys"])
    mod = sys.modules["machine_keys"]
    return mod


def test_every_machine_file_key_has_a_description():
    assert _machine_keys().undocumented() == []


def test_the_tables_hold_the_keys_the_reader_checks():
    mk = _machine_keys()
    from mechanisms.machine import circuits, circuits_oc
    from mechanisms.machine import description as d

    assert [r.key for r in mk.rows("cylinder")] == [k.name for k in d._CYLINDER]
    assert [r.key for r in mk.rows("circuit.valves")] == list(circuits._VALVE)
    assert [r.key for r in mk.rows("circuit.open_centre")] == list(circuits_oc.OC_KEYS)
    from mechanisms.machine import circuits_swing

    assert [r.key for r in mk.rows("circuit.valves.swing")] == list(circuits_swing.SWING_VALVE_KEYS)
    ls = {r.key for r in mk.rows("circuit.load_sensing")}
    assert {"margin", "compensation", "shuttle_band", "pre_compensator_setting"} <= ls


def test_the_guide_shows_each_table_once():
    mk = _machine_keys()
    text = (ROOT / "docs" / "guide" / "machine_files.md").read_text(encoding="utf-8")
    for section in mk.SECTIONS:
        assert text.count("{machine-keys} " + section + "\n") == 1, section
