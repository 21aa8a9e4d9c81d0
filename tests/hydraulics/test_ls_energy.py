"""Energy balance of the load-sensing rigs: ΔE_stored = source work − dissipation (+ parametric).

The sources are the pump (its work), the loads (negative work: lifting) and
nothing else: the signal lags (compensators, pressure-rate filter) carry no
power. Each rig runs through transients (start-up, a valve closing and
reopening, saturation).
"""

import numpy as np
import pytest

from bondgraph import Input, Table, power_balance, simulate
from components.hydraulics import LSPump
from components.hydraulics.ls_rigs import load_rig

SIM = dict(method="CVODE", rtol=1e-9, atol=1e-7, progress=False, energy=True)
CMD = Table([0.0, 0.2, 0.23, 0.4, 0.43, 0.7], [0.5, 0.5, 0.0, 0.0, 0.8, 0.8])  # open, close, reopen

CASES = {
    "post": dict(compensation="post"),
    "pre": dict(compensation="pre"),
    "post-saturated": dict(compensation="post", pump=LSPump("50 cm^3/rev", "1500 rpm", "20 bar")),
    "pre-limited": dict(compensation="pre", pump=LSPump("100 cm^3/rev", "1500 rpm", "20 bar",
                                                        torque_limit="200 N*m", cutoff="250 bar")),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_energy_balance(case):
    rig = load_rig({"a": 100e3, "b": 40e3}, commands={"a": Input("a.cmd"), "b": 0.6},
                   **CASES[case])
    res = simulate(rig.model, (0.0, 0.7), x0=rig.x0, inputs={"a.cmd": CMD}, **SIM)
    bal = power_balance(res)
    assert bal.relative <= 1e-4, str(bal)
    pump_work = np.trapezoid(res.power(rig.pump_source), res.t)
    assert pump_work > 0.5 * bal.source_work > 0          # the pump did the work
    assert bal.dissipated > 0
