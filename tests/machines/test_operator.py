"""The tracking operator: the tip traces the reference path, against a kinematic reference run."""

import math

import numpy as np
import pytest

from bondgraph import ParameterError
from mechanisms.machine import DATA, Machine
from mechanisms.machine.operator import TrackingOperator

FILE = DATA / "excavator.toml"
DIG = DATA / "excavator_dig.toml"


@pytest.fixture(scope="module")
def fixed():
    m = Machine.from_file(FILE, mode="valves")
    ref = m.cycle(mode="extensions")
    op = TrackingOperator(m, ref)
    run = m.run(controller=op.controller, t_end=14.0, progress=False)
    # the independent reference: pure kinematics on the same lengths, no hydraulics, no operator
    path = Machine.from_file(FILE, mode="extensions").run(ref, progress=False).table()
    return m, ref, op, run, path


def test_fixed_circuit_traces_the_dig_cycle_path_within_20_mm_median(fixed):
    m, ref, op, run, path = fixed
    tab = run.table()
    done = op.cycle_time
    assert math.isfinite(done) and ref.time[-1] <= done < 1.5 * ref.time[-1]
    keep = tab["time"] <= done
    clock = op.clock(tab["time"][keep])
    # the clock never runs ahead of real time and ends at the reference's end
    assert np.all(np.diff(clock) >= -1e-12) and np.all(clock <= tab["time"][keep] + 1e-9)
    assert clock[-1] == pytest.approx(ref.time[-1], abs=0.02)
    d = np.hypot(tab["tip_x"][keep] - np.interp(clock, path["time"], path["tip_x"]),
                 tab["tip_y"][keep] - np.interp(clock, path["time"], path["tip_y"]))
    assert np.median(d) <= 0.020
    # the operator's own read-out is the same measure
    tr = op.tracking(run, path)
    assert tr.median == pytest.approx(np.median(d), rel=1e-9)
    assert "mm of the reference path" in tr.text() and f"{done:.2f} s" in tr.text()


def test_without_pacing_the_clock_is_real_time_and_the_machine_falls_behind(fixed):
    m, ref, op, run, path = fixed
    free = TrackingOperator(m, ref, pace=False)
    r2 = m.run(controller=free.controller, t_end=10.0, progress=False)
    t = r2.table()["time"]
    np.testing.assert_allclose(free.clock(t), np.minimum(t, ref.time[-1]), atol=1e-9)
    assert free.tracking(r2, path).worst > op.tracking(run, path).worst


def test_a_second_run_with_the_same_operator_starts_its_clock_again(fixed):
    m, ref, op, run, path = fixed
    first = op.tracking(run, path).median
    again = m.run(controller=op.controller, t_end=3.0, progress=False)
    assert op.clock([0.0])[0] == 0.0 and op.clock([3.0])[0] < 3.0 + 1e-9
    assert op.tracking(again, path).time[-1] == pytest.approx(3.0)
    assert first > 0


def test_bad_operators_are_refused_with_every_problem():
    m = Machine.from_file(FILE, mode="valves")
    with pytest.raises(ParameterError) as e:
        TrackingOperator(m, m.cycle(mode="valves"), bandwidth=-1, max_command=2, lead=3)
    msg = str(e.value)
    for part in ("'extensions'", "bandwidth = -1", "max_command = 2", "lead = 3"):
        assert part in msg
    with pytest.raises(ParameterError, match="expected 'valves'"):
        TrackingOperator(Machine.from_file(FILE, mode="extensions"), m.cycle(mode="extensions"))


def test_drive_ends_at_the_cycle_in_one_run_as_a_second_run_to_that_end_would(fixed):
    """The fast path (one run that the controller's ``until`` ends one sample after the
    operator reached the end) against the slow one (a run to the end time a first run found)."""
    m, ref = fixed[:2]
    op = TrackingOperator(m, ref)
    m.run(controller=op.controller, t_end=14.0, progress=False)     # where the end is reached
    end = op.cycle_time + op.controller.period
    slow = m.run(controller=op.controller, t_end=end, progress=False)
    fast_op = TrackingOperator(m, ref)
    fast = fast_op.drive(t_max=14.0, progress=False)
    assert fast.t[-1] == pytest.approx(end, abs=1e-12) and fast_op.cycle_time == op.cycle_time
    assert fast.results.message.startswith("ended by the controller")
    a, b = slow.table(), fast.table()
    assert len(a["time"]) == len(b["time"])
    for k in ("time", "tip_x", "tip_y", "boom_cap_pressure", "pump_pressure"):
        np.testing.assert_allclose(b[k], a[k], rtol=1e-9, atol=1e-9 * np.max(np.abs(a[k])), err_msg=k)
    ea, eb = slow.energy_split().terms, fast.energy_split().terms
    for k in ea:
        assert eb[k] == pytest.approx(ea[k], rel=1e-9, abs=1e-6), k


