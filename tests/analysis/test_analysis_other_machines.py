"""The analyses on the shipped machines that are not the excavator (the wheel loader, the
knuckle crane, the mini excavator), against references written here:

* the crane's lift capacity at its hook (the default load point when one function alone
  moves the tool's pin) against a moment balance about the tipping line and a
  virtual-work hydraulic limit (``reference.statics``), its [base] from the file or
  from overrides;
* each machine's working-range envelope holds its default cycle's points (lengths and
  valves), tool forces at the optimum equal virtual work on the assembly solver's poses,
  cycle energy adds up and its potential energy equals the weights lifted;
* the loader's pin and dump heights against bounded searches over poses; a point on a
  part pivoted on the chassis has none; joint ranges bound the refined extremes;
* a chassis coordinate swept with its TOML quotes."""

import shutil

import numpy as np
import pytest

from mechanisms.analysis import lift_capacity
from mechanisms.machine import DATA, Machine
from reference.statics import potential, weight_moment

#: a base machine under the crane (test values: a light truck)
CRANE_BASE = """
[base]
note = "test values: a light truck under the crane"
tipping_line = "1.2 m"
rear_tipping_line = "-1.2 m"

[base.masses.truck]
mass = "6000 kg"
cog = ["-1.0 m", "1.0 m"]
"""


def with_base(tmp_path_factory, name: str, base: str):
    """A copy of a shipped machine (its cycle files beside it) with a ``[base]`` appended."""
    d = tmp_path_factory.mktemp(name)
    for p in DATA.glob(f"{name}*"):
        shutil.copy(p, d)
    f = d / f"{name}.toml"
    f.write_text(f.read_text() + base)
    return f


@pytest.fixture(scope="module")
def crane_file(tmp_path_factory):
    return with_base(tmp_path_factory, "knuckle_crane", CRANE_BASE)


@pytest.fixture(scope="module")
def crane_lc(crane_file):
    return lift_capacity(crane_file, heights=["0 m", "1.5 m", "3 m"], radii=["3 m", "4.5 m"], n=30)


def test_crane_lift_capacity_at_its_hook_equals_a_moment_balance(crane_file, crane_lc):
    """The hook (outer.T) is the load point: the knuckle, the outer boom's pin, moves with
    the lift cylinder alone and could not be placed at a height and a radius."""
    assert crane_lc.point == ("outer", "T") and crane_lc.moving == ["lift", "fold"]
    # the file's 500 kg hook load is what is being rated: left out of the front's weight
    assert crane_lc.payloads == {"hook_load": 500.0} and "payloads left out: hook_load 500 kg" in crane_lc.table_text()
    m = Machine.from_file(crane_file, {"payloads.hook_load.mass": "0 kg"}, mode="extensions")
    d = m.description
    grav, xt, p_relief, h = d.gravity, 1.2, 250e5, 1e-6
    rows = [r for r in crane_lc.rows if np.isfinite(r["rated"])]
    assert len(rows) >= 3
    for row in rows:
        L = {f: row[f"{f}_length"] for f in m.functions}
        pose = m.pose_at_lengths(L)
        T = pose.points()["outer/T"]
        assert T == pytest.approx([row["radius"], row["height"] + d.ground], abs=1e-8)
        # tipping load: the front's weights, the truck and the load about the front tipping line
        M = weight_moment(m, pose, xt) + 6000.0 * grav * (-1.0 - xt)
        W_tip = -M / (T[0] - xt)
        assert row["tipping"] == pytest.approx(W_tip / grav, rel=1e-6)
        # hydraulic limit: each cylinder's force W·∂y_T/∂s + ∂V/∂s within its relief force
        caps = []
        for f in m.functions:
            up, dn = dict(L), dict(L)
            up[f] += h
            dn[f] -= h
            pu, pd = m.pose_at_lengths(up, near=pose), m.pose_at_lengths(dn, near=pose)
            dy = (pu.points()["outer/T"][1] - pd.points()["outer/T"][1]) / (2 * h)
            hold = (potential(m, pu) - potential(m, pd)) / (2 * h)
            a_cap, a_rod = d.areas(f)
            caps.append((p_relief * a_cap - hold) / dy if dy > 0 else (-p_relief * a_rod - hold) / dy)
        assert row["hydraulic"] == pytest.approx(min(caps) / grav, rel=1e-6)
        assert row["rated"] == pytest.approx(min(0.87 * min(caps), 0.75 * W_tip) / grav, rel=1e-6)


