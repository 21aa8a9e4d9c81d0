"""The machine layer's ``[swing]``: the truck-loading excavator (``excavator_truck.toml``).

References, none taken from a run of the swing coupling itself:

* the same equations as ``with_swing`` built by hand in Python from the front of the file
  without ``[swing]`` (a second route to the same graph) and as ``Machine.from_mechanism``;
* the kinetic energy of the swing ``½·J(q)·φ̇²`` with ``J(q)`` summed by hand from the parts'
  masses, radii and planar inertias at the run's poses (the planar kinetic energy from the
  same lengths run on the machine without ``[swing]``);
* the torque at the swing axis against ``J·φ̈ + (dJ/dt)·φ̇ + c·φ̇ + T_C·tanh(φ̇/ω_C)`` with
  J by hand at the poses and φ̇, φ̈ from the cycle's own spline (scipy's clamped cubic);
* the energy balance of the run (the solver's accounting) and the swing drive's row against
  ∫ torque·rate of the read-outs;
* the working range and lift capacity with and without ``[swing]``.
"""

import math

import numpy as np
import pytest
from scipy.interpolate import CubicSpline

from bondgraph import ParameterError, power_balance
from components import Cylinder, MainBody, Turntable
from mechanisms import MechanismModel, with_swing
from mechanisms.machine import DATA, Cycle, Machine, MachineDescription
from mechanisms.machine.assemble import assemble

TRUCK = DATA / "excavator_truck.toml"


@pytest.fixture(scope="module")
def truck():
    return Machine.from_file(TRUCK, mode="extensions")


@pytest.fixture(scope="module")
def truck_run(truck):
    return truck.run(progress=False)


def hand_J(machine, pose):
    """Inertia about the swing axis (kg·m²) by hand from the description's values: the
    turntable and its motor through the gear, Σ m·x² of every mass (the axis at x = 0) and
    each part's planar inertia × cos² of its pin line (the stated slender default)."""
    desc = machine.description
    v, sw = desc.values, desc.swing
    J = sw["inertia"] + sw["gear_ratio"] ** 2 * sw["motor_inertia"]
    for name, part in machine.mechanism.parts.items():
        q = pose.values[name]
        if isinstance(part, Cylinder):
            rx, ry, phi, s = q
            n = desc.parts[name].values["count"]
            pv = desc.parts[name].values
            for m, d in ((pv["barrel_mass"], pv["barrel_cog"]), (pv["rod_mass"], s - pv["rod_cog"])):
                J += n * m * (rx + d * math.cos(phi) - sw["axis_x"]) ** 2
            J += n * (pv["rod_inertia"] + pv["barrel_inertia"]) * math.cos(phi) ** 2
            continue
        x, _y = part.world_cog(q)
        J += v[f"{name}.mass"] * (float(x) - sw["axis_x"]) ** 2
        if isinstance(part, MainBody):
            r = np.array(part.root.local)
            far = max(part.points.values(), key=lambda p: np.hypot(*(np.array(p.local) - r)))
            d = np.array(far.local) - r
            a = q[2] + math.atan2(d[1], d[0])
            for pl in desc.payloads.values():
                assert pl["part"] != name or pl["mass"] == 0.0   # none in this machine
        else:
            a = q[2]
        pv = desc.parts[name].values          # a lever without one: a uniform bar's m·L²/12
        J += pv.get("inertia", pv["mass"] * pv.get("length", 0.0) ** 2 / 12) * math.cos(a) ** 2
    return J


# ------------------------------------------------------------------ the table
def test_the_swing_table_is_read_in_si_with_its_defaults():
    d = MachineDescription.load(TRUCK)
    sw = d.swing
    assert sw["inertia"] == 34000.0 and sw["gear_ratio"] == 120.0
    assert sw["viscous"] == 2000.0 and sw["coulomb"] == 1000.0 and sw["motor_inertia"] == 0.05
    assert sw["axis_x"] == 0.0 and sw["coulomb_rate"] == 0.01 and "brake" not in sw and sw["tensors"] == {}
    assert d.values["swing.inertia"] == 34000.0          # addressable like any value
    assert MachineDescription.load(DATA / "excavator_dig.toml").swing is None


