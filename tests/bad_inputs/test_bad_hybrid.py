"""Bad inputs to hybrid models and simulate_hybrid (issue 10): each is one named error."""

from functools import lru_cache

import numpy as np
import pytest

from bondgraph import BondGraph, I, Input, MSe, One, ParameterError, SimulationError
from bondgraph.errors import UserCallableError
from bondgraph.hybrid import (Above, At, Below, Controller, Discrete, HybridModel, Transition,
                              When, hysteresis, simulate_hybrid)

from .catalogue import Case, check, ids


@lru_cache(maxsize=None)
def cart():
    """A cart pushed right or left by a bang-bang force; a second input 'trim' for controllers."""
    push = Discrete("push", {"Left": -1.0, "Right": 1.0}, initial="Right")
    bg = BondGraph("cart")
    bg.add(MSe("F", 2.0 * push.symbol + Input("trim")), One("v", displacement="x"), I("m", 1.0))
    bg.connect("F", "v")
    bg.connect("v", "m")
    return HybridModel.build(bg, [push], [
        Transition("push", "Right", "Left", Above("cart/v.x", 1.0)),
        Transition("push", "Left", "Right", Below("cart/v.x", 0.0))]), push


def hm():
    return cart()[0]


def run(**kw):
    span = kw.pop("t_span", (0, 1))
    if "controller" not in kw:
        kw.setdefault("inputs", {"trim": 0.0})
    return lambda: simulate_hybrid(hm(), span, **kw)


def with_transitions(*transitions):
    model, push = cart()
    return HybridModel(model.model, [push], list(transitions))


def boom(t, x):
    raise RuntimeError("guard broke")


def silent_controller(t, y):
    return {}                           # sets nothing: 'trim' would have been held at 0


def bad_controller(t, y):
    raise ValueError("no joystick")


