"""Local worker processes kept between sweeps: the same tables as serially, the same named
error for a bad point (read and checked by the workers), a pool kept for one machine and
started again for another, and Ctrl-C that stops a pooled sweep at once and leaves no
worker behind."""

import multiprocessing as mp
import os
import signal
import threading
import time

import pytest

from bondgraph.errors import ParameterError
from mechanisms.analysis import sweep, workers
from mechanisms.analysis.sweeps import _run_pooled
from mechanisms.machine import DATA, MachineDescription

EXC = DATA / "excavator.toml"
GRID = {"boom_cylinder.bore": "120, 160 mm", "bucket.mass": "600..1000 kg:3"}
OPTIONS = {"n": 8, "weights": True}


@pytest.fixture(autouse=True, scope="module")
def _no_pool_left():
    workers.close_workers()
    yield
    workers.close_workers()


def _mass(study):
    """A user's analysis: the bucket's mass."""
    from types import SimpleNamespace

    m = study.description.values["bucket.mass"]
    return SimpleNamespace(summary=lambda: {"m": m}, summary_units={"m": "kg"})


def _table(df):
    return df[[c for c in df.columns if c != "rebuilt"]]


@pytest.fixture(scope="module")
def serial():
    return sweep(EXC, GRID, "tool-forces", options=OPTIONS, processes=1, progress=False)


def test_the_pool_is_kept_for_a_machine_and_started_again_for_another(serial):
    first = sweep(EXC, GRID, "tool-forces", options=OPTIONS, processes=2, progress=False)
    pool, pids = workers._KEPT[0].pool, {p.pid for p in mp.active_children()}
    second = sweep(EXC, GRID, "tool-forces", options=OPTIONS, processes=2, progress=False)
    assert workers._KEPT[0].pool is pool and {p.pid for p in mp.active_children()} == pids
    assert _table(first).equals(_table(serial)) and _table(second).equals(_table(serial))

    # a user's function: a pool of its own (the kept workers may have been forked before it existed)
    own = sweep(EXC, {"bucket.mass": "600, 900 kg"}, _mass, processes=2, progress=False)
    assert own["m"].tolist() == [600.0, 900.0] and workers._KEPT[0].pool is pool

    # another machine (the base with an override): a new pool, the old one's workers gone
    heavier = MachineDescription.load(EXC).with_overrides({"arm.mass": "2000 kg"})
    other = sweep(heavier, {"bucket.mass": "600, 900 kg"}, "tool-forces", options=OPTIONS, processes=2,
                  progress=False)
    assert workers._KEPT[0].pool is not pool
    assert not pids & {p.pid for p in mp.active_children()}
    alone = sweep(heavier, {"bucket.mass": "600, 900 kg"}, "tool-forces", options=OPTIONS, processes=1,
                  progress=False)
    assert _table(other).equals(_table(alone))
    assert not _table(other).equals(_table(serial.iloc[:2]))


def test_a_bad_point_on_local_workers_raises_the_serial_error_before_any_row():
    """The points are read by the workers; every problem is listed, in the points' order,
    as serially (here a mass in metres and a negative bore, in different chunks)."""
    grid = {"bucket.mass": ["600 kg", "0.9 m", "800 kg", "1000 kg"], "boom_cylinder.bore": "120, -140 mm"}
    errors = []
    for procs in (1, 2):
        with pytest.raises(ParameterError) as info:
            sweep(EXC, grid, "tool-forces", options=OPTIONS, processes=procs, progress=False)
        errors.append(str(info.value))
    assert errors[0] == errors[1]
    assert "'bucket.mass'" in errors[0] and "'boom_cylinder.bore'" in errors[0]
    # the pool is fine afterwards (its stop flag cleared for the next sweep)
    again = sweep(EXC, {"bucket.mass": "600, 900 kg"}, "tool-forces", options=OPTIONS, processes=2,
                  progress=False)
    assert (again["error"] == "").all() and not workers._KEPT[0].stop.is_set()


