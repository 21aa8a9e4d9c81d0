"""The start pose and hydraulic start state a warm build keeps under the machine's key
(:mod:`mechanisms.machine.warmstart`): read back they are the very pose and state solved
the first time (the loops' residual and the equilibrium's acceptance test recomputed
here, independently of the stored entry); an entry that no longer closes the loops or
holds the machine, or that was written for another key, is not used; and a warm run
gives the same results as one that solves both again."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from mechanisms.machine import DATA, Machine
from mechanisms.machine import warmstart
from mechanisms.machine.machine import start_pose_of
from mechanisms.machine.warmstart import (load_start_pose, load_start_state, save_start_pose,
                                          start_pose_file, start_targets)


@pytest.fixture(scope="module")
def exc():
    Machine.from_file(DATA / "excavator.toml", mode="valves")          # stores the pose
    return Machine.from_file(DATA / "excavator.toml", mode="valves")   # reads it


def test_the_stored_pose_is_the_solved_pose_and_closes_every_loop(exc):
    solved = start_pose_of(exc.description, exc.mechanism)         # least squares, again
    assert exc.start_pose.values == solved.values
    targets = start_targets(exc.description)[0]
    z = np.concatenate([np.asarray(exc.start_pose.values[n]) for n in exc.mechanism.parts])
    assert np.max(np.abs(exc.mechanism._residual(z, targets))) < 1e-9
    assert sorted(targets) == ["arm", "boom", "bucket"]          # the file's [start] angles
    for part, angle in targets.items():
        assert exc.start_pose.angle(part) == pytest.approx(angle, abs=1e-9)


def test_a_pose_that_no_longer_closes_the_loops_or_meets_the_targets_is_not_used(exc):
    key = "test warm start: bent pose"
    targets = start_targets(exc.description)[0]
    save_start_pose(key, exc.start_pose)
    assert load_start_pose(key, exc.mechanism, targets).values == exc.start_pose.values
    other = dict(targets, boom=targets["boom"] + 1e-6)                        # another target
    assert load_start_pose(key, exc.mechanism, other) is None
    entry = pickle.loads(start_pose_file(key).read_bytes())
    entry["value"]["values"]["arm"] = tuple(v + 1e-7 for v in entry["value"]["values"]["arm"])  # a loop opened
    start_pose_file(key).write_bytes(pickle.dumps(entry))
    assert load_start_pose(key, exc.mechanism, targets) is None
    entry["key"] = "another key"                                              # a foreign entry
    start_pose_file(key).write_bytes(pickle.dumps(entry))
    assert load_start_pose(key, exc.mechanism, targets) is None
    start_pose_file(key).write_bytes(b"not a pickle")                         # unreadable
    assert load_start_pose(key, exc.mechanism, targets) is None


def test_the_stored_start_state_is_an_equilibrium_and_a_disturbed_one_is_not_used(exc, monkeypatch):
    x0 = exc.start_state()
    saved = {}
    key_of = warmstart.start_state_key

    def spy(machine_key, model, x, free, inputs):
        saved.update(x0=x.copy(), free=list(free), inputs=dict(inputs))
        return key_of(machine_key, model, x, free, inputs)

    monkeypatch.setattr(warmstart, "start_state_key", spy)
    monkeypatch.setattr(warmstart, "save_start_state", lambda key, x: saved.update(x=x.copy()))
    monkeypatch.setattr(warmstart, "load_start_state", lambda *a, **k: None)
    assert exc.start_state() == x0                        # solved again: the same state
    monkeypatch.undo()
    # it holds the machine still: every piston's rate (force balance) vanishes, by the model's rhs
    model = exc.model.model
    rates = model.system.rhs(0.0, saved["x"])
    prefix = f"{exc.mechanism.name}/{exc.circuit.name}"
    for f in exc.functions:
        cap = model.state_index(f"{prefix}/{exc.circuit.chambers[f][0]}")
        piston = model.state_index(f"{prefix}/{exc.circuit.pistons[f]}")
        assert abs(rates[piston]) < 1e-6 * abs(saved["x"][cap]) * exc.circuit.areas[f][0]
    # the entry is used from the state the search starts at; a state 1 % off in one free
    # chamber is refused, and so is a start whose held states differ
    start, free, inputs = saved["x0"], saved["free"], saved["inputs"]
    key = "test warm start: a state"
    warmstart.save_start_state(key, saved["x"])
    assert np.array_equal(load_start_state(key, model, start, free, inputs), saved["x"])
    bent = saved["x"].copy()
    bent[model.state_index(free[0])] *= 1.01
    warmstart.save_start_state(key, bent)
    assert load_start_state(key, model, start, free, inputs) is None
    warmstart.save_start_state(key, saved["x"])
    held = start.copy()
    held[0] += 1e-3                                  # the boom's angle: a held state
    assert model.state_names[0] not in free
    assert load_start_state(key, model, held, free, inputs) is None


def test_a_warm_run_is_the_run_that_solves_its_start_again(exc, monkeypatch):
    warm = exc.run(t_end=0.5, progress=False).table()
    monkeypatch.setattr(warmstart, "load_start_state", lambda *a, **k: None)
    monkeypatch.setattr(warmstart, "load_start_pose", lambda *a, **k: None)
    cold = Machine.from_file(DATA / "excavator.toml", mode="valves").run(t_end=0.5, progress=False).table()
    for k in ("tip_x", "tip_y", "boom_cylinder_length", "time"):
        if k in warm:
            assert np.array_equal(warm[k], cold[k]), k
