"""Outputs written in a second process: results, errors and Ctrl-C as in one process.

``hydrobond run`` writes the bond graph and the animation in a forked process while it
draws the plots (:mod:`mechanisms.machine.background`). What must hold either way: the
result comes back, the child's error is raised with its type and message, and Ctrl-C
leaves results.csv and report.txt complete and no half-written file (nor a temporary).
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from bondgraph.errors import ParameterError
from bondgraph.files import atomic_path
from mechanisms.machine.background import Background, can_fork
from mechanisms.machine.cli import main
from mechanisms.machine.table import read_csv

forking = pytest.mark.skipif(not can_fork(), reason="needs fork and two cores")


def _pid_and_value(x):
    return os.getpid(), 2 * x


def _named_error():
    raise ParameterError("'boom.bore': found -1 m, expected a length > 0")


def _slow_atomic_write(path, started):
    with atomic_path(path) as tmp:
        tmp.write_text("half")
        Path(started).write_text("in the block")
        time.sleep(60)


@forking
def test_the_work_runs_in_another_process_and_its_result_comes_back():
    job = Background(_pid_and_value, 21, parallel=True)
    assert job.forked
    pid, value = job.wait()
    assert value == 42 and pid != os.getpid()


@pytest.mark.parametrize("parallel", [True, False])
def test_an_error_of_the_work_is_raised_by_wait_with_its_type_and_message(parallel):
    job = Background(_named_error, parallel=parallel)
    with pytest.raises(ParameterError, match=r"'boom.bore': found -1 m, expected a length > 0"):
        job.wait()


@forking
def test_cancel_interrupts_an_atomic_write_which_leaves_nothing(tmp_path):
    target, started = tmp_path / "out" / "cycle.gif", tmp_path / "started"
    job = Background(_slow_atomic_write, target, started, parallel=True)
    for _ in range(400):
        if started.exists():
            break
        time.sleep(0.05)
    assert started.exists()
    assert len(list(target.parent.iterdir())) == 1          # the temporary, being written
    job.cancel()
    assert list(target.parent.iterdir()) == []


@pytest.fixture
def interactive_sigint():
    """Ctrl-C as in an interactive session: a test session started in the background by a shell
    without job control inherits SIGINT ignored, which a run rightly keeps while it draws."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize("forked", [True, False])
def test_ctrl_c_while_drawing_keeps_results_and_report_and_leaves_no_partial_file(tmp_path, monkeypatch,
                                                                                  capsys, forked,
                                                                                  interactive_sigint):
    from mechanisms.machine import background, plots

    if forked and not can_fork():
        pytest.skip("needs fork and two cores")
    monkeypatch.setattr(background, "spare_core", lambda *since: forked)
    out, started = tmp_path / "o", tmp_path / "started"
    real_timeseries = plots.plot_timeseries

    def slow_animation(run, path, **kw):            # stands for a long GIF (in the child if forked)
        _slow_atomic_write(path, started)

    def timeseries_then_ctrl_c(run, path=None):      # the user presses Ctrl-C while this draws
        fig = real_timeseries(run, path)
        for _ in range(400 if forked else 0):        # the child is writing its temporary
            if started.exists():
                break
            time.sleep(0.05)
        assert started.exists() == forked
        os.kill(os.getpid(), signal.SIGINT)
        return fig

    monkeypatch.setattr(plots, "animate", slow_animation)
    monkeypatch.setattr(plots, "plot_timeseries", timeseries_then_ctrl_c)
    rc = main(["run", "excavator", "--mode", "extensions", "--t-end", "0.3", "--out", str(out), "--quiet"])
    assert rc == 130
    assert "interrupted while drawing" in capsys.readouterr().err
    names = {p.name for p in out.iterdir()}
    assert {"results.csv", "report.txt"} <= names
    assert names <= {"results.csv", "report.txt", "energy.csv", "trajectory.png", "timeseries.png",
                     "bond_graph.png"}, names                      # no cycle.gif, no temporary
    cols, _ = read_csv(out / "results.csv")
    assert cols["time"][-1] == pytest.approx(0.3)
    assert "INTERRUPTED" not in (out / "report.txt").read_text()
