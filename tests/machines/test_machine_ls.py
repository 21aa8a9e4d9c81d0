"""The excavator on its load-sensing circuit (issue 13), against independent references.

* energy: ΔE_stored = source work − dissipation over the whole 10 s cycle (≤ 1e-4);
* statics: in a slow steady lift the pump holds the boom's load pressure — the cap
  pressure that holds the pose by virtual work, plus friction — plus the margin; the
  boom's flow is the orifice law at the compensated metering drop, whatever the load;
* relief: the LS circuit passes (next to) nothing over the relief where the fixed pump
  passes a third of its work, on the same spool commands;
* the start is a stand-by equilibrium; read-outs, report, comparison and the CLI path.
"""

import math

import numpy as np
import pytest

from bondgraph import power_balance
from components.hydraulics import Friction
from mechanisms.machine import DATA, Cycle, Machine
from mechanisms.machine.cli import main
from mechanisms.machine.compare import compare_runs, fuel_rate, read_energy_csv
from reference.statics import holding_forces

EXC = DATA / "excavator.toml"
LS = {"circuit.type": "load-sensing"}
VARIANTS = {"post": {**LS}, "pre": {**LS, "circuit.load_sensing.compensation": "pre"}}


@pytest.fixture(scope="module")
def machines():
    return {k: Machine.from_file(EXC, v, mode="valves") for k, v in VARIANTS.items()}


@pytest.fixture(scope="module")
def cycle_runs(machines):
    fixed = Machine.from_file(EXC, mode="valves")
    runs = {"fixed": fixed.run(progress=False)}
    runs.update({k: m.run(progress=False) for k, m in machines.items()})
    return runs


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_ls_cycle_balances_energy(cycle_runs, variant):
    run = cycle_runs[variant]
    bal = power_balance(run.results)
    assert bal.relative <= 1e-4, str(bal)
    split = run.energy_split()
    assert abs(split.residual) <= 1e-3 * split.scale, split.table()
    assert split.terms["pump work"] > 0 and split.terms["throttling (valves)"] > 0
    assert run.loop_closure() < 1e-6
    # the shipped LS circuits switch nothing discretely: the shuttles are a smooth maximum and a
    # compensator at its stop is a kink of its law, so the run has no events (no chattering)
    assert len(run.results.events[0]) == 0 and not run.contacts


def test_the_circuit_is_switched_by_one_override():
    m = Machine.from_file(EXC, mode="valves")
    assert type(m.circuit).__name__ == "FixedCircuit"
    assert m.set({"circuit.type": "load-sensing"}) == "rebuilt"
    assert m.circuit.kind == "post" and m.circuit.metering_drop == pytest.approx(3e5)
    assert m.set({"circuit.load_sensing.compensation": "pre"}) == "rebuilt"
    assert m.circuit.kind == "pre" and m.circuit.metering_drop == pytest.approx(2e5)


def test_relief_loss_is_near_zero_with_load_sensing(cycle_runs):
    """Same spool commands: the fixed pump passes 34 % of its work over the relief (846 of
    2516 kJ when measured), the LS circuits nothing (their pump never reaches the cut-off)."""
    fixed = cycle_runs["fixed"].energy_split().terms
    assert fixed["relief"] > 0.3 * fixed["pump work"]
    for variant in VARIANTS:
        run = cycle_runs[variant]
        terms = run.energy_split().terms
        assert terms["relief"] < 1e-6 * fixed["relief"], variant
        assert terms["pump work"] < 0.05 * fixed["pump work"], variant
        tab = run.table()
        assert tab["pump_pressure"].max() < run.machine.circuit.relief_pressure
        assert np.max(np.abs(tab["relief_flow"])) < 1e-9


