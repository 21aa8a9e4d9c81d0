"""Bad inputs of the native integration: backends and what the native path cannot run."""

from __future__ import annotations

import numpy as np
import pytest

import bondgraph as bg
from bondgraph import ParameterError
from bondgraph.hybrid import Above, Discrete, HybridModel, Transition, When, simulate_hybrid
from bondgraph.native.cvode import NativeCvode

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


CASES = [
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
    Case("native-cvode-bad-atol", lambda: NativeCvode(_forced().system, rtol=1e-6, atol=[1e-9, 1e-9, 1e-9])
         .segment(0.0, 1.0, np.zeros(2), None),
         ParameterError, ["atol", "3", "2 states"]),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_native(case):
    check(case)
