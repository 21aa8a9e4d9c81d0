"""Time manager, error catcher and data packages."""

import dataclasses
import warnings

import numpy as np
import pytest

from bondgraph.cosim import (CosimulationWarning, DivergenceMonitor, DivergenceWatch,
                             ErrorCatcher, ErrorPolicy, InputPackage, OutputPackage,
                             TimeManager, check_times)
from bondgraph.cosim import examples as ex
from bondgraph.errors import BondGraphWarning, ParameterError


# ------------------------------------------------------------------ time manager
def test_time_manager_grid():
    tm = TimeManager(step=0.25, end=2.0, start=1.0)
    assert tm.n_steps == 4 and np.allclose(tm.times(), [1.0, 1.25, 1.5, 1.75, 2.0])


def test_time_manager_lists_every_bad_value():
    with pytest.raises(ParameterError) as info:
        TimeManager(step=-1.0, end=1.0, scheme="parallel", substeps={"a": 0})
    text = str(info.value)
    assert "communication step: found -1.0, expected a positive, finite time in s" in text
    assert "scheme: found 'parallel', expected one of 'jacobi', 'gauss-seidel'" in text
    assert "substeps of 'a': found 0, expected a whole number >= 1" in text


def test_end_time_before_start():
    with pytest.raises(ParameterError, match="end time: found 0.5, expected a finite time after "
                                             "the start time 1.0 s"):
        TimeManager(step=0.1, end=0.5, start=1.0)


def test_schedule_must_fit_the_subsystems():
    mass, spring = ex.b1_subsystems()
    tm = TimeManager(step=1e-3, end=1.0, substeps={"pump": 2}, sequence=["mass", "valve"],
                     scheme="gauss-seidel")
    with pytest.raises(ParameterError) as info:
        tm.validate([mass, spring])
    text = str(info.value)
    assert "substeps given for 'pump', which is not a subsystem (known: mass, spring)" in text
    assert "sequence ['mass', 'valve']: expected each of ['mass', 'spring'] exactly once" in text


def test_frozen():
    tm = TimeManager(step=0.1, end=1.0, substeps={"a": 2})
    with pytest.raises(dataclasses.FrozenInstanceError):
        tm.step = 0.2
    with pytest.raises(TypeError):
        tm.substeps["a"] = 3


# ------------------------------------------------------------------ packages
def test_packages_are_frozen_and_time_checked():
    p = OutputPackage("hyd", 0.5, np.array([1.0]))
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.time = 0.6
    q = InputPackage("mech", 0.5, np.array([1.0]), np.zeros((0, 1)))
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.values = None
    ok = OutputPackage("mech", 0.5 + 1e-13, np.array([0.0]))
    assert check_times([p, ok], expected=0.5, step=1e-3) == []
    late = OutputPackage("valve", 0.499, np.array([0.0]))
    assert check_times([p, late], expected=0.5, step=1e-3) == [
        ("valve", "its step reached t=0.499 s after the step, expected t=0.5 s")]
    stuck = OutputPackage("pump", 0.4, np.array([0.0]), stamp="clock")
    assert check_times([stuck], expected=0.5, step=1e-3) == [
        ("pump", "its own clock reads t=0.4 s after the step, expected t=0.5 s")]


# ------------------------------------------------------------------ catcher
def test_policy_levels_are_validated():
    with pytest.raises(ParameterError) as info:
        ErrorPolicy(fmu_status="error", divergence="loud")
    assert len(info.value.problems) == 2
    assert "fmu_status: found 'error', expected 'abort'" in str(info.value)


def test_monitor_settings_are_validated():
    with pytest.raises(ParameterError) as info:
        DivergenceMonitor(window=0, efolds=0, patience=0, threshold=-1, growth_window=1.5)
    assert len(info.value.problems) == 5


def test_policy_can_switch_divergence_off_but_not_failures():
    assert ErrorPolicy(divergence="off").checks("divergence") is False
    with pytest.raises(ParameterError, match="non_finite: found 'off', expected one of "
                                             "'warning', 'error', 'abort'$"):
        ErrorPolicy(non_finite="off")
    c = ErrorCatcher(ErrorPolicy(divergence="off"))
    assert c.report("divergence", 1.0, "bond a.F*b.v", "created") is False and c.events == []


def test_warning_is_issued_once_per_culprit_but_every_event_is_kept():
    c = ErrorCatcher(ErrorPolicy(non_finite="warning"))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for t in (0.1, 0.2):
            assert c.report("non_finite", t, "output a.x", "found nan") is False
        c.report("non_finite", 0.3, "output b.y", "found inf")
    assert [str(x.message) for x in w] == ["t=0.1 s, output a.x: found nan",
                                           "t=0.3 s, output b.y: found inf"]
    assert all(issubclass(x.category, CosimulationWarning) for x in w)
    assert issubclass(CosimulationWarning, BondGraphWarning)
    assert len(c.events) == 3 and c.errors == []