def _slow_lift(machine, command=0.03, t_end=3.0):
    """The boom command ramped up over 1.5 s (slowly against the boom's 2.7 Hz oil-spring mode,
    lightly damped behind a compensated valve) and held; 2.3 cm of stroke by the end."""
    cyc = Cycle("valves", [0.0, 1.5, t_end], {"boom": [0.0, command, command], "arm": [0.0] * 3,
                                               "bucket": [0.0] * 3}, machine.functions)
    return machine.run(cyc, rtol=1e-8, atol=1e-10, progress=False, energy=False).table()


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_pump_holds_the_highest_load_plus_the_margin(machines, variant):
    """A slow steady boom lift from the start pose (command 0.03, the boom moves about 2 cm):
    the cap pressure is what holds the pose by virtual work plus friction (rod side as
    measured), and the pump stands the margin above it (≤ 1 %, the issue's bound; 1e-4 when
    measured; the margin itself within 0.01 bar of the margin less the controller's droop
    α·p_band). The flow is the orifice law at the compensated drop: the margin less the
    droop (post) or the pre-compensator's setting (0.2 % when measured)."""
    m = machines[variant]
    circ = m.circuit
    desc = m.description
    x = 0.03
    tab = _slow_lift(m, x)
    k = -1
    lengths = {f: float(tab[f"{f}_length"][k]) for f in m.functions}
    assert abs(lengths["boom"] - m.start_pose.length("boom_cylinder")) < 0.05
    F_hold = holding_forces(m, lengths, near=m.start_pose)["boom"]
    fr = desc.parts["boom_cylinder"].values["friction"]
    n = desc.parts["boom_cylinder"].values["count"]
    v = float(tab["boom_rate"][k])
    F_fric = n * Friction(coulomb=fr["coulomb"] / n, breakaway=(fr.get("breakaway") or 1.2 * fr["coulomb"]) / n,
                          breakaway_velocity=fr["breakaway_velocity"], viscous=fr["viscous"] / n).force(v)
    a_cap, a_rod = circ.areas["boom"]
    p_rod = float(tab["boom_rod_pressure"][k])
    p_load = (F_hold + F_fric + p_rod * a_rod) / a_cap
    assert float(tab["boom_cap_pressure"][k]) == pytest.approx(p_load, rel=2e-3)
    p_pump = float(tab["pump_pressure"][k])
    assert p_pump == pytest.approx(p_load + circ.margin, rel=0.01)
    pump = circ.hydraulic.power_unit.pump
    alpha = float(tab["pump_displacement"][k])
    droop = alpha * pump.regulation_band
    assert p_pump - float(tab["boom_cap_pressure"][k]) == pytest.approx(circ.margin - droop, abs=0.01e5)
    # the flow: Q_N·x·√(Δp/Δp_N) at the compensated metering drop
    valve = circ.hydraulic.sections["boom"]
    drop = circ.metering_drop - (droop if variant == "post" else 0.0)
    q_ref = valve.q_nominal * x * math.sqrt(drop / valve.dp_nominal)
    assert v * a_cap == pytest.approx(q_ref, rel=5e-3)


def test_compensated_flow_does_not_depend_on_the_load(machines):
    """A heavier bucket raises the boom's load pressure; the post-compensated boom lifts at the
    same speed (≤ 1 %), the pump following the load."""
    m = machines["post"]
    light = _slow_lift(m)
    try:
        assert m.set({"bucket.mass": "1500 kg"}) == "parameters"
        heavy = _slow_lift(m)
    finally:
        m.set({"bucket.mass": "700 kg"})
    assert heavy["boom_cap_pressure"][-1] > light["boom_cap_pressure"][-1] + 10e5
    assert heavy["pump_pressure"][-1] > light["pump_pressure"][-1] + 10e5
    assert heavy["boom_rate"][-1] == pytest.approx(light["boom_rate"][-1], rel=0.01)


def test_the_start_is_stand_by_and_holds_still(machines):
    """Spools centred: every derivative zero at the start state, the LS galleries vented,
    the pump at its margin above the (vented) LS pressure; half a second later the tip has
    not moved."""
    m = machines["post"]
    x0 = m.start_state()
    model = m.model.model
    from mechanisms.machine.start import _set_inputs

    sysm = _set_inputs(model, {f"{f}.cmd": 0.0 for f in m.functions})
    x = model.initial_state(x0)
    dx = sysm.rhs(0.0, x)
    names = model.state_names
    for i, n in enumerate(names):
        scale = 1e3 if n.endswith(".e") else 1.0        # Pa/s for pressures, else SI units
        assert abs(dx[i]) < 1e-6 * scale, (n, dx[i])
    hold = Cycle("valves", [0, 1], {f: [0, 0] for f in m.functions}, m.functions)
    tab = m.run(hold, t_end=0.5, progress=False).table()
    assert np.max(np.hypot(tab["tip_x"] - tab["tip_x"][0], tab["tip_y"] - tab["tip_y"][0])) < 1e-4
    for f in m.functions:
        assert abs(tab[f"{f}_load_pressure"][0]) < 1.0
    assert tab["pump_pressure"][-1] - tab["ls_pressure"][-1] == pytest.approx(m.circuit.margin, abs=100.0)
    assert tab["pump_displacement"].max() < 1e-3                      # stand-by: leakage only


