"""The shipped dig machine (``excavator_dig.toml``): a real bite against hand references.

References: the fundamental earthmoving equation (:func:`components.soil.draft_force`, itself
checked against a brute-force wedge search and Rankine in ``test_soil_cutting.py``) evaluated
at the depth and rake computed here from the run's tip and part angles; the bite's design
(tools/make_cycles.py: 0.35 m deep, 2 m long); the engine's torque curve of the file; the fuel
range of a 20 t excavator (see ``tests/engine/test_engine_machine.py`` for the source).
"""

import math

import numpy as np
import pytest

from components.soil import draft_force, preset
from mechanisms.machine import DATA, Machine, MachineDescription
from mechanisms.machine.operator import TrackingOperator

GROUND, DEPTH, WIDTH, CAPACITY, FACE = -1.70, 0.35, 1.0, 0.8, math.radians(60)
GRAVEL = preset("gravel")
LHV, RHO, ETA = 42.8e6, 835.0, 0.45
T_FRICTION = 1.6e5 * 6.69e-3 / (4 * math.pi)
IDLE_FUEL = T_FRICTION * 2150 * math.pi / 30 / ETA / (LHV * RHO) * 3.6e6    # L/h at high idle, no load
HEAVY_DIGGING_TOP = 20.0                                                   # L/h, 20 t class


@pytest.fixture(scope="module")
def bite():
    m = Machine.from_file(DATA / "excavator_dig.toml", mode="extensions")
    return m.run(progress=False)


def test_the_dig_machine_is_the_reference_excavator_with_soil_and_the_open_centre_circuit():
    base = MachineDescription.load(DATA / "excavator.toml")
    dig = MachineDescription.load(DATA / "excavator_dig.toml")
    assert {n: p.values for n, p in dig.parts.items()} == {n: p.values for n, p in base.parts.items()}
    assert dig.circuit["type"] == "open-centre" and dig.soil["preset"] == "gravel"
    assert set(dig.cycles) == {"dig_lift_dump", "bite"} and dig.default_cycle == "bite"
    assert dig.cycles["dig_lift_dump"]["extensions"] == base.cycles["dig_lift_dump"]["extensions"]


def test_the_bite_is_as_designed(bite):
    tab = bite.table()
    t, y = tab["time"], tab["tip_y"]
    drag = (t >= 1.5) & (t <= 5.5)                   # the knots at constant depth
    assert np.all(np.abs(y[drag] - (GROUND - DEPTH)) < 5e-3)
    assert np.min(y) == pytest.approx(GROUND - DEPTH, abs=5e-3)
    assert tab["tip_x"][t <= 1.5 + 1e-9][-1] - tab["tip_x"][t <= 5.5 + 1e-9][-1] == pytest.approx(2.0, abs=0.01)


def test_the_cutting_force_along_the_bite_is_the_hand_draft_force(bite):
    tab = bite.table()
    t = tab["time"]
    depth = np.maximum(GROUND - tab["tip_y"], 0.0)
    psi = tab["boom_angle"] + tab["arm_angle"] + tab["bucket_angle"] + FACE     # the face, world frame
    rake = np.degrees(np.arccos(np.clip(np.abs(np.cos(psi)), math.cos(math.radians(90)),
                                        math.cos(math.radians(10)))))
    speed = np.abs(np.gradient(tab["tip_x"], t))
    cutting = (depth > 0.05) & (speed > 0.2)         # well in the soil, well above the creep speed
    assert cutting.sum() > 50
    H = draft_force(depth[cutting], rake[cutting], WIDTH, GRAVEL)[0]
    np.testing.assert_allclose(np.abs(tab["cutting_force"][cutting]), H, rtol=0.01)


def test_the_bite_fills_the_bucket_and_the_dump_moves_it(bite):
    tab = bite.table()
    fill = tab["bucket_fill"]
    assert fill.max() == pytest.approx(CAPACITY, rel=0.01)      # capped at the heaped capacity
    assert fill[-1] < 1e-3                                      # emptied at the dump
    # everything that left the bucket left through the dump: bank volume = loose / swell
    assert tab["moved_volume"][-1] == pytest.approx((fill.max() - fill[-1]) / GRAVEL.swell, rel=0.01)
    assert tab["moved_mass"][-1] == pytest.approx(tab["moved_volume"][-1] * GRAVEL.unit_weight / 9.81, rel=1e-9)


@pytest.fixture(scope="module", params=["open-centre", "load-sensing"])
def tracked(request):
    over = {"circuit.type": request.param}
    m = Machine.from_file(DATA / "excavator_dig.toml", over, mode="valves")
    ref = Machine.from_file(DATA / "excavator_dig.toml", over, mode="extensions").cycle()
    op = TrackingOperator(m, ref)
    run = op.drive(t_max=30.0, progress=False)
    return op, run


def test_the_tracked_bite_balances_from_the_fuel_to_the_soil(tracked):
    op, run = tracked
    split = run.energy_split()
    assert abs(split.residual) <= 1e-4 * split.scale
    for term in ("fuel", "engine friction", "engine losses (combustion)", "soil"):
        assert split.terms[term] > 0, term
    tab = run.table()
    assert split.terms["fuel"] == pytest.approx(float(np.trapezoid(tab["fuel_rate"], tab["time"])) * LHV * RHO,
                                                rel=1e-3)


def test_the_circuits_stay_within_the_engine_and_the_fuel_is_in_range(tracked):
    op, run = tracked
    tab = run.table()
    curve = run.machine.circuit.engine.full_load_value(tab["engine_speed"])
    assert np.all(tab["engine_torque"] < 0.98 * curve)   # never at the curve: the engine holds its speed
    assert "no lugging" in run.report()
    t = tab["time"]
    litres_per_hour = float(np.trapezoid(tab["fuel_rate"], t)) / (t[-1] - t[0]) * 3.6e6
    assert IDLE_FUEL < litres_per_hour < HEAVY_DIGGING_TOP
    assert tab["moved_volume"][-1] > 0.6                 # the bite was dumped
    assert " L per m³ (bank)" in run.report()


def test_the_operator_holds_the_bite_within_20_mm(tracked):
    op, run = tracked
    # the independent reference: the machine in mode extensions (kinematics, no hydraulics) on the lengths
    path = Machine.from_file(DATA / "excavator_dig.toml", mode="extensions").run(op.reference, progress=False).table()
    tab = run.table()
    keep = tab["time"] <= op.cycle_time
    clock = op.clock(tab["time"][keep])
    d = np.hypot(tab["tip_x"][keep] - np.interp(clock, path["time"], path["tip_x"]),
                 tab["tip_y"][keep] - np.interp(clock, path["time"], path["tip_y"]))
    assert math.isfinite(op.cycle_time)
    assert np.median(d) <= 0.020                          # m; printed beside every comparison
    assert op.tracking(run).median == pytest.approx(np.median(d), rel=1e-9)
