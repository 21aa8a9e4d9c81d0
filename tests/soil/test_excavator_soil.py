"""The reference excavator's dig cycle (mode extensions) with loose sand under it: the soil
does work, the bucket fills to its capacity and empties at the dump, and the energy split
closes with the soil as its own row."""

import math

import numpy as np
import pytest

from components.soil import preset
from mechanisms.machine import DATA, Machine
from mechanisms.machine.energy import SOIL
from mechanisms.machine.soil import with_soil


@pytest.fixture(scope="module")
def run():
    m = Machine.from_file(DATA / "excavator.toml", mode="extensions")
    with_soil(m, preset("loose_sand"), edge=("bucket", "Q"), face=math.radians(60), width=1.2, capacity=1.0)
    return m.run(t_end=10.0, progress=False)


def test_the_bucket_fills_to_capacity_and_empties(run):
    V = run.results["excavator/soil/fill.volume"]
    assert V.max() == pytest.approx(1.0, rel=0.01)
    assert V[-1] < 0.01


def test_the_energy_split_closes_with_the_soil(run):
    split = run.energy_split()
    assert split.terms[SOIL] > 1e4                        # tens of kJ cutting the bite
    assert abs(split.residual) < 1e-4 * split.scale