def _watch(**kw):
    return DivergenceWatch(DivergenceMonitor(**kw), ["a.F", "b.v"], [0, 1], ["a.F*b.v"], [0],
                           [1], step=1e-3)


def _oscillation(n, growth):
    """Effort and flow of one mode exchanging energy through a bond, amplitude exp(g t)."""
    T = np.arange(n + 1) * 1e-3
    a = np.exp(growth * T)
    Y = np.column_stack([a * np.sin(300 * T), a * np.cos(300 * T)])
    p = np.abs(Y[:, 0] * Y[:, 1])
    carried = np.concatenate([[0.0], np.cumsum(0.5e-3 * (p[1:] + p[:-1]))])
    return T, Y, carried[:, None]


def _energy_reports(watch, T, Y, created, carried, window=20):
    return [(n, f) for n in range(window, len(T), window)
            for f in watch.energy(n, T, Y, created, carried)]


def test_energy_bound_flags_a_coupling_that_creates_energy_and_only_that():
    T, Y, carried = _oscillation(2000, 0.0)
    W: dict = {}                              # the window bound alone (the budget bound is opt-in)
    # 10 % of the carried energy created in every window: over the 5 % bound
    bad = _energy_reports(_watch(**W), T, Y, 0.1 * carried, carried)
    assert len(bad) == 1                      # reported once per bond
    n, (subject, msg) = bad[0]
    assert n == 80 and subject == "bond a.F*b.v"
    assert "10 % of the" in msg and "bound 2 %" in msg
    # 1 % created, or 10 % destroyed (numerical damping), or created in bursts: not flagged
    assert _energy_reports(_watch(**W), T, Y, 0.01 * carried, carried) == []
    assert _energy_reports(_watch(**W), T, Y, -0.1 * carried, carried) == []
    # created at 10 % during 40 of every 320 steps (start-up transients): not sustained
    burst = (np.arange(len(T)) % 320 < 40)[:, None]
    created = np.cumsum(0.1 * np.diff(carried, axis=0, prepend=0.0) * burst, axis=0)
    assert _energy_reports(_watch(**W), T, Y, created, carried) == []
    longer = (np.arange(len(T)) % 320 < 100)[:, None]          # sustained over 5 windows
    created = np.cumsum(0.1 * np.diff(carried, axis=0, prepend=0.0) * longer, axis=0)
    assert _energy_reports(_watch(**W), T, Y, created, carried) != []
    # a tighter bound catches the 1 % coupling
    assert _energy_reports(_watch(threshold=0.005, **W), T, Y, 0.01 * carried, carried)


def test_budget_bound_counts_what_the_coupling_created_since_the_start():
    """A bounded oscillation through the bond (its net transfer swings by 1/600 J) with a
    coupling that creates 1 % of the carried energy in every window: under the window
    bound, but after 0.14 s the coupling has created more than 10 % of what the bond moves.
    The same trickle on a bond that moves energy one way (its net transfer grows with the
    carried energy) stays inside the budget; energy destroyed is never reported."""
    T, Y, carried = _oscillation(2000, 0.0)
    assert _energy_reports(_watch(), T, Y, 0.01 * carried, carried) == []     # off by default
    bad = _energy_reports(_watch(budget=0.1), T, Y, 0.01 * carried, carried)
    assert len(bad) == 1
    n, (subject, msg) = bad[0]
    moved = 1 / 600                                        # range of sin(300 t)^2 / 600
    first = next(k for k in range(20, 2001, 20) if 0.01 * carried[k, 0] > 0.1 * moved)
    # counted from patience x window steps (80) on, reported at the 4th check in a row
    assert n == max(first, 80) + 3 * 20
    assert subject == "bond a.F*b.v" and "since the start" in msg and "budget 10 %" in msg
    assert _energy_reports(_watch(budget=0.1), T, Y, -0.1 * carried, carried) == []
    one_way = np.abs(Y)                                    # e f >= 0: the net transfer grows
    assert _energy_reports(_watch(budget=0.1), T, one_way, 0.01 * carried, carried) == []
    assert _energy_reports(_watch(budget=0.005), T, one_way, 0.01 * carried, carried)


def test_growth_bound_flags_faster_than_one_efold_per_step_not_growth_from_rest():
    def reports(y):
        watch = _watch()
        T = np.arange(len(y)) * 1e-3
        Y = np.column_stack([y, np.ones_like(y)])
        return [(n, f) for n in range(4, len(y), 4) for f in watch.growth(n, T, Y)]
    n = np.arange(200.0)
    aliased = 1e-3 * (-27.0) ** np.minimum(n, 150)            # B1 at 10 ms: x(-27) a step
    found = reports(aliased)
    assert found and found[0][0] == 12 and found[0][1][0] == "signal a.F"
    assert "e-folds per step" in found[0][1][1]
    assert reports(1e-3 * 1.5 ** n) == []                      # 0.4 e-fold a step
    assert reports((n * 1e-3) ** 6) == []                      # t**6 from rest
    assert reports(np.sin(0.3 * n)) == []