SWING_BAD = '''
[swing]
inertia = "34000 kg"
gear_ration = 120
viscous = "-2 kN*m*s/rad"
coulomb = "1 kN*m"
axis_x = "0 m"
tensors.boom = [["1000 kg*m^2", "0 kg*m^2"]]
tensors.stick = [["1 kg*m^2", "0 kg*m^2"], ["0 kg*m^2", "1 kg*m^2"]]
tensors.arm = [["100 kg*m^2", "0 m"], ["0 kg*m^2", "2100 kg*m^2"]]
'''


def test_a_bad_swing_table_names_every_problem_with_its_key_and_line():
    text = (DATA / "excavator.toml").read_text() + SWING_BAD
    with pytest.raises(ParameterError) as e:
        MachineDescription.from_text(text, name="bad.toml", base=DATA)
    msg = str(e.value)
    n = len((DATA / "excavator.toml").read_text().splitlines())
    for key, line, what in (("swing.inertia", n + 3, "mass"), ("swing.gear_ration", n + 4, "did you mean 'swing.gear_ratio'"),
                            ("swing.gear_ratio", n + 2, "missing"), ("swing.viscous", n + 5, "≥ 0"),
                            ("swing.tensors.boom", n + 8, "[[J_xx, J_xy], [J_xy, J_yy]]"),
                            ("swing.tensors.stick", n + 9, "no such part"), ("swing.tensors.arm[0][1]", n + 10, "")):
        row = next((r for r in msg.splitlines() if r.lstrip(" -").startswith(f"'{key}'")), None)
        assert row is not None, (key, msg)
        assert what in row, (key, row)
        assert f"line {line}" in row or key == "swing.gear_ratio", (key, row)
    assert e.value.problems and len(e.value.problems) == 7, msg


def test_a_tensor_that_is_no_rigid_body_is_named_by_its_key_at_the_build():
    d = MachineDescription.load(TRUCK, {"swing.tensors.boom": [["100 kg*m^2", "0 kg*m^2"],
                                                                 ["0 kg*m^2", "100 kg*m^2"]]})
    with pytest.raises(ParameterError) as e:
        Machine(d, "extensions")
    assert "'swing.tensors'" in str(e.value) and "boom" in str(e.value) and "J_n = 8060" in str(e.value)


def test_a_swing_column_for_a_machine_without_swing_is_refused(truck):
    dig = Machine.from_file(DATA / "excavator_dig.toml", mode="extensions")
    with pytest.raises(ParameterError) as e:
        dig.run(truck.cycle("truck_loading"), t_end=0.2, progress=False)
    assert "'swing' column" in str(e.value) and "has no [swing]" in str(e.value)


def test_a_swing_column_takes_its_unit_and_refuses_the_wrong_one(tmp_path, truck):
    p = tmp_path / "c.csv"
    p.write_text("time [s],boom [m],arm [m],bucket [m],swing [deg]\n0,3.1359,3.2289,2.3781,0\n"
                 "1,3.1359,3.2289,2.3781,90\n")
    c = Cycle.from_csv(p, "extensions", truck.functions)
    assert c.swing.tolist() == [0.0, math.pi / 2]
    p.write_text("time [s],boom [N],arm [N],bucket [N],swing [kN*m]\n0,1,1,1,0\n1,1,1,1,2\n")
    assert Cycle.from_csv(p, "forces", truck.functions).swing.tolist() == [0.0, 2000.0]
    p.write_text("time [s],boom [m],arm [m],bucket [m],swing [kg]\n0,3.1,3.2,2.3,0\n1,3.1,3.2,2.3,1\n")
    with pytest.raises(ParameterError, match=r"column 'swing \[kg\]'.*expected an angle|swing angles"):
        Cycle.from_csv(p, "extensions", truck.functions)