OTHERS = ["wheel_loader", "knuckle_crane", "excavator_mini"]
#: the relief cracking pressures of their files (Pa)
RELIEF = {"wheel_loader": 250e5, "knuckle_crane": 250e5, "excavator_mini": 300e5}


@pytest.fixture(scope="module", params=OTHERS)
def machine_study(request):
    from mechanisms.analysis import Study

    return request.param, Study(DATA / f"{request.param}.toml")


def test_working_range_contains_every_cycle_point(machine_study):
    """The envelope of the tool point (the loader's edge, the crane's hook, the mini's tip)
    holds every point of the default cycle, run with the prescribed lengths and with valves."""
    from mechanisms.analysis import working_range

    name, study = machine_study
    wr = working_range(study, n=30)
    assert wr.point == next(iter(study.description.output_points))
    for mode in ("extensions", "valves"):
        tab = Machine.from_file(DATA / f"{name}.toml", mode=mode).run(progress=False).table()
        x, y = tab[f"{wr.point}_x"], tab[f"{wr.point}_y"]
        assert wr.contains(x, y).all(), (name, mode)
        # and the dimensions bound them
        assert x.max() <= wr.dimensions["max_reach"].value + 1e-9
        assert y.min() >= study.description.ground - wr.dimensions["max_digging_depth"].value - 1e-9
        assert y.max() <= study.description.ground + wr.dimensions["max_cutting_height"].value + 1e-9


def test_tool_forces_at_the_optimum_equal_virtual_work(machine_study):
    """Each function's hydraulic tool force at its optimum pose: the relief force over the
    tool point's speed per unit extension, by central differences of the assembly solver's
    poses; the direction is that of the point's path."""
    from mechanisms.analysis import tool_forces

    name, study = machine_study
    tf = tool_forces(study, n=10, functions=study.description.functions, generic=True)
    m = Machine.from_file(DATA / f"{name}.toml", mode="extensions")
    d = m.description
    part, pt = d.output_points[tf.point]
    p_relief = RELIEF[name]
    for f in m.functions:
        o = tf.optimum[f]["hydraulic"]
        L = dict(o.lengths)
        pose = m.pose_at_lengths(L)
        h = 1e-6

        def at(ds, f=f, L=L, pose=pose):   # geometry only: a stroke end does not stop the position analysis
            tg = {m.cylinder_of[g]: np.array([v + (ds if g == f else 0.0)]) for g, v in L.items()}
            return np.array(m.mechanism.track(tg, pose)[-1].points()[f"{part}/{pt}"])

        v = (at(h) - at(-h)) / (2 * h)
        a_cap, a_rod = d.areas(f)
        F = (p_relief * a_cap if tf.direction[f] > 0 else p_relief * a_rod) / np.hypot(*v)
        assert o.force == pytest.approx(F, rel=1e-6), (name, f)
        assert np.array(o.direction) == pytest.approx(tf.direction[f] * v / np.hypot(*v), abs=1e-5)


@pytest.fixture(scope="module")
def loader_range():
    from mechanisms.analysis import working_range

    return working_range(DATA / "wheel_loader.toml", n=30)


