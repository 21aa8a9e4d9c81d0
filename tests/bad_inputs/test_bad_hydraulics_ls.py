"""Bad inputs of the load-sensing library: each raises one named error of our family."""

import pytest
import sympy as sp

from bondgraph import BondGraph, EquationError, Input, ParameterError, build
from bondgraph.units import ureg
from components.hydraulics import (CompensatedValve, Compensator, DirectionalValve, FixedPump,
                                   HybridShuttle, HydraulicCylinder, HydraulicDrive, Lag,
                                   LoadSenseNetwork, LSCircuit, LSPort, LSPowerUnit, LSPump, Oil,
                                   PowerUnit, SmoothShuttle, ls_circuit_from_params)
from tests.bad_inputs.catalogue import Case, check, ids

OIL = Oil()
PUMP = dict(displacement="100 cm^3/rev", speed="1500 rpm", margin="20 bar")


def _pump(**kw):
    return LSPump(**{**PUMP, **kw})


def _valve(compensator=None, **kw):
    return CompensatedValve("valve", q_nominal="60 L/min", dp_nominal="10 bar", command=0.5,
                            compensator=compensator or Compensator("post"), oil=kw.pop("oil", OIL),
                            **kw)


def _circuit(pump=None):
    return LSCircuit("hyd", LSPowerUnit("pu", oil=OIL, pump=pump or _pump()))


def _drive(valve):
    cyl = HydraulicCylinder("cyl", bore="80 mm", rod="40 mm", stroke="0.5 m", oil=OIL)
    return HydraulicDrive("lift", cylinder=cyl, valve=valve)


def _orphan_valve():
    """A compensated valve on a plain power unit: nothing gives it its LS signals."""
    bg = BondGraph("orphan")
    pu = bg.add(PowerUnit("pu", oil=OIL, pressure="100 bar"))
    bg.add(_valve())
    p, t = pu.consumer("v")
    bg.connect(f"pu/{p}", "valve/P")
    bg.connect("valve/T", f"pu/{t}")
    for port in ("A", "B"):
        bg.add(HydraulicCylinder(f"c{port}", bore="50 mm", stroke="0.3 m", oil=OIL,
                                 single_acting=True))
        bg.connect(f"valve/{port}", f"c{port}/A")
        from bondgraph import Se
        bg.add(Se(f"f{port}", 0.0))
        bg.connect(f"f{port}", f"c{port}/I")
    return build(bg)


def _lonely_power_unit():
    bg = BondGraph("lonely")
    pu = bg.add(LSPowerUnit("pu", oil=OIL, pump=_pump()))
    p, t = pu.consumer("x")
    from components.hydraulics import Orifice
    bg.add(Orifice("load", conductance=1e-10))
    bg.connect(f"pu/{p}", "load/A")
    bg.connect("load/B", f"pu/{t}")
    return build(bg)


def _pre_setting_above_margin():
    c = _circuit()
    c.add_drive(_drive(_valve(Compensator("pre", setting="25 bar"))))


TABLE = {
    "oil": {"density": "870 kg/m^3", "bulk_modulus": "1.4 GPa"},
    "power_unit": {"pump_displacement": "100 cm^3/rev", "pump_speed": "1500 rpm", "margin": "20 bar"},
    "load_sensing": {"compensation": "post"},
    "drives": {"lift": {"bore": "80 mm", "rod": "40 mm", "stroke": "0.5 m",
                        "valve_flow": "60 L/min", "valve_dp": "10 bar"}},
}

