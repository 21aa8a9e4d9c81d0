"""Every machine shipped in mechanisms/data/, checked against independent references:
loop closure over its default cycle, static holding forces against a virtual-work
computation (tests/reference/statics.py), the energy balance of its valve-driven cycle,
and the Grübler count against its number of cylinders."""

import numpy as np
import pytest

from bondgraph import AssemblyError
from mechanisms.machine import DATA, Cycle, Machine
from reference.statics import potential

MACHINES = ["excavator", "wheel_loader", "knuckle_crane", "excavator_mini"]


def _machine(name, mode, **kw):
    return Machine.from_file(DATA / f"{name}.toml", mode=mode, **kw)


@pytest.mark.parametrize("name", MACHINES)
def test_loop_closure_over_the_default_cycle(name):
    """At the default tolerances: the poses at the output times close their loops exactly
    (the integrator's drift, 2–4e-6 m, no longer reaches them)."""
    run = _machine(name, "extensions").run(progress=False)
    assert run.loop_closure() <= 1e-9
    assert run.energy_balance().relative < 1e-4


@pytest.mark.parametrize("name", MACHINES)
def test_holding_forces_equal_virtual_work(name):
    m = _machine(name, "extensions")
    pose = m.start_pose
    L0 = {f: pose.length(m.cylinder_of[f]) for f in m.functions}
    hold = Cycle("extensions", [0, 1], {f: [L0[f]] * 2 for f in m.functions}, m.functions)
    tab = m.run(hold, t_end=0.01, t_eval=np.array([0.0, 0.01]), rtol=1e-10, atol=1e-12,
                progress=False).table()
    h = 1e-6
    for f in m.functions:
        up, dn = dict(L0), dict(L0)
        up[f] += h
        dn[f] -= h
        F_vw = (potential(m, m.pose_at_lengths(up)) - potential(m, m.pose_at_lengths(dn))) / (2 * h)
        assert tab[f"{f}_force"][0] == pytest.approx(F_vw, rel=1e-6), f


@pytest.mark.parametrize("name", MACHINES)
def test_valve_cycle_balances_energy_and_keeps_its_loops_closed(name):
    m = _machine(name, "valves")
    run = m.run(progress=False)
    assert run.energy_balance().relative < 1e-4
    assert run.loop_closure() < 1e-6
    assert run.contacts == []
    split = run.energy_split()
    assert abs(split.residual) < 2e-3 * split.scale
    assert m.mobility()["M"] == len(m.functions)


def test_a_coupled_loop_names_the_pair_of_inputs():
    """With the tilt cylinder's base moved, the lift and tilt lengths constrain each other:
    the error names both inputs and the range one allows the other."""
    m = _machine("wheel_loader", "forces", overrides={"chassis.tilt_cylinder.A": ["0.9 m", "1.6 m"]})
    with pytest.raises(AssemblyError) as err:
        m.pose_at_lengths({"lift": 2.29, "tilt": 0.86})
    msg = str(err.value)
    assert "loop tilt_cylinder – chassis – boom – bellcrank" in msg
    assert ("inputs tilt_cylinder and lift_cylinder cannot be met together: with lift_cylinder = 2.29 m, "
            "tilt_cylinder (asked 0.86 m) can only be 0.97") in msg


def test_an_unreachable_cycle_is_refused_with_its_time():
    m = _machine("wheel_loader", "extensions", overrides={"chassis.tilt_cylinder.A": ["0.9 m", "1.6 m"]})
    L0 = {f: m.start_pose.length(m.cylinder_of[f]) for f in m.functions}
    c = Cycle("extensions", [0, 2, 4], {"lift": [L0["lift"], 1.8, 2.29], "tilt": [L0["tilt"], 0.95, 0.86]},
              m.functions)
    with pytest.raises(AssemblyError) as err:
        m.run(c, progress=False)
    msg = str(err.value)
    assert "leaves the reachable set" in msg and "unreachable at t = 3." in msg
    assert "inputs tilt_cylinder and lift_cylinder cannot be met together" in msg
