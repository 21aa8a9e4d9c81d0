"""The generated C's tables (chunk calls and state-derivative copies as loops) against
independent references: the loop calls the same chunks in the same order with the same
exit; on a 12-mass chain (24 states: the copies are loops) the right-hand side vanishes at
the hand-computed equilibrium (every spring carries the end force F, nothing moves); one
mass moving alone drives exactly its two springs (k·v) and its damper (c·v/m), besides F
on the last mass (F/m); and the Jacobian equals central differences of the right-hand
side (the chain is linear)."""

import sys
from pathlib import Path

import numpy as np

import bondgraph as bg
import bondgraph.codegen as cg


def _call(name: str, exit_: str = "return st", ind: str = "    ") -> str:
    return f"{ind}if ((st = {name}({cg._CALL})) != 0) {exit_};"


def test_runs_of_calls_become_tables_in_order_with_their_exit():
    body = ([_call(f"bg_c{k}") for k in range(4)] + ["    x = 1;"]
            + [_call(f"bg_c{k}", "goto measures") for k in (4, 5, 6)] + [_call("bg_c7"), _call("bg_c8")])
    out = cg._tables(body)
    assert len(out) == 2 + 1 + 2 + 2                       # two tables, the statement, two short calls
    assert "{bg_c0, bg_c1, bg_c2, bg_c3}" in out[0] and "c_ < 4" in out[1] and out[1].endswith("return st; }")
    assert out[2] == "    x = 1;"
    assert "{bg_c4, bg_c5, bg_c6}" in out[3] and out[4].endswith("goto measures; }")
    assert out[5:] == body[-2:]                            # a run of two stays as calls


def test_chain_rhs_vanishes_at_equilibrium_and_jacobian_matches_differences(tmp_path, monkeypatch):
    monkeypatch.setenv("BONDGRAPH_CACHE", str(tmp_path))
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from core_chain import mass_chain

    n = 12
    model = bg.build(mass_chain(n))
    system = model.system
    assert "tab_[c_]" in system.source and "ix_[r_]" in system.source      # the loop forms ran
    kinds = [s.kind for s in model.equations.states]
    assert kinds.count("effort") == n and kinds.count("flow") == n
    # equilibrium: each spring force = ±F = ±1 (the sign is the bonds' orientation), no motion
    residual = []
    for sign in (1.0, -1.0):
        x = np.array([sign if k == "effort" else 0.0 for k in kinds])
        residual.append(np.max(np.abs(system.rhs(0.0, x))))
    assert min(residual) < 1e-12 < max(residual)
    # mass j alone at v = 1: d(e_k)/dt = k (v_prev − v) for its two springs, dv/dt = −c v/m
    j = 5
    at = {s.name: i for i, s in enumerate(model.equations.states)}
    x = np.zeros(2 * n)
    x[at[f"chain{n}/m{j}.f"]] = 1.0
    expect = np.zeros(2 * n)
    expect[at[f"chain{n}/k{j}.e"]] = 100.0 + j
    expect[at[f"chain{n}/k{j + 1}.e"]] = 100.0 + j + 1
    expect[at[f"chain{n}/m{j}.f"]] = 0.5 / (1.0 + 0.01 * j)
    expect[at[f"chain{n}/m{n - 1}.f"]] = 1.0 / (1.0 + 0.01 * (n - 1))   # the end force F = 1 on the last mass
    np.testing.assert_allclose(np.abs(system.rhs(0.0, x)), expect, rtol=1e-12, atol=1e-12)
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, 2 * n)
    h = 1e-6
    fd = np.column_stack([(system.rhs(0.0, x + h * e) - system.rhs(0.0, x - h * e)) / (2 * h)
                          for e in np.eye(2 * n)])
    jac = system.jac(0.0, x)
    np.testing.assert_allclose(jac, fd, rtol=0, atol=1e-6 * np.max(np.abs(jac)))
    assert np.count_nonzero(jac) > 2 * n