def test_read_outs_and_report(cycle_runs, machines):
    run = cycle_runs["post"]
    tab = run.table()
    assert set(run.units[k] for k in ("pump_pressure", "ls_pressure", "pump_power")) == {"Pa", "W"}
    assert 0.0 <= tab["pump_displacement"].min() and tab["pump_displacement"].max() <= 1.0
    loads = np.max([tab[f"{f}_load_pressure"] for f in run.machine.functions], axis=0)
    band = machines["post"].circuit.hydraulic.network.shuttle.band
    assert np.all(tab["ls_pressure"] >= loads - 1e-6)                          # a smooth maximum
    assert np.all(tab["ls_pressure"] <= loads + band)                        # ≤ ε/2 per shuttle
    for f in run.machine.functions:
        assert tab[f"{f}_compensator_drop"].min() >= 0.0
    assert np.allclose(tab["pump_power"], tab["pump_pressure"] * tab["pump_flow"])
    text = run.report()
    assert "load sensing: post-compensated (LUDV, flow sharing), margin 3.0 bar" in text
    assert "pump displacement" in text and "the compensators throttled" in text
    assert "LS signal lines" in text


def test_comparison_explains_the_difference(cycle_runs):
    cmp = compare_runs({"fixed": cycle_runs["fixed"], "LS": cycle_runs["post"]})
    text = cmp.text()
    assert "relief loss: fixed" in text and "nothing is left over for the relief valve" in text
    assert "tip paths: up to" in text and "Q ∝ x·√Δp" in text
    fuel = cmp.fuel()
    pump = cycle_runs["fixed"].energy_split().terms["pump work"]
    assert fuel["fixed"] == pytest.approx(fuel_rate(pump, 10.0))
    assert fuel["LS"] < 0.1 * fuel["fixed"]
    d, _ = cmp.tip_gap()["LS"]
    tab_a, tab_b = cycle_runs["fixed"].table(), cycle_runs["post"].table()
    assert d == pytest.approx(np.max(np.hypot(tab_a["tip_x"] - tab_b["tip_x"], tab_a["tip_y"] - tab_b["tip_y"])))


def test_cli_runs_the_ls_circuit_and_compares_two_folders(tmp_path, capsys):
    common = ["--t-end", "0.5", "--no-animation", "--no-bond-graph", "--quiet"]
    assert main(["run", "excavator", "--out", str(tmp_path / "fixed"), *common]) == 0
    assert main(["run", "excavator", "--set", "circuit.type=load-sensing", "--out", str(tmp_path / "ls"),
                 *common]) == 0
    split = read_energy_csv(tmp_path / "ls" / "energy.csv")
    assert split.terms["relief"] == 0.0 and split.terms["pump work"] > 0
    capsys.readouterr()
    assert main(["compare", str(tmp_path / "fixed"), str(tmp_path / "ls"), "--out", str(tmp_path / "cmp")]) == 0
    out = capsys.readouterr().out
    assert "why they differ:" in out and "relief loss: A" in out
    assert (tmp_path / "cmp" / "circuits.png").stat().st_size > 10_000


def test_a_swash_plate_lag_is_not_given_a_pressure_tolerance():
    """With an actuator lag the swash plate ``α`` (0 … 1) is a supply state of the circuit but
    not a pressure: its absolute tolerance stays ``atol`` (scaled by 1e8 it was 1.0, the whole
    range of α, so the error control ignored it); the outlet and its rate filter (Pa) are scaled."""
    from mechanisms.machine.run import PRESSURE_ATOL_SCALE, _atol

    m = Machine.from_file(EXC, {**LS, "circuit.load_sensing.swash_time_constant": "20 ms"},
                          mode="valves")
    names = m.model.model.state_names
    atol = dict(zip(names, _atol(m, 1e-8)))
    hyd = "excavator/hyd/pu"
    assert "pu/swash/x.value" in m.circuit.supply
    assert atol[f"{hyd}/swash/x.value"] == 1e-8
    assert atol[f"{hyd}/C_P.e"] == atol[f"{hyd}/rate/x.value"] == 1e-8 * PRESSURE_ATOL_SCALE
    for cap, rod in m.circuit.chambers.values():
        assert atol[f"excavator/hyd/{cap}"] == atol[f"excavator/hyd/{rod}"] == 1e-8 * PRESSURE_ATOL_SCALE


def test_the_report_explains_the_compensation_the_run_used():
    """issue 20: a pre-compensated run's report printed the post-compensator explanation."""
    from mechanisms.machine import DATA, Machine

    texts = {}
    for kind in ("pre", "post"):
        m = Machine.from_file(DATA / "excavator.toml", {"circuit.type": "load-sensing",
                                                       "circuit.load_sensing.compensation": kind})
        texts[kind] = m.run(t_end=2.0, progress=False).report()
    assert "before its metering edge" in texts["pre"] and "brought up to the highest" not in texts["pre"]
    assert "brought up to the highest load's pressure" in texts["post"]
