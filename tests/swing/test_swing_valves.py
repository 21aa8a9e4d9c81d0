"""The swing valve section: a 4/3 valve feeding the swing motor, the motor on the turntable.

References, none taken from a run of the section itself:

* a rig (valve at a fixed opening, ideal supply, motor, turntable with viscous and Coulomb
  bearing friction): the steady swing rate from the hand orifice equation at the pressure
  drop the bearing's torque sets through the motor, solved by a root finder;
* a swing coasting into the centred valve: the motor pumps against the crossover relief,
  whose pressure drop at the motor's flow is the relief law inverted by hand; the rate then
  follows ω₀ − ∫ i·D/2π·Δp / J dt, and ½·J·ω₀² goes into the relief's heat, less the oil
  left compressed (½·V/β·p², by hand) and the make-up valves' small share;
* the energy balance of a valves run with swing in each circuit type (the solver's
  accounting), with the energy split's rows;
* the tables' named errors.
"""

import math

import numpy as np
import pytest
from scipy.integrate import cumulative_trapezoid
from scipy.optimize import brentq

from bondgraph import BondGraph, ParameterError, build, power_balance, simulate
from components import Turntable
from components.hydraulics import (DirectionalValve, HydraulicCircuit, Oil, PowerUnit, ReliefValve, SwingDrive,
                                   SwingMotor)
from mechanisms.machine import DATA, Cycle, Machine, MachineDescription

TRUCK = DATA / "excavator_truck.toml"
D, I_GEAR, J = 150e-6, 120.0, 2.0e4              # m³/rev, ω_motor/φ̇, kg·m² (the rig's turntable)
QN, DPN = 225 / 6e4, 10e5                       # the valve: 225 L/min per edge at 10 bar
RELIEF = ReliefValve(crack="250 bar", full="270 bar", q_rated="250 L/min")
K = D / (2 * math.pi)                           # motor torque per pressure, flow per shaft rad


def rig(command, *, supply="150 bar", makeup=None, **tt):
    """Ideal supply → 4/3 valve (no spool lag) → swing motor → gear → turntable."""
    oil = Oil()
    hyd = HydraulicCircuit("hyd", PowerUnit("pu", oil=oil, pressure=supply))
    motor = SwingMotor("motor", displacement=D, oil=oil, volume_A="2 L", volume_B="2 L", crossover=RELIEF)
    valve = DirectionalValve("valve", q_nominal=QN, dp_nominal=DPN, command=command, makeup=makeup)
    port = hyd.add_motor(SwingDrive("swing", valve=valve, motor=motor))
    top = BondGraph("rig")
    top.add(hyd, Turntable("swing", inertia=J, gear_ratio=I_GEAR, drive="port", **tt))
    top.connect(f"hyd/{port}", "swing/M")
    return build(top), oil


# ------------------------------------------------------------------ steady rate through the valve
def test_steady_swing_rate_from_the_orifice_equation():
    x, ps, c, tc, wc = 0.4, 150e5, 3.0e4, 2.0e3, 0.01
    model, _ = rig(x, viscous=c, coulomb=tc, coulomb_rate=wc)
    res = simulate(model, (0.0, 8.0), t_eval=[7.0, 8.0], rtol=1e-10, atol=1e-10, method="CVODE", progress=False)
    w = res["rig/swing/J.f"][-1]

    def residual(w):   # meter-in P→A and meter-out B→T pass the motor's flow, their drops add up
        dp_motor = (c * w + tc * math.tanh(w / wc)) / (I_GEAR * K)      # the bearing's torque, at the motor
        return QN * x * math.sqrt(max(ps - dp_motor, 0.0) / 2 / DPN) - K * I_GEAR * w

    w_hand = brentq(residual, 1e-6, 5.0, xtol=1e-14)
    assert abs(res["rig/swing/J.f"][-2] / w - 1) < 1e-7          # steady
    assert abs(w / w_hand - 1) <= 1e-6, (w, w_hand)
    dp = res["rig/hyd/swing/motor/C_A.e"][-1] - res["rig/hyd/swing/motor/C_B.e"][-1]
    assert dp < RELIEF.crack_pressure                              # the crossover relief stayed shut