def test_loader_pin_height_and_iso_7131_dump_equal_a_direct_search(loader_range):
    """The bucket pin's highest point (the lift alone moves it), and the ISO 7131 dump height
    and reach: the cutting edge with the pin there and the bucket floor turned 45° down — this
    bucket turns 37.3° down at most at full lift, so both are measured there and flagged —
    by bounded scalar searches over the assembly solver's poses."""
    from scipy.optimize import minimize_scalar

    m = Machine.from_file(DATA / "wheel_loader.toml", mode="extensions")
    d = m.description
    tilt0 = m.start_pose.length(d.cylinder_of["tilt"])

    def pose(lift, tilt):
        return m.pose_at_lengths({"lift": lift, "tilt": tilt})

    lo, hi = d.stroke_limits("lift")
    pin = minimize_scalar(lambda s: -pose(s, tilt0).points()["boom/D"][1], bounds=(lo, hi), method="bounded",
                          options={"xatol": 1e-9})
    dim = loader_range.dimensions
    assert dim["max_pin_height"].value == pytest.approx(-pin.fun - d.ground, abs=1e-6)
    lo_t, hi_t = d.stroke_limits("tilt")
    deepest = minimize_scalar(lambda s: pose(pin.x, s).angle("bucket"), bounds=(lo_t, hi_t), method="bounded",
                              options={"xatol": 1e-10})
    angle = -np.degrees(deepest.fun)
    assert angle == pytest.approx(37.3, abs=0.05)           # the figure: short of 45°
    edge = pose(pin.x, deepest.x).points()["bucket/Q"]
    assert dim["dump_height_45"].value == pytest.approx(edge[1] - d.ground, abs=1e-6)
    assert dim["dump_reach_45"].value == pytest.approx(edge[0], abs=1e-6)
    for key in ("dump_height_45", "dump_reach_45"):
        assert "FLAGGED" in dim[key].remark() and f"{angle:.1f}°" in dim[key].remark()
    assert "max_dump_height" not in dim and "dump_clearance" not in dim     # the excavator's figures


def test_loader_dump_at_an_angle_it_reaches_equals_a_bisection():
    """At a dump angle the bucket reaches (30°), the edge is where the floor is 30° down:
    a bisection on the tilt length with the assembly solver."""
    import math

    from mechanisms.analysis import Study
    from mechanisms.analysis.loading import dump_at_angle

    st = Study(DATA / "wheel_loader.toml")
    wr = working_range_of(st)
    got = dump_at_angle(st, wr.grid, wr.dimensions["max_pin_height"], "bucket", "Q", "edge",
                        angle=math.radians(30.0))
    m = Machine.from_file(DATA / "wheel_loader.toml", mode="extensions")
    lift = wr.dimensions["max_pin_height"].lengths["lift"]
    lo, hi = m.description.stroke_limits("tilt")
    a, b = lo, hi                      # the bucket angle rises with the tilt length here
    for _ in range(60):
        mid = 0.5 * (a + b)
        a, b = (mid, b) if m.pose_at_lengths({"lift": lift, "tilt": mid}).angle("bucket") < -math.radians(30) \
            else (a, mid)
    edge = m.pose_at_lengths({"lift": lift, "tilt": 0.5 * (a + b)}).points()["bucket/Q"]
    h = got["dump_height_45"]
    assert h.refined and "FLAGGED" not in h.remark() and "dump angle 30°" in h.posture
    assert h.value == pytest.approx(edge[1] - m.description.ground, abs=1e-6)
    assert got["dump_reach_45"].value == pytest.approx(edge[0], abs=1e-6)


def working_range_of(study):
    from mechanisms.analysis import working_range

    return working_range(study, n=30)


def test_a_point_on_a_part_pivoted_on_the_chassis_has_no_pin_or_dump_height():
    """The loader's ``pin`` output (boom.D) is on the boom, which turns about its chassis pivot:
    a pin height would be that pivot's constant height and a dump height meaningless; both
    are NaN with the reason, the other dimensions measured."""
    from mechanisms.analysis import working_range

    wr = working_range(DATA / "wheel_loader.toml", n=20, point="pin")
    for key in ("max_pin_height", "dump_height_45", "dump_reach_45"):
        d = wr.dimensions[key]
        assert np.isnan(d.value) and "chassis pivot A" in d.note, key
    m = Machine.from_file(DATA / "wheel_loader.toml", mode="extensions")
    d = m.description
    full = m.pose_at_lengths({"lift": d.stroke_limits("lift")[1], "tilt": d.stroke_limits("tilt")[0]})
    assert wr.dimensions["max_cutting_height"].value == pytest.approx(full.points()["boom/D"][1] - d.ground,
                                                                     abs=1e-9)    # D at full lift
    depth = wr.dimensions["max_digging_depth"]
    assert depth.value < 0 and "never goes below ground" in depth.note


