"""A machine's warm build (:mod:`mechanisms.machine.buildkey`): the same file loads its
compiled model by key; any change of a value, the structure, the mode, the circuit or
the package source is another key; and a keyed build runs exactly as a build that
collects every law again.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid

import numpy as np
import pytest

from mechanisms.machine import DATA, Machine
from mechanisms.machine import buildkey
from mechanisms.machine.buildkey import machine_key, source_digest
from mechanisms.machine.description import MachineDescription

EXC = DATA / "excavator.toml"


def desc(overrides=None):
    return MachineDescription.load(EXC, overrides)


@pytest.mark.parametrize("override", [
    {"bucket.mass": "901 kg"},                         # a run-time value (a parameter of the code)
    {"boom.cog": ["3.45 m", "0.65 m"]},                # geometry (baked into the code)
    {"boom_cylinder.stroke": "1.26 m"},
    {"circuit.relief_pressure": "331 bar"},            # the circuit
    {"circuit.engine.rated_power": "111 kW"},
])
def test_any_changed_value_is_another_key(override):
    assert machine_key(desc(override), "valves") != machine_key(desc(), "valves")


def test_the_same_file_is_the_same_key_and_mode_and_end_stops_are_part_of_it():
    k = machine_key(desc(), "valves")
    assert k == machine_key(desc(), "valves")
    assert len({k, machine_key(desc(), "forces"), machine_key(desc(), "extensions"),
                machine_key(desc(), "valves", end_stops=False)}) == 4


def test_another_circuit_or_machine_is_another_key():
    oc = desc().with_sections(circuit={**desc().raw["circuit"], "type": "open_centre"})
    assert machine_key(oc, "valves") != machine_key(desc(), "valves")
    assert machine_key(MachineDescription.load(DATA / "excavator_mini.toml"), "valves") != \
        machine_key(desc(), "valves")


def test_a_change_of_the_package_source_is_another_key(tmp_path, monkeypatch):
    before = machine_key(desc(), "valves")
    monkeypatch.setattr(buildkey, "_DIGEST", ["0" * 32])       # as if another source
    assert machine_key(desc(), "valves") != before
    # and the digest does read the files: a package of two files, one edited
    pkg = tmp_path / "keypkg_probe"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("x = 1\n")
    (pkg / "sub" / "law.py").write_text("def f(v):\n    return 2 * v\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(buildkey, "PACKAGES", ("keypkg_probe",))
    monkeypatch.setattr(buildkey, "_DIGEST", [])
    d1 = source_digest()
    monkeypatch.setattr(buildkey, "_DIGEST", [])
    assert source_digest() == d1
    (pkg / "sub" / "law.py").write_text("def f(v):\n    return 3 * v\n")
    monkeypatch.setattr(buildkey, "_DIGEST", [])
    assert source_digest() != d1


def _table(machine):
    run = machine.run(t_end=1.0, progress=False)
    return run.table()


def test_a_keyed_build_runs_as_a_full_build_and_takes_its_values():
    mass = f"{900 + uuid.uuid4().int % 10**6 / 1e4:.4f} kg"          # a value never built before
    first = Machine.from_file(EXC, {"bucket.mass": mass})
    assert first.model.model.build_times["keyed"] == 0.0             # a miss: built by fingerprint
    again = Machine.from_file(EXC, {"bucket.mass": mass})
    bt = again.model.model.build_times
    assert bt["keyed"] == 1.0 and bt["collect"] == 0.0 and bt["derive"] == 0.0
    assert again.model.model.params["bucket.mass"] == float(mass.split()[0])
    assert again.model.model.params == first.model.model.params
    assert again.model.model.state_names == first.model.model.state_names
    a, b = _table(first), _table(again)
    assert list(a) == list(b)
    for col in a:
        np.testing.assert_allclose(b[col], a[col], rtol=1e-12, atol=0, err_msg=col)


def test_a_run_time_change_after_a_keyed_build_still_applies():
    m = Machine.from_file(EXC)
    m2 = Machine.from_file(EXC)
    assert m2.model.model.build_times["keyed"] == 1.0
    m2.set({"bucket.mass": "1500 kg"})
    assert m2.model.model.params["bucket.mass"] == 1500.0
    assert m.model.model.params["bucket.mass"] != 1500.0


def test_a_warm_build_loads_neither_pint_nor_the_laws():
    code = ("import sys\n"
            "from mechanisms.machine import DATA, Machine\n"
            "Machine.from_file(DATA / 'excavator.toml')\n"          # fills the caches
            "import json\n"
            "print(json.dumps('pint' in sys.modules))\n")
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    code2 = ("import sys, json\n"
             "from mechanisms.machine import DATA, Machine\n"
             "m = Machine.from_file(DATA / 'excavator.toml')\n"
             "print(json.dumps(['pint' in sys.modules, m.model.model.build_times['keyed']]))\n")
    out = subprocess.run([sys.executable, "-c", code2], check=True, capture_output=True, text=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [False, 1.0]


def test_a_circuit_registered_from_outside_the_packages_has_no_key():
    from mechanisms.machine.circuits import CIRCUITS

    fixed = CIRCUITS["fixed"]

    def mine(ctx):             # a user's builder: its source is not in the digest
        return fixed(ctx)

    mine.__module__ = "__main__"
    CIRCUITS["test-user-circuit"] = mine
    try:
        d = desc().with_sections(circuit={**desc().raw["circuit"], "type": "test-user-circuit"})
        assert machine_key(d, "valves") is None
        assert machine_key(d, "forces") is not None            # no circuit in mode forces
        m = Machine(d, "valves")
        assert m.model.model.build_times["keyed"] == 0.0
        assert Machine(d, "valves").model.model.build_times["keyed"] == 0.0
    finally:
        del CIRCUITS["test-user-circuit"]
