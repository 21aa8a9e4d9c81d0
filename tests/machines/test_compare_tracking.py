"""Every comparison states how closely each run traced the reference path (or that it did not)."""

import numpy as np
import pytest

from mechanisms.machine import DATA, Machine
from mechanisms.machine.compare import RunSummary, compare_runs, write_energy_csv
from mechanisms.machine.operator import TrackingOperator

FILE = DATA / "excavator.toml"


@pytest.fixture(scope="module")
def runs():
    m = Machine.from_file(FILE, mode="valves")
    op = TrackingOperator(m, m.cycle(mode="extensions"))
    tracked = op.drive(t_max=1.5, progress=False)
    plain = m.run(t_end=1.5, progress=False)
    return op, tracked, plain


def test_a_tracked_run_carries_its_tracking_and_the_comparison_states_it(runs):
    op, tracked, plain = runs
    # what the run carries is the operator's measure against the kinematic path
    assert tracked.tracking.median == pytest.approx(op.tracking(tracked).median, rel=1e-12)
    text = compare_runs({"tracked": tracked, "prescribed": plain}).text()
    assert f"tracked: tracked the reference path: {tracked.tracking.median * 1e3:.0f} mm median" in text
    assert "prescribed: not tracked: prescribed spool commands" in text


def test_a_run_folder_of_the_tracking_operator_gives_its_tracking_back(runs, tmp_path):
    op, tracked, plain = runs
    for name, run, extra in (("a", tracked, f"\noperator: tracking the lengths of x: {op.tracking(tracked).text()}"),
                             ("b", plain, "")):
        folder = tmp_path / name
        folder.mkdir()
        run.to_csv(folder / "results.csv")
        write_energy_csv(run, folder / "energy.csv")
        (folder / "report.txt").write_text(run.report() + extra + "\n", encoding="utf-8")
    a, b = RunSummary.from_folder(tmp_path / "a"), RunSummary.from_folder(tmp_path / "b")
    med, p95 = a.tracking
    assert med == pytest.approx(round(tracked.tracking.median * 1e3) / 1e3, abs=1e-12)
    assert p95 == pytest.approx(round(tracked.tracking.p95 * 1e3) / 1e3, abs=1e-12)
    assert b.tracking is None
    assert np.isfinite(med)
