"""Working range with a binding joint range ([limits], issue 20): every dimension equals a
brute-force sweep over the strokes with the same range to 1 mm on the shipped machines —
the excavators by plain trigonometry, the loader and the crane by their mechanism's own pose
solver (``reference.brute_range``: grids zoomed onto the best node, no optimiser) — and is
refined (the range as an equality where it holds the extreme); an extreme that cannot be
refined is reported so, with its bound, in the summary, the CSV and the notes.

Before the fix the refinement's result was thrown away whenever the optimiser ended a hair
outside the range it held (SLSQP: "positive directional derivative"), and the grid's node
was reported as if it were the extreme: the excavator's cutting height with the arm in
[-120°, -60°] was 54 mm too low (9.084 m, brute force 9.138 m), ``refined=False``, and
nothing in the table said so."""

import math

import numpy as np
import pytest

from mechanisms.analysis import Study, working_range
from mechanisms.analysis.optimise import Extreme
from mechanisms.machine import DATA, Machine
from mechanisms.machine.description import MachineDescription
from reference.brute_range import SolverFront, TrigFront, dump_end, zoom_extreme, zoom_ground_reach
from reference.excavator_trig import load

#: machine → (its joint range, lengths per stroke): before the fix the excavator's cutting height
#: was 54.1 mm too low (n = 50) and the crane's 63.0 mm (n = 30), both refined=False
CASES = {
    "excavator": ({"limits.arm": ["-120 deg", "-60 deg"]}, 50),
    "excavator_mini": ({"limits.arm": ["-110 deg", "-45 deg"]}, 30),      # the dipper range
    "wheel_loader": ({"limits.tilt": ["-60 deg", "40 deg"]}, 30),
    "knuckle_crane": ({"limits.knuckle": ["-95 deg", "-50 deg"]}, 30),
}


def _limits(desc):
    return {k: (lo, hi, desc.angles[k]) for k, (lo, hi) in desc.limits.items()}


def _brute(name, desc):
    """Every dimension of the working range by brute force."""
    g = desc.ground
    out = {}
    if desc.kind == "excavator":
        front = TrigFront(load(DATA / f"{name}.toml"), _limits(desc))
    else:
        m = Machine(desc, "extensions")
        part, pt = desc.output_points[next(iter(desc.output_points))]
        pin = {"bucket": "boom/D", "outer": "outer/K"}[part]        # the pin of the tool point's part
        front = SolverFront(m, f"{part}/{pt}", pin, _limits(desc), angle=part)
    out["max_reach"] = zoom_extreme(front, lambda r: r["tip"][0], True)[0]
    out["max_digging_depth"] = g - zoom_extreme(front, lambda r: r["tip"][1], False)[0]
    out["max_cutting_height"] = zoom_extreme(front, lambda r: r["tip"][1], True)[0] - g
    out["max_reach_ground"] = zoom_ground_reach(front, g)[0]
    pin_h, s_pin = zoom_extreme(front, lambda r: r["pin"][1], True)
    out["max_pin_height"] = pin_h - g
    k = len(front.bounds)
    if desc.kind == "excavator":
        # the bucket in its dump position (cylinder retracted, or as far as the range lets it)
        s = s_pin.copy()
        s[k - 1] = dump_end(front, s_pin, k - 1)
        out["max_dump_height"] = float(front.evaluate(s[None, :])["tip"][1][0]) - g
        # the dump clearance: the tip's lowest point as the bucket turns, the pin there
        low, _ = zoom_extreme(front, lambda r: r["tip"][1], False, fixed={0: s_pin[0], 1: s_pin[1]})
        out["dump_clearance"] = low - g
    elif desc.kind == "loader":
        lift = s_pin[0]
        th_min, s_min = zoom_extreme(front, lambda r: r["angle"], False, fixed={0: lift})
        target = -math.radians(45.0)
        if th_min <= target:       # turn the bucket down to 45°: bisection on the tilt length
            a, b = s_min[1], front.bounds[1][1]
            for _ in range(60):
                mid = 0.5 * (a + b)
                th = front.evaluate(np.array([[lift, mid]]))["angle"][0]
                a, b = (mid, b) if th < target else (a, mid)
            s = np.array([lift, 0.5 * (a + b)])
        else:
            s = s_min
        q = front.evaluate(s[None, :])["tip"]
        out["dump_height_45"] = float(q[1][0]) - g
        out["dump_reach_45"] = float(q[0][0])
    return out