def test_a_chassis_coordinate_swept_with_its_toml_quotes():
    """``chassis."lift_cylinder.A".y`` (the spelling the sweep's help gives) is the same key as
    ``chassis.lift_cylinder.A.y``; the override reaches the file's point."""
    from mechanisms.analysis import sweep

    runs = [sweep(DATA / "knuckle_crane.toml", {key: "1.25, 1.35 m"}, "working-range",
                  options={"n": 8}, processes=1, progress=False)
            for key in ('chassis."lift_cylinder.A".y', "chassis.lift_cylinder.A.y")]
    a, b = (r.drop(columns=[r.columns[0], "rebuilt"]) for r in runs)
    assert (runs[0]["error"] == "").all() and a.equals(b)
    assert a["max_cutting_height"].iloc[0] != a["max_cutting_height"].iloc[1]    # the base moved
    m = Machine.from_file(DATA / "knuckle_crane.toml", {'chassis."lift_cylinder.A"': ["0.25 m", "1.35 m"]},
                          mode="extensions")
    assert m.start_pose.points()["lift_cylinder/A"] == pytest.approx([0.25, 1.35], abs=1e-12)
    assert runs[0].iloc[:, 0].tolist() == pytest.approx([1.25, 1.35])


def test_cycle_energy_adds_up_and_its_potential_equals_the_weights_lifted(machine_study):
    """The pump work of the valves cycle is the sum of its terms (≤ 1e-4), and the potential
    energy gained is Σ m·g·Δy of every mass between the first and the last pose, written here
    from the file's values (reference.statics)."""
    from mechanisms.analysis import cycle_energy

    name, study = machine_study
    ce = cycle_energy(study)
    t = ce.terms
    parts = ("relief_loss", "throttling_loss", "friction", "other", "potential_energy", "kinetic_energy")
    assert abs(sum(t[k] for k in parts) - t["pump_work"]) <= 1e-4 * t["pump_work"]
    tab = ce.run.table()
    m = Machine.from_file(DATA / f"{name}.toml", mode="extensions")
    first = m.pose_at_lengths({f: tab[f"{f}_length"][0] for f in m.functions})
    last = m.pose_at_lengths({f: tab[f"{f}_length"][-1] for f in m.functions})
    assert t["potential_energy"] == pytest.approx(potential(m, last) - potential(m, first), rel=1e-6)


