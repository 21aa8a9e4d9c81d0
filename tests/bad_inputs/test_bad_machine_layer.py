"""Bad inputs of the machine layer's poses, checks and changes: each one named error of our
family (assembly branches, `hydrobond check`, Machine.set, batched read-outs)."""

import math
import tempfile
from pathlib import Path

import numpy as np
import pytest

from bondgraph import AssemblyError, ConnectionRuleError, ParameterError
from mechanisms import Mechanism
from mechanisms.machine import DATA, Machine
from mechanisms.machine.check import check_file
from rigs.dead_centre_lever import dead_centre_lever

from .catalogue import Case, check, ids

P, A = ParameterError, AssemblyError
EXC = (DATA / "excavator.toml").read_text()
_M = {}
_TMP = tempfile.TemporaryDirectory(prefix="bad-check-")   # removed when the session ends


def built(mode="forces"):
    if mode not in _M:
        _M[mode] = Machine.from_file(DATA / "excavator.toml", mode=mode)
    return _M[mode]


def fresh(mode="forces"):
    return Machine.from_file(DATA / "excavator.toml", mode=mode)


def through_dead_centre():
    mech = dead_centre_lever()
    start = mech.solve_pose({"arm": 0.5}, guess={"arm": 0.5})
    return mech.track({"arm": np.linspace(0.5, -0.5, 11)[1:]}, start)


def boom_beyond_dead_centre():
    m = built()
    pts = m.start_pose.points()
    C, A_, B = (np.array(pts[k]) for k in ("boom/C", "boom_cylinder/A", "boom/B"))
    dead = math.atan2(*(C - A_)[::-1]) - (math.atan2(*(B - C)[::-1]) - m.start_pose.angle("boom"))
    start = m.start_pose.angle("boom")
    return m.pose({"boom": dead + 0.2 * math.copysign(1.0, dead - start), "arm": -1.0, "bucket": 1.0})


def file_with(*pairs, cycle_rows=None):
    """A copy of the excavator's file (and its cycles) with replacements, in a new folder."""
    text = EXC
    for old, new in pairs:
        assert old in text, old
        text = text.replace(old, new, 1)
    d = Path(tempfile.mkdtemp(dir=_TMP.name))
    (d / "m.toml").write_text(text)
    for csv in DATA.glob("dig_lift_dump_*.csv"):
        (d / csv.name).write_text(csv.read_text())
    if cycle_rows is not None:
        (d / "dig_lift_dump_lengths.csv").write_text(cycle_rows)
    return d / "m.toml"


def loader_beyond_its_tilt_range():
    """The loader with ``[limits] tilt = −60° … 40°``, asked for the lengths of its cycle at
    t = 2.25 s, where the bucket is rolled back to 71° to the boom."""
    from mechanisms.machine.description import MachineDescription

    text = (DATA / "wheel_loader.toml").read_text() + '\n[limits]\ntilt = ["-60 deg", "40 deg"]\n'
    m = Machine(MachineDescription.from_text(text, name="loader.toml", base=DATA), mode="extensions")
    at = m.cycle().sample(np.array([2.25]))
    return m.pose_at_lengths({f: float(at[f][0]) for f in m.functions})


def _summary(label, *functions):
    from mechanisms.machine.compare import RunSummary

    cols = {"time": np.array([0.0, 1.0]), "tip_x": np.zeros(2), "tip_y": np.zeros(2)}
    cols.update({f"{f}_length": np.full(2, 3.0) for f in functions})
    return RunSummary(label, cols, None, "none")


def compare_two_machines():
    from mechanisms.machine.compare import compare_runs

    return compare_runs({"exc": _summary("exc", "boom", "arm", "bucket"), "loader": _summary("loader", "lift", "tilt")})


def comparison_unknown_label():
    from mechanisms.machine.compare import compare_runs

    return compare_runs({"a": _summary("a", "boom"), "b": _summary("b", "boom")})["c"]


