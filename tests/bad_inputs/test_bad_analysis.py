"""Bad inputs of the design studies (working range, tool forces, lift capacity, cycle
energy, sweeps, [base]): each raises one named error of our family."""

import functools
import re

import numpy as np
import pytest

from bondgraph import AssemblyError, ParameterError
from mechanisms.analysis import (BoxKinematics, FrontStatics, Study, breakout_forces, cycle_energy,
                                 lift_capacity, sweep, tool_forces, working_range)
from mechanisms.analysis.cli import parse_grid
from mechanisms.machine import DATA, Machine
from mechanisms.machine.description import MachineDescription
from tests.bad_inputs.catalogue import Case, check, ids

TEXT = (DATA / "excavator.toml").read_text()
EXC = DATA / "excavator.toml"


def variant(drop=(), drop_lines=(), add="") -> MachineDescription:
    """The excavator's file without some sections (and their sub-tables) or lines."""
    out, skip = [], False
    for line in TEXT.splitlines():
        m = re.match(r"^\[([A-Za-z_][\w.]*)\]\s*(#.*)?$", line.strip())   # a table header, not an array
        if m:
            skip = any(m.group(1) == d or m.group(1).startswith(d + ".") for d in drop)
        if skip or any(line.strip().startswith(p) for p in drop_lines):
            continue
        out.append(line)
    return MachineDescription.from_text("\n".join(out) + "\n" + add, name="variant.toml", base=DATA)


def _cli_raises(argv):
    """Run an analysis subcommand's handler directly (the CLI prints the same error, exit 2)."""
    import tempfile

    from mechanisms.analysis.cli import run_analyse, run_sweep
    from mechanisms.machine.cli import parser

    args = parser().parse_args(argv + ["--out", tempfile.mkdtemp(), "--quiet"])
    return (run_analyse if args.command == "analyse" else run_sweep)(args)


@functools.lru_cache(maxsize=None)
def study() -> Study:
    return Study(EXC)


def no_base():
    return Study(variant(drop=("base",)))


def no_circuit():
    return Study(variant(drop=("circuit",)))


def kin():
    s = study()
    return s.kinematics


def grid_axes(**change):
    ax = {"boom_cylinder": np.linspace(2.48, 3.73, 3), "arm_cylinder": np.linspace(2.26, 3.9, 3),
          "bucket_cylinder": np.linspace(2.3, 3.2, 3)}
    ax.update(change)
    return {k: v for k, v in ax.items() if v is not None}


def _statics_at_start(**kw):
    st = study().statics
    m = st.machine
    return st.evaluate(m.model.model.initial_state(m.start_pose.states())[None, :], **kw)


