"""The generic machine layer on the reference excavator file: format, run-time parameters,
start state, working range, end stops, failure diagnosis."""

import math

import numpy as np
import pytest

from bondgraph import AssemblyError, ParameterError
from mechanisms.machine import DATA, Cycle, Machine, MachineDescription
from mechanisms.machine.strokes import diagnose
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


def test_a_key_the_model_does_not_contain_changes_the_description_only():
    """Mode forces has no bores and no circuit: setting them must not rebuild (the compiled
    model object stays), must reach the read-outs that use them (the pressure a force needs,
    against the area written here from the bore) and a later valves build."""
    m = Machine.from_file(EXC, mode="forces")
    model = m.model.model
    with pytest.raises(ParameterError, match=r"'relief_full' \(310 bar\) must exceed 'relief_crack' \(320 bar\)"):
        m.set({"circuit.power_unit.relief_crack": "320 bar"})         # checked now, not at a valves build
    assert m.description.circuit["power_unit"]["relief_crack"] == "300 bar"        # nothing changed
    assert m.set({"boom_cylinder.bore": "150 mm", "circuit.power_unit.relief_crack": "320 bar",
                  "circuit.power_unit.relief_full": "330 bar",
                  "base.masses.counterweight.mass": "4000 kg"}) == "description"
    assert m.model.model is model
    count = m.description.parts["boom_cylinder"].values["count"]
    a_cap = count * math.pi * 0.150 ** 2 / 4
    cyc = Cycle("forces", [0, 1], {"boom": [9e4, 9e4], "arm": [-2e4, -2e4], "bucket": [5e3, 5e3]}, m.functions)
    tab = m.run(cyc, t_end=0.02, dt=0.01, progress=False).table()
    assert tab["boom_cap_pressure_required"] == pytest.approx(tab["boom_force"] / a_cap, rel=1e-12)
    valves = Machine(m.description, "valves")
    assert valves.circuit.areas["boom"][0] == pytest.approx(a_cap, rel=1e-12)
    assert valves.circuit.relief_pressure == pytest.approx(320e5)
    assert m.set({"bucket.mass": "900 kg"}) == "parameters" and m.model.model is model
    assert m.set({"boom_cylinder.stroke": "1.3 m"}) == "rebuilt" and m.model.model is not model


def test_set_in_mode_valves_and_extensions():
    """Mode valves contains the bores (run-time parameters) and the circuit (rebuild), not
    [base]; mode extensions has no end stops."""
    v = Machine.from_file(EXC, mode="valves")
    model = v.model.model
    assert v.set({"base.tipping_line": "2.0 m", "machine.ground": "-0.5 m"}) == "description"
    assert v.set({"arm_cylinder.bore": "150 mm"}) == "parameters" and v.model.model is model
    assert v.circuit.areas["arm"][0] == pytest.approx(math.pi * 0.150 ** 2 / 4, rel=1e-12)
    e = Machine.from_file(EXC, mode="extensions")
    model = e.model.model
    assert e.set({"arm_cylinder.end_stop.stiffness": "2e9 N/m", "arm_cylinder.friction.coulomb": "2 kN",
                  "circuit.type": "load-sensing"}) == "description"
    assert e.model.model is model and e.description.circuit["type"] == "load-sensing"


def test_a_run_past_the_cycle_end_says_it_holds_the_last_values():
    """t_end beyond the cycle: a warning and a HELD flag in the report name the values held;
    the lengths after the end are the cycle's last row (extensions mode)."""
    import warnings as _w

    from bondgraph.errors import BondGraphWarning

    m = Machine.from_file(DATA / "excavator.toml", mode="extensions")
    cyc = m.cycle()
    with pytest.warns(BondGraphWarning, match=r"t_end = 10.5 s is past the end of cycle .* held") as rec:
        run = m.run(cyc, t_end=10.5, progress=False)
    assert "boom = " in str(rec[0].message)
    assert any(line.strip().startswith("- HELD") for line in run.report().splitlines())
    tab = run.table()
    late = tab["time"] > cyc.end + 1e-9
    for f in m.functions:
        assert tab[f"{f}_length"][late] == pytest.approx(cyc.values[f][-1], abs=1e-9)
    with _w.catch_warnings():                        # within the cycle: no warning, no flag
        _w.simplefilter("error", BondGraphWarning)
        inside = m.run(cyc, t_end=2.0, progress=False)
    assert not any("HELD" in line for line in inside.report().splitlines())


@pytest.mark.parametrize("mode", ["extensions", "forces"])
def test_cycle_sample_is_what_a_run_follows(mode):
    """``Cycle.sample`` (the working-range checks read it) meets the table's rows, and past
    the cycle's end holds the last row as a run does (a free cubic would drift on)."""
    rows = [1.0, 1.5, 1.2, 1.4]
    c = Cycle(mode, [0, 1, 2, 3], {"lift": rows}, ("lift",))
    assert np.allclose(c.sample(np.array([0.0, 1.0, 2.0, 3.0]))["lift"], rows, rtol=0, atol=1e-12)
    after = c.sample(np.array([3.5, 5.0]))["lift"]
    assert np.all(after == rows[-1])
    sig = c.signals()["lift"]
    t = np.linspace(-1, 5, 61)
    assert np.allclose(c.sample(t)["lift"], [sig.value(float(ti)) for ti in t], rtol=0, atol=1e-12)
