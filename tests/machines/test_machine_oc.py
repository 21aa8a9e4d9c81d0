"""The excavator on its open-centre circuit with negative flow control (issue 13, third layout).

* energy: ΔE_stored = source work − dissipation over the whole 10 s valves cycle (≤ 1e-4),
  integrated by the native driver;
* the start is the stand-by equilibrium: the pump at its minimum displacement, the negacon
  pressure the orifice law ``ρ/2·(Q_min/(C_d·π·d²/4))²`` at the stand-by flow (hand
  computation from the file's values), the gallery volumes above it by the bypass drops;
* the circuit is one override away from the same file's fixed circuit, and ``hydrobond
  check`` reads the table when another circuit is selected.
"""

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from bondgraph import power_balance
from mechanisms.machine import DATA, Machine
from mechanisms.machine.check import check_file

EXC = DATA / "excavator.toml"
OC = {"circuit.type": "open-centre"}


@pytest.fixture(scope="module")
def machine():
    return Machine.from_file(EXC, OC, mode="valves")


@pytest.fixture(scope="module")
def run(machine):
    return machine.run(progress=False)


def test_the_open_centre_cycle_balances_energy_natively(run):
    assert run.results.stats["backend"] == "native"
    bal = power_balance(run.results)
    assert bal.relative <= 1e-4, str(bal)
    split = run.energy_split()
    assert abs(split.residual) <= 1e-3 * split.scale, split.table()
    assert split.terms["pump work"] > 0
    assert split.terms["negative-control orifice"] > 0 and split.terms["centre bypass"] > 0
    assert run.loop_closure() < 1e-6
    assert len(run.results.events[0]) == 0 and not run.contacts    # nothing switches discretely


def test_the_start_is_stand_by(machine):
    x0 = machine.start_state()
    hyd = "excavator/hyd"
    # d_min·D·n, file values; the pump turns with the engine ([circuit.engine]), at its start speed
    n = x0[f"{hyd}/engine/J.f"] / (2 * math.pi)
    q_min = 0.10 * 220e-6 * n
    p_n = 870 / 2 * (q_min / (0.7 * math.pi * 4.0e-3 ** 2 / 4)) ** 2
    assert x0[f"{hyd}/neg/C_N.e"] == pytest.approx(p_n, rel=0.01)
    assert x0[f"{hyd}/pu/swash/x.value"] == pytest.approx(0.10, rel=1e-6)
    # one fully open bypass: Q = Q_N·√(Δp/Δp_N) regularised below p_tr = 1 bar by the odd cubic
    # √p_tr·(5u − u³)/4, u = Δp/p_tr (the valve's laminar band; the drop is inside it)
    s = q_min / (480 / 6e4) * math.sqrt(10e5)
    u = brentq(lambda u: math.sqrt(1e5) * (5 * u - u ** 3) / 4 - s, 0.0, 1.0)
    drop = u * 1e5
    chain = [x0[f"{hyd}/{s}"] for s in ("pu/C_P.e", "gallery_boom/C.e", "gallery_arm/C.e", "neg/C_N.e")]
    assert np.allclose(np.diff(chain), -drop, rtol=0.01)


def test_read_outs_report_and_override(run, machine):
    tab = run.table()
    a = tab["pump_displacement"]
    assert a.min() == pytest.approx(0.10, rel=1e-3) and a.max() <= 1.0 + 1e-9
    # what returns through the gallery end is the pump flow less what the sections take
    assert np.all(tab["bypass_flow"] >= -1e-9) and np.all(tab["negacon_pressure"] < 46e5)
    report = run.report()
    assert "negative flow control" in report and "returned through the centre gallery" in report
    fixed = Machine.from_file(EXC, mode="valves")
    assert type(fixed.circuit).__name__ == "FixedCircuit"
    assert fixed.set(OC) == "rebuilt" and type(fixed.circuit).__name__ == "OpenCentreMachineCircuit"


def test_check_reads_the_table_of_the_unselected_circuit():
    text = check_file(EXC)
    assert "[circuit.open_centre] (circuit type 'open-centre', not selected): read, builds" in text


def test_three_circuits_side_by_side(run):
    """The same spool commands on the fixed, load-sensing and open-centre circuits: the
    open-centre pump neither blows its flow over the relief (the gallery takes it) nor works
    more than the fixed pump; the comparison names the gallery loss with the split's figures."""
    from mechanisms.machine.compare import compare_runs

    runs = {"fixed": Machine.from_file(EXC, mode="valves").run(progress=False),
            "LS": Machine.from_file(EXC, {"circuit.type": "load-sensing"}, mode="valves").run(progress=False),
            "open centre": run}
    cmp = compare_runs(runs)
    assert [s.circuit for s in cmp.summaries] == ["fixed", "load-sensing", "open-centre"]
    oc, fixed = cmp["open centre"].energy.terms, cmp["fixed"].energy.terms
    assert oc.get("relief", 0.0) < 1e-3 * fixed["relief"]
    assert oc["pump work"] < fixed["pump work"]
    fuel = cmp.fuel()
    assert set(fuel) == {"fixed", "LS", "open centre"} and fuel["open centre"] < fuel["fixed"]
    text = cmp.text()
    gallery = oc["centre bypass"] + oc["negative-control orifice"]
    assert f"centre gallery (open centre): {gallery / 1e3:.1f} kJ" in text
    assert "the centre gallery, not the relief, takes what the valves do not" in text
    assert "an open-centre section sends its flow to the work port only once" in text
    fig = cmp.plot()
    labels = [t.get_text() for t in fig.axes[-1].get_xticklabels()]
    assert labels == ["fixed", "LS", "open centre"]


def test_a_sub_millimetre_orifice_written_with_its_unit_is_taken():
    """``orifice_diameter = "0.9 mm"`` was refused as a "bare number 0.0009" (the file layer
    had read the unit, the library asked for it again): now taken, with the orifice law."""
    m = Machine.from_file(EXC, {**OC, "circuit.open_centre.orifice_diameter": "0.9 mm"}, mode="valves")
    ctl = m.circuit.hydraulic.control
    assert ctl.diameter == pytest.approx(0.9e-3) and ctl.area == pytest.approx(math.pi * 0.9e-3 ** 2 / 4)
