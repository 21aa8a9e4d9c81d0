"""The notebook route: a machine built from templates in Python is as safe and complete as one
read from a file.

Checked against independent references: the stroke-crossing time of a clamped spline in
closed form, the holding force from virtual work (finite differences of the potential
energy over poses solved by loop closure, no bond graph involved), a machine written to a
file and read back (same equations, same runs to 1e-12 m), and the file's machine taken
apart in Python and put together again.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from bondgraph import AssemblyError, ParameterError, SimulationError
from bondgraph.errors import BondGraphWarning
from components import Cylinder, MainBody
from mechanisms import Mechanism, MechanismModel
from mechanisms.examples import single_boom
from mechanisms.machine import DATA, Cycle, Machine

G = 9.81


def loader(masses: bool = True) -> Mechanism:
    """A two-link loader arm from templates, units as text (a new user's machine)."""
    mech = Mechanism("loader")
    mech.add(MainBody("arm", mass="900 kg", inertia="400 kg*m^2", cog=("1.1 m", "0 m"),
                      points={"O": ("Rt", "0 m", "0 m"), "P": ("Pd", "0.8 m", "-0.3 m"),
                              "C": ("Li", "1.2 m", "0.3 m"), "T": ("Li", "2.2 m", "0 m")}))
    mech.add(MainBody("bucket", mass="500 kg", inertia="80 kg*m^2", cog=("0.3 m", "-0.2 m"),
                      points={"T": ("Rt", "0 m", "0 m"), "N": ("Pd", "0 m", "0.4 m"),
                              "Q": ("Li", "0.7 m", "-0.5 m")}))
    mech.add(Cylinder("lift_cyl", retracted="1.0 m", stroke="0.8 m", bore="100 mm", rod="60 mm", count=2,
                      function="lift", m_rod="30 kg" if masses else 0.0))
    mech.add(Cylinder("tilt_cyl", retracted="0.8 m", stroke="0.45 m", bore="90 mm", rod="50 mm",
                      function="tilt"))
    mech.fix("arm", "O", at=("0 m", "0 m"))
    mech.fix("lift_cyl", "A", at=("0.6 m", "-1.2 m"))
    mech.connect("arm", "P", "lift_cyl", "B")
    mech.connect("arm", "T", "bucket", "T")
    mech.connect("arm", "C", "tilt_cyl", "A")
    mech.connect("bucket", "N", "tilt_cyl", "B")
    return mech


START = {"lift_cyl": "1.2 m", "tilt_cyl": "1.0 m"}
OUTPUTS = {"points": {"tip": "bucket.Q"}}
CIRCUIT = {"type": "fixed", "oil": {"density": "870 kg/m^3", "bulk_modulus": "1.4 GPa"},
           "power_unit": {"pump_displacement": "60 cm^3/rev", "pump_speed": "2000 rpm", "relief_crack": "250 bar",
                          "relief_full": "260 bar", "relief_flow": "300 L/min"},
           "valves": {"lift": {"flow": "120 L/min", "dp": "10 bar"}, "tilt": {"flow": "80 L/min", "dp": "10 bar"}}}


@pytest.fixture(scope="module")
def machine() -> Machine:
    return Machine.from_mechanism(loader(), start=START, outputs=OUTPUTS, ground="-1.5 m")


# --------------------------------------------------------------------------- template route: strokes
def test_extensions_past_a_stroke_are_refused_with_the_analytic_crossing_time():
    mm = MechanismModel.build(single_boom("extension"))
    # clamped cubic from 3.2 m to 3.9 m over 1 s: s(t) = 3.2 + 0.7 (3t² − 2t³); it crosses the
    # stroke end 3.73 m where 3t² − 2t³ = 0.53/0.7
    roots = np.roots([-2.0, 3.0, 0.0, -0.53 / 0.7])
    t_cross = float(min(r.real for r in roots if abs(r.imag) < 1e-12 and 0 < r.real < 1))
    with pytest.raises(AssemblyError) as e:
        mm.simulate_extensions({"boom_cyl": ([0, 1], [3.2, 3.9])}, (0, 1))
    msg = str(e.value)
    assert "boom_cyl: 3.900 m at t = 1 s exceeds the stroke end 3.730 m" in msg
    first = float(msg.split("outside from t = ")[1].split(" s")[0])
    assert abs(first - t_cross) < 1 / 400 + 1e-9         # the check samples 401 times per run


def test_template_run_past_the_table_is_named_and_before_it_refused():
    mm = MechanismModel.build(single_boom("extension"))
    table = {"boom_cyl": ([0, 1], [3.2, 3.5])}
    with pytest.warns(BondGraphWarning, match=r"past the end of the lengths table \(1 s\).*boom_cyl = 3\.5 m"):
        res = mm.simulate_extensions(table, (0, 1.5), progress=False, rtol=1e-10, atol=1e-12)
    assert abs(float(res["boom_lift/boom_cyl/ext.s"][-1]) - 3.5) < 1e-8      # held
    with pytest.raises(ParameterError, match="before the lengths table starts"):
        mm.simulate_extensions({"boom_cyl": ([0.5, 1], [3.2, 3.5])}, (0, 1))


def test_lengths_given_in_a_wrong_form_are_named():
    mm = MechanismModel.build(single_boom("extension"))
    with pytest.raises(ParameterError, match=r"lengths of 'boom_cyl'.*expected \(times, lengths\)"):
        mm.simulate_extensions({"boom_cyl": 3.2}, (0, 1))


def test_force_drive_has_end_stops_by_default():
    mm = MechanismModel.build(single_boom("force"))
    stop = mm.mechanism.drives["boom_cyl"].end_stop
    assert (stop.stiffness, stop.damping, stop.hardening_length) == (1e9, 1e6, 1e-3)
    pose = mm.mechanism.solve_pose({"boom_cyl": 3.2}, guess={"boom": 0.4})
    with warnings.catch_warnings():
        warnings.simplefilter("error", BondGraphWarning)     # within the stops: no warning
        res = mm.simulate_forces({"boom_cyl": 250e3}, (0, 1), pose, progress=False)
    s = res["boom_lift/boom_cyl/ext.s"]
    assert 3.73 - 1e-6 < float(np.max(s)) < 3.73 + 0.01      # reached the end, stopped there


def test_force_past_the_stops_is_named():
    mm = MechanismModel.build(single_boom("force"))
    pose = mm.mechanism.solve_pose({"boom_cyl": 3.2}, guess={"boom": 0.4})
    with pytest.warns(BondGraphWarning, match=r"boom_cyl: 3\.\d+ m at t = .* exceeds the stroke end 3\.730 m.*"
                                              r"end stop was overrun"):
        mm.simulate_forces({"boom_cyl": 1e12}, (0, 0.5), pose, progress=False)


def test_overstroke_without_stops_names_the_stroke_not_the_state_choice():
    mech = single_boom(None)
    mech.drive_force("boom_cyl", end_stop=False)
    mm = MechanismModel.build(mech)
    assert mm.mechanism.drives["boom_cyl"].end_stop is None
    pose = mm.mechanism.solve_pose({"boom_cyl": 3.2}, guess={"boom": 0.4})
    with pytest.raises(SimulationError) as e:
        mm.simulate_forces({"boom_cyl": 1e12}, (0, 2), pose, progress=False)
    msg = str(e.value)
    assert e.value.problems[0].startswith("physical cause: cylinder boom_cyl at ")
    assert "past its stroke end 3.730 m" in msg and "the cause is the stroke" in msg
    assert "prefer='state'" not in msg
    assert e.value.results is not None and len(e.value.results.t) > 1        # partial results kept


def test_mechanism_model_plots_its_own_results():
    import matplotlib

    matplotlib.use("Agg")
    from mechanisms.machine.plots import plot_timeseries, plot_trajectory

    mm = MechanismModel.build(single_boom("extension"))
    res = mm.simulate_extensions({"boom_cyl": ([0, 1], [3.2, 3.5])}, (0, 1), progress=False)
    fig = mm.plot_trajectory(res, points=["boom/F"])
    ax = fig.axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("x [m]", "y [m]")
    x, y = mm.positions(res)["boom/F"]
    line = [ln for ln in ax.get_lines() if ln.get_label() == "boom/F path"][0]
    assert np.allclose(line.get_xdata(), x) and np.allclose(line.get_ydata(), y)
    for f in (plot_trajectory, plot_timeseries):
        with pytest.raises(ParameterError, match="MechanismModel.plot_trajectory|Machine.from_mechanism"):
            f(res)


# --------------------------------------------------------------------------- one machine layer
def test_python_machine_checks_strokes_and_runs(machine):
    assert machine.functions == ("lift", "tilt")
    assert machine.description.stroke_limits("lift") == (1.0, 1.8)
    assert machine.report.summary().startswith("causality of 'loader': sound")
    too_far = Cycle("extensions", [0, 1, 2], {"lift": [1.2, 1.6, 1.9], "tilt": [1.0, 1.0, 1.0]}, machine.functions)
    with pytest.raises(AssemblyError, match=r"lift: 1\.900 m at t = 2 s exceeds the stroke end 1\.800 m"):
        machine.run(too_far)
    run = machine.run(Cycle("extensions", [0, 1, 2], {"lift": [1.2, 1.6, 1.3], "tilt": [1.0, 0.9, 1.1]},
                            machine.functions), progress=False)
    assert run.loop_closure() < 1e-9
    tab = run.table()
    assert {"tip_x", "tip_y", "lift_force", "tilt_force"} <= set(tab)


def test_python_machine_forces_run_has_contacts(machine):
    forces = machine.with_mode("forces")
    run = forces.run(Cycle("forces", [0, 1], {"lift": [3e5, 3e5], "tilt": [0, 0]}, machine.functions),
                     progress=False)
    lift = [c for c in run.contacts if c.function == "lift" and c.end == "outer"]
    assert lift and all(c.depth < 0.01 for c in lift)


def test_machine_end_stops_can_be_switched_off_and_the_failure_names_the_stroke(machine):
    bare = Machine(machine.description, "forces", end_stops=False)
    with pytest.raises(SimulationError) as e:
        bare.run(Cycle("forces", [0, 1], {"lift": [3e6, 3e6], "tilt": [0, 0]}, machine.functions), progress=False)
    assert any(p.startswith("physical cause: lift: cylinder lift_cyl at") for p in e.value.problems)
    assert "prefer='state'" not in str(e.value)


def _potential(m: Machine, lift: float, tilt: float) -> float:
    """Gravity potential of the bodies (J) at the pose with these lengths (loop closure only)."""
    pose = m.pose_at_lengths({"lift": lift, "tilt": tilt})
    U = 0.0
    for name, part in m.mechanism.parts.items():
        if isinstance(part, MainBody):
            U += m.params[f"{name}.mass"] * G * part.world_cog(pose.values[name])[1]
    return U


def test_circuit_in_a_few_lines_and_its_start_state_holds_the_pose_by_virtual_work():
    m = Machine.from_mechanism(loader(masses=False), start=START, outputs=OUTPUTS).with_circuit(CIRCUIT)
    x0 = m.start_state()
    h = 1e-6
    for f, cyl in (("lift", "lift_cyl"), ("tilt", "tilt_cyl")):
        d = {"lift": 1.2, "tilt": 1.0}
        up, down = dict(d), dict(d)
        up[f] += h
        down[f] -= h
        F_vw = (_potential(m, **up) - _potential(m, **down)) / (2 * h)      # the push that holds it
        a_cap, a_rod = m.description.areas(f)
        F = x0[f"loader/hyd/{f}/cyl/C_A.e"] * a_cap - x0[f"loader/hyd/{f}/cyl/C_B.e"] * a_rod
        assert F == pytest.approx(F_vw, rel=1e-6, abs=1e-3)
    run = m.run(Cycle("valves", [0, 1], {"lift": [0, 0], "tilt": [0, 0]}, m.functions), progress=False)
    tab = run.table()
    assert np.max(np.abs(tab["lift_length"] - 1.2)) < 1e-6            # held: it does not sink
    assert run.report() and "lift" in run.report()


def test_round_trip_python_file_python(machine, tmp_path):
    path = machine.save(tmp_path / "loader.toml")
    text = path.read_text()
    assert 'bore = "0.1 m"' in text and "[hinges]" in text
    again = Machine.from_file(path, mode="extensions")
    a, b = machine.model.model, again.model.model
    assert a.state_names == b.state_names
    assert [str(r) for r in a.equations.residuals] == [str(r) for r in b.equations.residuals]
    assert a.params == b.params and len(a.params) > 5
    cycle = Cycle("extensions", [0, 1, 2], {"lift": [1.2, 1.6, 1.3], "tilt": [1.0, 0.9, 1.1]}, machine.functions)
    ta = machine.run(cycle, progress=False).table()
    tb = again.run(cycle, progress=False).table()
    for k in ("tip_x", "tip_y"):
        assert np.max(np.abs(ta[k] - tb[k])) < 1e-12
    assert np.max(np.abs(ta["lift_force"] - tb["lift_force"])) < 1e-6


def test_file_machine_taken_apart_in_python_and_rebuilt():
    m = Machine.from_file(DATA / "excavator.toml", mode="extensions")
    mech = m.to_mechanism()
    assert mech.parts["boom_cylinder"].hydraulics["count"] == 2
    again = m.with_mechanism(mech)
    t = np.linspace(0, 1, 11)
    ta = m.run(t_end=1.0, t_eval=t, progress=False).table()
    tb = again.run(t_end=1.0, t_eval=t, progress=False).table()
    assert np.max(np.abs(ta["tip_x"] - tb["tip_x"])) < 1e-12
    assert np.max(np.abs(ta["boom_force"] - tb["boom_force"])) < 1e-6 * np.max(np.abs(ta["boom_force"]))
    heavier = mech.replace(mech.parts["bucket"].evolve(mass="900 kg"))
    assert heavier.mass == 900.0 and m.with_mechanism(mech).params["bucket.mass"] == 900.0


def test_a_machine_needs_every_cylinders_bore():
    mech = loader()
    mech.replace(Cylinder("tilt_cyl", retracted="0.8 m", stroke="0.45 m"))
    with pytest.raises(ParameterError) as e:
        Machine.from_mechanism(mech, start=START)
    assert "cylinder 'tilt_cyl': no bore and rod" in str(e.value)
    assert "lift_cyl" not in str(e.value)


def test_cylinder_hydraulic_data_are_checked_all_at_once():
    with pytest.raises(ParameterError) as e:
        Cylinder("c", retracted=1.0, stroke=0.5, count=0, bore="60 mm", rod="80 mm", function="2nd",
                 friction={"coulomb": "1 kN", "stiction": "2 kN"}, end_stop={"stiffness": "-1 N/m"})
    msg = str(e.value)
    for part in ("count: found 0", "rod: 80 mm, expected smaller than the bore 60 mm", "function: found '2nd'",
                 "friction.stiction: unknown key", "end_stop.stiffness"):
        assert part in msg, part
    assert len(e.value.problems) == 5


@pytest.mark.parametrize("kind, extra", [("fixed", {}),
                                         ("load-sensing", {"load_sensing": {"margin": "20 bar",
                                                                            "compensation": "post"}})])
def test_a_circuit_lists_every_problem_at_once(machine, kind, extra):
    """Oil missing and the relief's flow missing: both named in one error (the power unit was
    checked only once the other tables were right)."""
    pu = {k: v for k, v in CIRCUIT["power_unit"].items() if k != "relief_flow"}
    with pytest.raises(ParameterError) as e:
        machine.with_circuit({"type": kind, "power_unit": pu, "valves": CIRCUIT["valves"], **extra})
    msg = str(e.value)
    assert "'circuit.oil'" in msg and "relief_flow" in msg


def test_the_analyses_take_a_python_machine_as_they_take_its_file(machine, tmp_path):
    from mechanisms.analysis import Study, working_range

    ours = working_range(Study(machine), n=12).summary()
    theirs = working_range(Study(machine.save(tmp_path / "loader.toml")), n=12).summary()
    assert ours.keys() == theirs.keys()
    for k, v in ours.items():
        assert (np.isnan(v) and np.isnan(theirs[k])) or abs(v - theirs[k]) < 1e-12, k
    pose = machine.start_pose
    tip_x = machine.mechanism.parts["bucket"].world_points(pose.values["bucket"])["Q"][0]
    assert ours["max_reach"] >= tip_x - 1e-9


def test_results_plot_separates_angles_lengths_and_pressures():
    """The issue's res.plot() put rad and m on one axis: a run's states carry their units."""
    import matplotlib

    matplotlib.use("Agg")
    mm = MechanismModel.build(single_boom("extension"))
    res = mm.simulate_extensions({"boom_cyl": ([0, 1], [3.2, 3.5])}, (0, 1), progress=False)
    axes = res.plot("boom_lift/boom/w.theta", "boom_lift/boom_cyl/ext.s")
    assert [a.get_ylabel().split("[")[-1] for a in axes] == ["deg]", "m]"]
    assert axes[-1].get_xlabel() == "time [s]"
