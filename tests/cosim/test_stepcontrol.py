"""Communication-step control by step doubling with rollback."""

import numpy as np
import pytest

from bondgraph.cosim import (Cosimulation, Glue, PythonSubsystem, Relations, StepDoubling,
                             TimeManager)
from bondgraph.cosim import examples as ex
from bondgraph.errors import ParameterError


def b3_adaptive(rtol, end=0.3):
    sim = Cosimulation(list(ex.b3_subsystems()), ex.B3_RELATIONS,
                       TimeManager(step=1e-3, end=end), Glue("quadratic"))
    return sim.run(step_control=StepDoubling(rtol=rtol, atol=1e-9, min_step=1e-7,
                                             max_step=0.02))


def test_step_doubling_meets_tighter_tolerances_with_varying_steps():
    ref = ex.b3_reference()
    errs = []
    for rtol in (1e-3, 1e-5):
        res = b3_adaptive(rtol)
        v_ref = ref(res.time)[1]
        errs.append(np.abs(res["mech.v"] - v_ref).max() / np.abs(v_ref).max())
        assert res.time[-1] == pytest.approx(0.3) and np.all(np.diff(res.time) > 0)
        # small steps through the start transient, much larger ones later
        assert res.info["max_step"] > 10 * res.info["min_step"]
    assert errs[1] < errs[0] / 10
    assert errs[1] < 1e-3


def test_rejected_steps_are_rolled_back():
    # a step far too large for the first transient must be rejected and retried
    sim = Cosimulation(list(ex.b1_subsystems()), ex.B1_RELATIONS,
                       TimeManager(step=2e-3, end=0.2), Glue("quadratic"))
    res = sim.run(step_control=StepDoubling(rtol=1e-4, atol=1e-9, min_step=1e-6,
                                            max_step=2e-3))
    assert res.info["rejected"] > 0
    assert np.abs(res["mass.x"] - ex.b1_reference(res.time)).max() < 2e-5
    # after every rollback the spring force is consistent with the mass state
    p = ex.B1
    assert np.allclose(res["spring.F"], -(p["k"] * res["mass.x"] + p["c"] * res["mass.v"]))


def test_step_doubling_needs_rollback_and_jacobi():
    class NoState:
        u = 0.0
        y = 0.0

        def do_step(self, t, h):
            pass
    a = PythonSubsystem(NoState(), "a", [("u", "1")], [("y", "1")], direct_feedthrough=False)
    b = PythonSubsystem(NoState(), "b", [("u", "1")], [("y", "1")], direct_feedthrough=False)
    sim = Cosimulation([a, b], Relations(["a.y -> b.u", "b.y -> a.u"]),
                       TimeManager(step=0.1, end=1.0, scheme="gauss-seidel"))
    with pytest.raises(ParameterError) as info:
        sim.run(step_control=StepDoubling())
    text = str(info.value)
    assert "subsystem 'a': cannot save and restore its state" in text
    assert "subsystem 'b': cannot save and restore its state" in text
    assert "scheme 'gauss-seidel': step doubling supports 'jacobi' only" in text


def test_step_doubling_settings_are_checked():
    with pytest.raises(ParameterError) as info:
        StepDoubling(rtol=0, min_step=1e-3, max_step=1e-4, max_growth=1)
    assert len(info.value.problems) == 3