def test_the_fixed_circuit_holds_the_bite_within_20_mm():
    """(the open-centre and load-sensing circuits: tests/soil/test_dig_machine.py)"""
    m = Machine.from_file(DIG, {"circuit.type": "fixed"}, mode="valves")
    ref = Machine.from_file(DIG, mode="extensions").cycle()
    op = TrackingOperator(m, ref)
    run = op.drive(t_max=30.0, progress=False)
    path = Machine.from_file(DIG, mode="extensions").run(ref, progress=False).table()
    tab = run.table()
    keep = tab["time"] <= op.cycle_time
    clock = op.clock(tab["time"][keep])
    d = np.hypot(tab["tip_x"][keep] - np.interp(clock, path["time"], path["tip_x"]),
                 tab["tip_y"][keep] - np.interp(clock, path["time"], path["tip_y"]))
    assert math.isfinite(op.cycle_time) and np.median(d) <= 0.020


def test_the_open_centre_operator_meters_every_spool_with_the_circuit_law():
    """On an open centre the openings come from the balance of pump, gallery and sections: the
    openings the operator's law gives, held, settle the circuit to the rates asked for."""
    from mechanisms.machine.open_centre_law import OpenCentreLaw

    m = Machine.from_file(FILE, {"circuit.type": "open-centre"}, mode="valves")
    law = OpenCentreLaw(m.circuit)
    a = m.circuit.areas
    forces = {"boom": 60e5 * a["boom"][0], "arm": 30e5 * a["arm"][0], "bucket": -10e5 * a["bucket"][1]}
    wanted = {"boom": 0.08, "arm": 0.05, "bucket": -0.04}
    st = law.openings(wanted, forces)
    assert not st.saturated
    again = law.steady(st.openings, forces)       # the forward balance at those openings
    for f, v in wanted.items():
        assert again.rates[f] == pytest.approx(v, rel=1e-4)
    assert again.pump_flow == pytest.approx(again.bypass_flow + sum(again.flows.values()), rel=1e-5)


def test_a_held_section_takes_part_in_the_open_centre_balance():
    """A section held at an opening (not solved for) draws its flow and throttles the gallery:
    the forward balance at all the openings gives back the rates asked of the others."""
    from mechanisms.machine.open_centre_law import OpenCentreLaw

    m = Machine.from_file(FILE, {"circuit.type": "open-centre"}, mode="valves")
    law = OpenCentreLaw(m.circuit)
    a = m.circuit.areas
    forces = {"boom": 60e5 * a["boom"][0], "arm": 30e5 * a["arm"][0], "bucket": 20e5 * a["bucket"][0]}
    st = law.openings({"boom": 0.06, "arm": 0.04}, forces, held={"bucket": 0.3})
    assert st.openings["bucket"] == 0.3
    again = law.steady(st.openings, forces)
    # (to the roots' 100 Pa in the pump pressure: a metering drop of a few bar)
    assert again.rates["boom"] == pytest.approx(0.06, rel=5e-3)
    assert again.rates["arm"] == pytest.approx(0.04, rel=5e-3)
    assert again.rates["bucket"] == pytest.approx(st.rates["bucket"], rel=5e-3)
    # the held bucket's flow and bypass count: without it the others need other openings
    alone = law.openings({"boom": 0.06, "arm": 0.04}, forces)
    assert abs(alone.openings["boom"] - st.openings["boom"]) > 1e-3


def test_batched_reference_spline_is_the_signals_to_the_bit():
    """The operator reads the reference's lengths and rates from one spline of all functions: the
    same values as each function's own signal (the clamped cubic spline a run uses), ends included."""
    m = Machine.from_file(DIG, mode="valves")
    ref = Machine.from_file(DIG, mode="extensions").cycle()
    op = TrackingOperator(m, ref)
    sig = ref.signals()
    times = np.concatenate([ref.time, np.random.default_rng(3).uniform(ref.time[0], ref.time[-1], 500)])
    values, rates = op._spline(times), op._spline_rate(times)
    for i, f in enumerate(m.functions):
        assert [sig[f].value(float(t)) for t in times] == values[:, i].tolist()
        assert [sig[f].derivative(float(t)) for t in times] == rates[:, i].tolist()