CASES = [
    Case("span-inf", run(t_span=(0, np.inf)), ParameterError, ["simulate_hybrid", "t_span", "non-finite"]),
    Case("span-reversed", run(t_span=(2, 1)), ParameterError, ["t_span", "t1 > t0"]),
    Case("tolerances-ten", run(rtol=10, atol=10), ParameterError, ["rtol = 10"]),
    Case("atol-negative", run(atol=-1.0), ParameterError, ["atol = -1.0"]),
    Case("max-step-zero", run(max_step=0.0), ParameterError, ["max_step = 0.0"]),
    Case("t-eval-outside", run(t_eval=[0, 5]), ParameterError, ["t_eval", "within t_span"]),
    Case("t-eval-unsorted", run(t_eval=[0.5, 0.1]), ParameterError, ["t_eval", "increase"]),
    Case("method-unknown", run(method="euler"), ParameterError, ["method 'euler'"]),
    Case("x0-nan", run(x0={"cart/v.x": float("nan")}), ParameterError, ["x0['cart/v.x'] = nan"]),
    Case("max-events-zero", run(max_events=0), ParameterError, ["max_events = 0"]),
    Case("max-burst-negative", run(max_burst=-1), ParameterError, ["max_burst = -1"]),
    Case("burst-window-zero", run(burst_window=0.0), ParameterError, ["burst_window = 0.0"]),
    Case("timeout-negative", run(timeout=-5), ParameterError, ["timeout = -5"]),
    Case("singular-unknown", run(singular="loud"), ParameterError, ["singular = 'loud'"]),
    Case("modes-unknown-variable", run(modes={"valve": "Left"}), ParameterError, ["modes: 'valve'", "push"]),
    Case("modes-unknown-label", run(modes={"push": "Up"}), ParameterError, ["modes: 'push' has no mode 'Up'", "Left"]),
    Case("modes-not-a-dict", run(modes=["Left"]), ParameterError, ["modes ['Left']"]),
    Case("controller-not-a-controller", run(controller=lambda t, y: {}), ParameterError, ["controller", "Controller(fn"]),
    Case("controller-first-sample-without-a-value", run(controller=Controller(silent_controller, ["trim"], period=0.1)),
         UserCallableError, ["silent_controller", "no value for 'trim'", "first sample", "t = 0 s"]),
    Case("controller-fn-not-callable", lambda: Controller("pid", ["trim"]), ParameterError, ["controller: 'pid'"]),
    Case("controller-inputs-string", lambda: Controller(lambda t, y: {}, "trim"), ParameterError,
         ["controller inputs 'trim'", "list of input names"]),
    Case("controller-period-zero", lambda: Controller(lambda t, y: {}, ["trim"], period=0.0), ParameterError,
         ["controller period 0.0"]),
    Case("controller-unknown-input", run(controller=Controller(lambda t, y: {}, ["thrust"], period=0.1)),
         ParameterError, ["controller input 'thrust'", "trim"]),
    Case("controller-input-also-signal", run(controller=Controller(lambda t, y: {"trim": 0.0}, ["trim"], period=0.1),
                                             inputs={"trim": 1.0}), ParameterError, ["input 'trim'", "also given a signal"]),
    Case("controller-raises", run(controller=Controller(bad_controller, ["trim"], period=0.1)), UserCallableError,
         ["controller (inputs trim)", "function 'bad_controller'", "ValueError: no joystick", "t = 0"]),
    Case("controller-raises-continuous", run(controller=Controller(bad_controller, ["trim"])), UserCallableError,
         ["controller (inputs trim)", "ValueError"]),
    Case("controller-returns-list", run(controller=Controller(lambda t, y: [1.0], ["trim"], period=0.1)),
         UserCallableError, ["controller", "returned [1.0]", "expected a dict"]),
    Case("controller-returns-nan", run(controller=Controller(lambda t, y: {"trim": float("nan")}, ["trim"])),
         UserCallableError, ["controller", "'trim' = nan"]),
    Case("controller-unknown-output", run(controller=Controller(lambda t, y: {"gain": 1.0}, ["trim"], period=0.1)),
         ParameterError, ["controller output 'gain'"]),
    Case("controller-bad-mode", run(controller=Controller(lambda t, y: {"push": "Up"}, ["trim"], period=0.1)),
         ParameterError, ["push", "no mode 'Up'"]),
    Case("inputs-not-a-dict", run(inputs=[0.0]), ParameterError, ["inputs [0.0]", "expected a dict"]),
    Case("input-missing", run(inputs={}), ParameterError, ["input 'trim' has no signal"]),
    Case("input-nan", run(inputs={"trim": float("nan")}), ParameterError, ["input 'trim'", "nan"]),
    Case("signal-not-declared", run(signals={"joystick": 1.0}), ParameterError, ["external signal 'joystick'", "not declared"]),
    Case("guard-raises", lambda: simulate_hybrid(with_transitions(
        Transition("push", "Right", "Left", When(boom, "wall hit"), name="stop")), (0, 1), inputs={"trim": 0.0}),
        UserCallableError, ["guard of transition 'stop' (wall hit)", "function 'boom'", "RuntimeError: guard broke"]),
    Case("guard-returns-text", lambda: simulate_hybrid(with_transitions(
        Transition("push", "Right", "Left", When(lambda t, x: "yes", "always"), name="odd")), (0, 1),
        inputs={"trim": 0.0}), UserCallableError, ["guard of transition 'odd'", "returned 'yes'"]),
    Case("reset-raises", lambda: simulate_hybrid(with_transitions(
        Transition("push", "Right", "Left", Above("cart/v.x", 0.1), reset=boom, name="kick")), (0, 1),
        inputs={"trim": 0.0}), UserCallableError, ["reset of transition 'kick'", "RuntimeError"]),
    Case("reset-returns-nan", lambda: simulate_hybrid(with_transitions(
        Transition("push", "Right", "Left", Above("cart/v.x", 0.1), reset=lambda t, x: x * np.nan, name="kick")),
        (0, 1), inputs={"trim": 0.0}), UserCallableError, ["reset of transition 'kick'", "finite state values"]),
    Case("transition-unknown-quantity", lambda: with_transitions(
        Transition("push", "Right", "Left", Above("cart/v.y", 1.0))), ParameterError, ["'cart/v.y'", "did you mean"]),
    Case("transition-unknown-mode", lambda: with_transitions(
        Transition("push", "Up", "Left", Above("cart/v.x", 1.0))), ParameterError, ["no mode 'Up'"]),
    Case("transition-negative-dwell", lambda: with_transitions(
        Transition("push", "Right", "Left", Above("cart/v.x", 1.0), dwell=-1.0)), ParameterError, ["dwell -1.0"]),
    Case("hysteresis-negative-band", lambda: hysteresis("push", "Left", "Right", "cart/v.x", 0.5, -0.1),
         ParameterError, ["band -0.1"]),
    Case("discrete-one-mode", lambda: Discrete("valve", ["only"]), ParameterError, ["discrete 'valve'", "at least 2"]),
    Case("discrete-bad-initial", lambda: Discrete("valve", ["a", "b"], initial="c"), ParameterError, ["initial mode 'c'"]),
    Case("chattering", lambda: simulate_hybrid(with_transitions(
        Transition("push", "Right", "Left", Above("cart/m.f", 0.0)),
        Transition("push", "Left", "Right", Below("cart/m.f", 0.0))), (0, 1), inputs={"trim": 0.0}),
        SimulationError, ["chattering", "push: Right → Left"]),
    Case("at-a-nan-time", lambda: At(0.1, float("nan")), ParameterError, ["At(0.1, nan)", "times nan",
                                                                          "finite numbers of seconds"]),
    Case("at-a-text-time", lambda: At("soon"), ParameterError, ["times 'soon'"]),
    Case("at-no-time", lambda: At(), ParameterError, ["At()", "no time given"]),
    Case("when-guard-not-callable", lambda: with_transitions(
        Transition("push", "Right", "Left", When(3.0, "touches the wall"))), ParameterError,
        ["push: Right → Left", "'touches the wall'", "3.0 is not callable"]),
    Case("reset-not-callable", lambda: with_transitions(
        Transition("push", "Right", "Left", At(0.5), reset=[0.0, 0.0])), ParameterError,
        ["push: Right → Left", "reset [0.0, 0.0] is not callable"]),
    Case("timed-guard-and-all-at-once", run(rtol=-1, max_events=0, modes={"push": "Up"}), ParameterError,
         ["rtol = -1", "max_events = 0", "no mode 'Up'", "3 problems"]),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_hybrid(case):
    check(case)


def test_at_guard_needs_no_check():
    assert At(0.5).describe() == "t = 0.5"
