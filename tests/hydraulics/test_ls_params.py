"""LS circuits from parameter tables: a drive built from a table meters the compensated flow;
every problem of a table is reported at once, by its table path."""

import math

import pytest

from bondgraph import BondGraph, I, One, ParameterError, Se, build, simulate
from components.hydraulics import HybridShuttle, ls_circuit_from_params

TABLE = {
    "oil": {"density": "870 kg/m^3", "bulk_modulus": "1.4 GPa"},
    "power_unit": {"pump_displacement": "100 cm^3/rev", "pump_speed": "1500 rpm",
                   "margin": "20 bar", "time_constant": "10 ms", "cutoff": "280 bar",
                   "relief_crack": "300 bar", "relief_full": "310 bar", "relief_flow": "200 L/min",
                   "volume": "1 L"},
    "load_sensing": {"compensation": "post", "shuttle_band": "0.5 bar"},
    "drives": {"lift": {"bore": "80 mm", "rod": "45 mm", "stroke": "1 m", "retracted": "1.2 m",
                        "valve_flow": "60 L/min", "valve_dp": "10 bar",
                        "dead_volume_cap": "0.2 L", "dead_volume_rod": "0.2 L"}},
}


def _rig(table, command=0.5, load=60e3, shuttle=None):
    rod = One("rod", displacement="s", initial=1.3)
    circuit = ls_circuit_from_params(table, lengths={"lift": rod.displacement},
                                     commands={"lift": command}, shuttle=shuttle)
    bg = BondGraph("tab")
    bg.add(circuit, rod, I("m", 500.0), Se("load", -load))
    bg.connect("hyd/lift.I", "rod")
    bg.connect("rod", "m")
    bg.connect("load", "rod")
    return circuit, build(bg)


def test_table_built_drive_meters_the_compensated_flow():
    circuit, model = _rig(TABLE)
    cyl = circuit.drives["lift"].cylinder
    pump = circuit.power_unit.pump
    assert (pump.margin, pump.cutoff, pump.time_constant) == (20e5, 280e5, 0.01)
    p_cap = 60e3 / cyl.area_A
    res = simulate(model, (0.0, 0.6), x0={"tab/hyd/lift/cyl/C_A.e": p_cap}, method="CVODE",
                   rtol=1e-8, atol=1e-6, progress=False)
    q_ref = 60 / 6e4 * 0.5 * math.sqrt(20 / 10)          # Q_N·x·√(Δp_LS/Δp_N), the LUDV metering
    q = res.flow("tab/m")[-1] * cyl.area_A                  # rod speed × cap area
    assert q == pytest.approx(q_ref, rel=0.02)
    # the pump holds the cap pressure (the load) + the margin
    p_a = res["tab/hyd/lift/cyl/C_A.e"][-1]
    assert res["tab/hyd/pu/C_P.e"][-1] == pytest.approx(p_a + 20e5, rel=0.01)


def test_table_with_a_hybrid_shuttle_override():
    import sympy as sp

    table = {**TABLE, "drives": {**TABLE["drives"], "tilt": TABLE["drives"]["lift"]}}
    circuit = ls_circuit_from_params(table, lengths={"lift": sp.Symbol("a"), "tilt": sp.Symbol("b")},
                                     commands={"lift": 0, "tilt": 0}, shuttle=HybridShuttle())
    assert isinstance(circuit.network.shuttle, HybridShuttle)
    assert list(circuit.network.sections) == ["lift", "tilt"]
    assert circuit.network.discrete.labels == ["lift", "tilt"]
    with pytest.raises(ParameterError, match="drives.tilt: no length handle"):
        ls_circuit_from_params(table, lengths={"lift": 0}, commands={"lift": 0, "tilt": 0})


def test_every_problem_of_a_table_at_once():
    bad = {**TABLE,
           "power_unit": {**TABLE["power_unit"], "margin": "20 kg", "cutoff": "10 bar"},
           "load_sensing": {"compensation": "pre", "shuttle_bnd": "1 bar"},
           "extra": {}}
    with pytest.raises(ParameterError) as err:
        ls_circuit_from_params(bad, lengths={"lift": 0}, commands={"lift": 0})
    text = str(err.value)
    for culprit in ("power_unit: 'margin'", "load_sensing: 'shuttle_bnd'", "'extra'",
                    "did you mean 'shuttle_band'"):
        assert culprit in text, text
