"""The engine's indicated torque, made directly as a Piecewise (a fast build): the hand max of the
brake and friction torques at every speed. sympy's own constructor (``maximum(T_b + T_f, 0)``)
may rewrite the condition ``T_b + T_f ≥ 0`` into an equivalent inequality of the speed (solving it
is what takes the time); its values agree."""

import math

import numpy as np
import sympy as sp

from components.hydraulics import DieselEngine
from components.hydraulics._expr import maximum
from mechanisms.machine import DATA, Machine

RPM = math.pi / 30
RIG = DieselEngine(rated_power="110 kW", rated_speed="2000 rpm", high_idle="2150 rpm",
                   torque_curve=[["1000 rpm", "520 N*m"], ["1500 rpm", "650 N*m"], ["2000 rpm", "525 N*m"]],
                   inertia="1.5 kg*m^2", displacement="6.69 L", fmep="1.6 bar", indicated_efficiency=0.45)


def test_indicated_torque_is_the_hand_max_and_the_constructed_maximum():
    shipped = Machine.from_file(DATA / "excavator_dig.toml", mode="valves").circuit.engine
    for engine in (RIG, shipped):
        w = sp.Dummy("J.speed", real=True)
        fast = engine.indicated_torque(w)
        slow = maximum(engine.brake_torque(w) + engine.friction_torque, 0)   # sympy's own constructor
        assert isinstance(fast, sp.Piecewise) and fast.args[0].cond == sp.GreaterThan(
            engine.brake_torque(w) + engine.friction_torque, 0, evaluate=False)
        f, g = sp.lambdify(w, fast, "math"), sp.lambdify(w, slow, "math")
        b = sp.lambdify(w, engine.brake_torque(w) + engine.friction_torque, "math")
        # up to above high idle, where the droop line goes below the friction torque (no fuel)
        for n in np.linspace(600.0, 2600.0, 41):
            assert f(n * RPM) == max(b(n * RPM), 0.0)
            assert abs(g(n * RPM) - f(n * RPM)) <= 1e-9 * max(abs(f(n * RPM)), 1.0)
        assert f(2600 * RPM) == 0.0 and f(1500 * RPM) > 0.0


def test_indicated_torque_of_a_number_is_a_number():
    assert float(RIG.indicated_torque(sp.Float(1500 * RPM))) > 0.0
