"""The hydraulic dig–lift–dump cycle: closure, energy, cavitation, relief, tracking."""

import numpy as np
import pytest

from mechanisms.excavator import Cycle, Excavator
from mechanisms.excavator.control import tracking_controller


@pytest.fixture(scope="module")
def exc():
    return Excavator(mode="valves")


@pytest.fixture(scope="module")
def cycle_run(exc):
    return exc.run(Cycle.default("valves"), rtol=1e-7, atol=1e-9, progress=False)


def test_hydraulic_cycle_closes_loops_and_balances_energy(cycle_run):
    assert cycle_run.loop_closure() < 1e-6
    pb = cycle_run.energy_balance()
    assert pb.relative < 1e-4
    # pump work = stored + dissipated + potential: the gravity sources are part of the source work
    assert pb.source_work > 0 and pb.dissipated > 0


def test_no_chamber_below_the_cavitation_floor(exc, cycle_run):
    tab = cycle_run.table()
    for k in [k for k in tab if k.endswith("_pressure") and k != "pump_pressure"]:
        assert tab[k].min() >= exc.circuit.cavitation_floor, k
    assert "above the cavitation floor -1.0 bar gauge" in cycle_run.report()


def test_pump_pressure_stays_within_the_relief_band(exc, cycle_run):
    tab = cycle_run.table()
    relief = exc.circuit.hydraulic.power_unit.relief
    assert tab["pump_pressure"].max() <= relief.full_pressure
    # with closed centres and a fixed pump, the relief passes the pump flow while nothing moves
    assert tab["relief_flow"][0] == pytest.approx(tab["pump_flow"][0], rel=1e-6)


def test_the_command_table_digs_lifts_and_dumps_like_the_lengths_cycle(cycle_run):
    tab = cycle_run.table()
    ref = Excavator(mode="extensions").run(Cycle.default("extensions"), progress=False).table()
    for f in ("boom", "arm", "bucket"):
        assert np.max(np.abs(tab[f"{f}_length"] - ref[f"{f}_length"])) < 0.15
    assert tab["tip_y"].min() < -1.7  # below ground level


def test_starts_at_rest_in_static_equilibrium(exc, cycle_run):
    tab = cycle_run.table()
    for f in ("boom", "arm", "bucket"):
        assert abs(tab[f"{f}_rate"][0]) < 1e-9
    hold = Cycle("valves", [0, 1], {f: [0, 0] for f in ("boom", "arm", "bucket")})
    still = exc.run(hold, t_end=0.5, progress=False)
    t = still.table()
    assert np.max(np.hypot(t["tip_x"] - t["tip_x"][0], t["tip_y"] - t["tip_y"][0])) < 1e-4


def test_controller_callback_tracks_a_lengths_cycle(exc):
    ref = Cycle.default("extensions")
    run = exc.run(Cycle.default("valves"), controller=tracking_controller(exc, ref), t_end=4.0,
                  t_eval=np.linspace(0, 4, 401), progress=False)
    tab = run.table()
    target = Excavator(mode="extensions").run(ref, t_end=4.0, t_eval=np.linspace(0, 4, 401),
                                              progress=False).table()
    assert np.max(np.abs(tab["boom_length"] - target["boom_length"])) < 0.06