@pytest.mark.parametrize("name", list(CASES))
def test_working_range_with_a_binding_joint_range_equals_a_brute_force_sweep(name):
    limits, n = CASES[name]
    desc = MachineDescription.load(DATA / f"{name}.toml", limits)
    wr = working_range(desc, n=n)
    ref = _brute(name, desc)
    free = working_range(DATA / f"{name}.toml", n=n).summary()
    binding = [k for k in ref if abs(free[k] - wr.dimensions[k].value) > 0.01]
    assert binding, f"{name}: the range {limits} binds nothing"     # the case tests what it says
    for key, value in ref.items():
        d = wr.dimensions[key]
        assert d.refined, f"{name} {key}: not refined ({d.remark()})"
        assert abs(d.value - value) <= 1e-3, f"{name} {key}: {d.value:.5f} m, brute force {value:.5f} m"
    held = [k for k in binding if wr.dimensions[k].active]
    assert held, f"{name}: no dimension names the joint range that holds it"


def test_an_unrefined_extreme_is_reported_with_its_bound(tmp_path):
    """With the refinement off every dimension is the grid's node: ``refined`` False, the
    bound (one grid step's change) in the summary, the CSV and the note; it covers the
    distance to the refined value."""
    desc = MachineDescription.load(DATA / "excavator.toml", {"limits.arm": ["-110 deg", "-45 deg"]})
    exact = working_range(desc, n=20)
    grid_only = working_range(desc, n=20, refine_extremes=False)
    s = grid_only.summary()
    for key, d in grid_only.dimensions.items():
        if not np.isfinite(d.value):
            continue
        assert not d.refined and d.bound > 0, key
        assert s[f"{key}_bound"] == d.bound
        assert "NOT REFINED" in d.remark() and f"{d.bound * 1e3:.0f} mm" in d.remark()
        assert abs(d.value - exact.dimensions[key].value) <= d.bound + 1e-9, key
    grid_only.write(tmp_path)
    text = (tmp_path / "working_range.csv").read_text()
    assert "refined,bound [m]" in text.splitlines()[0] and "NOT REFINED" in text
    assert "NOT REFINED" in grid_only.table_text()
    assert not any(k.endswith("_bound") for k in exact.summary())


def test_refine_meets_an_active_range_exactly_where_the_optimiser_stops_outside():
    """The optimiser's end point a hair beyond the range (the case of the issue) is put back on
    it and accepted when it is optimal there: the cutting height with the arm at its range's
    high end, -60°, is that of the brute force."""
    from mechanisms.analysis.optimise import Probe, refine

    desc = MachineDescription.load(DATA / "excavator.toml", {"limits.arm": ["-120 deg", "-60 deg"]})
    st = Study(desc)
    grid = st.grid(50)
    probe = Probe(st.kinematics, grid, [("bucket", "Q")])
    x, y = grid.point("bucket", "Q")
    i = np.unravel_index(np.nanargmax(y), grid.shape)
    e = refine(probe, lambda p: p["bucket/Q"][1], {c: float(grid.axes[c][k]) for c, k in zip(grid.cylinders, i)},
               maximise=True)
    assert isinstance(e, Extreme) and e.refined and e.active == ("arm high",)
    front = TrigFront(load(DATA / "excavator.toml"), _limits(desc))
    assert e.value == pytest.approx(zoom_extreme(front, lambda r: r["tip"][1], True)[0], abs=1e-6)
    ex = load(DATA / "excavator.toml")
    a = ex.angles(*(e.lengths[f"{f}_cylinder"] for f in ("boom", "arm", "bucket")))
    assert math.degrees(a["arm"] - a["boom"]) == pytest.approx(-60.0, abs=1e-6)
