"""Analyses on stroke grids report their poses on a bar (after a second of work), or stay silent."""

import numpy as np
import pytest
import tqdm.auto

from mechanisms.analysis import Study, sweep, working_range
from mechanisms.machine import DATA


class FakeBar:
    made: list = []

    def __init__(self, total, desc, unit, delay, leave):
        self.total, self.desc, self.delay, self.n = total, desc, delay, 0
        FakeBar.made.append(self)

    def update(self, k=1):
        self.n += k

    def close(self):
        pass


@pytest.fixture
def bars(monkeypatch):
    FakeBar.made = []
    monkeypatch.setattr(tqdm.auto, "tqdm", FakeBar)
    return FakeBar.made


@pytest.fixture(scope="module")
def study():
    return Study(DATA / "excavator.toml")


def test_working_range_counts_the_grid_poses_on_a_delayed_bar(bars, study):
    on = working_range(study, n=12)
    assert bars and bars[0].desc == "working range" and bars[0].delay == 1.0
    # every pose of the continuation but the seed of each block is counted, never more
    assert all(0 < b.n <= b.total for b in bars)
    assert max(b.n / b.total for b in bars) > 0.9
    bars.clear()
    off = working_range(study, n=12, progress=False)
    assert bars == []
    assert on.summary() == off.summary()


def test_a_sweep_shows_its_points_not_the_analyses_inside(bars, study):
    sweep(study, {"boom_cylinder.bore": "130..140 mm:2"}, "working-range",
          options={"n": 8}, processes=1, progress=False)
    assert bars == []