# ------------------------------------------------------------------ same equations
def test_the_file_builds_what_with_swing_builds_from_python(truck, truck_run):
    """The front of the file without [swing], put on a Turntable by hand with the same
    data, with the soil: the same run (lengths and swing angle prescribed)."""
    desc = truck.description.with_sections(swing=None)
    python = Machine(desc, "extensions")            # the same front, soil attached later
    a = assemble(desc, "extensions")
    sw = truck.description.swing
    tt = Turntable("swing", inertia=f"{sw['inertia']} kg*m^2", gear_ratio=sw["gear_ratio"],
                   viscous=sw["viscous"], coulomb=sw["coulomb"], motor_inertia=sw["motor_inertia"],
                   drive="rate")
    python.mechanism = with_swing(a.mechanism, tt)
    python.turntable = tt
    sl = desc.soil
    from mechanisms.machine.soil import with_soil

    with_soil(python, sl["properties"], edge=sl["edge"], face=sl["face"], width=sl["width"],
              capacity=sl["capacity"], ground=sl["ground"], params=a.params)
    assert sorted(python.model.model.state_names) == sorted(truck.model.model.state_names)
    run = python.run(truck.cycle("truck_loading"), progress=False)
    a_tab, b_tab = truck_run.table(), run.table()
    for k in ("tip_x", "tip_y", "boom_force", "arm_force", "bucket_force", "swing_angle", "swing_torque",
              "bucket_fill"):
        scale = max(1.0, float(np.max(np.abs(a_tab[k]))))
        assert np.max(np.abs(a_tab[k] - b_tab[k])) <= 1e-9 * scale, k


def test_from_mechanism_takes_the_same_swing_table(truck):
    desc = truck.description
    assert desc.sections()["swing"] == desc.raw_tables()["swing"]     # carried like the other tables
    m = Machine.from_mechanism(desc.to_mechanism(), mode="extensions", soil=desc.raw_tables()["soil"],
                               **{**desc.sections(), "cycles": None, "default_cycle": None})
    assert m.description.swing == desc.swing
    assert sorted(m.model.model.state_names) == sorted(truck.model.model.state_names)
    c = Cycle("extensions", [0, 1, 2], {f: [truck.start_pose.length(truck.cylinder_of[f])] * 3
                                        for f in truck.functions}, truck.functions, swing=[0.0, 0.3, 0.5])
    a, b = m.run(c, progress=False).table(), truck.run(c, progress=False).table()
    assert np.max(np.abs(a["swing_torque"] - b["swing_torque"])) <= 1e-9 * np.max(np.abs(b["swing_torque"]))


# ------------------------------------------------------------------ physics
def test_energy_balance_of_the_truck_loading_cycle_with_swing_and_soil(truck_run):
    pb = power_balance(truck_run.results)
    assert pb.relative <= 1e-4, str(pb)
    split = truck_run.energy_split()
    assert abs(split.residual) <= 1e-4 * split.scale, split.table()
    tab = truck_run.table()
    P = tab["swing_torque"] * tab["swing_rate"]
    work = float(np.sum(0.5 * (P[1:] + P[:-1]) * np.diff(tab["time"])))
    assert split.terms["swing drive"] == pytest.approx(work, rel=1e-9)
    assert split.terms["soil"] > 1e4 and split.terms["swing bearing"] > 0