# ------------------------------------------------------------------ braking against the crossover relief
@pytest.fixture(scope="module")
def braking():
    """Swinging at 0.8 rad/s into the centred valve (no bearing friction): the motor pumps
    from one side to the other against the crossover relief until the swing stops."""
    w0 = 0.8
    model, oil = rig(0.0, makeup=1e-7, rate0=w0)
    res = simulate(model, (0.0, 0.6), t_eval=np.linspace(0.0, 0.6, 6001), rtol=1e-10, atol=1e-10,
                   method="CVODE", energy=True, progress=False)
    return res, oil, w0


def dp_relief(q):
    """The crossover relief's pressure drop passing ``q`` (its law inverted by hand)."""
    pc, pf, qr = RELIEF.crack_pressure, RELIEF.full_pressure, 250 / 6e4
    return brentq(lambda p: qr * min(max((p - pc) / (pf - pc), 0.0), 1.0) * math.sqrt(p / pf) - q,
                  pc, pf * 4, xtol=1e-6)


def test_braking_torque_is_the_crossover_setting_through_the_motor(braking):
    res, _, w0 = braking
    w = res["rig/swing/J.f"]
    dp = res["rig/hyd/swing/motor/C_B.e"] - res["rig/hyd/swing/motor/C_A.e"]   # coasting: the motor pumps A → B
    # stopped: the oil left at the crossover setting in the motor rebounds it, which then rocks
    # on that oil spring (½·J·ω² at most the oil's ½·V/β·Δp²: ω below 0.25·ω₀ here)
    assert np.abs(w[res.t > 0.4]).max() < 0.25 * w0
    assert dp.max() > RELIEF.crack_pressure and dp.max() < RELIEF.full_pressure
    # while the relief passes the motor's flow (from the pressure's peak, once the oil has been
    # compressed to the relief's pressure): Δp from the relief law, hand, at the motor's flow
    on = (w > 0.1 * w0) & (dp > RELIEF.crack_pressure) & (res.t >= res.t[np.argmax(dp)])
    i = np.flatnonzero(on)
    hand = np.array([dp_relief(K * I_GEAR * wk) for wk in w[i]])
    assert np.max(np.abs(dp[i] / hand - 1)) <= 1e-3
    # the decel torque i·D/2π·Δp_hand: ω(t) = ω(t₁) − ∫ i·K·Δp_hand / J dt over that phase
    ref = w[i[0]] - cumulative_trapezoid(I_GEAR * K * hand, res.t[i], initial=0.0) / J
    assert np.max(np.abs(w[i] - ref)) <= 1e-3 * w0


def test_the_kinetic_energy_goes_into_the_crossover_relief(braking):
    res, oil, w0 = braking
    t = res.t

    def heat(path):
        return float(np.trapezoid(res.effort(path) * res.flow(path), t))

    pA, pB = res["rig/hyd/swing/motor/C_A.e"][-1], res["rig/hyd/swing/motor/C_B.e"][-1]
    oil_left = 0.5 * 2e-3 / oil.bulk_modulus * (pA ** 2 + pB ** 2)              # ½·V/β·p², by hand
    makeup = heat("rig/hyd/swing/valve/R_MU_A") + heat("rig/hyd/swing/valve/R_MU_B")
    kinetic = 0.5 * J * w0 ** 2
    rocking = 0.5 * J * res["rig/swing/J.f"][-1] ** 2           # what still rocks on the trapped oil
    relief = heat("rig/hyd/swing/motor/crossover")
    assert 0 <= makeup < 0.01 * kinetic and rocking < 0.1 * kinetic
    assert abs(relief - (kinetic - rocking - oil_left - makeup)) <= 1e-3 * relief, \
        (relief, kinetic, rocking, oil_left, makeup)
    assert power_balance(res).relative <= 1e-4