CASES = [
    # ---- what an analysis needs from the file
    Case("working-range-without-ground",
         lambda: working_range(variant(drop=("base",), drop_lines=("ground =",)), n=4),
         ParameterError, ["ground", "working range"]),
    Case("tipping-without-base", lambda: tool_forces(no_base(), n=4, tipping=True),
         ParameterError, ["[base]", "tipping"]),
    Case("lift-capacity-without-base", lambda: lift_capacity(no_base()), ParameterError, ["[base]"]),
    Case("cycle-energy-without-circuit", lambda: cycle_energy(no_circuit()), ParameterError, ["[circuit]"]),
    Case("tool-forces-no-relief-pressure", lambda: tool_forces(no_circuit(), n=4),
         ParameterError, ["relief", "[circuit]"]),
    Case("base-without-ground", lambda: variant(drop_lines=("ground =",)), ParameterError,
         ["machine.ground", "[base]"]),
    Case("base-without-masses",
         lambda: variant(drop=("base",), add='[base]\ntipping_line = "1.8 m"\nmasses = {}\n'),
         ParameterError, ["base.masses", "empty"]),
    Case("base-rear-line-ahead-of-front",
         lambda: MachineDescription.load(EXC, {"base.rear_tipping_line": "3 m"}),
         ParameterError, ["base.rear_tipping_line", "front tipping line"]),
    Case("base-mass-without-unit",
         lambda: MachineDescription.load(EXC, {"base.masses.counterweight.mass": "3700"}),
         ParameterError, ["base.masses.counterweight.mass", "kg"]),
    Case("base-unknown-key", lambda: variant(add='[base.masses.cab]\nmass = "1 t"\ncog = ["0 m", "0 m"]\n'
                                                 'colour = "yellow"\n'),
         ParameterError, ["base.masses.cab.colour", "unknown key"]),
    # ---- the standards by the kind of machine (issue 20)
    Case("machine-kind-unknown", lambda: MachineDescription.load(EXC, {"machine.kind": "dozer"}),
         ParameterError, ["machine.kind", "'dozer'", "excavator, loader, crane"]),
    Case("base-mass-swings-not-a-bool",
         lambda: MachineDescription.load(EXC, {"base.masses.undercarriage.swings": "no"}),
         ParameterError, ["base.masses.undercarriage.swings", "true or false"]),
    Case("base-side-tipping-line-not-positive",
         lambda: MachineDescription.load(EXC, {"base.side_tipping_line": "-1 m"}),
         ParameterError, ["base.side_tipping_line", "> 0"]),
    Case("breakout-forces-of-an-excavator", lambda: breakout_forces(study()), ParameterError,
         ["excavator", "kind = \"loader\"", "ISO 14397-2"]),
    Case("tool-forces-of-a-crane",
         lambda: tool_forces(DATA / "knuckle_crane.toml", n=4), ParameterError,
         ["knuckle_crane", "crane", "ISO 6015", "generic=True"]),
    Case("working-range-unknown-dump-end", lambda: working_range(study(), n=4, dump="open"),
         ParameterError, ["dump", "'open'", "'retract' or 'extend'"]),
    Case("lift-matrix-over-the-top", lambda: lift_capacity(study(), heights=["0 m"], radii=["6 m"]).matrix("top"),
         ParameterError, ["'top'", "'front' or 'side'"]),
    # ---- tool forces
    Case("tool-forces-unknown-function", lambda: tool_forces(study(), n=4, functions=["stick"]),
         ParameterError, ["'stick'", "boom, arm, bucket"]),
    Case("tool-forces-bad-direction", lambda: tool_forces(study(), n=4, direction="push"),
         ParameterError, ["'push'", "'extend' or 'retract'"]),
    Case("tool-forces-relief-without-unit", lambda: tool_forces(study(), n=4, relief="300"),
         ParameterError, ["relief", "300", "bar"]),
    Case("tool-forces-relief-of-unknown-function", lambda: tool_forces(study(), n=4, relief={"stik": "300 bar"}),
         ParameterError, ["'stik'", "boom, arm, bucket"]),
    Case("tool-forces-tank-not-a-pressure", lambda: tool_forces(study(), n=4, tank="5 m"),
         ParameterError, ["tank", "pressure"]),
    Case("tool-forces-no-functions", lambda: tool_forces(study(), n=4, functions=[]),
         ParameterError, ["no functions"]),
    # ---- working range and grids
    Case("working-range-one-point-per-stroke", lambda: working_range(study(), n=1),
         ParameterError, ["points per stroke", "≥ 2"]),
    Case("working-range-count-of-unknown-function", lambda: working_range(study(), n={"stick": 10}),
         ParameterError, ["'stick'", "boom, arm, bucket"]),
    Case("working-range-unknown-tool-point", lambda: working_range(study(), n=4, point="lip"),
         ParameterError, ["'lip'", "tip"]),
    Case("working-range-zero-resolution", lambda: working_range(study(), n=4, resolution=0),
         ParameterError, ["resolution"]),
    Case("grid-axis-outside-the-stroke", lambda: kin().solve_grid(grid_axes(boom_cylinder=[2.0, 3.0])),
         ParameterError, ["boom_cylinder", "stroke 2.48"]),
    Case("grid-axis-missing", lambda: kin().solve_grid(grid_axes(arm_cylinder=None)),
         ParameterError, ["missing", "arm_cylinder"]),
    Case("grid-axis-decreasing", lambda: kin().solve_grid(grid_axes(bucket_cylinder=[3.0, 2.5])),
         ParameterError, ["bucket_cylinder", "increasing"]),
    # ---- lift capacity
    Case("lift-height-without-unit", lambda: lift_capacity(study(), heights=["2"], radii=["6 m"]),
         ParameterError, ["height", "2"]),
    Case("lift-unknown-load-point", lambda: lift_capacity(study(), point="arm.Z"),
         ParameterError, ["'arm.Z'", "arm.K"]),
    Case("lift-held-outside-its-stroke", lambda: lift_capacity(study(), held={"bucket": "9 m"}),
         ParameterError, ["held bucket", "stroke"]),
    Case("lift-held-unknown-word", lambda: lift_capacity(study(), held="halfway"),
         ParameterError, ["halfway", "'extend' / 'retract'"]),
    Case("lift-held-unknown-function", lambda: lift_capacity(study(), held={"stick": "extend"}),
         ParameterError, ["'stick'"]),
    Case("lift-point-moved-by-three-functions", lambda: lift_capacity(study(), point="bucket.Q"),
         ParameterError, ["bucket.Q", "exactly two", "held"]),
    # ---- cycle energy
    Case("cycle-energy-unknown-cycle", lambda: cycle_energy(study(), "nope"), ParameterError, ["nope"]),
    # ---- sweeps
    Case("sweep-unknown-key",
         lambda: sweep(EXC, {"boom_cylinder.bor": "120..160 mm:3"}, processes=1, progress=False),
         ParameterError, ["boom_cylinder.bor", "bore"]),
    Case("sweep-values-without-unit",
         lambda: sweep(EXC, {"boom_cylinder.bore": "120..160:3"}, processes=1, progress=False),
         ParameterError, ["boom_cylinder.bore", "unit"]),
    Case("sweep-range-without-count",
         lambda: sweep(EXC, {"boom_cylinder.bore": "120..160 mm"}, processes=1, progress=False),
         ParameterError, ["boom_cylinder.bore", "LOW..HIGH UNIT:COUNT"]),
    Case("sweep-unknown-analysis",
         lambda: sweep(EXC, {"bucket.mass": "700 kg"}, "reach", processes=1, progress=False),
         ParameterError, ["'reach'", "working-range"]),
    Case("sweep-unknown-option",
         lambda: sweep(EXC, {"bucket.mass": "700 kg"}, "working-range", options={"nn": 4}, processes=1,
                       progress=False),
         ParameterError, ["'nn'", "working-range"]),
    Case("sweep-empty-sample",
         lambda: sweep(EXC, {"bucket.mass": "700..900 kg:2"}, sample=0, processes=1, progress=False),
         ParameterError, ["sample"]),
    Case("sweep-sample-over-mixed-units",
         lambda: sweep(EXC, {"bucket.mass": "700 kg, 0.9 t"}, sample=3, processes=1, progress=False),
         ParameterError, ["bucket.mass", "one unit"]),
    Case("sweep-zero-processes",
         lambda: sweep(EXC, {"bucket.mass": "700 kg"}, options={"n": 4}, processes=0, progress=False),
         ParameterError, ["processes"]),
    Case("sweep-coordinate-of-unknown-point",
         lambda: sweep(EXC, {"arm.points.Z.x": "0.5 m"}, processes=1, progress=False),
         ParameterError, ["arm.points.Z"]),
    Case("sweep-value-out-of-range",
         lambda: sweep(EXC, {"bucket.mass": "-5 kg"}, processes=1, progress=False),
         ParameterError, ["bucket.mass", "≥ 0"]),
    Case("cli-grid-without-equals", lambda: parse_grid(["boom_cylinder.bore"]),
         ParameterError, ["boom_cylinder.bore", "KEY=VALUES"]),
    Case("cli-scheduler-of-unknown-scheme", lambda: _cli_raises(["sweep", "excavator", "--set-grid",
                                                                 "bucket.mass=700 kg", "--scheduler", "nonsense://x"]),
         ParameterError, ["--scheduler", "nonsense://x", "cannot connect"]),
    Case("cli-analyse-option-of-another-analysis",
         lambda: _cli_raises(["analyse", "excavator", "--analysis", "working-range", "--relief", "300 bar"]),
         ParameterError, ["--relief", "working-range"]),
    # ---- the building blocks
    Case("statics-of-a-forces-machine", lambda: FrontStatics(Machine.from_file(EXC, mode="forces")),
         ParameterError, ["extensions", "forces"]),
    Case("statics-unknown-function", lambda: _statics_at_start(functions=["stick"], points=[("bucket", "Q")]),
         ParameterError, ["function 'stick'", "not a function of 'excavator'", "boom, arm, bucket"]),
    Case("statics-point-as-dotted-text", lambda: _statics_at_start(points=["bucket.Q"]),
         ParameterError, ["point 'bucket.Q'", "(part, point) pair"]),
    Case("batch-states-of-wrong-width",
         lambda: __import__("bondgraph.batch", fromlist=["x"]).evaluate_many(study().statics.model.system,
                                                                            np.zeros((3, 2))),
         ParameterError, ["X", "(N, 11)"]),
    Case("batch-unknown-output",
         lambda: __import__("bondgraph.batch", fromlist=["x"]).evaluate_many(
             study().statics.model.system, np.zeros((1, 11)), select=["f[nope]"]),
         ParameterError, ["f[nope]"]),
    Case("study-of-a-number", lambda: Study(42), ParameterError, ["int", "machine file"]),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_analysis_input(case):
    check(case)


def test_catalogue_size():
    assert len(CASES) >= 15
    assert len({c.id for c in CASES}) == len(CASES)
    assert AssemblyError  # imported for cases that assemble (kept in the family)
