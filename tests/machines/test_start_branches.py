"""The start pose's assembly branches are found, described, and can be chosen (issue 20: a file
without guess.* assembled on the mirrored branch and nothing said so)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from mechanisms.machine import DATA, Machine, MachineDescription


def _hinge_gaps(mech, pose) -> float:
    """The largest distance between two points hinged together (loop closure), m."""
    pts = pose.points()
    gaps = [math.dist(pts[f"{a.part}/{a.name}"], pts[f"{b.part}/{b.name}"]) for a, b in mech.hinges]
    return max(gaps)


def _by_lengths() -> Machine:
    """The excavator started from its cylinder lengths and no guess (the case of issue 20)."""
    d = MachineDescription.load(DATA / "excavator.toml")
    return Machine(d.with_sections(start={"boom_cylinder": "3.668 m", "arm_cylinder": "2.969 m",
                                          "bucket_cylinder": "3.066 m"}), "extensions")


@pytest.mark.parametrize("name", ["wheel_loader", "by lengths"])
def test_every_branch_closes_its_loops_at_the_targets(name):
    m = _by_lengths() if name == "by lengths" else Machine.from_file(DATA / f"{name}.toml", mode="extensions")
    poses = m.start_branches()
    assert len(poses) >= 2
    sigs = {m.mechanism.branch_signature(p) for p in poses}
    assert len(sigs) == len(poses)                          # all different branches
    for p in poses:
        assert _hinge_gaps(m.mechanism, p) < 1e-9
        for k in m.description.start:                      # the same targets on each
            part, ref = m.description.angles.get(k, (k, None))
            if m.description.parts[k].type == "cylinder" if k in m.description.parts else False:
                assert abs(p.length(k) - m.start_pose.length(k)) < 1e-9
            else:
                val = p.angle(part) - (p.angle(ref) if ref else 0.0)
                ref_val = m.start_pose.angle(part) - (m.start_pose.angle(ref) if ref else 0.0)
                assert abs(val - ref_val) < 1e-9


@pytest.mark.parametrize("name", ["wheel_loader", "by lengths"])
def test_the_note_tells_how_to_choose_another_branch_and_that_advice_works(name):
    m = _by_lengths() if name == "by lengths" else Machine.from_file(DATA / f"{name}.toml", mode="extensions")
    note = m.branch_note()
    assert re.match(r"start pose: \d+ assembly branches", note)
    first_other = note.splitlines()[1]
    picks = dict(re.findall(r'guess\.(\w+) = "(-?[\d.]+ deg)"', first_other))
    assert picks
    start = m.description.raw_tables()["start"]
    start["guess"] = {**start.get("guess", {}), **picks}
    other = Machine(m.description.with_sections(start=start), "extensions")
    want = m.start_branches()[1]
    assert m.mechanism.branch_signature(other.start_pose) == m.mechanism.branch_signature(want)
    a, b = other.start_pose.points(), want.points()
    assert max(math.dist(a[k], b[k]) for k in a) < 1e-6


def test_a_file_without_guesses_is_told_to_name_its_branch():
    note = _by_lengths().branch_note()
    assert "the file gives no guess.*: name the branch you mean" in note
    assert "tip (7.26, 3.71) m" in note            # the dig cycle's start pose is among the others


@pytest.mark.parametrize("name", ["knuckle_crane", "excavator"])
def test_a_single_valid_branch_gives_no_note(name):
    """The excavator's file names its branch by angles: the mirrored linkage would put the
    bucket cylinder past its stroke, so it is no pose of the machine."""
    m = Machine.from_file(DATA / f"{name}.toml", mode="extensions")
    assert len(m.start_branches()) == 1 and m.branch_note() == ""


def test_a_run_of_a_file_without_guesses_flags_its_branch():
    m = _by_lengths()
    report = m.run(t_end=0.2, progress=False).report()
    assert "BRANCH  start pose:" in report and "name the branch you mean" in report
    with_guess = Machine.from_file(DATA / "wheel_loader.toml", mode="extensions")
    assert "BRANCH" not in with_guess.run(t_end=0.2, progress=False).report()   # it named its branch