def test_joint_ranges_bound_the_refined_extremes():
    """A ``[limits]`` range on the loader's bucket (tilt = bucket − boom ≥ −60°): the grid
    leaves out the poses beyond it and the continuous refinement keeps to it (it went on to
    −88°, reporting the unconstrained figures): at full lift the bucket dumps only as far as
    the range lets it, and the ISO 7131 dump height is the edge there, found here by root
    finding on the range over the assembly solver's poses."""
    from scipy.optimize import brentq

    from mechanisms.analysis import tool_forces, working_range
    from mechanisms.machine.description import MachineDescription

    text = (DATA / "wheel_loader.toml").read_text() + '\n[limits]\ntilt = ["-60 deg", "40 deg"]\n'
    desc = MachineDescription.from_text(text, name="loader.toml", base=DATA)
    wr = working_range(desc, n=20)
    m = Machine.from_file(DATA / "wheel_loader.toml", mode="extensions")      # no limits: the reference

    def tilt_angle(L):
        p = m.pose_at_lengths(L)
        return np.degrees(p.angle("bucket") - p.angle("boom"))

    for key, dim in wr.dimensions.items():
        if dim.lengths:
            assert -60 - 1e-6 <= tilt_angle(dim.lengths) <= 40 + 1e-6, key
    lift = wr.dimensions["max_pin_height"].lengths["lift"]
    lo, hi = m.description.stroke_limits("tilt")
    s_lim = brentq(lambda s: tilt_angle({"lift": lift, "tilt": s}) + 60.0, lo, hi, xtol=1e-12)
    edge = m.pose_at_lengths({"lift": lift, "tilt": s_lim}).points()["bucket/Q"]
    dump = wr.dimensions["dump_height_45"]
    assert dump.value == pytest.approx(edge[1] - m.description.ground, abs=1e-6)
    assert dump.active == ("tilt low",) and "FLAGGED" in dump.remark()
    unlimited = working_range(DATA / "wheel_loader.toml", n=20).dimensions["dump_height_45"].value
    assert unlimited < dump.value - 0.1      # the range matters here
    tf = tool_forces(desc, n=10, generic=True)
    for f in ("lift", "tilt"):
        for kind in ("hydraulic", "governing"):
            assert -60 - 1e-6 <= tilt_angle(tf.optimum[f][kind].lengths) <= 40 + 1e-6, (f, kind)


def test_lift_capacity_takes_an_output_point_by_its_name(crane_file, crane_lc):
    """``point="hook"`` (the name ``--point`` takes for the other analyses) is outer.T."""
    by_name = lift_capacity(crane_file, heights=["0 m", "1.5 m", "3 m"], radii=["3 m", "4.5 m"], n=30,
                            point="hook")
    assert by_name.point == ("outer", "T")
    assert [r["rated"] for r in by_name.rows] == pytest.approx([r["rated"] for r in crane_lc.rows], nan_ok=True)


def test_a_base_given_by_overrides_is_the_base_of_the_file(crane_lc):
    """``--set base.tipping_line=... --set base.masses.truck.mass=...`` on a file without
    [base] (the crane, the loader): the section is added as if the file had it (the keys were
    refused as unknown); an incomplete one is named."""
    from bondgraph import ParameterError
    from mechanisms.machine.description import MachineDescription

    base = {"base.tipping_line": "1.2 m", "base.rear_tipping_line": "-1.2 m",
            "base.masses.truck.mass": "6000 kg", "base.masses.truck.cog": ["-1.0 m", "1.0 m"]}
    lc = lift_capacity(MachineDescription.load(DATA / "knuckle_crane.toml", base),
                       heights=["0 m", "1.5 m", "3 m"], radii=["3 m", "4.5 m"], n=30)
    assert [r["rated"] for r in lc.rows] == pytest.approx([r["rated"] for r in crane_lc.rows], nan_ok=True)
    with pytest.raises(ParameterError, match="'base.masses'.*missing"):
        MachineDescription.load(DATA / "wheel_loader.toml", {"base.tipping_line": "0.5 m"})


def test_tool_forces_default_to_the_functions_that_move_the_point():
    """At the loader's bucket pin (boom.D) the tilt cylinder does nothing: the default
    functions are the lift alone (all of them failed with 'does not move'), its force the
    relief force over the pin's speed per unit extension."""
    from mechanisms.analysis import tool_forces

    tf = tool_forces(DATA / "wheel_loader.toml", n=10, point="pin", generic=True)
    assert tf.functions == ("lift",)
    o = tf.optimum["lift"]["hydraulic"]
    m = Machine.from_file(DATA / "wheel_loader.toml", mode="extensions")
    pose = m.pose_at_lengths(o.lengths)

    def at(ds):
        tg = {m.cylinder_of[g]: np.array([v + (ds if g == "lift" else 0.0)]) for g, v in o.lengths.items()}
        return np.array(m.mechanism.track(tg, pose)[-1].points()["boom/D"])

    v = (at(1e-6) - at(-1e-6)) / 2e-6
    assert o.force == pytest.approx(250e5 * m.description.areas("lift")[0] / np.hypot(*v), rel=1e-6)
