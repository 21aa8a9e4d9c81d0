"""The wheel loader driving into a pile (wheel_loader_pile.toml), checked against references
written here: the fill against the volume the edge sweeps below the pile's surface (its
path on the ground, by hand from the run's edge and travel read-outs and the profile's
points) × swell, the tractive force against the traction limit μ·W (μ = 0.6, rubber tyres
on loose material; W from the file's masses by hand), the rolling-resistance force and
work by hand, and the energy balance of the run."""

import math

import numpy as np
import pytest

from bondgraph import ParameterError
from components.soil import preset
from mechanisms import MechanismModel
from mechanisms.examples import single_boom
from mechanisms.travel import Carrier, with_travel
from mechanisms.machine import DATA, Machine, MachineDescription
from mechanisms.machine.cycle import Cycle

G = 9.81
SAND = preset("loose_sand")
WIDTH, CAPACITY = 2.9, 3.3
TOE, TOP, HEIGHT = 5.14, 8.71, 2.5                        # the pile's face: x of its toe and top, m
CHASSIS = 13000.0
#: the front's masses in wheel_loader.toml: boom, bell crank, link, bucket, two lift
#: cylinders (rod + barrel each), the tilt cylinder (rod + barrel); the payload point is 0 kg
FRONT = 1850.0 + 260.0 + 70.0 + 1600.0 + 2 * (45.0 + 70.0) + (50.0 + 80.0)
WEIGHT = (CHASSIS + FRONT) * G
MU = 0.6                                                  # tyre–material adhesion on loose material
C_RR, V_R = 0.03, 0.02


@pytest.fixture(scope="module")
def run():
    m = Machine.from_file(DATA / "wheel_loader_pile.toml", mode="extensions")
    return m.run(progress=False, t_eval=np.linspace(0.0, 10.0, 4001))


def test_the_pile_machine_is_the_wheel_loader_with_travel_and_soil():
    base = MachineDescription.load(DATA / "wheel_loader.toml")
    pile = MachineDescription.load(DATA / "wheel_loader_pile.toml")
    assert {n: p.values for n, p in pile.parts.items()} == {n: p.values for n, p in base.parts.items()}
    assert pile.travel["mass"] == CHASSIS and pile.travel["rolling"] == C_RR
    assert pile.soil["preset"] == "loose_sand" and pile.soil["capacity"] == CAPACITY
    assert pile.travel["tractive_max"] <= MU * WEIGHT


def swept_volume(tab):
    """∫ w·d·v_cut dt along the edge's path on the ground, by hand: depth below the pile's
    face along its normal, cut along the face's tangent (the floor trails: +t)."""
    X = tab["edge_x"] + tab["travel_x"]
    Y = tab["edge_y"]
    sigma = np.where((X > TOE) & (X < TOP), math.atan(HEIGHT / (TOP - TOE)), 0.0)
    g = np.interp(X, [TOE, TOP], [0.0, HEIGHT])
    depth = np.maximum((g - Y) * np.cos(sigma), 0.0)
    psi = tab["bucket_angle"] + math.pi                   # the floor from the edge into the bucket
    assert np.all(np.cos(psi - sigma) < -0.3)             # the floor trails: the cut goes along +t
    dm = 0.5 * (depth[1:] + depth[:-1])
    sm = 0.5 * (sigma[1:] + sigma[:-1])
    ds = np.diff(X) * np.cos(sm) + np.diff(Y) * np.sin(sm)
    return np.concatenate([[0.0], np.cumsum(WIDTH * dm * ds)])


def test_the_bucket_fills_with_the_swept_volume_times_swell(run):
    tab = run.table()
    fill = tab["bucket_fill"]
    loose = SAND.swell * swept_volume(tab)
    assert fill.max() >= 0.8 * CAPACITY
    assert fill.max() == pytest.approx(CAPACITY, rel=0.01)    # capped at the heaped capacity (smooth cap)
    below = (loose < 0.95 * CAPACITY) & (fill > 0.1)
    assert below.sum() > 200
    np.testing.assert_allclose(fill[below], loose[below], rtol=0.01)
    assert fill[-1] == pytest.approx(fill.max(), rel=1e-6)     # carried out: nothing given back


