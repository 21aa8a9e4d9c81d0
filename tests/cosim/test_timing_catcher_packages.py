"""Time manager, error catcher and data packages."""

import dataclasses
import warnings

import numpy as np
import pytest

from bondgraph.cosim import (CosimulationWarning, DivergenceMonitor, ErrorCatcher, ErrorPolicy,
                             InputPackage, OutputPackage, TimeManager, check_times)
from bondgraph.cosim import examples as ex
from bondgraph.errors import ParameterError


# ------------------------------------------------------------------ time manager
def test_time_manager_grid():
    tm = TimeManager(step=0.25, end=2.0, start=1.0)
    assert tm.n_steps == 4 and np.allclose(tm.times(), [1.0, 1.25, 1.5, 1.75, 2.0])


def test_time_manager_lists_every_bad_value():
    with pytest.raises(ParameterError) as info:
        TimeManager(step=-1.0, end=1.0, scheme="parallel", substeps={"a": 0})
    text = str(info.value)
    assert "communication step: found -1.0, expected a positive time in s" in text
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
        ("valve", "sent outputs stamped t=0.499 s, expected t=0.5 s")]


# ------------------------------------------------------------------ catcher
def test_policy_levels_are_validated():
    with pytest.raises(ParameterError) as info:
        ErrorPolicy(fmu_status="error", divergence="loud")
    assert len(info.value.problems) == 2
    assert "fmu_status: found 'error', expected 'abort'" in str(info.value)


def test_monitor_settings_are_validated():
    with pytest.raises(ParameterError) as info:
        DivergenceMonitor(window=0, growth=1.0, patience=0, threshold=-1)
    assert len(info.value.problems) == 4


def test_warning_is_issued_once_per_culprit_but_every_event_is_kept():
    c = ErrorCatcher(ErrorPolicy(non_finite="warning"), DivergenceMonitor(), [])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for t in (0.1, 0.2):
            assert c.report("non_finite", t, "output a.x", "found nan") is False
        c.report("non_finite", 0.3, "output b.y", "found inf")
    assert [str(x.message) for x in w] == ["t=0.1 s, output a.x: found nan",
                                           "t=0.3 s, output b.y: found inf"]
    assert all(issubclass(x.category, CosimulationWarning) for x in w)
    assert len(c.events) == 3 and c.errors == []


def _cumulative(power):
    return np.vstack([np.zeros((1, power.shape[1])), np.cumsum(power, axis=0)])


def test_divergence_monitor_flags_exponential_growth_only():
    n = 2000
    t = np.arange(n)
    exchanged = _cumulative(np.abs(np.sin(0.05 * t))[:, None] + 1.0)
    growing = _cumulative((0.2 * np.exp(0.004 * t) * np.abs(np.sin(0.05 * t)))[:, None])
    bounded = _cumulative((0.2 * np.abs(np.sin(0.05 * t)))[:, None])
    m = DivergenceMonitor(window=20)
    c_bad = ErrorCatcher(ErrorPolicy(), m, ["a.F*b.v"])
    c_ok = ErrorCatcher(ErrorPolicy(), m, ["a.F*b.v"])
    stop_bad = [k for k in range(20, n + 1, 20) if c_bad.check_energy(k, k * 1.0, growing,
                                                                     exchanged, 1.0)]
    stop_ok = [k for k in range(20, n + 1, 20) if c_ok.check_energy(k, k * 1.0, bounded,
                                                                   exchanged, 1.0)]
    assert stop_ok == [] and c_ok.events == []
    assert stop_bad and c_bad.abort_event.subject == "bond a.F*b.v"
    assert "diverged" in c_bad.abort_event.message


def test_divergence_monitor_can_be_switched_off():
    c = ErrorCatcher(ErrorPolicy(), DivergenceMonitor(enabled=False), ["a.F*b.v"])
    huge = _cumulative(np.exp(np.arange(200.0))[:, None] * 1e-80)
    assert not c.check_energy(200, 200.0, huge, huge * 0, 1.0)