CASES = [
    Case("pose-lengths-unknown-function", lambda: built().pose_at_lengths(
        {"boom": 3.0, "arm": 3.0, "bucket": 3.0, "stick": 3.0}), P, ["'stick'", "not a function of"]),
    Case("pose-lengths-missing-function", lambda: built().pose_at_lengths({"boom": 3.0, "arm": 3.0}), P,
         ["'bucket'", "no length given"]),
    Case("pose-lengths-nan", lambda: built().pose_at_lengths({"boom": float("nan"), "arm": 3.0, "bucket": 3.0}),
         P, ["boom", "nan", "finite number"]),
    Case("pose-lengths-text", lambda: built().pose_at_lengths({"boom": "3 m", "arm": 3.0, "bucket": 3.0}),
         P, ["boom", "'3 m'", "finite number (m)"]),
    Case("pose-lengths-beyond-stroke", lambda: built().pose_at_lengths({"boom": 3.9, "arm": 3.0, "bucket": 3.0}),
         A, ["boom_cylinder", "3.9 m requested", "beyond the stroke end"]),
    Case("pose-lengths-beyond-joint-range", loader_beyond_its_tilt_range, A,
         ["pose of wheel_loader at", "angle tilt: 71.08°", "outside its range", "'limits.tilt', loader.toml, line"]),
    Case("pose-beyond-dead-centre", boom_beyond_dead_centre, A,
         ["loop boom_cylinder – chassis – boom", "passes its dead centre", "other assembly branch"]),
    Case("track-through-dead-centre", through_dead_centre, A,
         ["loop cyl – chassis – arm", "hinge arm/P", "the line of cyl crosses arm's pivot o"]),
    Case("set-relief-full-below-crack", lambda: fresh().set({"circuit.power_unit.relief_crack": "320 bar"}), P,
         ["'relief_full' (310 bar)", "'relief_crack' (320 bar)", "circuit.power_unit"]),
    Case("set-circuit-unknown-key-forces", lambda: fresh().set({"circuit.power_unit.volum": "5 L"}), P,
         ["circuit.power_unit.volum", "did you mean 'circuit.power_unit.volume'"]),
    Case("set-ls-bad-compensation-extensions", lambda: fresh("extensions").set(
        {"circuit.type": "load-sensing", "circuit.load_sensing.compensation": "mid"}), P,
         ["circuit.load_sensing.compensation", "'mid'"]),
    Case("set-friction-unit-forces", lambda: fresh().set({"boom_cylinder.friction.coulomb": "1 m"}), P,
         ["boom_cylinder.friction.coulomb", "a force"]),
    Case("evaluate-many-times-shape", lambda: __import__("bondgraph.batch", fromlist=["x"]).evaluate_many(
        built().model.model.system, np.zeros((3, built().model.model.system.nx)), t=np.zeros(2)), P,
         ["t: shape (2,)", "one per row"]),
    Case("mechanism-gravity-nan", lambda: Mechanism("m", gravity=float("nan")), P,
         ["mechanism 'm'", "gravity nan", "finite number >= 0"]),
    Case("mechanism-gravity-negative", lambda: Mechanism("m", gravity=-9.81), P,
         ["gravity -9.81", "acting along -y"]),
    Case("mechanism-name-empty", lambda: Mechanism(""), P, ["Mechanism name", "non-empty string"]),
    Case("run-controller-mode-forces", lambda: built().run(
        t_end=0.05, controller=lambda t, y: {"boom.cmd": 1.0}, progress=False), P,
         ["controller", "mode 'forces'", "expected mode 'valves'"]),
    Case("run-start-mode-extensions", lambda: built("extensions").run(
        t_end=0.05, start=built("extensions").start_pose, progress=False), P,
         ["start", "mode 'extensions'", "the cycle's first lengths"]),
    Case("compare-runs-of-two-machines", compare_two_machines, P,
         ["not of one machine", "'loader' has functions lift, tilt", "reference 'exc' (arm, boom, bucket)"]),
    Case("comparison-unknown-run", comparison_unknown_label, P, ["run 'c'", "not in the comparison", "'a', 'b'"]),
    Case("run-dt-bool", lambda: built("extensions").run(t_end=0.05, dt=True, progress=False), P,
         ["output step dt = True", "finite time > 0 s"]),
    Case("excavator-two-body-angles", lambda: __import__("mechanisms.excavator", fromlist=["x"]).Excavator(
        mode="forces").pose((0.8, -1.0)), P, ["body angles (0.8, -1.0)", "expected (θ1, θ2, θ3)"]),
    Case("mechanism-no-parts-pose", lambda: Mechanism("m").solve_pose({}), ConnectionRuleError,
         ["mechanism 'm'", "no parts", "Mechanism.add"]),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_machine_layer_input(case):
    check(case)


def _beyond_stroke() -> str:
    rows = (DATA / "dig_lift_dump_lengths.csv").read_text().splitlines()
    first = rows[1].split(",")
    first[2] = "4.5"                                   # the arm, beyond its 3.9 m
    return "\n".join([rows[0], ",".join(first)] + rows[2:]) + "\n"


CHECK_CASES = [
    Case("check-bad-fixed-valve", lambda: check_file(file_with(('dp = "0.3 MPa"', 'dp = "-0.3 MPa"'))), P,
         ["hydrobond check of m.toml", "[circuit]", "circuit.valves.boom.dp", "line"]),
    Case("check-bad-ls-selected", lambda: check_file(file_with(
        ('type = "fixed"', 'type = "load-sensing"'), ('margin = "3 bar"', 'margin = "3 m"'))), P,
         ["[circuit]", "circuit.load_sensing.margin"]),
    Case("check-bad-ls-not-selected", lambda: check_file(file_with(
        ('time_constant = "10 ms"', 'time_constant = "-10 ms"'))), P,
         ["[circuit.load_sensing] (circuit type 'load-sensing', not selected)", "time_constant"]),
    Case("check-circuit-type-typo", lambda: check_file(file_with(('type = "fixed"', 'type = "fixd"'))), P,
         ["[circuit]", "circuit.type", "'fixd'", "did you mean 'fixed'"]),
    Case("check-cycle-beyond-stroke", lambda: check_file(file_with(cycle_rows=_beyond_stroke())), A,
         ["[cycles.dig_lift_dump] extensions", "arm: 4.500 m", "exceeds the stroke end"]),
    Case("check-relief-full-below-crack", lambda: check_file(file_with(
        ('relief_crack = "300 bar"', 'relief_crack = "320 bar"'))), P,
         ["[circuit]", "'relief_full' (310 bar)", "'relief_crack' (320 bar)"]),
]


@pytest.mark.parametrize("case", CHECK_CASES, ids=ids(CHECK_CASES))
def test_bad_check_input(case):
    check(case)


def test_a_start_target_in_the_wrong_kind_says_how_to_give_it():
    """issue 20: a length given to an angle was refused without saying lengths go by cylinder."""
    from mechanisms.machine import DATA, MachineDescription

    with pytest.raises(ParameterError) as e:
        MachineDescription.load(DATA / "excavator.toml", {"start.boom": "2.00 m"})
    assert "A length target is given by the cylinder's name" in str(e.value)
    assert "start.boom_cylinder = '2.00 m'" in str(e.value)
    with pytest.raises(ParameterError) as e:
        MachineDescription.load(DATA / "excavator.toml", {"start.boom_cylinder": "50 deg"})
    assert "An angle target is given by the angle's name (boom, arm, bucket)" in str(e.value)