# ------------------------------------------------------------------ the machine, every circuit type
CMD = Cycle("valves", [0.0, 0.2, 2.0, 2.2, 3.5, 3.7, 5.0],
            {"boom": [0, 0, 0, 0.3, 0.3, 0, 0], "arm": [0] * 7, "bucket": [0] * 7},
            ("boom", "arm", "bucket"), swing=[0, 1, 1, 0, 0, 0, 0])


@pytest.fixture(scope="module", params=["fixed", "open-centre", "load-sensing"])
def swinging(request):
    m = Machine.from_file(TRUCK, mode="valves", overrides={"circuit.type": request.param})
    return request.param, m, m.run(CMD, dt=0.002, progress=False)    # fine samples: the power integrals


def test_a_machine_with_swing_builds_and_swings_in_every_circuit_type(swinging):
    typ, m, run = swinging
    assert m.turntable.drive == "port" and "swing.cmd" in m.model.model.input_names
    assert "swing" in m.circuit.hydraulic.motors
    tab = run.table()
    assert tab["swing_angle"].max() > 0.5                       # it swung, the valve open 1.8 s
    # stopped once centred: what is left rocks on the oil trapped in the motor, within 2°
    assert np.ptp(tab["swing_angle"][tab["time"] > 4.0]) < math.radians(2.0)
    # accelerating and braking against the crossover relief, which holds the motor's pressure
    # drop near its setting (fully open it passes more at √Δp: 2 % above full is 4 % more flow)
    dp = np.abs(tab["swing_pressure_A"] - tab["swing_pressure_B"])
    assert RELIEF.crack_pressure < dp.max() < 1.02 * RELIEF.full_pressure
    assert tab["swing_command"][0] == 0.0 and tab["swing_command"].max() == 1.0


def test_energy_balance_of_a_valves_run_with_swing(swinging):
    typ, m, run = swinging
    assert power_balance(run.results).relative <= 1e-4, typ
    split = run.energy_split()
    assert abs(split.residual) <= 1e-4 * split.scale, split.table()
    assert split.terms["swing crossover relief"] > 0 and split.terms["swing bearing"] > 0


def test_the_swing_section_is_the_circuit_types_own(swinging):
    typ, m, run = swinging
    valve = m.circuit.swing.valve
    kind = {"fixed": "DirectionalValve", "open-centre": "OpenCentreValve", "load-sensing": "CompensatedValve"}
    assert type(valve).__name__ == kind[typ]
    if typ == "open-centre":     # one more section on the centre gallery
        assert m.circuit.hydraulic.order == ["boom", "arm", "bucket", "swing"]
    if typ == "load-sensing":    # its load pressure on the shuttle network
        assert "swing" in m.circuit.hydraulic.sections and "swing_load_pressure" in run.table()


# ------------------------------------------------------------------ named errors
def test_the_swing_tables_name_every_problem():
    d = MachineDescription.load(TRUCK, {"circuit.valves.swing.hose_cap": "1 L",
                                        "circuit.valves.swing.flow": "225 kg"})
    with pytest.raises(ParameterError) as e:
        Machine(d, "valves")
    msg = str(e.value)
    assert "'circuit.valves.swing.hose_cap' (override): unknown key" in msg
    assert "'circuit.valves.swing.flow' (override)" in msg and "expected a volume flow" in msg


def test_a_missing_swing_valve_or_motor_is_named():
    d = MachineDescription.load(TRUCK)
    raw = {k: v for k, v in d.circuit["valves"].items() if k != "swing"}
    no_valve = d.with_sections(circuit={**d.circuit, "valves": raw})
    with pytest.raises(ParameterError, match=r"'circuit.valves.swing' \(.*\): missing: a machine with \[swing\]"):
        Machine(no_valve, "valves")
    sw = {k: v for k, v in d.raw["swing"].items() if k not in ("motor_displacement", "crossover_full")}
    no_motor = d.with_sections(swing=sw)
    with pytest.raises(ParameterError) as e:
        Machine(no_motor, "valves")
    assert "'swing.motor_displacement'" in str(e.value) and "missing: mode valves turns the swing" in str(e.value)
    assert "'swing.crossover_full'" in str(e.value)
    Machine(no_motor, "extensions")            # the other modes do not need the motor


