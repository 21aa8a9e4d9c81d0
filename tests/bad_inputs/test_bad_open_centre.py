"""Bad inputs of the open-centre circuit (library parts and the machine file's
``[circuit.open_centre]``): each raises one named error of our family."""

import pytest

from bondgraph import BondGraph, EquationError, ParameterError, build
from components.hydraulics import (LSPowerUnit, LSPump, NegativeControl, NFCPowerUnit, NFCPump, Oil,
                                   OpenCentreCircuit, OpenCentreValve, DirectionalValve)
from components.hydraulics.ls_rigs import load_rig
from mechanisms.machine import DATA, Machine
from tests.bad_inputs.catalogue import Case, check, ids

OIL = Oil()
EXC = DATA / "excavator.toml"
OC = {"circuit.type": "open-centre"}
KEY = "circuit.open_centre"


def _pump(**kw):
    return NFCPump(**{"displacement": "100 cm^3/rev", "speed": "1500 rpm", **kw})


def _valve(**kw):
    return OpenCentreValve("v", **{"q_nominal": "100 L/min", "dp_nominal": "10 bar", "command": 0.5,
                                   "bypass_flow": "150 L/min", "bypass_dp": "5 bar", **kw})


def _circuit(pu=None, control=None):
    return OpenCentreCircuit("hyd", pu or NFCPowerUnit("pu", oil=OIL, pump=_pump()),
                             control or NegativeControl("3 mm"))


def _unattached():
    """An NFC power unit with nothing to read its negacon pressure from."""
    bg = BondGraph("lone")
    pu = bg.add(NFCPowerUnit("pu", oil=OIL, pump=_pump()))
    bg.add(DirectionalValve("v", q_nominal=1e-3, dp_nominal=5e5, command=0.0))
    p, t = pu.consumer("v")
    bg.connect(f"pu/{p}", "v/P")
    bg.connect("v/T", f"pu/{t}")
    bg.connect("v/A", "v/B")
    return build(bg)


def _build(**over):
    return lambda: Machine.from_file(EXC, {**OC, **{k.replace("__", "."): v for k, v in over.items()}},
                                     mode="valves")


LIBRARY = [
    Case("nfc-pump-min-displacement", lambda: _pump(min_displacement=1.2), ParameterError,
         ["negative-control pump", "'min_displacement'", "1.2", "0 < d_min < 1"]),
    Case("nfc-pump-control-order", lambda: _pump(control_min="30 bar", control_max="8 bar"),
         ParameterError, ["'control_max'", "8 bar", "above 'control_min'"]),
    Case("nfc-pump-speed-hz", lambda: _pump(speed="25 Hz"), ParameterError,
         ["'speed'", "25 Hz", "revolutions or radians"]),
    Case("nfc-pump-lag-wrong-unit", lambda: _pump(time_constant="50 bar"), ParameterError,
         ["'time_constant'", "50 bar"]),
    Case("nfc-power-unit-ls-pump", lambda: NFCPowerUnit("pu", oil=OIL, pump=LSPump(
        "100 cm^3/rev", "1500 rpm", "20 bar")), ParameterError, ["'pu'", "LSPump", "expected an NFCPump"]),
    Case("nfc-power-unit-no-signal", _unattached, EquationError,
         ["'pu'", "no negacon pressure", "OpenCentreCircuit"]),
    Case("oc-valve-bypass-closed", lambda: _valve(bypass_closed=0.0), ParameterError,
         ["open-centre valve 'v'", "'bypass_closed'", "0 < bypass_closed ≤ 1"]),
    Case("oc-valve-bypass-flow-unit", lambda: _valve(bypass_flow="150 bar"), ParameterError,
         ["'bypass_flow'", "150 bar"]),
    Case("oc-control-cd", lambda: NegativeControl("3 mm", cd=1.3), ParameterError,
         ["negative control", "'cd'", "1.3", "0 < cd ≤ 1"]),
    Case("oc-control-diameter-bare", lambda: NegativeControl(3), ParameterError,
         ["'diameter'", "found 3", "below 50 mm"]),
    Case("oc-control-relief-type", lambda: NegativeControl("3 mm", relief="40 bar"), ParameterError,
         ["'relief'", "40 bar", "ReliefValve"]),
    Case("oc-circuit-ls-power-unit", lambda: _circuit(pu=LSPowerUnit("pu", oil=OIL, pump=LSPump(
        "100 cm^3/rev", "1500 rpm", "20 bar"))), ParameterError,
         ["open-centre circuit 'hyd'", "LSPowerUnit", "expected an NFCPowerUnit"]),
    Case("oc-circuit-closed-centre-section", lambda: _circuit().add_section(
        DirectionalValve("v", q_nominal=1e-3, dp_nominal=5e5, command=0.0)), ParameterError,
         ["open-centre circuit 'hyd'", "section 'v'", "DirectionalValve", "OpenCentreValve"]),
    Case("oc-rig-circuit-word", lambda: load_rig({"a": 1e4}, circuit="open centre"), ParameterError,
         ["circuit", "'open centre'", "'open-centre'"]),
]

