"""Bad machine files, poses, strokes and cycles: each one named error of our family."""

import pytest

from bondgraph import AssemblyError, ConnectionRuleError, ParameterError
from mechanisms.machine import DATA, Cycle, Machine, MachineDescription

from .catalogue import Case, check, ids

EXC = (DATA / "excavator.toml").read_text()
P, A, C = ParameterError, AssemblyError, ConnectionRuleError
MASS_LINE = EXC[: EXC.index('mass = "1307 kg"')].count("\n") + 1


def text(*pairs, append=""):
    t = EXC
    for old, new in pairs:
        assert old in t, old
        t = t.replace(old, new, 1)
    return t + append


def desc(*pairs, append=""):
    return lambda: MachineDescription.from_text(text(*pairs, append=append), name="m.toml", base=DATA)


def machine(*pairs, mode="forces", append=""):
    return lambda: Machine(MachineDescription.from_text(text(*pairs, append=append), name="m.toml", base=DATA), mode)


_M = {}


def built(mode="forces"):
    if mode not in _M:
        _M[mode] = Machine.from_file(DATA / "excavator.toml", mode=mode)
    return _M[mode]


def cycle(mode, rows, functions=("boom", "arm", "bucket")):
    t = [r[0] for r in rows]
    return Cycle(mode, t, {f: [r[i + 1] for r in rows] for i, f in enumerate(functions)}, functions)


def write(tmp_path_factory, name, content):
    d = tmp_path_factory.mktemp("bad")
    p = d / name
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content)
    return p


