"""Bad inputs of the native integration: backends and what the native path cannot run."""

from __future__ import annotations

import numpy as np
import pytest

import bondgraph as bg
from bondgraph import ParameterError
from bondgraph.hybrid import Above, Discrete, HybridModel, Transition, When, simulate_hybrid
from bondgraph.cosim.model import ModelSubsystem
from bondgraph.events import StateEvent
from bondgraph.hybrid import Controller

from .catalogue import Case, check, ids


def _forced():
    M = bg.BondGraph("forced")
    M.add(bg.MSe("F", bg.Input("force")), bg.One("v", displacement="x"), bg.I("m", 1.0), bg.R("b", 1.0))
    for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
        M.connect(a, b)
    return bg.build(M)


def _hybrid(guard):
    push = Discrete("push", {"Left": -1.0, "Right": 1.0}, initial="Right")
    M = bg.BondGraph("cart")
    M.add(bg.MSe("F", 2.0 * push.symbol), bg.One("v", displacement="x"), bg.I("m", 1.0))
    M.connect("F", "v")
    M.connect("v", "m")
    return HybridModel.build(M, [push], [Transition("push", "Right", "Left", guard)])


def _stateless():
    M = bg.BondGraph("sr")
    M.add(bg.Se("s", 1.0), bg.R("r", 2.0), bg.One("j"))
    M.connect("s", "j")
    M.connect("j", "r")
    return bg.build(M)


CASES = [
    # issue 20: CVODE on a model without states killed the interpreter (segmentation fault)
    Case("no-states-native", lambda: bg.simulate(_stateless(), (0, 1), method="CVODE", backend="native"),
         ParameterError, ["backend 'native'", "'sr'", "no states"]),
    Case("no-states-events", lambda: bg.simulate(_stateless(), (0, 1), method="CVODE",
                                                 events=[lambda t, x: t - 0.5]),
         ParameterError, ["'sr'", "no states", "events cannot be located"]),
    Case("backend-unknown", lambda: bg.simulate(_forced(), (0, 1), inputs={"force": 1.0}, backend="C"),
         ParameterError, ["backend 'C'", "auto", "native", "python"]),
    Case("backend-native-with-lsoda", lambda: bg.simulate(_forced(), (0, 1), inputs={"force": 1.0},
                                                          method="LSODA", backend="native"),
         ParameterError, ["backend 'native'", "LSODA", "CVODE"]),
    Case("backend-native-python-input", lambda: bg.simulate(_forced(), (0, 1), backend="native",
                                                            inputs={"force": np.sin}),
         ParameterError, ["backend 'native'", "force", "Table"]),
    Case("backend-native-python-event", lambda: bg.simulate(_forced(), (0, 1), backend="native",
                                                            inputs={"force": 1.0},
                                                            events=[lambda t, x: x[0] - 0.5]),
         ParameterError, ["backend 'native'", "event"]),
    Case("hybrid-backend-unknown", lambda: simulate_hybrid(_hybrid(Above("cart/v.x", 1.0)), (0, 1),
                                                           backend="gpu"),
         ParameterError, ["backend 'gpu'"]),
    Case("hybrid-native-python-guard", lambda: simulate_hybrid(_hybrid(When(lambda t, x: x[0] - 1)),
                                                               (0, 1), backend="native"),
         ParameterError, ["backend 'native'", "When"]),
    Case("hybrid-native-signal-guard",
         lambda: simulate_hybrid(HybridModel(_hybrid(Above("cart/v.x", 1.0)).model,
                                             [Discrete("push", {"Left": -1.0, "Right": 1.0}, "Right")],
                                             [Transition("push", "Right", "Left", Above("cmd", 0.5))],
                                             signals=["cmd"]),
                                 (0, 1), signals={"cmd": 1.0}, backend="native"),
         ParameterError, ["backend 'native'", "external signal"]),
    Case("hybrid-native-continuous-controller",
         lambda: simulate_hybrid(HybridModel.build(_forced_graph(), [], []), (0, 1), backend="native",
                                 controller=Controller(lambda t, y: {"force": 1.0}, ["force"])),
         ParameterError, ["backend 'native'", "continuous controller"]),
    Case("state-event-unknown-state", lambda: StateEvent(_forced(), "forced/v.y", 1.0),
         ParameterError, ["forced/v.y", "not a state", "forced/v.x"]),
    Case("state-event-bad-threshold", lambda: StateEvent(_forced(), "forced/v.x", float("nan")),
         ParameterError, ["threshold = nan", "finite"]),
    Case("state-event-bad-sign-and-direction",
         lambda: StateEvent(_forced(), "forced/v.x", 1.0, sign=2, direction=5),
         ParameterError, ["sign = 2", "direction = 5"]),
    Case("cosim-backend-unknown",
         lambda: ModelSubsystem(_forced(), "m", inputs={"F": ("force", "N")},
                                outputs={"x": ("forced/v.x", "m")}, method="CVODE", backend="gpu"),
         ParameterError, ["backend 'gpu'", "subsystem 'm'"]),
    Case("cosim-native-with-lsoda",
         lambda: ModelSubsystem(_forced(), "m", inputs={"F": ("force", "N")},
                                outputs={"x": ("forced/v.x", "m")}, method="LSODA", backend="native"),
         ParameterError, ["subsystem 'm'", "backend 'native'", "LSODA", "CVODE only"]),
    Case("cosim-method-unknown-lists-cvode",
         lambda: ModelSubsystem(_forced(), "m", inputs={"F": ("force", "N")},
                                outputs={"x": ("forced/v.x", "m")}, method="cvode"),
         ParameterError, ["subsystem 'm'", "'cvode'", "LSODA, CVODE"]),
    Case("cosim-native-callable-signal",     # at construction, not at the first step
         lambda: ModelSubsystem(_forced2(), "m", inputs={"F": ("force", "N")},
                                outputs={"x": ("forced2/v.x", "m")}, method="CVODE",
                                backend="native", signals={"gain": np.cos}),
         ParameterError, ["backend 'native'", "gain", "callable"]),
]


def _forced_graph():
    M = bg.BondGraph("forced")
    M.add(bg.MSe("F", bg.Input("force")), bg.One("v", displacement="x"), bg.I("m", 1.0), bg.R("b", 1.0))
    for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
        M.connect(a, b)
    return M


def _forced2():
    M = bg.BondGraph("forced2")
    M.add(bg.MSe("F", bg.Input("force") * bg.Input("gain")), bg.One("v", displacement="x"),
          bg.I("m", 1.0), bg.R("b", 1.0))
    for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
        M.connect(a, b)
    return bg.build(M)


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_native(case):
    check(case)