MACHINE = [
    Case("oc-unknown-key", _build(**{f"{KEY}__orifice_diametre": "4 mm"}), ParameterError,
         [f"'{KEY}.orifice_diametre'", "unknown key", f"did you mean '{KEY}.orifice_diameter'"]),
    Case("oc-min-displacement-above-one", _build(**{f"{KEY}__min_displacement": 1.5}), ParameterError,
         [f"'{KEY}.min_displacement'", "1.5", "0 < d_min < 1"]),
    Case("oc-control-max-below-min", _build(**{f"{KEY}__control_max": "5 bar"}), ParameterError,
         [f"'{KEY}.control_max'", "5 bar", "above", "control_min"]),
    Case("oc-orifice-bare-number", _build(**{f"{KEY}__orifice_diameter": 4}), ParameterError,
         [f"'{KEY}.orifice_diameter'", "bare number 4", "length"]),
    Case("oc-orifice-cd-above-one", _build(**{f"{KEY}__orifice_cd": 1.2}), ParameterError,
         [f"'{KEY}.orifice_cd'", "1.2", "0 < cd ≤ 1"]),
    Case("oc-bypass-closed-zero", _build(**{f"{KEY}__bypass_closed": 0}), ParameterError,
         [f"'{KEY}.bypass_closed'", "> 0"]),
    Case("oc-time-constant-wrong-dimension", _build(**{f"{KEY}__time_constant": "50 bar"}),
         ParameterError, [f"'{KEY}.time_constant'", "'50 bar'"]),
    Case("oc-negacon-relief-order", _build(**{f"{KEY}__negacon_relief_full": "35 bar"}), ParameterError,
         [f"'{KEY}.negacon_relief_full'", "35 bar", "negacon_relief_crack"]),
    Case("oc-power-unit-ideal-source", _build(**{"circuit__power_unit__pressure": "200 bar"}),
         ParameterError, ["'circuit.power_unit.pressure'", "fixed circuit", KEY]),
    Case("oc-main-relief-order", _build(**{"circuit__power_unit__relief_full": "250 bar"}), ParameterError,
         ["'circuit.power_unit.relief_full'", "250 bar", "circuit.power_unit.relief_crack"]),
    Case("oc-type-misspelt", _build(**{"circuit__type": "open_centre"}), ParameterError,
         ["'circuit.type'", "'open_centre'", "did you mean 'open-centre'"]),
]


@pytest.mark.parametrize("case", LIBRARY + MACHINE, ids=ids(LIBRARY + MACHINE))
def test_bad_open_centre_input(case):
    check(case)


def _cut(tmp_path_factory, text, name):
    d = tmp_path_factory.mktemp("oc")
    (d / name).write_text(text)
    return d / name


def test_the_file_names_every_problem_with_its_line_and_a_missing_table(tmp_path_factory):
    text = EXC.read_text()
    oc = text.replace('type = "fixed"', 'type = "open-centre"')
    n = next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith("min_displacement"))
    bad = _cut(tmp_path_factory, oc.replace("min_displacement = 0.10", "min_displacement = 7\n"
                                            'negacon_relief_flo = "1 L/min"'), "bad_oc.toml")
    err = check(Case("oc-file-lines", lambda: Machine.from_file(bad, mode="valves"), ParameterError,
                     [f"'{KEY}.min_displacement' (bad_oc.toml, line {n})", "0 < d_min < 1",
                      f"'{KEY}.negacon_relief_flo'", f"did you mean '{KEY}.negacon_relief_flow'"]))
    assert "2 problems" in str(err)
    cut = oc[:oc.index("[circuit.open_centre]")]
    gone = _cut(tmp_path_factory, cut, "no_oc.toml")
    check(Case("oc-missing-table", lambda: Machine.from_file(gone, mode="valves"), ParameterError,
               [f"'{KEY}'", "missing table", "orifice"]))
