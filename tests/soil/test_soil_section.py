"""``[soil]`` in a machine file: the same soil tool as ``with_soil`` from Python, every problem named."""

import math

import numpy as np
import pytest

from bondgraph import ParameterError
from components.soil import preset
from mechanisms.machine import DATA, Machine
from mechanisms.machine.soil import with_soil

SOIL = {"soil.preset": "loose_sand", "soil.edge": "bucket.Q", "soil.face": "60 deg",
        "soil.width": "1.2 m", "soil.capacity": "1.0 m^3"}


def test_a_soil_table_builds_the_same_machine_as_with_soil():
    from_file = Machine.from_file(DATA / "excavator.toml", SOIL, mode="extensions")
    from_python = Machine.from_file(DATA / "excavator.toml", mode="extensions")
    with_soil(from_python, preset("loose_sand"), edge=("bucket", "Q"), face=math.radians(60),
              width=1.2, capacity=1.0)
    a = from_file.run(t_end=6.0, progress=False)
    b = from_python.run(t_end=6.0, progress=False)
    fa, fb = a.results["excavator/soil/fill.volume"], b.results["excavator/soil/fill.volume"]
    assert fa.max() > 0.5
    # the same equations, built twice: equal to the solver's noise (0.01 % of the capacity)
    np.testing.assert_allclose(fa, fb, rtol=0, atol=1e-4)


def test_a_property_overrides_the_preset_and_a_profile_replaces_the_level():
    d = Machine.from_file(DATA / "excavator.toml", {**SOIL, "soil.cohesion": "12 kPa",
                                                     "soil.friction_angle": "28 deg"},
                          mode="extensions").description.soil
    assert d["properties"].cohesion == pytest.approx(12e3)
    assert d["properties"].friction_angle == pytest.approx(28.0)
    assert d["properties"].unit_weight == preset("loose_sand").unit_weight
    assert d["ground"] == -1.70


def test_bad_soil_tables_name_every_problem():
    bad = {**SOIL, "soil.preset": "peat", "soil.edge": "bucket.Z", "soil.width": "-1 m",
           "soil.colour": "brown"}
    with pytest.raises(ParameterError) as e:
        Machine.from_file(DATA / "excavator.toml", bad, mode="extensions")
    msg = str(e.value)
    for part in ("soil.preset", "'peat'", "soil.edge", "no point 'Z'", "soil.width", "soil.colour"):
        assert part in msg, part
    with pytest.raises(ParameterError, match="causal formulation only"):
        Machine.from_file(DATA / "excavator.toml", SOIL, mode="extensions", formulation="stiff")


def test_the_run_table_reads_out_the_fill_its_mass_and_the_soil_forces():
    m = Machine.from_file(DATA / "excavator.toml", SOIL, mode="extensions")
    tab = m.run(t_end=5.0, progress=False).table()
    sand = preset("loose_sand")
    assert tab["bucket_fill"].max() > 0.5
    # the payload is the bank volume (loose / swell) times the bank density γ/g
    np.testing.assert_allclose(tab["payload_mass"], tab["bucket_fill"] / sand.swell * sand.unit_weight / 9.81,
                               rtol=1e-12)
    run = m.run(t_end=5.0, progress=False)
    # both resistors only take power from the motion: effort × flow ≥ 0 on their bonds
    for name, col in (("cutting", "cutting_force"), ("penetration", "penetration_force")):
        power = run.table()[col] * run.results.flow(f"excavator/soil/{name}")
        assert np.all(power >= -1e-6 * max(1.0, np.abs(power).max())), name
    assert np.abs(tab["cutting_force"]).max() > 1e3


def test_a_mechanism_built_in_python_takes_the_same_soil_table():
    ref = Machine.from_file(DATA / "excavator.toml", SOIL, mode="extensions")
    table = {k.split(".", 1)[1]: v for k, v in SOIL.items()}
    m = Machine.from_mechanism(ref.to_mechanism(), mode="extensions",
                               start={"boom": "50 deg", "arm": "-80 deg", "bucket": "20 deg"},
                               guess={"rocker": "8 deg", "link": "-60 deg"},
                               outputs={"points": {"tip": "bucket.Q"}}, ground="-1.70 m", soil=table)
    assert m.description.soil["properties"] == ref.description.soil["properties"]
    assert m.description.soil["edge"] == ("bucket", "Q") and m.soil_tool is not None
