"""The kinematic reference runs the tracking operators share: kept per description (circuit aside)
and reference, each one the run a fresh machine of that variant makes in mode extensions."""

import numpy as np
import pytest

from mechanisms.machine import DATA, Machine
from mechanisms.machine.operator import TrackingOperator
from mechanisms.machine.reference_runs import kinematic_run

FILE = DATA / "excavator.toml"
COLUMNS = ("time", "tip_x", "tip_y", "boom_force", "arm_force", "bucket_force")


@pytest.fixture(scope="module")
def variants():
    fixed = Machine.from_file(FILE, mode="valves")
    oc = Machine.from_file(FILE, {"circuit.type": "open-centre"}, mode="valves")
    return fixed, oc, fixed.cycle(mode="extensions")


def _same(a, b):
    for c in COLUMNS:
        np.testing.assert_array_equal(np.asarray(a[c]), np.asarray(b[c]), err_msg=c)


def test_circuit_variants_share_the_run_of_a_fresh_extensions_machine(variants):
    fixed, oc, ref = variants
    for slower in (1.0, 4.0):
        shared = kinematic_run(fixed, ref, slower)
        assert kinematic_run(oc, ref, slower) is shared
        # the independent run: the open-centre variant's own file in mode extensions, the cycle stretched by hand
        from mechanisms.machine.cycle import Cycle

        cyc = Cycle("extensions", ref.time * slower, ref.values, ref.functions, swing=ref.swing)
        own = Machine.from_file(FILE, {"circuit.type": "open-centre"}, mode="extensions").run(
            cyc, progress=False).table()
        _same(shared, own)
    # the slower run's inertial forces are smaller: a different run, not the kept one
    assert not np.allclose(kinematic_run(fixed, ref, 4.0)["boom_force"][1:50],
                           kinematic_run(fixed, ref)["boom_force"][1:50], rtol=0, atol=1e-6)


def test_a_changed_mass_or_reference_is_a_new_run(variants):
    fixed, _, ref = variants
    base = kinematic_run(fixed, ref)
    heavy = Machine.from_file(FILE, {"bucket.mass": "1500 kg"}, mode="valves")
    other = kinematic_run(heavy, ref)
    assert other is not base
    _same(other, Machine.from_file(FILE, {"bucket.mass": "1500 kg"}, mode="extensions").run(
        ref, progress=False).table())
    assert abs(other["boom_force"][0] - base["boom_force"][0]) > 100.0    # N: the heavier bucket weighs
    # a machine's value changed in place (Machine.set) is in its description, so in the key
    heavy2 = Machine.from_file(FILE, mode="valves")
    heavy2.set({"bucket.mass": "1500 kg"})
    assert kinematic_run(heavy2, ref) is other
    from mechanisms.machine.cycle import Cycle

    shorter = Cycle("extensions", ref.time, {**ref.values, "boom": ref.values["boom"] * 0.999}, ref.functions)
    assert kinematic_run(fixed, shorter) is not base


def test_kept_tables_are_read_only_and_operators_use_them(variants):
    fixed, oc, ref = variants
    tab = kinematic_run(fixed, ref)
    with pytest.raises(ValueError):
        tab["tip_x"][0] = 0.0
    op = TrackingOperator(oc, ref)
    assert op._kinematic_run() is tab and op._kinematic_run(4.0) is kinematic_run(fixed, ref, 4.0)
