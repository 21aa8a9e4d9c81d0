"""A run a controller drives honours the run's options (issue 20): the energy is integrated
(the split closes on the solver's integrals, not a sampled estimate) and the method asked
for is the one used (CVODE was silently replaced by LSODA)."""

from __future__ import annotations

import numpy as np
import pytest

from bondgraph import power_balance
from mechanisms.excavator import Cycle, Excavator
from mechanisms.excavator.control import tracking_controller


@pytest.fixture(scope="module")
def exc():
    return Excavator(mode="valves")


def test_controller_run_integrates_the_energy(exc):
    run = exc.run(Cycle.default("valves"), controller=tracking_controller(exc, Cycle.default("extensions")),
                  t_end=2.0, progress=False)
    pb = power_balance(run.results)                   # raised "run simulate(..., energy=True)" before
    assert pb.relative < 1e-4
    split = run.energy_split()
    assert abs(split.residual) <= 1e-3 * split.scale


def test_controller_run_uses_the_method_asked_for(exc):
    """CVODE at the default tolerance and LSODA at a tight one give the same run: the method
    was honoured (or the tight LSODA run would be the only accurate one)."""
    ctrl = tracking_controller(exc, Cycle.default("extensions"))
    t = np.linspace(0, 2, 201)
    fast = exc.run(Cycle.default("valves"), controller=ctrl, t_end=2.0, t_eval=t, progress=False,
                   method="CVODE")
    ref = exc.run(Cycle.default("valves"), controller=ctrl, t_end=2.0, t_eval=t, progress=False,
                  method="LSODA", rtol=1e-9, atol=1e-11)
    a, b = fast.table(), ref.table()
    assert np.max(np.hypot(a["tip_x"] - b["tip_x"], a["tip_y"] - b["tip_y"])) < 1e-3
    assert (fast.results.stats["method"], ref.results.stats["method"]) == ("CVODE", "LSODA")


def test_an_interrupt_ends_a_controller_run_at_its_next_sample_with_its_results(exc):
    """Ctrl-C (the CLI's Interrupt) reaches a run a sampled controller drives: requested at
    0.5 s (by the controller itself, as a signal handler would in between), the run ends at
    the next sample, says so, and keeps the results up to there."""
    from bondgraph.hybrid import Controller
    from mechanisms.machine.run import Interrupt

    base = tracking_controller(exc, Cycle.default("extensions"))
    stop = Interrupt()

    def fn(t, y):
        if t >= 0.5:
            stop.requested = True
        return base.fn(t, y)

    ctrl = Controller(fn, base.inputs, period=0.01)
    run = exc.run(Cycle.default("valves"), controller=ctrl, t_end=2.0, progress=False, interrupt=stop)
    assert run.interrupted
    assert 0.5 <= run.t[-1] <= 0.52 + 1e-9
    ref = exc.run(Cycle.default("valves"), controller=Controller(base.fn, base.inputs, period=0.01), t_end=1.0,
                  progress=False)
    assert not ref.interrupted and ref.t[-1] == 1.0
    i = int(np.searchsorted(ref.t, run.t[-1] - 1e-12))
    a, b = run.table(), ref.table()
    assert abs(a["tip_x"][-1] - b["tip_x"][i]) < 1e-6          # the same run up to the stop


def test_an_interrupt_with_a_continuous_controller_is_refused_by_name(exc):
    """A continuous controller's run cannot be stopped at a sample: an interrupt given with it is
    refused, not dropped."""
    from bondgraph import ParameterError
    from bondgraph.hybrid import Controller
    from mechanisms.machine.run import Interrupt

    base = tracking_controller(exc, Cycle.default("extensions"))
    with pytest.raises(ParameterError, match=r"interrupt: a continuous controller \(period None\)"):
        exc.run(Cycle.default("valves"), controller=Controller(base.fn, base.inputs), t_end=0.1,
                progress=False, interrupt=Interrupt())
