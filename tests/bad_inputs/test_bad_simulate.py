"""Bad inputs to simulate, linearize and equilibrium (issue 10): each is one named error.

Every case is a call a user could make by mistake; ``check`` asserts exactly one error of
our family, of the expected class, whose message names the culprit.
"""

from functools import lru_cache

import numpy as np
import pytest
import sympy as sp

import bondgraph as bg
from bondgraph import ParameterError, SimulationError
from bondgraph.errors import UnknownNameError, UserCallableError

from .catalogue import Case, check, ids


@lru_cache(maxsize=None)
def cart():
    """A mass pushed by an input force: states cart/m.f and cart/v.x."""
    M = bg.BondGraph("cart")
    M.add(bg.MSe("F", bg.Input("force")), bg.One("v", displacement="x"), bg.I("m", 2.0),
          bg.R("b", 0.5))
    for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
        M.connect(a, b)
    return bg.build(M)


@lru_cache(maxsize=None)
def free_mass():
    """A mass under a constant force: no inputs."""
    M = bg.BondGraph("free")
    M.add(bg.Se("F", 1.0), bg.One("v"), bg.I("m", 1.0))
    M.connect("F", "v")
    M.connect("v", "m")
    return bg.build(M)


@lru_cache(maxsize=None)
def rooted():
    """A mass pushed by √u: the force has no derivative, and no value below, u = 0."""
    M = bg.BondGraph("root")
    M.add(bg.MSe("F", sp.sqrt(bg.Input("u"))), bg.One("v"), bg.I("m", 1.0), bg.R("b", 1.0))
    for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
        M.connect(a, b)
    return bg.build(M)


def sim(**kw):
    span = kw.pop("t_span", (0, 1))
    kw.setdefault("inputs", {"force": 1.0})
    kw.setdefault("progress", False)
    return lambda: bg.simulate(cart(), span, **kw)


def raising(t):
    raise OSError("sensor offline")