def test_a_chunk_reads_its_points_first_and_stops_when_asked(monkeypatch):
    """In-process: a chunk with a bad point returns its problems and sets the stop flag
    without running any point; a good chunk, the flag set, runs none."""
    flag = threading.Event()
    monkeypatch.setattr(workers, "_STOP", [flag])
    base = MachineDescription.load(EXC)
    bad = _run_pooled(base, "tool-forces", OPTIONS, [(0, {"bucket.mass": "700 kg"}), (1, {"bucket.mass": "7 m"})],
                      "t1")
    assert [r["_index"] for r in bad] == [1] and "bucket.mass" in bad[0]["_problems"][0] and flag.is_set()
    assert _run_pooled(base, "tool-forces", OPTIONS, [(0, {"bucket.mass": "700 kg"})], "t2") == []
    flag.clear()
    try:
        rows = _run_pooled(base, "tool-forces", {"n": 6, "functions": ["bucket"]}, [(0, {"bucket.mass": "700 kg"})],
                           "t3")
    finally:
        from mechanisms.analysis.sweeps import _forget

        _forget("t3")     # as a sweep does at its end: no evaluations left for the next test
    assert rows[0]["error"] == "" and rows[0]["_si"] == {"bucket.mass": 700.0}


def test_ctrl_c_stops_a_pooled_sweep_at_once_and_leaves_no_worker(serial):
    """A real SIGINT 0.5 s into a sweep of ~6 s on two workers: the sweep raises
    KeyboardInterrupt within a second or two (it does not wait for the chunks), the kept
    pool is given up, its workers end within seconds (they stop at their next batch of
    points, ~0.5 s, not at their chunk's end), and the next sweep gets a new pool and the
    serial table."""
    long_grid = {"arm_cylinder.bore": "100..145 mm:10", "bucket.mass": "600..1050 kg:10"}  # ~6 s on 2 cores
    seen: dict = {}

    def interrupt():
        seen["workers"] = mp.active_children()
        seen["at"] = time.perf_counter()
        os.kill(os.getpid(), signal.SIGINT)

    sweep(EXC, {"bucket.mass": "600, 900 kg"}, "tool-forces", options={"n": 20}, processes=2,
          progress=False)                                   # the workers started, with their study
    timer = threading.Timer(0.5, interrupt)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            sweep(EXC, long_grid, "tool-forces", options={"n": 40, "weights": True}, processes=2,
                  progress=False)
        stopped = time.perf_counter()
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert stopped - seen["at"] < 2.0
    assert workers._KEPT == []
    deadline = time.perf_counter() + 60
    for p in seen["workers"]:   # the pool's own thread may reap it first: wait for its exit code
        while p.exitcode is None and time.perf_counter() < deadline:
            p.join(timeout=0.5)
        assert p.exitcode is not None, "a worker of the interrupted sweep is still running"
    assert time.perf_counter() - seen["at"] < 4.0       # at their next batch, not at their chunk's end
    after = sweep(EXC, GRID, "tool-forces", options=OPTIONS, processes=2, progress=False)
    assert _table(after).equals(_table(serial))


def _where(_):
    """In a worker: its pid and the cores it may run on (held a moment, so that both
    workers take tasks)."""
    time.sleep(0.05)
    return os.getpid(), sorted(os.sched_getaffinity(0))


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or not 2 <= len(os.sched_getaffinity(0)) <= 8,
                    reason="needs 2 to 8 cores the process may choose")
def test_each_worker_keeps_to_a_core_of_its_own():
    # a worker's analysis threads take turns: kept on one core they hand over without
    # waiting for a core the other worker holds (workers.worker_cores); a worker per core
    n = len(os.sched_getaffinity(0))
    cores = workers.worker_cores(n)
    assert cores == sorted(os.sched_getaffinity(0)) and workers.worker_cores(n - 1) == []
    with workers.local_workers(n, key=("cores test",), keep=False) as (pool, _):
        seen = dict(pool.map(_where, range(4 * n)))
    assert len(seen) == n                                  # every worker
    assert sorted(c for aff in seen.values() for c in aff) == cores   # one core each, different
    assert len(os.sched_getaffinity(0)) >= 2               # the parent is not pinned
