"""The generic machine layer on the reference excavator file: format, run-time parameters,
start state, working range, end stops, failure diagnosis."""

import math

import numpy as np
import pytest

from bondgraph import AssemblyError, ParameterError
from mechanisms.machine import DATA, Cycle, Machine, MachineDescription
from mechanisms.machine.working_range import diagnose
from reference.statics import holding_forces

EXC = DATA / "excavator.toml"


@pytest.fixture(scope="module")
def forces():
    return Machine.from_file(EXC, mode="forces")


def test_errors_name_the_key_and_its_line(tmp_path):
    text = EXC.read_text()
    lines = text.splitlines()
    n_mass = next(i for i, l in enumerate(lines, 1) if l.startswith('mass = "700.5 kg"'))
    n_bore = next(i for i, l in enumerate(lines, 1) if l.startswith('bore = "145 mm"'))
    bad = text.replace('mass = "700.5 kg"', 'mass = "700.5 m"').replace('bore = "145 mm"', 'bore = 145')
    p = tmp_path / "bad.toml"
    p.write_text(bad)
    with pytest.raises(ParameterError) as err:
        MachineDescription.load(p)
    msg = str(err.value)
    assert f"'arm.mass' (bad.toml, line {n_mass}): found '700.5 m' (a length), expected a mass in kg" in msg
    assert (f"'arm_cylinder.bore' (bad.toml, line {n_bore}): found the bare number 145, expected a length "
            'with its unit, e.g. "145 mm"') in msg


def test_runtime_parameters_change_without_a_rebuild(forces):
    """A mass set on a built machine gives the same run as a machine built with it."""
    model = forces.model.model
    assert forces.set({"bucket.mass": "900 kg", "boom_cylinder.rod_mass": "12 kg"}) == "parameters"
    assert forces.model.model is model and model.params["bucket.mass"] == 900.0
    cyc = Cycle("forces", [0, 1], {"boom": [9e4, 9e4], "arm": [-2e4, -2e4], "bucket": [5e3, 5e3]},
                forces.functions)
    kw = dict(t_end=0.3, rtol=1e-10, atol=1e-12, progress=False)
    a = forces.run(cyc, **kw).table()
    fresh = Machine.from_file(EXC, {"bucket.mass": "900 kg", "boom_cylinder.rod_mass": "12 kg"}, mode="forces")
    b = fresh.run(cyc, **kw).table()
    assert np.max(np.hypot(a["tip_x"] - b["tip_x"], a["tip_y"] - b["tip_y"])) < 1e-9
    assert forces.set({"bucket.cog": ["0.3 m", "-0.6 m"]}) == "rebuilt"   # geometry re-derives
    forces.set({"bucket.mass": "700 kg", "boom_cylinder.rod_mass": "10 kg", "bucket.cog": ["0.35 m", "-0.60 m"]})


def test_valves_start_holds_the_pose_by_virtual_work():
    """The start pressures give cylinder forces equal to dV/ds of the gravity potential,
    computed independently from the poses at perturbed lengths (virtual work)."""
    m = Machine.from_file(EXC, mode="valves")
    x0 = m.start_state()
    pose = m.start_pose
    lengths = {f: pose.length(m.cylinder_of[f]) for f in m.functions}
    F_vw = holding_forces(m, lengths, near=pose)
    circ = m.circuit
    prefix = f"{m.mechanism.name}/{circ.name}"
    for f in m.functions:
        a_cap, a_rod = circ.areas[f]
        cap, rod = (x0[f"{prefix}/{s}"] for s in circ.chambers[f])
        assert cap * a_cap - rod * a_rod == pytest.approx(F_vw[f], rel=1e-6), f


def test_a_forces_run_into_an_end_stop_stays_at_the_stop(forces):
    """1e9 N on the boom: the hardening stop keeps it within 2 cm of its stroke end (a
    linear 1e9 N/m stop would let it through by a metre), and the contact is reported."""
    cyc = Cycle("forces", [0, 0.1, 1.0], {"boom": [0, 1e9, 1e9], "arm": [0, 0, 0], "bucket": [0, 0, 0]},
                forces.functions)
    run = forces.run(cyc, progress=False)
    tab = run.table()
    lo, hi = forces.description.stroke_limits("boom")
    assert tab["boom_length"].max() < hi + 0.02
    boom = [c for c in run.contacts if c.function == "boom"]
    assert boom and boom[0].end == "outer" and boom[-1].ongoing
    assert 0.0 < boom[0].start < 0.1
    assert "END STOP  boom: outer end-stop contact" in run.report()
    assert tab["boom_stop_force"].max() > 1e8


def test_a_start_pose_outside_a_stroke_is_refused(tmp_path):
    p = tmp_path / "m.toml"
    p.write_text(EXC.read_text().replace('boom = "50 deg"', 'boom = "250 deg"'))
    with pytest.raises((AssemblyError, ParameterError)) as err:
        Machine.from_file(p, mode="forces")
    assert "start pose of m.toml" in str(err.value) and "boom_cylinder" in str(err.value)


def test_joint_limits_refuse_a_start_pose(tmp_path):
    p = tmp_path / "m.toml"
    p.write_text(EXC.read_text() + '\n[limits]\nboom = ["-20 deg", "45 deg"]\n')
    with pytest.raises(AssemblyError, match=r"angle boom: 50.00°, outside its range -20.00° … 45.00°"):
        Machine.from_file(p, mode="forces")


def test_a_toggle_position_is_named_with_its_loop(forces):
    """At a state where the bucket cylinder's line passes through the rocker's pivot, the
    diagnosis names the toggle and the loop (as a failed run's message would)."""
    pose = forces.start_pose
    state = {k: v for k, v in forces.start_state().items()}
    pts = pose.points()
    H, G = np.array(pts["rocker/H"]), np.array(pts["bucket_cylinder/A"])
    phi = math.atan2(*(H - G)[::-1])          # point the cylinder's axis at the rocker's pivot
    state[forces.model.state("bucket_cylinder", "phi")] = phi
    causes = diagnose(forces, state)
    assert any("toggle position: the line of bucket_cylinder passes" in c and "rocker's pivot H" in c
               and "loop bucket_cylinder – arm – rocker" in c for c in causes), causes


def test_energy_split_adds_up_in_valves_mode():
    m = Machine.from_file(EXC, mode="valves")
    run = m.run(t_end=3.0, rtol=1e-8, atol=1e-10, progress=False)
    split = run.energy_split()
    assert abs(split.residual) < 1e-3 * split.scale
    assert split.terms["pump work"] > split.terms["relief"] > 0
    assert split.terms["throttling (valves)"] > 0
    assert abs(run.energy_balance().relative) < 1e-5
