"""Subsystem ABC and the Python, state-space and ODE adapters."""

import math

import numpy as np
import pytest

from bondgraph.cosim import (OdeSubsystem, Port, PythonSubsystem, StateSpaceSubsystem,
                             Subsystem)
from bondgraph.errors import ParameterError, SimulationError


class Minimal(Subsystem):
    def set_inputs(self, t, values, derivatives):
        self.u = values.copy()

    def get_outputs(self):
        return np.zeros(len(self.outputs))

    def do_step(self, t, h):
        return None


def test_ports_and_names_are_validated_all_at_once():
    with pytest.raises(ParameterError) as info:
        Minimal("boom cyl", [("x", "m")], [], direct_feedthrough="no", max_step=-1)
    assert len(info.value.problems) == 3
    text = str(info.value)
    assert "name 'boom cyl': expected an identifier" in text
    assert "max_step: found -1, expected a positive time in s or None" in text
    assert "direct_feedthrough: found 'no', expected True or False" in text
    with pytest.raises(ParameterError) as info:
        Minimal("cyl", [("x", "m"), ("x", "m"), ("2p", "Pa"), ("q", "")], [("x", "m")],
                direct_feedthrough=False)
    text = str(info.value)
    assert "input 'x': declared twice" in text
    assert "input '2p': expected an identifier" in text
    assert "input 'q': found unit '', expected a non-empty unit string" in text


def test_same_name_as_input_and_output_is_refused():
    with pytest.raises(ParameterError, match="port 'x': declared both as input and as output"):
        Minimal("cyl", [("x", "m")], [("x", "m")], direct_feedthrough=False)


def test_optional_hooks_have_clear_defaults():
    s = Minimal("cyl", [Port("F", "N")], [("x", "m")], direct_feedthrough=False)
    assert not s.can_save_state and s.max_step is None
    with pytest.raises(NotImplementedError, match="subsystem 'cyl' cannot save its state"):
        s.save_state()
    with pytest.raises(NotImplementedError, match="declares output_derivative_order=0"):
        s.get_output_derivatives(1)
    assert "cyl" in repr(s) and "F [N]" in repr(s)


def test_python_adapter_reports_every_missing_attribute():
    class Bare:
        pass
    with pytest.raises(ParameterError) as info:
        PythonSubsystem(Bare(), "valve", [("spool", "m")], [("Q", "m3/s")],
                        direct_feedthrough=True, input_derivative_order=1,
                        output_derivative_order=3)
    text = str(info.value)
    assert "object of type Bare has no method do_step(t, h)" in text
    assert "input 'spool': object of type Bare has no attribute 'spool'" in text
    assert "output 'Q': object of type Bare has no attribute or method 'Q'" in text
    assert "input_derivative_order=1: object of type Bare has no method set_input_derivatives()" \
        in text
    assert "output_derivative_order: found 3, expected 0, 1 or 2" in text


def test_python_adapter_rollback_and_output_derivatives():
    class Counter:
        def __init__(self):
            self.n = 0.0
            self.u = 0.0

        def do_step(self, t, h):
            self.n += 1

        def get_state(self):
            return self.n

        def set_state(self, s):
            self.n = s

        def output_derivatives(self, order):
            return {"n": (0.0,) * order}
    c = Counter()
    s = PythonSubsystem(c, "c", [("u", "1")], [("n", "1")], direct_feedthrough=False,
                        output_derivative_order=1)
    assert s.can_save_state
    saved = s.save_state()
    s.do_step(0, 1)
    s.do_step(1, 1)
    s.restore_state(saved)
    assert s.get_outputs()[0] == 0.0
    assert s.get_output_derivatives(1).shape == (1, 1)
    c.output_derivatives = lambda order: {}
    with pytest.raises(ParameterError, match=r"output_derivatives\(1\) returned no entry for "
                                             r"output 'n'"):
        s.get_output_derivatives(1)


def test_state_space_shapes_are_checked():
    with pytest.raises(ParameterError) as info:
        StateSpaceSubsystem("ss", A=[[0, 1]], B=[[1]], C=[[1, 0]], D=[[0, 0]], x0=[0, 0, 0],
                            inputs=[("u", "N")], outputs=[("y", "m")])
    text = str(info.value)
    assert "matrix A: found shape (1, 2), expected (1, 1)" in text
    assert "matrix D: found shape (1, 2), expected (1, 1)" in text
    assert "x0: found shape (3,), expected (1,)" in text


def test_state_space_rollback():
    ss = StateSpaceSubsystem("ss", A=[[-1.0]], B=[[1.0]], C=[[1.0]], D=[[0.0]], x0=[1.0],
                             inputs=[("u", "1")], outputs=[("y", "1")])
    ss.setup(0.0, 1.0, 0.1)
    saved = ss.save_state()
    ss.set_inputs(0.0, np.zeros(1), np.zeros((0, 1)))
    ss.do_step(0.0, 0.1)
    assert ss.get_outputs()[0] == pytest.approx(math.exp(-0.1))
    ss.restore_state(saved)
    assert ss.get_outputs()[0] == 1.0


class Decay(OdeSubsystem):
    """x' = -x + u, y = (x, x + u)."""

    def rhs(self, t, x, u):
        return -x + u

    def output(self, t, x, u):
        return np.array([x[0], x[0] + u[0]])


def test_ode_subsystem_integrates_a_polynomial_input_accurately():
    s = Decay("decay", [("u", "1")], [("x", "1"), ("xu", "1")], x0=[1.0],
              direct_feedthrough=True)
    s.setup(0.0, 1.0, 0.5)
    s.set_inputs(0.0, np.array([1.0]), np.array([[2.0]]))   # u = 1 + 2 t
    s.do_step(0.0, 0.5)
    # x' = -x + 1 + 2t, x(0) = 1  ->  x = 2t - 1 + 2 e^{-t}
    x = 2 * 0.5 - 1 + 2 * math.exp(-0.5)
    assert s.get_outputs() == pytest.approx([x, x + 2.0], rel=1e-9)
    # default output derivative by central differences: d(x+u)/dt = -x + u + u'
    d = s.get_output_derivatives(1)[0]
    assert d == pytest.approx([-x + 2.0, -x + 2.0 + 2.0], rel=1e-6)
    saved = s.save_state()
    s.do_step(0.5, 0.5)
    s.restore_state(saved)
    assert s.get_outputs()[0] == pytest.approx(x)


def test_ode_subsystem_settings_are_checked():
    with pytest.raises(ParameterError) as info:
        Decay("d", [("u", "1")], [("x", "1"), ("xu", "1")], x0=[np.nan],
              direct_feedthrough=True, method="Euler", rtol=0, max_step=0)
    assert len(info.value.problems) == 4
    assert "method: found 'Euler'" in str(info.value)


def test_ode_step_failure_names_the_interval():
    class Blow(Decay):
        def rhs(self, t, x, u):
            return np.array([np.nan]) if t > 0.25 else -x
    s = Blow("b", [("u", "1")], [("x", "1"), ("xu", "1")], x0=[1.0], direct_feedthrough=True,
             method="DOP853")
    s.setup(0.0, 1.0, 0.1)
    s.set_inputs(0.2, np.zeros(1), np.zeros((0, 1)))
    with pytest.raises(SimulationError, match=r"(?s)subsystem 'b'.*solve_ivp \(DOP853\) failed between "
                                              r"t=0.2 s and t=0.3 s") as info:
        s.do_step(0.2, 0.1)
    assert 0.2 <= info.value.time <= 0.3 and set(info.value.state) == {"x[0]"}