CASES = [
    Case("span-to-inf", sim(t_span=(0, np.inf)), ParameterError, ["t_span", "non-finite"]),
    Case("span-nan", sim(t_span=(0, float("nan"))), ParameterError, ["t_span", "non-finite"]),
    Case("span-reversed", sim(t_span=(1, 0)), ParameterError, ["t_span", "t1 > t0"]),
    Case("span-empty", sim(t_span=(1, 1)), ParameterError, ["t_span", "t1 > t0"]),
    Case("span-three-times", sim(t_span=(0, 1, 2)), ParameterError, ["t_span", "two numbers"]),
    Case("span-text", sim(t_span="0-10"), ParameterError, ["t_span"]),
    Case("tolerances-ten", sim(rtol=10, atol=10), ParameterError, ["rtol = 10", "0.1"]),
    Case("rtol-negative", sim(rtol=-1), ParameterError, ["rtol = -1", "[2.2e-14, 0.1]"]),
    Case("rtol-zero", sim(rtol=0), ParameterError, ["rtol = 0"]),
    Case("rtol-nan", sim(rtol=float("nan")), ParameterError, ["rtol = nan"]),
    Case("rtol-text", sim(rtol="1e-6"), ParameterError, ["rtol = '1e-6'"]),
    Case("atol-negative", sim(atol=-1e-9), ParameterError, ["atol = -1e-09", "≥ 0"]),
    Case("atol-nan", sim(atol=float("nan")), ParameterError, ["atol = nan"]),
    Case("atol-wrong-length", sim(atol=[1e-9] * 5), ParameterError, ["atol", "shape (5,)", "(2)"]),
    Case("max-step-zero", sim(max_step=0), ParameterError, ["max_step = 0", "positive"]),
    Case("max-step-negative", sim(max_step=-0.1), ParameterError, ["max_step = -0.1"]),
    Case("max-step-nan", sim(max_step=float("nan")), ParameterError, ["max_step = nan"]),
    Case("first-step-negative", sim(first_step=-1e-3), ParameterError, ["first_step = -0.001"]),
    Case("first-step-too-long", sim(first_step=5.0), ParameterError, ["first_step = 5.0", "longer than the span"]),
    Case("t-eval-outside", sim(t_eval=[0, 0.5, 2.0]), ParameterError, ["t_eval", "within t_span"]),
    Case("t-eval-unsorted", sim(t_eval=[0, 0.5, 0.2]), ParameterError, ["t_eval", "increase"]),
    Case("t-eval-nan", sim(t_eval=[0, float("nan")]), ParameterError, ["t_eval", "non-finite"]),
    Case("t-eval-2d", sim(t_eval=[[0, 1], [0.5, 0.7]]), ParameterError, ["t_eval", "shape (2, 2)"]),
    Case("x0-nan", sim(x0={"cart/m.f": float("nan")}), ParameterError, ["x0['cart/m.f'] = nan"]),
    Case("x0-array-inf", sim(x0=np.array([np.inf, 0.0])), ParameterError, ["x0", "non-finite values for cart/v.x"]),
    Case("x0-text", sim(x0={"cart/m.f": "fast"}), ParameterError, ["x0['cart/m.f'] = 'fast'"]),
    Case("x0-unknown-state", sim(x0={"cart/m.g": 1.0}), ParameterError, ["cart/m.g", "no such state", "cart/m.f"]),
    Case("x0-wrong-length", sim(x0=np.zeros(3)), ParameterError, ["x0", "shape (3,)"]),
    Case("input-nan", sim(inputs={"force": float("nan")}), ParameterError, ["input 'force'", "nan"]),
    Case("input-inf", sim(inputs={"force": np.inf}), ParameterError, ["input 'force'", "inf"]),
    Case("input-table-nan", lambda: bg.Table([0, 1], [0, float("nan")], name="force"), ParameterError,
         ["table 'force'", "non-finite values"]),
    Case("input-spline-unsorted", lambda: bg.Spline([0, 2, 1], [0, 1, 2], name="force"), ParameterError,
         ["spline 'force'", "increase"]),
    Case("input-missing", sim(inputs={}), ParameterError, ["input 'force' has no signal"]),
    Case("input-unknown", sim(inputs={"force": 1.0, "forse": 2.0}), ParameterError, ["'forse'", "no such input"]),
    Case("input-bool", sim(inputs={"force": True}), ParameterError, ["input 'force'", "got True"]),
    Case("input-expression-of-x", sim(inputs={"force": sp.Symbol("x")}), ParameterError, ["input 'force'", "of t only"]),
    Case("input-raises", sim(inputs={"force": raising}), UserCallableError,
         ["input 'force'", "function 'raising'", "OSError: sensor offline", "t = 0"]),
    Case("input-returns-nan", sim(inputs={"force": lambda t: float("nan")}), UserCallableError,
         ["input 'force'", "returned nan"]),
    Case("input-returns-list", sim(inputs={"force": lambda t: [1.0, 2.0]}), UserCallableError,
         ["input 'force'", "returned [1.0, 2.0]", "expected a number"]),
    Case("method-unknown", sim(method="Euler"), ParameterError, ["method 'Euler'", "CVODE"]),
    Case("method-none", sim(method=None), ParameterError, ["method None"]),
    Case("timeout-zero", sim(timeout=0), ParameterError, ["timeout = 0"]),
    Case("timeout-text", sim(timeout="1 h"), ParameterError, ["timeout = '1 h'"]),
    Case("blowup-below-one", sim(blowup=0.5), ParameterError, ["blowup = 0.5"]),
    Case("singular-unknown", sim(singular="maybe"), ParameterError, ["singular = 'maybe'", "'warn'"]),
    Case("max-steps-zero", sim(max_steps=0), ParameterError, ["max_steps = 0"]),
    Case("max-steps-float", sim(max_steps=1.5), ParameterError, ["max_steps = 1.5"]),
    Case("event-not-callable", sim(events=["ground"]), ParameterError, ["events[0] = 'ground'"]),
    Case("event-raises", sim(events=[lambda t, x: 1 / 0]), UserCallableError,
         ["event 0", "ZeroDivisionError"]),
    Case("event-returns-nan", sim(events=[lambda t, x: float("nan")]), UserCallableError,
         ["event 0", "returned nan"]),
    Case("all-at-once", sim(t_span=(0, np.inf), rtol=-1, atol=-1, max_step=0), ParameterError,
         ["t_span", "rtol = -1", "atol = -1", "max_step = 0", "4 problems"]),
    Case("linearize-t-nan", lambda: bg.linearize(cart(), inputs={"force": 1.0}, t=float("nan")),
         ParameterError, ["t = nan"]),
    Case("linearize-x-nan", lambda: bg.linearize(cart(), x={"cart/m.f": float("nan")}, inputs={"force": 1.0}),
         ParameterError, ["x['cart/m.f'] = nan"]),
    Case("linearize-input-at-its-domain-edge", lambda: bg.linearize(rooted(), inputs={"u": 0.0}), SimulationError,
         ["cannot linearise", "input 'u' = 0", "der(root/m.f)"]),
    Case("linearize-eps-zero", lambda: bg.linearize(cart(), inputs={"force": 1.0}, eps=0),
         ParameterError, ["eps = 0"]),
    Case("linearize-input-missing", lambda: bg.linearize(cart()), ParameterError, ["input 'force' has no signal"]),
    Case("equilibrium-unknown-state", lambda: bg.equilibrium(cart(), free=["cart/m.g"], inputs={"force": 1.0}),
         ParameterError, ["free: 'cart/m.g'", "did you mean"]),
    Case("equilibrium-no-free", lambda: bg.equilibrium(cart(), free=[], inputs={"force": 1.0}),
         ParameterError, ["no free states"]),
    Case("equilibrium-free-string", lambda: bg.equilibrium(cart(), free="cart/m.f", inputs={"force": 1.0}),
         ParameterError, ["free = 'cart/m.f'", "list of state names"]),
    Case("equilibrium-free-twice", lambda: bg.equilibrium(cart(), free=["cart/m.f", "cart/m.f"], inputs={"force": 1.0}),
         ParameterError, ["'cart/m.f' given more than once"]),
    Case("equilibrium-tol", lambda: bg.equilibrium(cart(), free=["cart/m.f"], inputs={"force": 1.0}, tol=0),
         ParameterError, ["tol = 0"]),
    Case("equilibrium-none", lambda: bg.equilibrium(cart(), free=["cart/v.x"], inputs={"force": 1.0}),
         SimulationError, ["no equilibrium for cart/v.x"]),
    # the model itself, and the plotting helpers
    Case("simulate-an-unbuilt-graph", lambda: bg.simulate(bg.BondGraph("g"), (0, 1)),
         ParameterError, ["simulate", "BondGraph", "bondgraph.build"]),
    Case("simulate-a-number", lambda: bg.simulate(42, (0, 1)), ParameterError, ["int", "built Model"]),
    Case("linearize-an-unbuilt-graph", lambda: bg.linearize(bg.BondGraph("g")), ParameterError,
         ["linearize", "BondGraph", "bondgraph.build"]),
    Case("equilibrium-an-unbuilt-graph", lambda: bg.equilibrium(bg.BondGraph("g"), free=["x"]),
         ParameterError, ["equilibrium", "BondGraph"]),
    Case("simulate-hybrid-a-plain-model", lambda: bg.simulate_hybrid(cart(), (0, 1)), ParameterError,
         ["simulate_hybrid", "Model", "HybridModel"]),
    Case("t-eval-empty", sim(t_eval=[]), ParameterError, ["t_eval", "empty"]),
    Case("draw-a-number", lambda: bg.draw_bond_graph(42), ParameterError, ["draw_bond_graph", "int"]),
    Case("plot-labels-mismatch", lambda: bg.plot_series(sim()(), ["cart/m.f", "cart/v.x"], labels=["v"]),
         ParameterError, ["1 labels for 2 names"]),
    Case("plot-unknown-name", lambda: bg.plot_series(sim()(), "cart/m.q"), bg.UnknownNameError,
         ["'cart/m.q'"]),
    Case("power-balance-of-none", lambda: bg.power_balance(None), ParameterError,
         ["power_balance", "NoneType", "energy=True"]),
    Case("results-plot-unknown-name", lambda: sim()().plot(["cart/m.q"]), bg.errors.UnknownNameError,
         ["Results.plot", "'cart/m.q'", "cart/m.f"]),
    Case("inputs-a-list", sim(inputs=["force"]), ParameterError, ["inputs ['force']", "list", "expected a dict",
                                                                "force"]),
    Case("inputs-a-name", sim(inputs="force"), ParameterError, ["inputs 'force'", "expected a dict"]),
    Case("linearize-inputs-a-list", lambda: bg.linearize(cart(), inputs=[1.0]), ParameterError,
         ["inputs [1.0]", "expected a dict"]),
    Case("state-event-bool-sign-and-direction",
         lambda: __import__("bondgraph.events", fromlist=["x"]).StateEvent(cart(), "cart/v.x", 1.0, sign=True,
                                                                          direction=False),
         ParameterError, ["sign = True", "direction = False"]),
    Case("plot-no-names", lambda: bg.plot_series(sim()(), []), ParameterError, ["plot_series", "no names"]),
    Case("t-span-a-string", sim(t_span="01"), ParameterError, ["t_span '01'", "two numbers"]),
    Case("table-times-text", lambda: bg.Table(["a", "b"], [1.0, 2.0], name="lift"), ParameterError,
         ["table 'lift'", "times", "expected numbers"]),
    Case("spline-values-text", lambda: bg.Spline([0.0, 1.0], [1.0, "x"], name="lift"), ParameterError,
         ["spline 'lift'", "values", "expected numbers"]),
    Case("spline-unknown-end-condition", lambda: bg.Spline([0.0, 1.0, 2.0], [0.0, 1.0, 0.0], bc_type="flat",
                                                            name="lift"),
         ParameterError, ["spline 'lift'", "bc_type = 'flat'", "clamped"]),
    Case("batch-inputs-text", lambda: __import__("bondgraph.batch", fromlist=["x"]).evaluate_many(
        cart().system, np.zeros((2, 2)), "abc"), ParameterError, ["inputs", "'abc'", "1 numbers"]),
    Case("batch-select-a-bool", lambda: __import__("bondgraph.batch", fromlist=["x"]).evaluate_many(
        cart().system, np.zeros((2, 2)), [1.0], select=[True]), ParameterError, ["output True"]),
    Case("batch-outputs-unknown", lambda: __import__("bondgraph.batch", fromlist=["x"]).evaluate_many(
        cart().system, np.zeros((2, 2)), [1.0], outputs=["e[cart/b1]", "e[cart/nope]", 3]), UnknownNameError,
         ["output 'e[cart/nope]'", "not an output of 'cart'", "output 3", "expected an output name"]),
    Case("batch-outputs-and-select", lambda: __import__("bondgraph.batch", fromlist=["x"]).evaluate_many(
        cart().system, np.zeros((2, 2)), [1.0], outputs=["e[cart/b1]"], select=["e[cart/b1]"]), ParameterError,
         ["outputs=", "takes no select="]),
    Case("batch-inputs-to-a-model-without-inputs", lambda: __import__("bondgraph.batch", fromlist=["x"]).evaluate_many(
        free_mass().system, np.zeros((2, 1)), [1.0, 2.0]), ParameterError, ["inputs", "2 values", "expected 0"]),
    Case("results-plot-not-a-name", lambda: sim()().plot(3), ParameterError, ["Results.plot", "[3]", "expected strings"]),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_simulate(case):
    check(case)
