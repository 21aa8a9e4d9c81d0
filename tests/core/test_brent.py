"""Brent's root and bounded minimum (``bondgraph.brent``, what the step loop locates events
with): against closed forms and against scipy's ``brentq`` and bounded ``minimize_scalar``,
which implement the same published methods."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq, minimize_scalar

from bondgraph.brent import minimum, root
from bondgraph.errors import ParameterError

EPS = np.finfo(float).eps


@pytest.mark.parametrize("f, a, b, exact", [
    (lambda x: x * x - 2.0, 0.0, 2.0, math.sqrt(2.0)),
    (math.cos, 0.0, 3.0, math.pi / 2),
    (lambda x: math.exp(x) - 3.0, -5.0, 5.0, math.log(3.0)),
    (lambda x: (x - 1e-3) ** 3, -1.0, 1.0, 1e-3),            # a triple root: interpolation is slow
    (lambda x: math.atan(50.0 * (x - 7.25)), 7.0, 8.0, 7.25),   # steep, almost a step
])
def test_root_closed_forms(f, a, b, exact):
    x = root(f, a, b, xtol=4 * EPS, rtol=4 * EPS)
    assert abs(x - exact) <= 8 * EPS * max(1.0, abs(exact))     # the bracket always holds a sign change


def test_root_to_machine_precision_where_the_function_is_regular():
    for exact in (0.1, 1.0, math.pi, 12.5):
        x = root(lambda s: math.sin(s - exact), exact - 1.0, exact + 0.7, xtol=4 * EPS, rtol=4 * EPS)
        assert abs(x - exact) <= 8 * EPS * max(1.0, exact)


def test_root_matches_scipy_brentq_on_random_cubics():
    rng = np.random.default_rng(7)
    same = 0
    for _ in range(300):
        r0, r1, r2 = np.sort(rng.uniform(-3.0, 3.0, 3))
        scale = rng.uniform(0.1, 100.0)

        def f(x):
            return scale * (x - r0) * (x - r1) * (x - r2)

        lo, hi = r0 - rng.uniform(0.01, 2.0), 0.5 * (r0 + r1)
        ours = root(f, lo, hi, xtol=4 * EPS, rtol=4 * EPS)
        theirs = brentq(f, lo, hi, xtol=4 * EPS, rtol=4 * EPS)
        assert abs(ours - theirs) <= 16 * EPS * max(1.0, abs(theirs))
        assert abs(ours - r0) <= 1e-12 * max(1.0, abs(r0))
        same += ours == theirs
    assert same >= 285      # the same method: the same root (all 300 with scipy 1.17)


def test_root_ends_and_bad_brackets():
    assert root(lambda x: x, 0.0, 1.0) == 0.0
    assert root(lambda x: x - 1.0, 0.0, 1.0) == 1.0
    with pytest.raises(ParameterError, match="opposite signs"):
        root(lambda x: x * x + 1.0, -1.0, 1.0)
    with pytest.raises(ParameterError, match="nan"):
        root(lambda x: float("nan"), -1.0, 1.0)


@pytest.mark.parametrize("f, a, b, exact", [
    (lambda x: (x - 0.3) ** 2 + 1.0, 0.0, 1.0, 0.3),
    (lambda x: -math.sin(x), 0.0, 3.0, math.pi / 2),
    (lambda x: math.cosh(x - 2.0), -1.0, 10.0, 2.0),
    (lambda x: x ** 4 - x, 0.0, 2.0, 0.25 ** (1 / 3)),
])
def test_minimum_closed_forms(f, a, b, exact):
    x, fx = minimum(f, a, b, xtol=1e-12)
    assert abs(x - exact) < 1e-7        # √ε: a minimum is flat to first order
    assert fx == f(x) and fx <= f(exact) + 1e-14


def test_minimum_at_an_end_approaches_it():
    x, _ = minimum(lambda s: s, 2.0, 3.0, xtol=1e-9)      # decreasing towards the left end
    assert 2.0 < x < 2.0 + 1e-6


def test_minimum_matches_scipy_bounded_on_random_quartics():
    rng = np.random.default_rng(11)
    same = 0
    for _ in range(300):
        c = rng.normal(size=5)
        c[0] = abs(c[0]) + 0.1

        def f(x):
            return float(np.polyval(c, x))

        a, b = sorted(rng.uniform(-2.0, 2.0, 2))
        if b - a < 1e-3:
            continue
        xtol = max(1e-9 * (b - a), 4 * EPS * abs(b))
        ours, fo = minimum(f, a, b, xtol=xtol)
        res = minimize_scalar(f, bounds=(a, b), method="bounded", options={"xatol": xtol})
        same += ours == float(res.x)
        assert fo <= float(res.fun) + 1e-9 * (1.0 + abs(float(res.fun))) or abs(ours - float(res.x)) < 1e-6
    assert same >= 285      # the same method and constants: the same minimiser (all 300 with scipy 1.17)
