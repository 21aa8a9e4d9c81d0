"""The LS sensing transition is monotone: a lift command never lowers a load (issue 20).

Below ``ls_opening`` the old port mixed the work port and the tank through the damping
orifices, so the load drained to tank through the LS network: a 100 bar load sank on a
1 % command. The reference: the compensated orifice law ``Q_N·x·√(Δp/Δp_N)`` (the
metering drop the compensator holds: the margin for post, Δp_c for pre) once the sense
is open, zero flow before it, never a negative flow in a steady state. When the sense
opens, the gallery is charged from the work port: the load gives the oil that compresses
the gallery from tank to load pressure, ``V·p/β``, once; taken quickly from a mass on its oil
spring, it can dip by at most twice that (a step's overshoot): the bound.
"""

from __future__ import annotations

import numpy as np
import pytest

from bondgraph import simulate
from components.hydraulics.ls_rigs import RIG_PUMP, load_rig

SIM = dict(rtol=1e-8, atol=1e-10, method="CVODE", progress=False)
COMMANDS = [0.005, 0.01, 0.02, 0.03, 0.04, 0.05, 0.08]


@pytest.mark.parametrize("compensation, drop", [("post", RIG_PUMP.margin), ("pre", 12e5)])
def test_a_lift_command_never_lowers_the_load_and_the_flow_rises_with_it(compensation, drop):
    flows = []
    for cmd in COMMANDS:
        rig = load_rig({"lift": 100e3}, commands={"lift": cmd}, compensation=compensation)
        res = simulate(rig.model, (0.0, 1.0), x0=rig.x0, **SIM)
        x = res[rig.position("lift")]
        valve = rig.circuit.sections["lift"]
        port = valve.children["ls"]
        p_load = 100e3 / rig.area["lift"]
        charge = port.volume * p_load / rig.circuit.power_unit.oil.bulk_modulus / rig.area["lift"]
        assert x.min() >= x[0] - 2.0 * charge, f"command {cmd}: the load sank {1e3 * (x[0] - x.min()):.4f} mm"
        q = float(np.mean(res[rig.velocity("lift")][-20:])) * rig.area["lift"]
        if cmd >= valve.ls_opening:            # the sense fully open: the compensated flow
            assert q == pytest.approx(valve.compensated_flow(cmd, drop), rel=5e-3)
        elif cmd <= valve.ls_opening / 2:      # the drain closing, the sense not open: held
            assert abs(q) < 1e-9
        flows.append(q)
    assert all(b >= a - 1e-12 for a, b in zip(flows, flows[1:])), flows
