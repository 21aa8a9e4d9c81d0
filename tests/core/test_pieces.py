"""A table's pieces (:class:`bondgraph.signals.Pieces`) evaluate as scipy's ``PPoly`` does,
to the last bit, and a table no longer loads scipy.interpolate."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from scipy.interpolate import PPoly

from bondgraph.signals import Pieces, Table


@pytest.mark.parametrize("degree", [0, 1, 3])
def test_pieces_match_ppoly_bit_for_bit(degree):
    rng = np.random.default_rng(7 + degree)
    x = np.cumsum(rng.uniform(0.01, 2.0, 30))
    c = rng.normal(size=(degree + 1, 29)) * 10.0 ** rng.integers(-3, 4, size=(degree + 1, 29))
    t = np.concatenate([rng.uniform(x[0] - 1, x[-1] + 1, 2000), x, np.nextafter(x, -np.inf),
                        np.nextafter(x, np.inf)])
    ours, ref = Pieces(c, x), PPoly(c, x)
    np.testing.assert_array_equal(ours(t), ref(t))
    np.testing.assert_array_equal(ours.derivative()(t), ref.derivative()(t))
    for tt in t[:50]:
        assert float(ours(tt)) == float(ref(tt))


def test_a_table_is_the_piecewise_linear_interpolation():
    tab = Table([0.0, 1.0, 3.0, 4.0], [0.0, 2.0, -2.0, -2.0])
    t = np.linspace(-1, 5, 601)
    np.testing.assert_allclose(tab.values_at(t), np.interp(t, tab.times, tab.values), rtol=0, atol=1e-15)
    assert tab.derivative(0.5) == 2.0 and tab.derivative(2.0) == -2.0 and tab.derivative(1.0) == -2.0
    assert tab.derivative(4.0) == 0.0 and tab.derivative(5.0) == 0.0       # held after the end


def test_a_table_loads_no_scipy_interpolate():
    code = ("import sys, json\nfrom bondgraph.signals import Table\n"
            "t = Table([0, 1, 2], [0, 1, 0]); t.value(0.5); t.pack(); t.values_at([0.1, 1.5])\n"
            "print(json.dumps('scipy.interpolate' in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) is False
