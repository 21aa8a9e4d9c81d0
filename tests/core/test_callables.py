"""User functions that fail during a run are named, with the time, the state and the partial
results (issue 10: they used to escape as raw exceptions)."""

import math

import numpy as np
import pytest
import sympy as sp

import bondgraph as bg
from bondgraph.errors import UserCallableError


@pytest.fixture(scope="module")
def pushed():
    M = bg.BondGraph("cart")
    M.add(bg.MSe("F", bg.Input("force")), bg.One("v", displacement="x"), bg.I("m", 2.0))
    M.connect("F", "v")
    M.connect("v", "m")
    return bg.build(M)


@pytest.mark.parametrize("method", ["LSODA", "RK45", "CVODE"])
def test_an_input_function_that_raises(pushed, method):
    def thrust(t):
        if t > 0.5:
            raise RuntimeError("table ran out")
        return 2.0
    with pytest.raises(UserCallableError) as exc:
        bg.simulate(pushed, (0, 1), inputs={"force": thrust}, method=method, progress=False)
    err = exc.value
    msg = str(err)
    assert "input 'force': function 'test_an_input_function_that_raises.<locals>.thrust'" in msg
    assert "RuntimeError: table ran out" in msg and isinstance(err.original, RuntimeError)
    assert err.time > 0.5 and set(err.state) == {"cart/v.x", "cart/m.f"}
    part = err.results
    assert 0 < part.t[-1] <= err.time
    assert np.allclose(part["cart/m.f"], part.t, rtol=1e-6, atol=1e-9)   # v = F/m·t = t


def test_an_input_function_that_returns_nan_or_text(pushed):
    with pytest.raises(UserCallableError, match=r"input 'force': function .*returned nan at t = 0.2"):
        bg.simulate(pushed, (0, 1), inputs={"force": lambda t: math.nan if t >= 0.25 else 1.0},
                    t_eval=[0, 0.25, 0.5], progress=False)
    with pytest.raises(UserCallableError, match=r"returned 'fast'.*expected a number"):
        bg.simulate(pushed, (0, 1), inputs={"force": lambda t: "fast"}, progress=False)


def test_an_expression_input_outside_its_domain(pushed):
    with pytest.raises(UserCallableError) as exc:
        bg.simulate(pushed, (0, 2), inputs={"force": sp.sqrt(1 - bg.t)}, progress=False)
    msg = str(exc.value)
    assert "input 'force': expression sqrt(1 - t) raised ValueError" in msg
    assert 1.0 < exc.value.time < 2.0


def test_an_event_function_that_raises(pushed):
    def wall(t, x):
        if x[0] > 0.1:
            raise IndexError("no wall here")
        return x[0] - 1.0
    with pytest.raises(UserCallableError) as exc:
        bg.simulate(pushed, (0, 1), inputs={"force": 2.0}, events=[wall], progress=False)
    msg = str(exc.value)
    assert "event 0 (function 'test_an_event_function_that_raises.<locals>.wall'" in msg
    assert "IndexError: no wall here" in msg and exc.value.results is not None


def test_an_input_read_after_the_run_names_itself(pushed):
    res = bg.simulate(pushed, (0, 0.5), inputs={"force": lambda t: 1.0 / (1.0 - t) if t < 1 else 1 / 0},
                      t_eval=[0, 0.5], progress=False)
    assert res["force"][0] == 1.0
    with pytest.raises(UserCallableError, match="ZeroDivisionError"):
        res.inputs.signals[0].value(1.0)
