"""Units, parameter files, and the component laws against hand calculations."""

import math

import pytest
import sympy as sp

from bondgraph import ParameterError
from bondgraph.units import ParamSchema, ParamSpec, load_toml, to_si
from components.hydraulics import (EndStop, Friction, HydraulicCylinder, Oil,
                                   circuit_from_params, load_circuit, nominal_flow, orifice_flow,
                                   signed_sqrt)


@pytest.mark.parametrize("text, unit, value", [
    ("135 mm", "m", 0.135), ("250 bar", "Pa", 25e6), ("120 L/min", "m^3/s", 0.002),
    ("500 cm^3/rev", "m^3/rev", 5e-4), ("500 cm³/rev", "m^3/rev", 5e-4),
    ("1500 rpm", "rev/s", 25.0), ("1.2 GPa", "Pa", 1.2e9), ("2 L", "m^3", 2e-3),
    ({"value": 30, "unit": "MPa"}, "Pa", 3e7)])
def test_units_convert(text, unit, value):
    assert to_si(text, unit) == pytest.approx(value, rel=1e-12)


def test_schema_reports_every_problem():
    schema = ParamSchema("valve", [ParamSpec("flow", "m^3/s"), ParamSpec("dp", "Pa"),
                                   ParamSpec("gain", "", required=False, default=1.0)])
    with pytest.raises(ParameterError) as err:
        schema.load({"flow": "3 bar", "dpp": "3 bar", "gain": "2 m"})
    msg = str(err.value)
    assert "'flow': found '3 bar'" in msg and "a volume flow in m^3/s" in msg
    assert "'dpp': unknown key; did you mean 'dp'?" in msg
    assert "'dp': missing" in msg
    assert "'gain'" in msg
    with pytest.raises(ParameterError, match="bare number"):
        schema.load({"flow": 0.01, "dp": "1 bar"})


CIRCUIT = """
[oil]
density = "870 kg/m^3"
bulk_modulus = "1.0 GPa"
[power_unit]
pump_displacement = "500 cm^3/rev"
pump_speed = "150 rad/s"
relief_crack = "300 bar"
relief_full = "310 bar"
relief_flow = "0.08 m^3/s"
[drives.boom]
bore = "135 mm"
rod = "50 mm"
stroke = "1.25 m"
count = 2
valve_flow = "0.01 m^3/s"
valve_dp = "0.3 MPa"
[drives.arm]
bore = "145 mm"
rod = "50 mm"
stroke = "1.64 m"
valve_flow = "0.01 m^3/s"
valve_dp = "0.3 MPa"
"""


def test_parameter_file_loads_and_names_bad_keys(tmp_path):
    lengths = {k: sp.Symbol(k) for k in ("boom", "arm")}
    commands = {k: 0.0 for k in lengths}
    good = tmp_path / "circuit.toml"
    good.write_text(CIRCUIT)
    circ = load_circuit(good, lengths=lengths, commands=commands)
    boom = circ.drives["boom"].cylinder
    assert boom.bore == 0.135 and boom.count == 2
    assert circ.power_unit.pump.flow == pytest.approx(5e-4 * 150 / (2 * math.pi))
    text = CIRCUIT.replace('bore = "135 mm"', 'bore = "135 bar"')
    text = text.replace('[drives.arm]\n', '[drives.arm]\nstrokee = "1 m"\n')
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    with pytest.raises(ParameterError) as err:
        load_circuit(bad, lengths=lengths, commands=commands)
    msg = str(err.value)
    assert "drives.boom: 'bore'" in msg and "drives.arm: 'strokee': unknown key" in msg
    assert str(bad) in msg
    with pytest.raises(ParameterError, match="not found"):
        load_toml(tmp_path / "missing.toml")


def test_a_value_given_with_its_unit_is_taken_as_written(tmp_path):
    """A small value written with its unit ("5 mbar" of tank pressure, a 0.05 L/min valve
    leakage flow) is not a bare SI number: the plausibility check of bare numbers must not
    refuse it (it did, asking for the unit the file gives)."""
    lengths = {k: sp.Symbol(k) for k in ("boom", "arm")}
    text = CIRCUIT.replace('relief_flow = "0.08 m^3/s"', 'relief_flow = "0.08 m^3/s"\n'
                           'tank_pressure = "5 mbar"')
    path = tmp_path / "small.toml"
    path.write_text(text)
    circ = load_circuit(path, lengths=lengths, commands={k: 0.0 for k in lengths})
    assert circ.power_unit.tank_pressure == pytest.approx(500.0)
    from components.hydraulics import PowerUnit, SIValue

    with pytest.raises(ParameterError, match="bare number 500"):    # a bare 500 Pa is still asked about
        PowerUnit("pu", oil=Oil(), pressure="200 bar", tank_pressure=500.0)
    assert PowerUnit("pu", oil=Oil(), pressure="200 bar",
                     tank_pressure=SIValue(500.0)).tank_pressure == 500.0


def test_missing_drive_inputs_are_named():
    table = {"oil": {"density": "870 kg/m^3", "bulk_modulus": "1 GPa"},
             "power_unit": {"pressure": "200 bar"},
             "drives": {"lift": {"bore": "80 mm", "rod": "40 mm", "stroke": "0.5 m",
                                 "valve_flow": "60 L/min", "valve_dp": "5 bar"}}}
    with pytest.raises(ParameterError) as err:
        circuit_from_params(table, lengths={}, commands={"lift": 0.0})
    assert "drives.lift: no length handle" in str(err.value)


