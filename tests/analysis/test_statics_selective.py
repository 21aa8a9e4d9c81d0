"""The front's statics computed with output-selective code (each call only the outputs it
reads, :mod:`bondgraph.selective`) against the full evaluation of the model (every
output, then the columns picked, each call's rows failing on its own), bit for bit on
the stroke grids of the excavator, the mini excavator and the wheel loader: holding
forces, chassis reactions and the tool point's velocity per unit rate of each function."""

import numpy as np
import pytest

from bondgraph.batch import evaluate_many
from mechanisms.analysis import Study
from mechanisms.analysis.reach import tool_point
from mechanisms.machine import DATA


def _full(st, X, point):
    """The statics the straightforward way: the whole model evaluated at every row."""
    sysm = st.model.system
    sel = list(st.drive.values()) + [p[3] for p in st.pins]
    Y = evaluate_many(sysm, X, select=sel)
    nf = len(st.drive)
    holding = {f: Y[:, i] for i, f in enumerate(st.drive)}
    fx, fy, mz = (np.zeros(len(X)) for _ in range(3))
    for j, (x, y, ax, _) in enumerate(st.pins):
        f = -Y[:, nf + j]
        if ax == "x":
            fx += f
            mz -= y * f
        else:
            fy += f
            mz += x * f
    vel = {}
    names = list(st.point_outputs(*point))
    for f in st.machine.functions:
        u = np.zeros(len(st.model.input_names))
        u[st.rate_index[f]] = 1.0
        V = evaluate_many(sysm, X, u, None, select=names)
        vel[f] = (V[:, 0], V[:, 1])
    return holding, fx, fy, mz, vel


@pytest.mark.parametrize("machine", ["excavator", "excavator_mini", "wheel_loader"])
def test_statics_equal_the_full_evaluation(machine):
    study = Study(DATA / f"{machine}.toml")
    st = study.statics
    grid = study.grid(12)
    kin = study.kinematics
    n = grid.ok.size
    angles = {u: np.broadcast_to(v, grid.shape).ravel() for u, v in grid.angles.items()}
    X = kin.states(st.model, angles, grid.flat_lengths(), shape=(n,))
    _, part, pt = tool_point(study.description, None)
    res = st.evaluate(X, points=[(part, pt)])
    holding, fx, fy, mz, vel = _full(st, X, (part, pt))
    assert np.isfinite(res.force_y).sum() > n // 2            # most of the grid assembles
    for f in holding:
        assert np.array_equal(res.holding[f], holding[f], equal_nan=True)
    for a, b in ((res.force_x, fx), (res.force_y, fy), (res.moment, mz)):
        assert np.array_equal(a, b, equal_nan=True)
    for f, (vx, vy) in vel.items():
        assert np.array_equal(res.velocity[(part, pt)][f][0], vx, equal_nan=True)
        assert np.array_equal(res.velocity[(part, pt)][f][1], vy, equal_nan=True)