CASES = [
    Case("unit-wrong-dimension", desc(('mass = "1307 kg"', 'mass = "1307 m"')), P,
         ["boom.mass", f"line {MASS_LINE}", "a length", "a mass"]),
    Case("bare-number-bore", desc(('bore = "145 mm"', "bore = 145")), P,
         ["arm_cylinder.bore", "bare number 145", '"145 mm"']),
    Case("unknown-key", desc(('mass = "700.5 kg"', 'masss = "700.5 kg"')), P,
         ["arm.masss", "unknown key", "did you mean 'arm.mass'"]),
    Case("missing-key", desc(('inertia = "8060 kg*m^2"', "")), P, ["boom.inertia", "missing", "moment of inertia"]),
    Case("unknown-part-type", desc(('type = "lever"', 'type = "beam"')), P, ["link.type", "'beam'", "body"]),
    Case("port-class-case", desc(('points.D = ["Li"', 'points.D = ["li"')), P,
         ["boom.points.D", "'li'", "did you mean 'Li'"]),
    Case("port-class-pr-on-body", desc(('points.D = ["Li"', 'points.D = ["Pr"')), P,
         ["boom.points.D", "'Pr'", "cylinders and levers"]),
    Case("hinge-to-missing-point", desc(('"link.N" = "bucket.N"', '"link.N" = "bucket.X"')), P,
         ["hinges.link.N", "no point 'X'"]),
    Case("hinge-cylinder-I", desc(('"boom_cylinder.B" = "boom.B"', '"boom_cylinder.I" = "boom.B"')), P,
         ["boom_cylinder.I", "extension interface", "rule: a cylinder has exactly one Rt, one Pr and one I"]),
    Case("nan-chassis-point", desc(('"boom.C" = ["-0.164 m", "1.428 m"]', '"boom.C" = ["nan m", "1.428 m"]')), P,
         ["chassis.boom.C", "finite"]),
    Case("negative-gravity", machine(('gravity = "9.81 m/s^2"', 'gravity = "-9.81 m/s^2"')), P,
         ["machine.gravity", "value ≥ 0"]),
    Case("rod-not-below-bore", desc(('rod = "50 mm"                                # source value; estimate for a real machine 100 mm',
                                     'rod = "150 mm"')), P, ["arm_cylinder.rod", "smaller than the bore"]),
    Case("duplicate-function", desc(('function = "arm"', 'function = "boom"')), P,
         ["arm_cylinder.function", "already driven by 'boom_cylinder'"]),
    Case("pd-to-pd-rule", machine(('"link.N" = "bucket.N"', '"rocker.J2" = "bucket.N"'),
                                  ('"link.J" = "rocker.J2"', '"link.J" = "arm.K"')), C,
         ["Pd", "rule"]),
    Case("missing-machine-table", desc(('[machine]', '[machinex]')), P, ["machinex", "machine"]),
    Case("missing-start", desc(('[start]', '[startx]')), P, ["'start'", "missing"]),
    Case("relative-start-without-reference", machine(('boom = "50 deg"', '')), P,
         ["start.arm", "relative to 'boom'"]),
    Case("start-pose-beyond-stroke", machine(('boom = "50 deg"', 'boom = "250 deg"')), A,
         ["start pose of m.toml", "boom_cylinder"]),
    Case("joint-limits", machine(append='\n[limits]\nboom = ["-20 deg", "45 deg"]\n'), A,
         ["angle boom", "outside its range", "limits.boom"]),
    Case("limits-unknown-angle", desc(append='\n[limits]\nstick = ["-20 deg", "45 deg"]\n'), P,
         ["limits.stick", "no angle"]),
    Case("negative-mass", desc(('mass = "1307 kg"', 'mass = "-1307 kg"')), P, ["boom.mass", "≥ 0"]),
    Case("count-zero", desc(("count = 2", "count = 0")), P, ["boom_cylinder.count", "≥ 1"]),
    Case("payload-on-cylinder", desc(append='\n[payloads.load]\npart = "boom_cylinder"\nat = ["0 m", "0 m"]\n'
                                            'mass = "10 kg"\n'), P, ["payloads.load.part", "expected a body"]),
    Case("outputs-bad-angle", desc(('angles.arm = "arm - boom"', 'angles.arm = "arm + boom"')), P,
         ["outputs.angles.arm", "part - part"]),
    Case("circuit-unknown-type", machine(('type = "fixed"', 'type = "fixd"'), mode="valves"), P,
         ["circuit.type", "'fixd'", "did you mean 'fixed'"]),
    Case("circuit-missing-valve", machine(("[circuit.valves.arm]", "[circuit.valves.swing]"), mode="valves"), P,
         ["circuit.valves.arm", "missing", "circuit.valves.swing", "has no [swing]"]),
    Case("pump-speed-hz", machine(('pump_speed = "150 rad/s"', 'pump_speed = "24 Hz"'), mode="valves"), P,
         ["circuit.power_unit.pump_speed", "a frequency", "an angular velocity"]),
    Case("valve-flow-bare", machine(('flow = "0.003 m^3/s"', "flow = 180"), mode="valves"), P,
         ["circuit.valves.bucket.flow", '"180 L/min"']),
    Case("valves-without-circuit", lambda: Machine(MachineDescription.from_text(
        EXC.split("[circuit]")[0], name="m.toml", base=DATA), "valves"), P, ["mode 'valves'", "[circuit]"]),
    Case("mode-unknown", lambda: Machine(MachineDescription.load(DATA / "excavator.toml"), "torques"), P,
         ["mode 'torques'", "extensions"]),
    Case("not-toml", lambda: MachineDescription.from_text("[a]\nb = = 1\n", name="x.toml"), P,
         ["x.toml", "not valid TOML", "line 2"]),
    Case("file-not-found", lambda: MachineDescription.load("/nonexistent/machine.toml"), P, ["not found"]),
    Case("file-is-directory", lambda: MachineDescription.load(DATA), P, ["is a directory"]),
    Case("override-unknown-key", lambda: MachineDescription.load(DATA / "excavator.toml", {"bucket.mas": "9 kg"}),
         P, ["bucket.mas", "override", "did you mean 'bucket.mass'"]),
    Case("override-bad-unit", lambda: MachineDescription.load(DATA / "excavator.toml", {"bucket.mass": "9 bar"}),
         P, ["bucket.mass", "override", "a pressure"]),
    Case("set-zero-bore", lambda: built().set({"arm_cylinder.bore": "0 mm"}), P, ["arm_cylinder.bore", "> 0"]),
    Case("cycle-name-unknown", lambda: built().cycle("dig"), P, ["cycle 'dig'", "dig_lift_dump"]),
    Case("cycle-file-missing", lambda: Machine(MachineDescription.from_text(EXC, name="m.toml", base="/tmp"),
                                               "extensions").cycle(), P,
         ["cycles.dig_lift_dump.extensions", "no such file"]),
    # poses and strokes
    Case("pose-length-beyond-stroke", lambda: built().pose({"boom_cylinder": 4.5, "arm_cylinder": 3.0,
                                                            "bucket_cylinder": 3.0}), A,
         ["boom_cylinder", "4.5 m requested", "outside its stroke 2.48 … 3.73 m"]),
    Case("pose-unknown-target", lambda: built().pose({"stick": 0.1}), P, ["stick", "not a cylinder or an angle"]),
    Case("pose-nan-target", lambda: built().mechanism.solve_pose({"boom_cylinder": float("nan"), "arm_cylinder": 3.0,
                                                                  "bucket_cylinder": 3.0}), A,
         ["boom_cylinder", "nan", "finite"]),
    Case("lengths-beyond-stroke", lambda: built("extensions").run(cycle("extensions", [
        (0, 3.6683, 2.9692, 3.0662), (2, 3.918, 2.9692, 3.0662), (4, 3.6, 2.9692, 3.0662)]), progress=False), A,
         ["boom:", "exceeds the stroke end 3.730 m", "t = 1.88 s"]),
    Case("lengths-below-retracted", lambda: built("extensions").run(cycle("extensions", [
        (0, 3.6683, 2.9692, 3.0662), (2, 3.6683, 2.0, 3.0662)]), progress=False), A,
         ["arm:", "below the retracted length 2.260 m"]),
    Case("run-t-end-nan", lambda: built().run(built().cycle(), float("nan"), progress=False), P, ["t_end", "nan"]),
    Case("run-t-end-before-start", lambda: built().run(built().cycle(), -1.0, progress=False), P,
         ["t_end = -1.0", "after the cycle's start"]),
    Case("run-rtol-10", lambda: built().run(built().cycle(), 0.1, rtol=10, progress=False), P, ["rtol = 10"]),
    Case("run-atol-negative", lambda: built().run(built().cycle(), 0.1, atol=-1e-9, progress=False), P, ["atol"]),
    Case("run-dt-zero", lambda: built().run(built().cycle(), 0.1, dt=0.0, progress=False), P, ["dt = 0.0"]),
    Case("run-cycle-other-mode", lambda: built("forces").run(cycle("valves", [(0, 0, 0, 0), (1, 0, 0, 0)]),
                                                             progress=False), P, ["mode 'valves'", "forces"]),
    # cycle tables
    Case("cycle-nan-time", lambda: cycle("forces", [(0, 1, 1, 1), (float("nan"), 1, 1, 1)]), P,
         ["time", "row 3 is nan"]),
    Case("cycle-not-increasing", lambda: cycle("forces", [(0, 1, 1, 1), (1, 1, 1, 1), (0.5, 1, 1, 1)]), P,
         ["time", "not increasing"]),
    Case("cycle-command-beyond-one", lambda: cycle("valves", [(0, 0, 0, 0), (1, 1.5, 0, 0)]), P,
         ["boom", "−1…1"]),
    Case("cycle-unknown-column", lambda: Cycle("forces", [0, 1], {"boom": [0, 0], "arm": [0, 0], "bucket": [0, 0],
                                                                  "swing": [0, 0]}, ("boom", "arm", "bucket")), P,
         ["swing", "unknown"]),
    Case("cycle-negative-length", lambda: cycle("extensions", [(0, 3.6, 3.0, 3.0), (1, -3.6, 3.0, 3.0)]), P,
         ["boom", "lengths are > 0 m"]),
    Case("overrides-not-a-mapping", lambda: MachineDescription.load(DATA / "excavator.toml", ["bucket.mass=900 kg"]),
         P, ["overrides of excavator.toml", "found list", "expected a mapping of dotted keys"]),
    Case("stroke-limits-unknown-function", lambda: MachineDescription.load(DATA / "excavator.toml").stroke_limits("stick"),
         P, ["function 'stick'", "not a function of 'excavator'", "boom, arm, bucket"]),
    Case("areas-unknown-function", lambda: MachineDescription.load(DATA / "excavator.toml").areas("stick"),
         P, ["function 'stick'", "boom, arm, bucket"]),
    Case("function-of-unknown-cylinder",
         lambda: MachineDescription.load(DATA / "excavator.toml").function_of("stick_cylinder"),
         P, ["cylinder 'stick_cylinder'", "boom_cylinder, arm_cylinder, bucket_cylinder"]),
    Case("cycle-text-values", lambda: Cycle("forces", [0, 1], {"boom": ["a", "b"], "arm": [0, 0], "bucket": [0, 0]},
                                            ("boom", "arm", "bucket")), P,
         ["column 'boom'", "not a sequence of numbers"]),
    Case("cycle-text-time", lambda: Cycle("forces", ["0 s", "1 s"], {"boom": [0, 0], "arm": [0, 0], "bucket": [0, 0]},
                                          ("boom", "arm", "bucket")), P,
         ["column 'time'", "'0 s'", "not a sequence of numbers"]),
    Case("cycle-nested-time", lambda: Cycle("forces", [[0, 1]], {"boom": [0, 0], "arm": [0, 0], "bucket": [0, 0]},
                                            ("boom", "arm", "bucket")), P,
         ["column 'time'", "2-D", "expected a 1-D sequence"]),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_machine_input(case):
    check(case)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return {
        "nan": write(tmp_path_factory, "nan.csv", "time,boom,arm,bucket\n0,0,0,0\nnan,0,0,0\n"),
        "inf": write(tmp_path_factory, "inf.csv", "time,boom,arm,bucket\n0,0,0,0\ninf,0,0,0\n"),
        "dup": write(tmp_path_factory, "dup.csv", "time,boom,arm,boom\n0,0,0,0\n1,0,0,0\n"),
        "short": write(tmp_path_factory, "short.csv", "time,boom,arm,bucket\n0,0,0\n1,0,0,0\n"),
        "text": write(tmp_path_factory, "text.csv", "time,boom,arm,bucket\n0,0,x,0\n1,0,0,0\n"),
        "binary": write(tmp_path_factory, "bin.csv", b"\x00\x01\x02PK\x03\x04" * 50),
        "latin1": write(tmp_path_factory, "latin.toml", "name = 'b\xe9'".encode("latin-1")),
        "first": write(tmp_path_factory, "first.csv", "t,boom,arm,bucket\n0,0,0,0\n1,0,0,0\n"),
        "empty": write(tmp_path_factory, "empty.csv", "# nothing\n"),
    }


FILE_CASES = [
    ("cycle-file-nan-time", "nan", ["nan.csv", "line 3", "'time'", "not finite"]),
    ("cycle-file-inf-time", "inf", ["inf.csv", "line 3", "not finite"]),
    ("cycle-file-duplicate-column", "dup", ["dup.csv", "'boom' appears twice", "columns 2 and 4"]),
    ("cycle-file-short-row", "short", ["short.csv", "line 2", "3 values, expected 4"]),
    ("cycle-file-text", "text", ["text.csv", "line 2", "'arm'", "'x' is not a number"]),
    ("cycle-file-binary", "binary", ["bin.csv", "binary"]),
    ("cycle-file-first-column", "first", ["first.csv", "first column must be 'time'"]),
    ("cycle-file-empty", "empty", ["empty.csv", "empty"]),
]


@pytest.mark.parametrize("cid,key,culprits", FILE_CASES, ids=[c[0] for c in FILE_CASES])
def test_bad_cycle_file(files, cid, key, culprits):
    check(Case(cid, lambda: Cycle.from_csv(files[key], "forces", ("boom", "arm", "bucket")), P, culprits))


def test_a_machine_file_that_is_not_utf8(files):
    check(Case("toml-latin1", lambda: MachineDescription.load(files["latin1"]), P, ["latin.toml", "not UTF-8"]))


def test_a_cycle_directory(tmp_path):
    check(Case("cycle-directory", lambda: Cycle.from_csv(tmp_path, "forces", ("boom",)), P, ["is a directory"]))


def _boom():
    from mechanisms.examples import single_boom

    return single_boom("force")


API_CASES = [
    Case("api-hinge-cylinder-I", lambda: _boom().connect("boom_cyl", "I", "boom", "D"), C,
         ["boom_cyl/I", "extension interface", "rule: a cylinder has exactly one Rt, one Pr and one I"]),
    Case("api-fix-nan", lambda: _boom().fix("boom", "D", at=(float("nan"), 1.0)), P, ["boom/D", "finite"]),
    Case("api-negative-gravity", lambda: __import__("components").MainBody(
        "b", mass=1.0, inertia=1.0, cog=(0, 0), gravity=-9.81, points={"R": ("Rt", (0, 0)), "P": ("Pd", (1, 0))}),
         P, ["gravity", "≥ 0", "acting along −y"]),
    Case("api-port-class-case", lambda: __import__("components").MainBody(
        "b", mass=1.0, inertia=1.0, cog=(0, 0), points={"R": ("rt", (0, 0)), "P": ("Pd", (1, 0))}),
         C, ["'rt'", "did you mean 'Rt'"]),
    Case("api-solve-pose-below-stroke", lambda: _boom().solve_pose({"boom_cyl": 2.0}, guess={"boom": 0.5}), A,
         ["boom_cyl", "2 m requested", "below the retracted length"]),
    Case("api-force-drive-negative-piston", lambda: __import__("mechanisms.examples", fromlist=["x"]).single_boom(
        "extension").drive_force("boom_cyl", piston_mass=-1.0), P, ["piston_mass", "≥ 0"]),
]


@pytest.mark.parametrize("case", API_CASES, ids=ids(API_CASES))
def test_bad_mechanism_api_input(case):
    check(case)