def test_a_swing_valve_table_without_swing_is_refused_by_name():
    """A swing section with no [swing] to drive is refused, not skipped (a file that forgot its
    [swing] would otherwise run without a swing and no word); without the table it builds."""
    d = MachineDescription.load(TRUCK).with_sections(swing=None)
    with pytest.raises(ParameterError, match=r"'circuit\.valves\.swing' \(excavator_truck\.toml, line \d+\): "
                                             r"a swing valve section, but the machine has no \[swing\]"):
        Machine(d, "valves")
    valves = {k: v for k, v in d.circuit["valves"].items() if k != "swing"}
    m = Machine(d.with_sections(circuit={**d.circuit, "valves": valves}), "valves")
    assert m.turntable is None and m.circuit.swing is None and "swing.cmd" not in m.model.model.input_names


# ------------------------------------------------------------------ the truck-loading cycle in valves
@pytest.fixture(scope="module")
def truck_valves():
    m = Machine.from_file(TRUCK)                  # the file's default: mode valves, open centre, engine
    return m, m.run(progress=False)


def test_the_truck_loading_valves_cycle_swings_90_degrees_and_back(truck_valves):
    """The swing lever of excavator_truck_valves.csv (tools/make_cycles.py TRUCK_VALVES): the
    swing stops at 90° ± 0.5° before the dump and comes back to 0 ± 0.5° (the tolerance of the
    release times' bisection is 1 ms)."""
    m, run = truck_valves
    assert m.mode == "valves" and run.cycle.source == "excavator_truck_valves.csv"
    tab = run.table()
    t, phi = tab["time"], np.degrees(tab["swing_angle"])
    out = t < 12.1                                   # before the lever swings it back
    assert abs(phi[out].max() - 90.0) <= 0.5 and t[np.argmax(phi)] < 11.0
    assert abs(phi[-1]) <= 0.5
    assert np.abs(phi[t > 16.0]).max() <= 1.0       # stopped: rocking on the trapped oil, under 1°


def test_energy_balance_of_the_truck_loading_valves_cycle(truck_valves):
    m, run = truck_valves
    assert power_balance(run.results).relative <= 1e-4
    split = run.energy_split()
    assert abs(split.residual) <= 1e-4 * split.scale, split.table()
    assert split.terms["swing crossover relief"] > 0 and split.terms["soil"] > 0


def test_the_swing_motor_stays_within_its_crossover_relief(truck_valves):
    """Accelerating and braking against the crossover relief: the motor's pressure drop at or
    below the relief's (fully open it passes more at √Δp: 2 % above full is 4 % more flow), each
    port under the main relief."""
    m, run = truck_valves
    tab = run.table()
    dp = np.abs(tab["swing_pressure_A"] - tab["swing_pressure_B"])
    assert RELIEF.crack_pressure < dp.max() <= 1.02 * RELIEF.full_pressure
    assert max(tab["swing_pressure_A"].max(), tab["swing_pressure_B"].max()) < m.circuit.relief_pressure


def test_python_builds_what_the_file_builds_in_valves():
    """One machine layer, two ways in: the file's sections given from Python (its linkage
    edited in Python, the [swing] and circuit tables as dicts) run the same cycle alike."""
    m = Machine.from_file(TRUCK, mode="valves", overrides={"circuit.type": "fixed"})
    # (the description's sections() leave [soil] out: given here as the file has it)
    py = m.with_mechanism(m.to_mechanism(), soil=m.description.raw_tables()["soil"])
    assert py.model.model.input_names == m.model.model.input_names
    assert sorted(py.model.model.state_names) == sorted(m.model.model.state_names)
    a, b = m.run(CMD, t_end=2.5, progress=False).table(), py.run(CMD, t_end=2.5, progress=False).table()
    assert np.max(np.abs(a["swing_angle"] - b["swing_angle"])) <= 1e-6      # the solver's tolerance


