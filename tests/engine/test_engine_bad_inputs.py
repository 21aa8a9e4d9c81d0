"""Bad [circuit.engine] tables: one ParameterError naming every problem, by key."""

import pytest

from bondgraph.errors import ParameterError
from mechanisms.machine import DATA, Machine


def test_every_problem_of_the_engine_table_is_named_at_once():
    with pytest.raises(ParameterError) as err:
        Machine.from_file(DATA / "excavator.toml", {
            "circuit.type": "open-centre",
            "circuit.engine.rated_power": "110 m",             # not a power
            "circuit.engine.high_idle": "33 Hz",               # revolutions or radians?
            "circuit.engine.fuel_lhv": "-1 MJ/kg"})
    text = str(err.value)
    assert "circuit.engine.rated_power" in text and "power" in text
    assert "high_idle" in text and "revolutions or radians" in text
    assert "fuel_lhv" in text


def test_an_unknown_engine_key_is_named():
    with pytest.raises(ParameterError, match="circuit.engine.rated_powr"):
        Machine.from_file(DATA / "excavator.toml", {"circuit.type": "open-centre",
                                                    "circuit.engine.rated_powr": "110 kW"})


def test_load_sensing_limiters_on_the_engine_shaft_are_refused_not_dropped():
    with pytest.raises(ParameterError, match="load-sensing pump's torque_limit are not applied on an engine's shaft"):
        Machine.from_file(DATA / "excavator.toml", {"circuit.type": "load-sensing",
                                                    "circuit.load_sensing.torque_limit": "400 N*m"})