def test_the_tractive_force_stays_within_the_traction_limit(run):
    tab = run.table()
    F, v = tab["tractive_force"], tab["travel_speed"]
    assert np.abs(F).max() < MU * WEIGHT
    pushing = (tab["time"] > 1.5) & (tab["time"] < 3.2)
    assert F[pushing].max() > 3 * C_RR * WEIGHT           # the pile pushes back, well above rolling
    # the approach at 1.5 m/s, front held: the rolling resistance C_rr·W (the spline of the held
    # lengths moves the front by millimetres: 1 %)
    approach = (tab["time"] > 0.2) & (tab["time"] < 0.8)
    np.testing.assert_allclose(F[approach], C_RR * WEIGHT * math.tanh(1.5 / V_R), rtol=0.01)
    assert "within it" in run.report()


def test_the_energy_balances_with_the_travel_the_rolling_and_the_soil(run):
    split = run.energy_split()
    assert abs(split.residual) <= 1e-4 * split.scale
    for term in ("travel drive", "rolling resistance", "soil"):
        assert split.terms[term] > 0, term
    tab = run.table()
    v = tab["travel_speed"]
    rolling = np.trapezoid(C_RR * WEIGHT * np.tanh(v / V_R) * v, tab["time"])
    assert split.terms["rolling resistance"] == pytest.approx(rolling, rel=1e-3)
    # the kinetic energy: 17 t at 1.5 m/s at the start, at rest at the end (the front held)
    assert split.terms["kinetic energy"] == pytest.approx(-0.5 * (CHASSIS + FRONT) * 1.5 ** 2, rel=1e-3)


def test_the_travel_from_python_and_its_refusals_name_things():
    m = Machine.from_mechanism(single_boom(), start={"boom_cyl": "3.2 m"}, mode="forces",
                               travel={"mass": "10 t", "rolling": 0.02})
    assert m.carrier.mass == 10000.0 and "travel.force" in m.model.model.input_names
    with pytest.raises(ParameterError, match="travel column in a valves cycle"):
        Cycle("valves", [0.0, 1.0], {"boom_cyl": [0.0, 0.0]}, ["boom_cyl"], travel=[0.0, 1.0])
    plain = Machine.from_mechanism(single_boom(), start={"boom_cyl": "3.2 m"})
    cyc = Cycle("extensions", [0.0, 1.0], {"boom_cyl": [3.2, 3.2]}, ["boom_cyl"], travel=[1.0, 1.0])
    with pytest.raises(ParameterError, match="has no \\[travel\\]"):
        plain.run(cyc, progress=False)


def test_forward_dynamics_under_the_inverse_dynamics_forces_retraces_the_approach(run):
    """Mode forces from the file's [start] (the cycle's first row) and [travel] speed, driven by
    the cylinder and tractive forces the prescribed run took (a second formulation: forward
    against inverse dynamics), follows the approach (open loop: in the pile it drifts)."""
    m = Machine.from_file(DATA / "wheel_loader_pile.toml", mode="forces")
    fwd = m.run(m.cycle("pile_loading"), t_end=1.0, progress=False, t_eval=np.linspace(0.0, 1.0, 21)).table()
    ref = run.table()
    for key, tol in (("travel_x", 1e-4), ("edge_x", 1e-4), ("edge_y", 1e-4)):
        assert np.max(np.abs(fwd[key] - np.interp(fwd["time"], ref["time"], ref[key]))) <= tol, key


def test_the_rolling_weight_follows_the_machines_gravity_at_run_time():
    """The weight on the wheels uses the front's gravity (the run-time ``machine.gravity``): set
    to the Moon's, the rolling work is the hand C_rr·W·tanh(v/v_r)·v at that g (it was 9.81
    baked in at the build). A carrier whose own gravity differs from the front's is refused."""
    m = Machine.from_file(DATA / "wheel_loader_pile.toml", mode="extensions")
    assert m.set({"machine.gravity": "1.62 m/s^2"}) == "parameters"
    run = m.run(t_end=1.0, progress=False, t_eval=np.linspace(0.0, 1.0, 2001))
    tab = run.table()
    v = tab["travel_speed"]
    rolling = np.trapezoid(C_RR * (CHASSIS + FRONT) * 1.62 * np.tanh(v / V_R) * v, tab["time"])
    assert run.energy_split().terms["rolling resistance"] == pytest.approx(rolling, rel=1e-3)
    with pytest.raises(ParameterError, match=r"carrier 'travel': gravity 5 m/s² differs from the front's"):
        MechanismModel.build(with_travel(single_boom(), Carrier("travel", mass=1e4, rolling=0.03, gravity=5.0)))
