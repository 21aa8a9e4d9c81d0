"""Live curves of a machine run (``run(..., live=[...])``).

The curves drawn while the run goes on must be the machine's read-outs at the recorded
times (checked against the cycle that prescribes them, an independent source), the final
curves the run's own table, the redraws throttled, and a bad name refused before the run.
"""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from bondgraph.errors import ParameterError  # noqa: E402
from mechanisms.machine import DATA, Machine  # noqa: E402
from mechanisms.machine.live import LiveRun  # noqa: E402


@pytest.fixture(scope="module")
def crane():
    return Machine.from_file(DATA / "knuckle_crane.toml", mode="extensions")


def test_the_live_lengths_follow_the_cycle(crane):
    live = LiveRun(["lift_length", "hook_y"], interval=0.0)
    cycle = crane.cycle()
    seen = []
    orig = live._extend

    def spy():
        orig()
        seen.append(len(live._data["time"]))
    live._extend = spy
    run = crane.run(cycle, t_end=2.0, progress=False, live=live)
    try:
        assert live.updates >= 3 and len(seen) >= 2          # drawn while running, then at the end
        t = np.concatenate(live._data["time"])
        L = np.concatenate(live._data["lift_length"])
        assert np.all(np.diff(t) > 0) and t[0] == cycle.start
        want = cycle.signals()["lift"].values_at(t)
        assert np.max(np.abs(L - want)) < 1e-4               # integrated lengths: to the solver tolerance
        # at the end the curves are the run's table
        x, y = live.lines[1].get_data()
        assert np.array_equal(np.asarray(x), run.table()["time"])
        assert np.array_equal(np.asarray(y), run.table()["hook_y"])
        assert run.live is live
    finally:
        live.close()


def test_redraws_are_throttled():
    import time

    m = Machine.from_file(DATA / "excavator.toml", mode="valves")
    eager = LiveRun(["boom_cap_pressure"], interval=0.0)
    m.run(t_end=2.0, progress=False, live=eager)
    eager.close()
    assert eager.samples >= 5 and eager.updates == eager.samples + 1     # each sample, then the end
    live = LiveRun(["boom_cap_pressure"], interval=0.25)
    t0 = time.perf_counter()
    m.run(t_end=2.0, progress=False, live=live)
    wall = time.perf_counter() - t0
    live.close()
    assert live.samples > live.updates
    assert live.updates <= wall / 0.25 + 2


def test_pressures_are_shown_in_bar():
    m = Machine.from_file(DATA / "excavator.toml", mode="forces")
    run = m.run(t_end=0.2, progress=False, live=["boom_cap_pressure_required"])
    try:
        (ax,) = run.live.axes
        assert ax.get_ylabel() == "boom_cap_pressure_required [bar]"
        y = np.asarray(run.live.lines[0].get_data()[1])
        assert np.allclose(y, run.table()["boom_cap_pressure_required"] / 1e5, rtol=0, atol=1e-12)
    finally:
        run.live.close()


def test_bad_names_are_refused_before_the_run(crane):
    with pytest.raises(ParameterError, match="'hook_z': not a read-out of the run; did you mean"):
        crane.run(t_end=0.1, progress=False, live=["hook_z"])
    with pytest.raises(ParameterError, match="expected a non-empty list"):
        crane.run(t_end=0.1, progress=False, live="hook_y")
    stiff = Machine.from_file(DATA / "knuckle_crane.toml", mode="extensions", formulation="stiff")
    with pytest.raises(ParameterError, match="expected formulation 'causal'"):
        stiff.run(t_end=0.1, progress=False, live=["hook_y"])


def test_checking_the_names_warns_of_nothing():
    import warnings

    m = Machine.from_file(DATA / "excavator_mini.toml", mode="valves")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run = m.run(t_end=0.2, progress=False, live=["boom_cap_pressure"])
    run.live.close()