def test_swing_kinetic_energy_is_half_J_of_q_omega_squared(truck, truck_run):
    """Total kinetic energy of the swinging machine minus that of the same lengths on the
    planar machine (no [swing]) is ½·J(q)·φ̇², J by hand at sampled poses."""
    cyc = truck.cycle("truck_loading")
    planar = Machine(truck.description.with_sections(swing=None), "extensions")
    flat = Cycle("extensions", cyc.time, cyc.values, cyc.functions)
    rp = planar.run(flat, progress=False)

    def kinetic(run):
        out = run.results.outputs()
        g = run.machine.model.model.graph
        return sum(out[f"energy[{n}]"] for n, el in g.nodes(data="element")
                   if el.kind == "I" and f"energy[{n}]" in out)

    T_swing = kinetic(truck_run) - kinetic(rp)
    phidot = CubicSpline(cyc.time, cyc.swing, bc_type="clamped").derivative(1)
    t = truck_run.t
    idx = np.linspace(0, len(t) - 1, 40).astype(int)
    lengths = cyc.sample(t[idx])
    for k, i in enumerate(idx):
        pose = truck.pose_at_lengths({f: lengths[f][k] for f in truck.functions})
        ref = 0.5 * hand_J(truck, pose) * phidot(t[i]) ** 2
        assert abs(T_swing[i] - ref) <= 1e-6 * max(ref, 1.0), (t[i], T_swing[i], ref)
    assert np.max(T_swing) > 1e4                 # the swing's kinetic energy is there at all


def test_swing_inertia_read_out_is_the_hand_sum(truck, truck_run):
    tab = truck_run.table()
    cyc = truck_run.cycle
    for i in np.linspace(0, len(tab["time"]) - 1, 12).astype(int):
        L = {f: float(cyc.sample([tab["time"][i]])[f][0]) for f in truck.functions}
        pose = truck.pose_at_lengths(L)
        assert tab["swing_inertia"][i] == pytest.approx(hand_J(truck, pose), rel=1e-9)


def test_swing_torque_at_constant_rate_is_the_bearing_friction(truck):
    """Front held, swing angle a long straight ramp: in the middle the rate is constant and
    the torque is c·φ̇ + T_C·tanh(φ̇/ω_C)."""
    L0 = {f: truck.start_pose.length(truck.cylinder_of[f]) for f in truck.functions}
    t = np.linspace(0, 6, 61)
    rate = 0.6
    c = Cycle("extensions", t, {f: [L0[f]] * len(t) for f in truck.functions}, truck.functions,
              swing=rate * t)
    tab = truck.run(c, progress=False).table()
    mid = (tab["time"] > 2.5) & (tab["time"] < 3.5)
    sw = truck.description.swing
    assert np.allclose(tab["swing_rate"][mid], rate, rtol=1e-9)
    hand = sw["viscous"] * rate + sw["coulomb"] * math.tanh(rate / sw["coulomb_rate"])
    assert np.max(np.abs(tab["swing_torque"][mid] - hand)) <= 1e-6 * hand


def test_swing_torque_while_the_front_moves_is_d_of_J_phidot_dt(truck, truck_run):
    """τ = J(q)·φ̈ + (dJ/dt)·φ̇ + friction (the Coriolis term dJ/dt·φ̇ from the poses), J by
    hand at the poses and dJ/dt by central differences of the prescribed lengths."""
    cyc = truck_run.cycle
    tab = truck_run.table()
    s = CubicSpline(cyc.time, cyc.swing, bc_type="clamped")
    sw = truck.description.swing
    h = 1e-4

    def J_at(t):
        L = cyc.sample([t])
        return hand_J(truck, truck.pose_at_lengths({f: float(L[f][0]) for f in truck.functions}))

    checked = 0
    for tt in (7.5, 8.7, 9.6, 12.6, 13.9, 15.2):
        i = int(np.argmin(np.abs(tab["time"] - tt)))
        t = float(tab["time"][i])
        w, a = float(s(t, 1)), float(s(t, 2))
        Jdot = (J_at(t + h) - J_at(t - h)) / (2 * h)
        hand = J_at(t) * a + Jdot * w + sw["viscous"] * w + sw["coulomb"] * math.tanh(w / sw["coulomb_rate"])
        assert abs(tab["swing_torque"][i] - hand) <= 1e-5 * max(abs(hand), 1e3), (t, tab["swing_torque"][i], hand)
        assert abs(Jdot * w) > 1e2          # the Coriolis term matters at these times
        checked += 1
    assert checked == 6


