"""Posing a machine by hand (``Machine.explore``), tested headlessly.

A slider's new value must move the pose there; the holding forces shown must be the
statics analysis at that pose (a machine built separately, posed separately) and the
virtual-work derivative of the potential energy (a hand computation from the file's
masses, by central differences over the cylinder length); the drawing must change; the
start-pose button must round-trip through a written description file.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

from bondgraph.errors import ParameterError  # noqa: E402
from mechanisms.analysis.statics import FrontStatics  # noqa: E402
from mechanisms.machine import DATA, Machine, MachineDescription  # noqa: E402


def potential(desc, pose) -> float:
    """``Σ m·g·y`` of every mass at a pose (J), by hand from the description's values."""
    g = desc.gravity
    mech = pose.mechanism
    V = 0.0
    for name, spec in desc.parts.items():
        v = spec.values
        p = pose.values[name]
        if spec.type in ("body", "lever"):
            V += v["mass"] * g * float(mech.parts[name].world_cog(p)[1])
            ox, oy, th = p
            for pl in desc.payloads.values():
                if pl["part"] == name:
                    V += pl["mass"] * g * (oy + math.sin(th) * pl["at"][0] + math.cos(th) * pl["at"][1])
        else:
            rx, ry, phi, s = p
            V += v["count"] * v["barrel_mass"] * g * (ry + v["barrel_cog"] * math.sin(phi))
            V += v["count"] * v["rod_mass"] * g * (ry + (s - v["rod_cog"]) * math.sin(phi))
    return V


@pytest.fixture(scope="module")
def excavator():
    return Machine.from_file(DATA / "excavator.toml", mode="extensions")


def test_a_slider_moves_the_pose_the_forces_and_the_drawing(excavator):
    ex = excavator.explore()
    svg0, table0 = ex.drawing.value, ex.table.value
    ex.sliders["boom"].value = 3.3
    ex.sliders["bucket"].value = 2.9
    assert abs(ex.pose.length("boom_cylinder") - 3.3) < 1e-12
    assert abs(ex.pose.length("bucket_cylinder") - 2.9) < 1e-12
    assert abs(ex.pose.length("arm_cylinder") - excavator.start_pose.length("arm_cylinder")) < 1e-9
    assert ex.drawing.value != svg0 and ex.table.value != table0
    # the statics analysis, on a machine built and posed on its own
    other = Machine.from_file(DATA / "excavator.toml", mode="extensions")
    pose = other.pose_at_lengths({"boom": 3.3, "arm": ex.lengths()["arm"], "bucket": 2.9})
    st = FrontStatics(other)
    ref = st.evaluate(st.model.initial_state(pose.states())[None, :]).holding
    shown = ex.forces()
    for f in other.functions:
        assert abs(shown[f] - float(ref[f][0])) <= 1e-9 * max(1.0, abs(float(ref[f][0]))), f
    # the pressures: the force over the loaded side's area, the other side at zero
    for f, (cap, rod) in ex.pressures().items():
        a_cap, a_rod = excavator.description.areas(f)
        assert (cap * a_cap if shown[f] > 0 else -rod * a_rod) == pytest.approx(shown[f], rel=1e-12)
        assert min(cap, rod) == 0.0
    # the table shows them (kN, bar)
    assert f"{shown['boom'] / 1e3:.2f}" in ex.table.value


@pytest.mark.parametrize("name,mode", [("excavator", "extensions"), ("knuckle_crane", "forces"),
                                       ("wheel_loader", "valves")])
def test_holding_forces_are_the_virtual_work_of_gravity(name, mode):
    """F_i = ∂V/∂s_i, the others held: a hand computation independent of the bond graph."""
    m = Machine.from_file(DATA / f"{name}.toml", mode=mode)
    ex = m.explore()
    desc = m.description
    mid = {f: sum(desc.stroke_limits(f)) / 2 for f in desc.functions}
    start = ex.lengths()
    ex.move({f: 0.5 * (start[f] + mid[f]) for f in desc.functions})
    forces = ex.forces()
    h = 1e-4
    scale = max(abs(v) for v in forces.values())
    for f in desc.functions:
        up = m.pose_at_lengths({**ex.lengths(), f: ex.lengths()[f] + h}, near=ex.pose)
        down = m.pose_at_lengths({**ex.lengths(), f: ex.lengths()[f] - h}, near=ex.pose)
        dV = (potential(desc, up) - potential(desc, down)) / (2 * h)
        assert abs(forces[f] - dV) < 1e-5 * scale, (f, forces[f], dV)


def test_the_margins_are_the_strokes_and_the_ground(excavator):
    ex = excavator.explore()
    ex.sliders["arm"].value = ex.sliders["arm"].max
    lo, hi = excavator.description.stroke_limits("arm")
    m = ex.margins()
    assert m["arm"] == pytest.approx((hi - lo, 0.0), abs=1e-12)
    lowest = min(y for _, y in ex.pose.points().values())
    assert m["ground"][0] == pytest.approx(lowest - excavator.description.ground, abs=1e-12)


def test_an_unreachable_length_keeps_the_pose_and_says_why():
    m = Machine.from_file(DATA / "wheel_loader.toml", mode="extensions")
    ex = m.explore()
    before = ex.lengths()
    with pytest.raises(ParameterError, match="'stick': not a function"):
        ex.move({"stick": 1.0})
    moved = ex.move({"lift": before["lift"] + 10.0})        # far outside the stroke
    assert not moved and ex.lengths() == before
    assert "outside its stroke" in ex.status.value or "stroke" in ex.status.value
    assert ex.sliders["lift"].value == pytest.approx(before["lift"])


def test_the_start_pose_button_round_trips_through_the_file(tmp_path):
    m = Machine.from_file(DATA / "excavator.toml", mode="extensions")
    ex = m.explore()
    ex.sliders["boom"].value = 3.4
    ex.sliders["arm"].value = 2.6
    want = ex.lengths()
    angles = {n: ex.pose.angle(n) for n in m.mechanism.parts}
    ex.button.click()
    assert m.start_pose is ex.pose
    path = m.save(tmp_path / "posed.toml")
    again = MachineDescription.load(path)
    for f, L in want.items():
        assert again.start[again.cylinder_of[f]] == pytest.approx(L, abs=1e-12)
    # the reloaded machine starts at the same pose, on the same assembly branch
    m2 = Machine.from_file(path, mode="extensions")
    for n, a in angles.items():
        assert m2.start_pose.angle(n) == pytest.approx(a, abs=1e-9), n


def test_without_ipywidgets_the_error_says_what_to_install(monkeypatch, excavator):
    monkeypatch.setitem(sys.modules, "ipywidgets", None)
    with pytest.raises(ParameterError, match="pip install ipywidgets"):
        excavator.explore()


def test_a_mechanism_explores_from_its_last_pose():
    from mechanisms.examples import single_boom

    mech = single_boom(bore="135 mm", rod="50 mm")
    with pytest.raises(ParameterError, match="solve_pose first"):
        mech.explore()
    mech.solve_pose({"boom_cyl": 3.2}, guess={"boom": 0.4})
    ex = mech.explore(outputs={"points": {"tip": "boom.F"}})
    assert ex.lengths() == {"boom_cyl": pytest.approx(3.2, abs=1e-12)}


def test_the_display_carries_a_static_snapshot(excavator):
    ex = excavator.explore()
    bundle = ex._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "<svg" in bundle["text/html"] and "holding force" in bundle["text/html"]
    assert np.isfinite(list(ex.forces().values())).all()
