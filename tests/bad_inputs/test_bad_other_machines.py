"""Bad inputs on the shipped machines that are not the excavator (the wheel loader, the
knuckle crane): what such a machine file does not provide, or names it does not have, is
one named error of our family saying what is missing."""

import functools

import pytest

from bondgraph import AssemblyError, ParameterError
from mechanisms.analysis import Study, lift_capacity, sweep, tool_forces, working_range
from mechanisms.machine import DATA, Machine
from mechanisms.machine.description import MachineDescription
from mechanisms.machine.split import MachineSplit

from .catalogue import Case, check, ids

P, A = ParameterError, AssemblyError
LOADER, CRANE = DATA / "wheel_loader.toml", DATA / "knuckle_crane.toml"
CRANE_BASE = """
[base]
tipping_line = "1.2 m"
rear_tipping_line = "-1.2 m"

[base.masses.truck]
mass = "6000 kg"
cog = ["-1.0 m", "1.0 m"]
"""


def one_boom_text() -> str:
    """The crane without its outer boom: one function (lift), a base, an output point on the boom."""
    import re

    out, skip = [], False
    for line in CRANE.read_text().splitlines():
        m = re.match(r"^\[([A-Za-z_][\w.]*)\]\s*(#.*)?$", line.strip())   # a table header, not an array
        if m:
            skip = m.group(1) in ("outer", "fold_cylinder", "circuit.valves.fold", "payloads.hook_load") \
                or m.group(1).startswith("cycles")
        if skip or line.strip().startswith(('"outer.', '"fold_cylinder.', "angles.outer", "angles.knuckle",
                                            "outer =", "default_cycle")):
            continue
        out.append(line.replace('points.hook = "outer.T"', 'points.end = "inner.K"'))
    return "\n".join(out) + "\n" + CRANE_BASE


@functools.lru_cache(maxsize=None)
def machine(path, mode="extensions") -> Machine:
    return Machine.from_file(path, mode=mode)


@functools.lru_cache(maxsize=None)
def crane_with_base() -> Study:
    return Study(MachineDescription.from_text(CRANE.read_text() + CRANE_BASE, name="crane.toml", base=DATA))


CASES = [
    Case("loader-sweep-lift-capacity-without-base",
         lambda: sweep(LOADER, {"bucket.mass": "1500..1700 kg:2"}, "lift-capacity", processes=1, progress=False),
         P, ["wheel_loader.toml", "no [base]", "tipping_line"]),
    Case("crane-sweep-tool-forces-unknown-point",
         lambda: sweep(CRANE, {"payloads.hook_load.mass": "300..500 kg:2"}, "tool-forces",
                       options={"point": "tip"}, processes=1, progress=False),
         P, ["'tip'", "hook"]),
    Case("loader-lift-capacity-without-base", lambda: lift_capacity(LOADER), P, ["wheel_loader.toml", "[base]"]),
    Case("crane-lift-capacity-at-a-point-one-function-moves",
         lambda: lift_capacity(crane_with_base(), point="inner.K"), P,
         ["inner.K", "1 function", "lift", "outer.T: lift, fold"]),
    Case("crane-working-range-of-a-tip-it-lacks", lambda: working_range(CRANE, n=5, point="tip"), P,
         ["'tip'", "hook"]),
    Case("loader-tool-force-of-a-point-its-function-does-not-move",
         lambda: tool_forces(LOADER, n=5, functions=["tilt"], point="pin", generic=True), P,
         ["tilt", "pin", "boom.D"]),
    Case("loader-iso-6015-tool-forces", lambda: tool_forces(LOADER, n=5), P,
         ["wheel_loader", "loader", "ISO 6015", "ISO 14397-2", "breakout_forces", "generic=True"]),
    Case("loader-load-sensing-without-its-table",
         lambda: Machine.from_file(LOADER, {"circuit.type": "load-sensing"}, mode="valves"), P,
         ["circuit.load_sensing", "margin", "compensation", "wheel_loader.toml"]),
    Case("loader-pose-relative-angle-alone", lambda: machine(LOADER).pose({"tilt": 0.3}), P, ["'tilt'", "'boom'"]),
    Case("loader-pose-by-function-name", lambda: machine(LOADER).pose({"lift": 1.5, "tilt": 1.0}), P,
         ["'lift'", "lift_cylinder", "tilt_cylinder"]),
    Case("crane-pose-beyond-the-stroke", lambda: machine(CRANE).pose_at_lengths({"lift": 2.4, "fold": 1.3}), A,
         ["lift_cylinder", "2.4 m", "1.8 m"]),
    Case("crane-pose-of-an-excavator-function",
         lambda: machine(CRANE).pose_at_lengths({"boom": 3.0, "lift": 1.4, "fold": 1.3}), P,
         ["'boom'", "knuckle_crane", "lift, fold"]),
    Case("one-function-machine-lift-capacity",
         lambda: lift_capacity(MachineDescription.from_text(one_boom_text(), name="boom.toml", base=DATA)), P,
         ["knuckle_crane", "two functions", "inner.K by lift", "1 function(s): lift"]),
    Case("crane-facing-minus-x-working-range",
         lambda: working_range(MachineDescription.load(CRANE, {"chassis.inner.O": ["-20 m", "2.5 m"],
                                                               "chassis.lift_cylinder.A": ["-19.75 m", "1.3 m"]}),
                               n=5), P, ["knuckle_crane", "hook", "x ≤ 0", "+x"]),
    Case("crane-split-of-a-machine-without-hydraulics", lambda: MachineSplit(machine(CRANE)), P,
         ["split", "mode 'valves'", "mode 'extensions'"]),
    Case("loader-split-of-a-path", lambda: MachineSplit(str(LOADER)), P, ["Machine", "str"]),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_input(case):
    check(case)