def test_the_tracking_operator_follows_the_swing():
    """The tracking operator drives the swing as one more function: through the truck-loading
    lengths and swing angle it brings the swing to 90° ± 3° over the truck and back to 0 ± 2°,
    within 10° of the reference angle at its own clock, the tip within 150 mm of the path in
    space (median; it measured 109 mm, 0.6 m at the 95th percentile: the swing lags a few
    degrees at 6 m), pacing where the machine cannot keep up (32 s for the 17 s reference)."""
    from mechanisms.machine.operator import TrackingOperator

    m = Machine.from_file(TRUCK, mode="valves")
    ref = m.cycle("truck_loading", mode="extensions")
    op = TrackingOperator(m, ref)
    assert op.controller.inputs[-1] == "swing.cmd"
    run = op.drive(t_max=40.0, progress=False)
    assert math.isfinite(op.cycle_time)
    tab = run.table()
    phi = np.degrees(tab["swing_angle"])
    ref_phi = np.degrees(np.interp(op.clock(tab["time"]), ref.time, ref.swing))
    assert abs(phi.max() - 90.0) <= 3.0 and abs(phi[-1]) <= 2.0
    assert np.abs(phi - ref_phi).max() <= 10.0
    assert op.tracking(run).median <= 0.15


def test_the_swing_sections_supply_power_against_its_elements(swinging):
    """``swing_supply_power`` (the section's supply port, net of its return) against a second
    route: the heat of the section's own resistors (metering edges, make-up valves, the
    crossover relief and leakage; a compensated section's too), the change of the oil in the motor (½·V/β·p², by hand) and
    the work the motor's shaft passes to the gear (its bond's effort × flow)."""
    typ, m, run = swinging
    res, tab = run.results, run.table()
    t = tab["time"]
    base = f"{m.mechanism.name}/{m.circuit.name}/swing"
    g = res.model.graph
    heat = 0.0
    for node, el in g.nodes(data="element"):
        # (an open-centre section's bypass is fed by the centre gallery, not by its supply port)
        if node.startswith(f"{base}/") and el.kind == "R" and "/spool/" not in node and not node.endswith("R_BP"):
            heat += float(np.trapezoid(res.effort(node) * res.flow(node), t))
    shaft = next(k for u, v, k in g.edges(keys=True) if u == f"{base}/motor/shaft")
    work = float(np.trapezoid(res.effort(shaft) * res.flow(shaft), t))
    C = m.description.swing["motor_volume"] / m.circuit.hydraulic.power_unit.oil.bulk_modulus    # V/β
    stored = 0.5 * C * sum(tab[f"swing_pressure_{s}"][-1] ** 2 - tab[f"swing_pressure_{s}"][0] ** 2 for s in "AB")
    supplied = float(np.trapezoid(tab["swing_supply_power"], t))
    assert supplied > 0
    assert abs(supplied - (heat + stored + work)) <= 1e-4 * supplied, (typ, supplied, heat, stored, work)


def test_a_valves_run_with_swing_is_a_cycle_again(truck_valves, tmp_path):
    """A valves run's results.csv read back as a valves cycle takes its swing commands; a
    cycle's CSV keeps its swing column (``swing [1]``)."""
    m, run = truck_valves
    path = run.to_csv(tmp_path / "results.csv")
    again = Cycle.from_results(path, "valves", m.functions)
    tab = run.table()
    assert again.swing is not None
    assert np.allclose(again.swing, tab["swing_command"], atol=1e-12, rtol=1e-9)
    written = again.to_csv(tmp_path / "cycle.csv")
    assert "swing [1]" in written.read_text().splitlines()[0]
    assert np.array_equal(Cycle.from_csv(written, "valves", m.functions).swing, again.swing)
