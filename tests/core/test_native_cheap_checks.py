"""The native driver's cheap per-step checks give the runs the full checks give.

After every accepted step the driver reads the divisors (rule R6 of
:mod:`bondgraph.stepping`). Its cheap reading, ``bg_monw``, evaluates the moduli at the
step's end and takes each block's measure from the factors the step's last right-hand
side left in the work array; it is used only when every value is far from every
threshold, else the full monitor ``bg_mon`` is evaluated as before. Checked here: at the
same point the cheap reading equals the full one (moduli and normalised determinants of
a coupled block, against numpy's determinant), and native runs through dead centres and
a singular coupled block are the same with the cheap reading as without it (same steps,
same located times, same messages and warnings).
"""

from __future__ import annotations

import ctypes
import math
import warnings

import numpy as np
import pytest
import sympy as sp

import bondgraph as bg
from bondgraph.errors import SimulationError
from bondgraph.native import driver as native_driver
from bondgraph.native.driver import load_driver
from test_native import _coupled   # E = [[M·n², M·n], [M·n, m2 + M]], n = cos t, M = 2, m2 = 1

pytestmark = pytest.mark.skipif(not load_driver().ok, reason="no native CVODE driver here")


def _crank():
    """A crank driven through ``n(θ) = r·d·sin θ / L(θ)`` with the rod mass as state: the
    equations divide by the modulus, zero at every dead centre."""
    r, d = 0.3, 1.0
    M = bg.BondGraph("crank")
    w = bg.One("w", displacement="theta", initial=0.5)
    th = w.displacement
    n = r * d * sp.sin(th) / sp.sqrt(r**2 + d**2 - 2 * r * d * sp.cos(th))
    M.add(bg.I("m", 2.0, initial=0.5, prefer="state"), bg.One("v"), w, bg.I("J", 0.5),
          bg.Se("F", 100.0), bg.MTF("rod", n))
    for a, b in [("w", "J"), ("w", "rod/1"), ("rod/2", "v"), ("v", "m"), ("F", "v")]:
        M.connect(a, b)
    return bg.build(M)


def _cheap_reading(system, t: float, x: np.ndarray) -> np.ndarray:
    """``bg_rhs`` at ``(t, x)`` with mode 2 (as the driver calls it), then ``bg_monw``."""
    fn = system._lib.bg_monw
    fn.argtypes = [ctypes.c_double] + [ctypes.c_void_p] * 7 + [ctypes.c_int]
    fn.restype = ctypes.c_int
    xdot = np.zeros(system.nx)
    system._call(system._rhs, t, x, xdot.ctypes.data, mode=2)
    out = np.zeros(len(system.divisors))
    st = fn(t, system._xp, system._ptr["_u"], system._ptr["_du"], system._pp, system._ptr["_U"],
            out.ctypes.data, system._ptr["_work"], 0)
    assert st == 0
    return out


@pytest.mark.parametrize("case", ["crank", "coupled"])
def test_the_cheap_reading_equals_the_full_monitor_at_the_same_point(case):
    model = _crank() if case == "crank" else _coupled()
    system = model.system
    x0 = model.initial_state()
    for t, scale in [(0.0, 1.0), (0.7, 0.5), (1.3, 2.0)]:
        x = x0 * scale + 0.1 * t
        full, st = system.monitors(t, x)
        assert st == 0
        cheap = _cheap_reading(system, t, x)
        np.testing.assert_allclose(cheap, full, rtol=1e-13, atol=0)
        if case == "coupled":   # the normalised determinant, independently
            n, Mm, m2 = math.cos(t), 2.0, 1.0
            E = np.array([[Mm * n * n, Mm * n], [Mm * n, m2 + Mm]])
            ref = np.linalg.det(E) / np.prod(np.linalg.norm(E, axis=1))
            assert cheap[0] == pytest.approx(ref, rel=1e-12)


def _run(model, cheap: bool, monkeypatch, **kw):
    """A native CVODE run with or without the cheap reading: (results, error, warnings)."""
    with monkeypatch.context() as mp:
        if not cheap:
            init = native_driver.Session.__init__

            def without(self, *a, **k):
                init(self, *a, **k)
                self.lib.bgn_set_monw(self.h, None)

            mp.setattr(native_driver.Session, "__init__", without)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            try:
                res, err = bg.simulate(model, method="CVODE", backend="native", progress=False, **kw), None
            except SimulationError as exc:
                res, err = exc.results, exc
    return res, err, [str(w.message) for w in rec]


@pytest.mark.parametrize("case", ["dead-centres-warned", "dead-centre-stops", "coupled-singular"])
def test_native_runs_are_the_same_with_and_without_the_cheap_reading(case, monkeypatch):
    if case == "coupled-singular":
        model, kw = _coupled(), dict(t_span=(0, 3))
    else:
        model = _crank()
        kw = dict(t_span=(0, 3), rtol=1e-9, atol=1e-11,
                  singular="warn" if case == "dead-centres-warned" else "error")
    (r1, e1, w1), (r0, e0, w0) = _run(model, True, monkeypatch, **kw), _run(model, False, monkeypatch, **kw)
    assert (e1 is None) == (e0 is None)
    if e0 is not None:
        assert e1.time == e0.time and str(e1) == str(e0)
    assert w1 == w0
    assert [r1.stats[k] for k in ("nfev", "njev", "steps")] == [r0.stats[k] for k in ("nfev", "njev", "steps")]
    np.testing.assert_array_equal(r1.t, r0.t)
    np.testing.assert_array_equal(r1.x, r0.x)
    if case == "coupled-singular":
        assert e1.time == pytest.approx(math.pi / 2, abs=1e-8) and "became singular" in str(e1)
    elif case == "dead-centre-stops":
        assert e1 is not None and "MTF 'crank/rod' modulus" in str(e1)
        assert math.sin(e1.state["crank/w.theta"]) == pytest.approx(0.0, abs=1e-6)
    else:
        assert len(w1) >= 1 and r1.t[-1] == pytest.approx(3.0)