CASES = [
    Case("pump-negative-margin", lambda: _pump(margin="-3 bar"), ParameterError, ["margin", "> 0"]),
    Case("pump-zero-displacement", lambda: _pump(displacement="0 cm^3/rev"), ParameterError,
         ["displacement", "> 0"]),
    Case("pump-margin-wrong-unit", lambda: _pump(margin="20 kg"), ParameterError,
         ["margin", "pressure"]),
    Case("pump-speed-unreadable", lambda: _pump(speed="fast"), ParameterError, ["speed", "fast"]),
    Case("pump-cutoff-below-margin", lambda: _pump(cutoff="10 bar"), ParameterError,
         ["cutoff", "margin"]),
    Case("pump-order-3", lambda: _pump(swash_time_constant="5 ms", order=3), ParameterError,
         ["order", "1 or 2"]),
    Case("pump-negative-leakage", lambda: _pump(leakage=-1e-12), ParameterError, ["leakage"]),
    # "25 Hz" was read as 25/(2π) rev/s (pint's radian is 1): a pump 2π times too slow
    Case("pump-speed-hz", lambda: _pump(speed="25 Hz"), ParameterError,
         ["load-sensing pump", "'speed'", "25 Hz", "revolutions or radians"]),
    Case("pump-speed-hz-quantity", lambda: _pump(speed=ureg().Quantity(25, "Hz")), ParameterError,
         ["load-sensing pump", "'speed'", "hertz", "revolutions or radians"]),
    Case("pump-negative-torque-limit", lambda: _pump(torque_limit="-5 N*m"), ParameterError,
         ["torque_limit"]),
    Case("power-unit-fixed-pump", lambda: LSPowerUnit("pu", oil=OIL, pump=FixedPump("1 L/rev", "10 rev/s")),
         ParameterError, ["pu", "LSPump"]),
    Case("power-unit-initial-displacement", lambda: LSPowerUnit(
        "pu", oil=OIL, pump=_pump(swash_time_constant="5 ms"), initial_displacement=2.0),
         ParameterError, ["initial_displacement", "0 … 1"]),
    Case("compensator-unknown-kind", lambda: Compensator("middle"), ParameterError,
         ["kind", "middle", "pre", "post"]),
    Case("compensator-pre-without-setting", lambda: Compensator("pre"), ParameterError,
         ["setting", "missing"]),
    Case("compensator-negative-time-constant", lambda: Compensator("post", time_constant="-5 ms"),
         ParameterError, ["time_constant"]),
    Case("compensator-setting-wrong-unit", lambda: Compensator("pre", setting="12 L"),
         ParameterError, ["setting", "pressure"]),
    Case("valve-ls-opening-zero", lambda: _valve(ls_opening=0.0), ParameterError,
         ["valve", "ls_opening"]),
    Case("valve-without-oil", lambda: _valve(oil=None), ParameterError, ["valve", "oil"]),
    Case("valve-bad-compensator", lambda: CompensatedValve(
        "v", q_nominal="60 L/min", dp_nominal="10 bar", command=0.5, compensator="pre", oil=OIL),
         ParameterError, ["compensator", "'pre'"]),
    Case("circuit-plain-power-unit", lambda: LSCircuit("hyd", PowerUnit("pu", oil=OIL,
                                                                         pressure="100 bar")),
         ParameterError, ["hyd", "LSPowerUnit"]),
    Case("circuit-plain-valve", lambda: _circuit().add_drive(_drive(DirectionalValve(
        "valve", q_nominal="60 L/min", dp_nominal="10 bar", command=0.5))),
         ParameterError, ["lift", "CompensatedValve"]),
    Case("circuit-pre-setting-above-margin", _pre_setting_above_margin, ParameterError,
         ["lift", "pre-compensator", "margin"]),
    Case("valve-outside-ls-circuit", _orphan_valve, EquationError, ["valve", "LSCircuit"]),
    Case("ls-power-unit-without-ls-signal", _lonely_power_unit, EquationError,
         ["pu", "LS pressure"]),
    Case("shuttle-negative-band", lambda: SmoothShuttle("-1 bar"), ParameterError, ["band"]),
    Case("shuttle-negative-dwell", lambda: HybridShuttle(dwell="-1 ms"), ParameterError, ["dwell"]),
    Case("hybrid-shuttle-one-section", lambda: _one_section_discrete(), ParameterError,
         ["hybrid shuttle", "at least 2"]),
    Case("network-bad-shuttle", lambda: LoadSenseNetwork("max"), ParameterError, ["shuttle"]),
    Case("ls-port-no-openings", lambda: LSPort("ls", OIL, {}), ParameterError, ["ls", "openings"]),
    Case("lag-zero-time-constant", lambda: Lag("lag", 1.0, time_constant=0.0), ParameterError,
         ["lag", "time_constant"]),
    Case("table-compensation-missing", lambda: ls_circuit_from_params(
        {**TABLE, "load_sensing": {}}, lengths={"lift": sp.Symbol("s")}, commands={"lift": 0.0}),
         ParameterError, ["load_sensing", "compensation"]),
    Case("table-margin-bare-number", lambda: ls_circuit_from_params(
        {**TABLE, "power_unit": {**TABLE["power_unit"], "margin": 20}},
        lengths={"lift": sp.Symbol("s")}, commands={"lift": Input("c")}),
         ParameterError, ["power_unit", "margin", "unit"]),
    # a relief key ≤ 0 was reported as "'relief_full' must exceed 'relief_crack'"
    Case("table-relief-flow-negative", lambda: ls_circuit_from_params(
        {**TABLE, "power_unit": {**TABLE["power_unit"], "relief_crack": "300 bar", "relief_full": "310 bar",
                                 "relief_flow": "-100 L/min"}},
        lengths={"lift": sp.Symbol("s")}, commands={"lift": Input("c")}),
         ParameterError, ["power_unit", "'relief_flow'", "-100 L/min", "> 0"]),
    Case("table-relief-crack-negative", lambda: ls_circuit_from_params(
        {**TABLE, "power_unit": {**TABLE["power_unit"], "relief_crack": "-5 bar", "relief_full": "310 bar",
                                 "relief_flow": "100 L/min"}},
        lengths={"lift": sp.Symbol("s")}, commands={"lift": Input("c")}),
         ParameterError, ["power_unit", "'relief_crack'", "-5 bar", "> 0"]),
]


def _one_section_discrete():
    net = LoadSenseNetwork(HybridShuttle())
    net.add("boom", sp.Symbol("p"))
    return net.discrete


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_hydraulics_ls(case):
    check(case)