def test_cylinder_parameter_errors_list_everything():
    with pytest.raises(ParameterError) as err:
        HydraulicCylinder("c", bore="-1 mm", rod="200 mm", stroke="0.5 bar", oil=Oil())
    msg = str(err.value)
    assert "'bore'" in msg and "'stroke'" in msg


def test_orifice_law_regularised_and_continuous():
    dp = sp.Symbol("dp", real=True)
    ptr = 1e5
    law = orifice_flow(dp, 1e-4, 0.7, 870.0, ptr)
    hand = lambda d: 0.7 * 1e-4 * math.copysign(math.sqrt(2 * abs(d) / 870.0), d)  # noqa: E731
    for d in (-5e6, -2e5, 1.5e5, 4e6):
        assert float(law.subs(dp, d)) == pytest.approx(hand(d), rel=1e-12)
    # value and slope continuous at the transition; finite slope at zero
    dlaw = sp.diff(law, dp)
    for s in (1, -1):
        assert float(law.subs(dp, s * ptr * (1 - 1e-9))) == pytest.approx(hand(s * ptr), rel=1e-6)
        assert float(dlaw.subs(dp, s * ptr * (1 - 1e-9))) == pytest.approx(
            float(dlaw.subs(dp, s * ptr * (1 + 1e-9))), rel=1e-6)
    assert 0 < float(dlaw.subs(dp, 0)) < math.inf
    nom = nominal_flow(dp, 0.5, 1e-3, 5e5, 1e4)
    assert float(nom.subs(dp, 2e6)) == pytest.approx(1e-3 * 0.5 * 2.0, rel=1e-12)
    assert float(signed_sqrt(dp, 4.0).subs(dp, -2.0)) < 0


def test_effective_bulk_modulus_formula():
    """Simscape's mixture formula, evaluated by hand at two pressures."""
    El, a, n, pa = 1.5e9, 0.01, 1.4, 101325.0
    oil = Oil(bulk_modulus=El, air_fraction=a, polytropic_index=n, p_atm=pa)
    for p in (0.0, 5e5, 20e6):
        P = pa + p
        hand = El * (1 + a * (pa / P) ** (1 / n)) / (1 + a * pa ** (1 / n) / (n * P ** ((n + 1) / n)) * El)
        assert oil.effective_bulk_modulus(p) == pytest.approx(hand, rel=1e-12)
        assert float(oil.effective_bulk_modulus(sp.Float(p))) == pytest.approx(hand, rel=1e-12)
    assert oil.effective_bulk_modulus(20e6) < El
    assert oil.effective_bulk_modulus(0.0) < 0.02 * El


def test_friction_and_end_stop_laws():
    fr = Friction(coulomb=1000.0, breakaway=1500.0, breakaway_velocity=0.02, viscous=5e3)
    v = sp.Symbol("v", real=True)
    law = fr.law(v)
    assert float(law.subs(v, 0)) == 0.0
    assert float(sp.diff(law, v).subs(v, 0)) < math.inf      # smooth through zero
    assert fr.force(0.02) == pytest.approx(1500.0 + 5e3 * 0.02 +
                                           1000.0 * (math.tanh(10) - 1), rel=1e-9)
    assert fr.force(-1.0) == pytest.approx(-fr.force(1.0))
    assert fr.force(1.0) == pytest.approx(1000.0 * math.tanh(50) + 5e3
                                          + 500 * math.sqrt(2 * math.e) * math.exp(-1250)
                                          / (0.02 * math.sqrt(2)), rel=1e-9)
    with pytest.raises(ParameterError, match="breakaway"):
        Friction(coulomb=10.0, breakaway=5.0)
    stop = EndStop(stiffness=1e8, damping=1e6, cushion_length=0.02, cushion_damping=1e5)
    assert stop.force(x=0.99, v=0.1, stroke=1.0) == pytest.approx(1e5 * 0.5 * 0.1)   # cushion
    assert stop.force(x=0.99, v=-0.1, stroke=1.0) == 0.0
    assert stop.force(x=1.002, v=0.05, stroke=1.0) == pytest.approx(1e8 * 0.002 + 1e6 * 0.05
                                                                    + 1e5 * 0.05)


def test_a_chamber_with_entrained_air_builds_and_fills_by_its_own_modulus():
    """A chamber whose bulk modulus depends on its own pressure (entrained air) is
    ``V/β(p)·ṗ = Q``: affine in ``ṗ``. symengine's derivative of the modulus's switch left
    ``Piecewise((0, c), (0, True))·ṗ`` terms that made the build refuse it as "coupled
    nonlinearly". Filled at a constant flow, ``∫₀^p dp'/β(p') = Q·t/V`` (scipy quad)."""
    from scipy.integrate import quad

    from bondgraph import BondGraph, Sf, Zero, build, simulate
    from components.hydraulics import HydraulicCapacitance

    oil = Oil(bulk_modulus=1.4e9, air_fraction=0.01)
    m = BondGraph("fill")
    m.add(Sf("Q", 1e-5), Zero("n"), HydraulicCapacitance("C", 1e-3, oil))
    m.connect("Q", "n")
    m.connect("n", "C")
    res = simulate(build(m), (0.0, 0.5), rtol=1e-10, atol=1e-3, progress=False)
    p = float(res["fill/C.e"][-1])
    filled = quad(lambda x: 1.0 / oil.effective_bulk_modulus(x), 0.0, p, limit=200)[0]
    assert p > 1e5                                   # the air keeps it far below β·Q·t/V = 7 MPa
    assert filled == pytest.approx(1e-5 * 0.5 / 1e-3, rel=1e-6)
