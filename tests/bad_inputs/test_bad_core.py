"""Bad inputs to the core: element parameters and laws, build, set_params (issue 10)."""

import pytest
import sympy as sp

import bondgraph as bg
from bondgraph.laws import Law, time_limit
from components.hydraulics import nominal_flow

from .catalogue import Case, check, ids

NAN, INF = float("nan"), float("inf")
SIGN_SQRT = lambda dp: 2 * sp.sign(dp) * sp.sqrt(sp.Abs(dp))  # noqa: E731


def fed_by_flow(resistor, name="m"):
    """A flow source into a resistor: the resistor must give the effort (its law inverted)."""
    M = bg.BondGraph(name)
    M.add(bg.Sf("Q", 1e-3), bg.One("j"), resistor)
    M.connect("Q", "j")
    M.connect("j", resistor.name)
    return M


def msd():
    M = bg.BondGraph("msd")
    M.add(bg.Se("F", 1.0), bg.One("v"), bg.I("m", 2.0), bg.C.spring("k", 50.0), bg.R("b", 0.3),
          bg.TF("lever", 0.5), bg.One("w"), bg.I("J", 0.1))
    for a, b in [("F", "v"), ("v", "m"), ("v", "k"), ("v", "b"), ("v", "lever/1"), ("lever/2", "w"),
                 ("w", "J")]:
        M.connect(a, b)
    return M


def set_params(values):
    return lambda: bg.build(msd()).set_params(values)


def modulated():
    c = sp.Symbol("c")
    M = bg.BondGraph("mod")
    M.add(bg.Se("F", 1.0), bg.One("v"), bg.I("m", 1.0), bg.MR("b", 2 * c - 1))
    for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
        M.connect(a, b)
    return M


def with_limit(seconds, fn):
    def call():
        with time_limit(seconds):
            return fn()
    return call


def nonlinear_c_in_derivative_causality(law):
    M = bg.BondGraph("cd")
    M.add(bg.MSe("u", 1 + bg.t), bg.Zero("n"), bg.C("s", law=law), bg.One("br"), bg.I("m", 1.0))
    for a, b in [("u", "n"), ("n", "s"), ("n", "br"), ("br", "m")]:
        M.connect(a, b)
    return M


P, E, M_ = bg.ParameterError, bg.EquationError, bg.ModelStructureError

