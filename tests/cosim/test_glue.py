"""Glue polynomials: exactness, start-up, interpolation, validation."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bondgraph.cosim import Glue, evaluate, extrapolate, taylor_matrix
from bondgraph.errors import ParameterError

coef = st.floats(-1e3, 1e3, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(a=coef, b=coef, c=coef, t0=st.floats(-10, 10), h1=st.floats(1e-3, 1.0),
       h2=st.floats(1e-3, 1.0), tau=st.floats(0, 2.0))
def test_quadratic_extrapolation_is_exact_for_quadratics_on_uneven_samples(a, b, c, t0, h1, h2,
                                                                            tau):
    def f(t):
        return a + b * t + c * t * t
    t = np.array([t0, t0 + h1, t0 + h1 + h2])
    C = extrapolate(t, f(t)[:, None], at=t[-1], order=2)
    scale = 1 + abs(a) + abs(b) * 12 + abs(c) * 150
    assert C[0, 0] == pytest.approx(f(t[-1]), abs=1e-9 * scale)
    assert C[1, 0] == pytest.approx(b + 2 * c * t[-1], abs=1e-6 * scale / min(h1, h2))
    assert C[2, 0] == pytest.approx(2 * c, abs=1e-6 * scale / min(h1, h2) ** 2)
    assert evaluate(C, tau)[0] == pytest.approx(f(t[-1] + tau), abs=1e-5 * scale / min(h1, h2) ** 2)


@pytest.mark.parametrize("order,expected", [(0, 4.0), (1, 4.0 + 3.0), (2, 9.0)])
def test_each_order_extrapolates_t_squared_as_its_polynomial(order, expected):
    t = np.array([0.0, 1.0, 2.0])
    C = extrapolate(t, (t ** 2)[:, None], at=2.0, order=order)
    assert evaluate(C, 1.0)[0] == pytest.approx(expected)


def test_interpolation_between_points_expanded_at_an_older_point():
    t = np.array([0.0, 1.0, 2.0])
    y = np.exp(t)
    C = extrapolate(t, y[:, None], at=1.0, order=2)   # expansion at the middle sample
    assert C[0, 0] == pytest.approx(math.e)
    assert evaluate(C, 0.5)[0] == pytest.approx(np.polyval(np.polyfit(t, y, 2), 1.5))


def test_startup_uses_derivatives_hermite_and_taylor():
    # one sample + two derivatives: Taylor polynomial
    C = extrapolate([0.0], [[1.0]], at=0.0, order=2, derivatives=[[2.0], [6.0]])
    assert C[:, 0].tolist() == [1.0, 2.0, 6.0]
    # two samples + one derivative at the newest: quadratic Hermite, exact for t^2
    t = np.array([1.0, 2.0])
    C = extrapolate(t, (t ** 2)[:, None], at=2.0, order=2, derivatives=[[4.0]])
    assert np.allclose(C[:, 0], [4.0, 4.0, 2.0])
    # without derivatives the order is reduced
    C = extrapolate(t, (t ** 2)[:, None], at=2.0, order=2)
    assert np.allclose(C[:, 0], [4.0, 3.0, 0.0])


def test_taylor_matrix_refuses_an_overdetermined_fit():
    with pytest.raises(ParameterError, match="3 samples and 1 derivatives give a degree above "
                                             "order 2"):
        taylor_matrix([0.0, 1.0, 2.0], 2.0, 2, n_derivatives=1)


def test_taylor_matrix_scales_with_the_step():
    # the cached unit matrix must give the same polynomial at any step size
    for h in (1e-6, 1e-3, 10.0):
        M = taylor_matrix([-2 * h, -h, 0.0], 0.0, 2)
        assert np.allclose(M @ np.array([4 * h * h, h * h, 0.0]), [0.0, 0.0, 2.0], rtol=1e-8)


def test_glue_validation_lists_every_problem():
    with pytest.raises(ParameterError) as info:
        Glue("cubic", start="guess", interpolate="yes")
    assert len(info.value.problems) == 3
    assert "order: found 'cubic'" in str(info.value)
    assert "start: found 'guess', expected 'derivatives' or 'reduced'" in str(info.value)
    assert Glue("ZOH").order == 0 and Glue(1).name == "linear"
