"""CVODE's band solver: the structural Jacobian pattern covers every nonzero, and a banded run
equals the exact solution of a linear chain."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.linalg import expm

import bondgraph as bg
from bondgraph.native import cvode
from bondgraph.native.driver import load_driver
from bondgraph.native.structure import bandwidths, choose_solver, jacobian_pattern

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from core_chain import mass_chain  # noqa: E402

pytestmark = pytest.mark.skipif(not load_driver().ok, reason="native driver unavailable")


def _covers(pattern, J) -> bool:
    for i, row in enumerate(J):
        for j in np.flatnonzero(row != 0):
            if not (pattern[i] >> int(j)) & 1:
                return False
    return True


def test_the_pattern_covers_the_numeric_jacobian_of_a_chain_and_the_excavator():
    rng = np.random.default_rng(3)
    chain = bg.build(mass_chain(30))
    p = jacobian_pattern(chain.equations)
    assert bandwidths(p) == (1, 1)
    for _ in range(3):
        x = chain.initial_state() + rng.normal(size=len(chain.state_names))
        assert _covers(p, chain.system.jac(0.0, x))
    from mechanisms.machine import DATA, Machine

    m = Machine.from_file(DATA / "excavator.toml", mode="valves")
    model = m.model.model
    p = jacobian_pattern(model.equations)
    x0 = np.array([m.start_state()[n] for n in model.state_names])
    J = model.system.jac(0.0, x0)
    assert _covers(p, J)
    # a state's derivative that reads another state shows it in the pattern (not all empty)
    assert sum(bin(r).count("1") for r in p) >= np.count_nonzero(J)


def test_a_banded_native_run_equals_the_exact_solution_of_a_linear_chain():
    model = bg.build(mass_chain(60))           # 120 states, tridiagonal
    assert choose_solver(jacobian_pattern(model.equations))[0] == "band"
    n = len(model.state_names)
    x0 = np.zeros(n)
    A = model.system.jac(0.0, x0)              # linear: the Jacobian is the system matrix
    b = model.system.rhs(0.0, x0)
    t = np.linspace(0.0, 5.0, 11)
    xs = np.linalg.solve(A, -b)                # the equilibrium
    exact = np.array([expm(A * tk) @ (x0 - xs) + xs for tk in t])
    res = bg.simulate(model, (0.0, 5.0), t_eval=t, method="CVODE", rtol=1e-10, atol=1e-12)
    assert res.stats["linear_solver"] == "band(1, 1)"
    y = np.array([res[name] for name in model.state_names]).T
    assert np.max(np.abs(y - exact)) <= 1e-7 * np.max(np.abs(exact))


def test_band_and_dense_take_the_same_run(monkeypatch):
    model = bg.build(mass_chain(40))
    t = np.linspace(0.0, 3.0, 7)
    band = bg.simulate(model, (0.0, 3.0), t_eval=t, method="CVODE", rtol=1e-8, atol=1e-10)
    monkeypatch.setattr(cvode, "band_of", lambda m: None)
    dense = bg.simulate(model, (0.0, 3.0), t_eval=t, method="CVODE", rtol=1e-8, atol=1e-10)
    assert band.stats["linear_solver"].startswith("band") and dense.stats["linear_solver"] == "dense"
    for name in model.state_names:
        np.testing.assert_allclose(band[name], dense[name], rtol=1e-6, atol=1e-10)


def test_small_or_wide_models_keep_the_dense_solver():
    assert choose_solver([1, 2, 4]) == ("dense", 3, 3)
    full = [(1 << 40) - 1] * 40
    assert choose_solver(full)[0] == "dense"
    with pytest.raises(bg.ParameterError, match="half-bandwidths"):
        from bondgraph.native.driver import Session

        Session(load_driver(), bg.build(mass_chain(20)).system, band=(50, 1))