def test_no_swing_column_holds_the_swing_still_and_the_report_says_so(truck):
    dig = Machine.from_file(DATA / "excavator_dig.toml", mode="extensions")
    bite = dig.cycle("bite")
    run = truck.run(bite, t_end=3.0, progress=False)
    tab = run.table()
    assert np.all(tab["swing_angle"] == 0.0) and np.all(tab["swing_rate"] == 0.0)
    assert "held still: the cycle has no 'swing' column (angle constant)" in run.report()
    f = truck.with_mode("forces")
    c = Cycle("forces", [0, 0.5], {fn: [0.0, 0.0] for fn in f.functions}, f.functions)
    r = f.run(c, progress=False, check=False)
    assert np.max(np.abs(r.table()["swing_angle"])) == 0.0
    assert "held still: the cycle has no 'swing' column (zero torque)" in r.report()


def test_forces_mode_swing_torque_changes_the_angular_momentum_by_hand_J(truck):
    """Mode forces: the front held at the start pose by the cylinders' static forces (from
    mode extensions at rest) and a constant torque τ at the swing axis from rest. The angular
    momentum about the axis, J(q)·φ̇ with J by hand at the run's own poses (the front sways a
    little under the centrifugal load), equals ∫ (τ − c·φ̇ − T_C·tanh(φ̇/ω_C)) dt."""
    ext = truck.run(Cycle("extensions", [0, 1], {f: [truck.start_pose.length(truck.cylinder_of[f])] * 2
                                                 for f in truck.functions}, truck.functions),
                    progress=False).table()
    m = truck.with_mode("forces")
    tau = 20e3
    F = {f: [float(ext[f"{f}_force"][0])] * 2 for f in m.functions}
    run = m.run(Cycle("forces", [0, 1.0], F, m.functions, swing=[tau, tau]), progress=False, check=False,
                rtol=1e-9, atol=1e-11, dt=1e-3)   # fine samples: the smooth Coulomb term builds up in ~0.01 s
    tab = run.table()
    sw = truck.description.swing
    w = tab["swing_rate"]
    net = tau - sw["viscous"] * w - sw["coulomb"] * np.tanh(w / sw["coulomb_rate"])
    impulse = np.concatenate([[0.0], np.cumsum(0.5 * (net[1:] + net[:-1]) * np.diff(tab["time"]))])
    for i in np.linspace(0, len(w) - 1, 11).astype(int)[1:]:
        pose = m.pose_at_lengths({f: float(tab[f"{f}_length"][i]) for f in m.functions})
        L = hand_J(m, pose) * w[i]
        assert abs(L - impulse[i]) <= 1e-5 * abs(impulse[i]), (tab["time"][i], L, impulse[i])
    assert np.allclose(tab["swing_torque"], tau, rtol=1e-12)
    assert tab["swing_angle"][-1] > 0.05


# ------------------------------------------------------------------ analyses
def test_working_range_and_lift_capacity_do_not_see_the_swing():
    from mechanisms.analysis import lift_capacity, working_range

    with_swing_desc = MachineDescription.load(TRUCK)
    valves = {k: v for k, v in with_swing_desc.circuit["valves"].items() if k != "swing"}
    without = with_swing_desc.with_sections(swing=None, circuit={**with_swing_desc.circuit, "valves": valves})
    assert with_swing_desc.swing is not None and without.swing is None
    a, b = working_range(with_swing_desc, n=12, progress=False), working_range(without, n=12, progress=False)
    assert a.summary() == b.summary()
    la, lb = lift_capacity(with_swing_desc, n=20, progress=False), lift_capacity(without, n=20, progress=False)
    assert np.allclose(np.asarray(la.matrix(), dtype=float), np.asarray(lb.matrix(), dtype=float),
                       rtol=1e-9, atol=0.0, equal_nan=True)
    dig = working_range(DATA / "excavator_dig.toml", n=12, progress=False)     # the file it extends
    assert dig.summary() == a.summary()