CASES = [
    # ---- element parameters: meaningless numbers (item 6)
    Case("I-mass-nan", lambda: bg.I("m", NAN), P, ["I 'm'", "parameter 'm'", "nan", "finite"]),
    Case("I-mass-inf", lambda: bg.I("m", INF), P, ["I 'm'", "inf"]),
    Case("I-mass-negative", lambda: bg.I("m", -1.0), P, ["I 'm'", "-1.0", "≥ 0"]),
    Case("I-mass-text", lambda: bg.I("m", "heavy"), P, ["I 'm'", "'heavy' (text)"]),
    Case("I-energy-state-zero-mass", lambda: bg.I("m", 0.0, state="energy"), P,
         ["I 'm'", "> 0", "co-energy"]),
    Case("I-initial-nan", lambda: bg.I("m", 1.0, initial=NAN), P, ["I 'm'", "initial", "nan"]),
    Case("I-state-form", lambda: bg.I("m", 1.0, state="momentum"), P, ["I 'm'", "'momentum'"]),
    Case("I-law-not-callable", lambda: bg.I("m", law=3.0), P, ["I 'm'", "law", "callable"]),
    Case("C-compliance-nan", lambda: bg.C("c", NAN), P, ["C 'c'", "parameter 'c'", "nan"]),
    Case("C-compliance-negative", lambda: bg.C("c", -1e-3), P, ["C 'c'", "-0.001", "≥ 0"]),
    Case("C-spring-nan", lambda: bg.C.spring("k", NAN), P, ["C 'k'", "stiffness", "nan"]),
    Case("C-spring-negative", lambda: bg.C.spring("k", -5.0), P, ["C 'k'", "stiffness", "-5.0"]),
    Case("R-nan", lambda: bg.R("b", NAN), P, ["R 'b'", "parameter 'r'", "nan"]),
    Case("R-inf", lambda: bg.R("b", INF), P, ["R 'b'", "inf"]),
    Case("R-negative", lambda: bg.R("b", -1e3), P, ["R 'b'", "-1000.0", "> 0", "passive=False"]),
    Case("R-zero", lambda: bg.R("b", 0.0), P, ["R 'b'", "found 0.0", "> 0"]),
    Case("R-zero-active", lambda: bg.R("b", 0, passive=False), P, ["R 'b'", "non-zero"]),
    Case("R-callable-as-r", lambda: bg.R("b", lambda e: 2 * e), P, ["R 'b'", "callable", "flow="]),
    Case("R-law-not-callable", lambda: bg.R("b", flow=2.0), P, ["R 'b'", "flow", "callable"]),
    Case("R-r-and-law", lambda: bg.R("b", 1.0, flow=lambda e: e), P, ["R 'b'", "exactly one"]),
    Case("build-active-law", lambda: bg.build(_effort_fed(bg.R("b", flow=lambda e: -2 * e))), E,
         ["R 'e/b'", "not passive", "e·f", "< 0", "passive=False"]),
    Case("R-passive-flag", lambda: bg.R("b", 1.0, passive="yes"), P, ["R 'b'", "passive", "'yes'"]),
    Case("Se-nan", lambda: bg.Se("F", NAN), P, ["Se 'F'", "effort", "nan"]),
    Case("Se-inf", lambda: bg.Se("F", -INF), P, ["Se 'F'", "-inf"]),
    Case("Se-callable", lambda: bg.Se("F", lambda t: t), P, ["Se 'F'", "callable"]),
    Case("Sf-nan", lambda: bg.Sf("Q", NAN), P, ["Sf 'Q'", "flow", "nan"]),
    Case("Sf-text", lambda: bg.Sf("Q", "lots"), P, ["Sf 'Q'", "'lots' (text)"]),
    Case("TF-zero", lambda: bg.TF("lever", 0.0), P, ["TF 'lever'", "modulus", "non-zero"]),
    Case("TF-inf", lambda: bg.TF("lever", INF), P, ["TF 'lever'", "inf"]),
    Case("GY-zero", lambda: bg.GY("motor", 0), P, ["GY 'motor'", "modulus", "non-zero"]),
    Case("GY-nan", lambda: bg.GY("motor", NAN), P, ["GY 'motor'", "nan"]),
    Case("MTF-nan", lambda: bg.MTF("arm", NAN), P, ["MTF 'arm'", "nan"]),
    Case("junction-initial-inf", lambda: bg.One("w", displacement="theta", initial=INF), P,
         ["1-junction 'w'", "initial", "inf"]),
    Case("Law-not-callable", lambda: Law(2.0), P, ["Law", "forward", "callable"]),
    Case("Law-inverse-and-refusal", lambda: Law(lambda x: x, inverse=lambda y: y, not_invertible="no"),
         P, ["Law", "not both"]),
    Case("time-limit-negative", lambda: time_limit(-1.0).__enter__(), P, ["time_limit", "-1.0"]),
    # ---- build: laws that cannot be inverted in the causality the graph gives (items 1, 2)
    Case("build-law-two-inverses", lambda: bg.build(fed_by_flow(bg.R("r", flow=lambda e: e**2, passive=False))),
         E, ["R 'm/r'", "effort-out causality", "cannot be inverted", "declare the inverse"]),
    Case("build-dead-zone", with_limit(1.0, lambda: bg.build(fed_by_flow(bg.R("r", flow=lambda e: sp.Piecewise(
        (0, sp.Abs(e) < 1), (e, True)))))), E, ["R 'm/r'", "cannot be inverted", "change the causality"]),
    Case("build-nominal-flow-hang", with_limit(1.0, lambda: bg.build(fed_by_flow(bg.R(
        "r", flow=lambda dp: nominal_flow(dp, 1.0, 1e-3, 3e5, 1e4))))), E, ["R 'm/r'", "within 1 s", "declare the inverse"], timeout=20.0),
    Case("build-not-invertible", lambda: bg.build(fed_by_flow(bg.R("r", flow=Law(
        lambda dp: sp.Max(dp, 0), not_invertible="a check valve blocks reverse flow")))),
        E, ["R 'm/r'", "a check valve blocks reverse flow"]),
    Case("build-wrong-declared-inverse", lambda: bg.build(fed_by_flow(bg.R("r", flow=Law(
        SIGN_SQRT, inverse=lambda q: q**2 / 4)))), E, ["R 'm/r'", "declared inverse does not invert"]),
    Case("build-wrong-pair", lambda: bg.build(fed_by_flow(bg.R("r", flow=SIGN_SQRT, effort=lambda q: q / 4))),
         E, ["R 'm/r'", "flow= and effort=", "does not invert"]),
    Case("build-effort-law-given-effort", lambda: bg.build(_effort_fed(bg.R("r", effort=lambda f: f**2, passive=False))),
         E, ["R 'e/r'", "flow-out causality", "cannot be inverted"]),
    Case("build-C-law-derivative-causality", with_limit(1.0, lambda: bg.build(
        nonlinear_c_in_derivative_causality(lambda q: q**2 + q**4))), E,
        ["C 'cd/s'", "derivative causality", "cannot be inverted"]),
    Case("build-empty-model", lambda: bg.build(bg.BondGraph("nothing")), M_, ["'nothing'", "no elements"]),
    Case("build-param-nan", lambda: bg.build(modulated(), params={"c": NAN}), P, ["'c'", "nan", "finite"]),
    Case("build-param-text", lambda: bg.build(modulated(), params={"c": "two"}), P, ["'c'", "'two'"]),
    Case("build-param-expression-negative", lambda: bg.build(modulated(), params={"c": 0.25}), P,
         ["'mod/b.r' = 2*c - 1", "found -0.5", "> 0"]),
    # ---- set_params (item 6)
    Case("set-negative-mass", set_params({"msd/m.m": -1.0}), P, ["'msd/m.m'", "-1.0", "≥ 0 (mass"]),
    Case("set-nan-mass", set_params({"msd/m.m": NAN}), P, ["'msd/m.m'", "nan"]),
    Case("set-inf-force", set_params({"msd/F.e": INF}), P, ["'msd/F.e'", "inf"]),
    Case("set-text", set_params({"msd/b.r": "soft"}), P, ["'msd/b.r'", "'soft'"]),
    Case("set-none", set_params({"msd/k.c": None}), P, ["'msd/k.c'", "None"]),
    Case("set-zero-resistance", set_params({"msd/b.r": 0.0}), P, ["'msd/b.r'", "> 0"]),
    Case("set-zero-modulus", set_params({"msd/lever.n": 0}), P, ["'msd/lever.n'", "non-zero"]),
    Case("set-unknown", set_params({"msd/m.mass": 1.0}), P, ["'msd/m.mass'", "did you mean", "'msd/m.m'"]),
    Case("set-all-at-once", set_params({"msd/m.m": -1.0, "msd/J.m": NAN, "msd/q": 1.0}), P,
         ["3 problems", "'msd/m.m'", "'msd/J.m'", "'msd/q'"]),
    Case("set-expression-rule", lambda: bg.build(modulated(), params={"c": 2.0}).set_params({"c": 0.5}),
         P, ["'mod/b.r' = 2*c - 1", "found 0.0"]),
    Case("build-params-a-list", lambda: bg.build(msd(), [0.5]), bg.ParameterError,
         ["build('msd')", "params [0.5]", "list", "expected a dict"]),
]


def _effort_fed(resistor):
    M = bg.BondGraph("e")
    M.add(bg.Se("P", 2.0), bg.One("j"), resistor)
    M.connect("P", "j")
    M.connect("j", resistor.name)
    return M


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_core_input(case):
    check(case)


def test_the_catalogue_is_large_enough():
    assert len(CASES) >= 50
    assert len(set(ids(CASES))) == len(CASES)