def test_a_given_tensor_sets_the_part_inertia_about_the_vertical(truck):
    """A bucket tensor T (its frame) instead of the slender default: the swing inertia read-out
    changes by uᵀ·T·u − J_n·cos²(pin line), u the vertical in the bucket's frame."""
    T = [[120.0, 15.0], [15.0, 90.0]]
    m = Machine.from_file(TRUCK, {"swing.tensors.bucket": [[f"{v} kg*m^2" for v in row] for row in T]},
                          mode="extensions")
    c = Cycle("extensions", [0, 1], {f: [truck.start_pose.length(truck.cylinder_of[f])] * 2
                                     for f in truck.functions}, truck.functions)
    Jt = m.run(c, progress=False).table()["swing_inertia"][0]
    Jd = truck.run(c, progress=False).table()["swing_inertia"][0]
    pose = truck.pose_at_lengths({f: c.values[f][0] for f in truck.functions})
    th = pose.angle("bucket")
    u = np.array([math.sin(th), math.cos(th)])
    part = truck.mechanism.parts["bucket"]
    r = np.array(part.root.local)
    far = max(part.points.values(), key=lambda p: np.hypot(*(np.array(p.local) - r)))
    d = np.array(far.local) - r
    slender = 150.0 * math.cos(th + math.atan2(d[1], d[0])) ** 2
    assert Jt - Jd == pytest.approx(u @ np.array(T) @ u - slender, abs=1e-6)
    run = m.run(c, progress=False)
    line = next(x for x in run.report().splitlines() if "slender along the pin line" in x)
    named = line.split("for ", 1)[1].split(", ")
    assert "bucket" not in named and "boom" in named and "bucket_cylinder" in named
    assert "bucket.inertia" not in m.params                 # a number now: changing it rebuilds
    assert m.set({"bucket.inertia": "160 kg*m^2"}) == "rebuilt"


def test_a_runs_results_are_its_cycle_again_with_the_swing(tmp_path, truck, truck_run):
    truck_run.to_csv(tmp_path / "results.csv")
    again = Cycle.from_results(tmp_path / "results.csv", "extensions", truck.functions)
    assert np.max(np.abs(again.swing - truck_run.table()["swing_angle"])) <= 1e-9
    tab = truck.run(again, progress=False).table()
    ref = truck_run.table()
    # the spline through the 0.01 s samples against the cycle's own through its 0.1 s rows
    assert np.max(np.abs(tab["swing_angle"] - ref["swing_angle"])) <= 1e-6
    assert np.max(np.abs(tab["swing_torque"] - ref["swing_torque"])) <= 1e-2 * np.max(np.abs(ref["swing_torque"]))


def test_a_bad_swing_column_is_named():
    with pytest.raises(ParameterError) as e:
        Cycle("valves", [0, 1], {"lift": [0, 0]}, ("lift",), swing=[0, 1.5])
    assert "column 'swing': spool commands must lie in −1…1 (row 3: 1.5)" in str(e.value)
    with pytest.raises(ParameterError) as e:
        Cycle("extensions", [0, 1, 2], {"lift": [1, 1, 1]}, ("lift",), swing=[0, float("nan"), 1])
    assert "column 'swing': row 3 is nan" in str(e.value)
    with pytest.raises(ParameterError) as e:
        Cycle("forces", [0, 1, 2], {"lift": [1, 1, 1]}, ("lift",), swing=[0, 1])
    assert "column 'swing': 2 rows, expected 3 like 'time'" in str(e.value)


def test_a_saved_machine_keeps_its_swing(tmp_path):
    d = MachineDescription.load(TRUCK, {"swing.tensors.bucket": [["120 kg*m^2", "0 kg*m^2"],
                                                                   ["0 kg*m^2", "90 kg*m^2"]]})
    again = MachineDescription.load(d.save(tmp_path / "truck.toml"))
    assert again.swing == d.swing and again.values == d.values
    assert again.swing["tensors"]["bucket"] == ((120.0, 0.0), (0.0, 90.0))
