"""A hydraulic swing motor with its cross-port (crossover) relief valves.

Bond graph (names local to the motor):

* ``pA``, ``pB`` — 0-junctions of the two port pressures, each with the oil volume of its
  side (``C_A``, ``C_B``: a :class:`~components.hydraulics.HydraulicCapacitance`), exposed
  as the hydraulic ports ``A`` and ``B`` (a valve's work ports);
* ``dp`` — 1-junction of the flow through the motor from ``A`` to ``B`` (its effort the
  pressure drop ``p_A − p_B``), bonded to the shaft ``shaft`` through the transformer
  ``motor``: ``ω = 2π/D · Q`` and ``T = D/2π · (p_A − p_B)``, ``D`` the displacement per
  revolution; the shaft is the exposed port ``M`` (to a
  :class:`~components.Turntable` made with ``drive="port"``);
* ``cross`` — 1-junction of the flow from ``A`` to ``B`` past the motor: the crossover
  relief valves (one each way, the same setting, a :class:`ReliefValve
  <components.hydraulics.ReliefValve>` law: closed below its cracking pressure) and the
  motor's internal leakage, on one resistor ``crossover``.

A motor turned by the upper structure's inertia against closed ports pumps oil from one
side to the other until the crossover relief opens: that is how a swing stops when its
valve is centred, the kinetic energy going into the relief's heat.

Examples
--------
>>> from components.hydraulics import Oil, ReliefValve
>>> motor = SwingMotor("swing_motor", displacement="180 cm^3/rev", oil=Oil(),
...                    crossover=ReliefValve(crack="250 bar", full="270 bar", q_rated="150 L/min"))
>>> sorted(motor.ports), round(motor.torque_per_pressure * 1e5, 4)     # N·m per bar
(['A', 'B', 'M'], 2.8648)
"""

from __future__ import annotations

import math
from typing import Any

from bondgraph import R, TF, BondGraph, One, Zero
from bondgraph.checks import Check

from ._values import FINITE, POSITIVE, raise_all, si
from .chamber import HydraulicCapacitance
from .oil import Oil
from .supply import ReliefValve

__all__ = ["SwingMotor"]


class SwingMotor(BondGraph):
    """Fixed-displacement hydraulic motor with crossover relief; ports ``A``, ``B``, ``M``.

    Parameters
    ----------
    name : str
    displacement : float or str
        Displacement per revolution (m³/rev, ``"180 cm^3/rev"``).
    oil : Oil
    volume_A, volume_B : float or str
        Oil volume on each side, the motor's ports and their lines (m³, default ``"1 L"``).
    crossover : ReliefValve, optional
        The crossover relief valves' setting (the same both ways); ``None``: none.
    leakage : float or str
        Internal leakage from ``A`` to ``B`` (m³/(s·Pa), default 0).
    initial_A, initial_B : float or str
        Initial gauge pressures (Pa, default 0).

    Raises
    ------
    ParameterError
        Every bad value at once.

    Examples
    --------
    >>> SwingMotor("m", displacement="-5 cm^3/rev", oil=Oil(), crossover="250 bar")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: swing motor 'm': 2 problems
      - 'displacement': found '-5 cm^3/rev', expected a finite number > 0 (m^3/rev)
      - crossover: found '250 bar', expected a ReliefValve (crack, full, q_rated) or None
    """

    def __init__(self, name: str, *, displacement: Any, oil: Oil, volume_A: Any = "1 L",
                 volume_B: Any = "1 L", crossover: ReliefValve | None = None, leakage: Any = 0.0,
                 initial_A: Any = 0.0, initial_B: Any = 0.0):
        super().__init__(name)
        problems: list[str] = []
        D = si(displacement, "m^3/rev", "displacement", problems, POSITIVE)
        VA = si(volume_A, "m^3", "volume_A", problems, POSITIVE)
        VB = si(volume_B, "m^3", "volume_B", problems, POSITIVE)
        leak = si(leakage, "m^3/(s*Pa)", "leakage", problems, Check(">=0"), plausible=False)
        pA = si(initial_A, "Pa", "initial_A", problems, FINITE)
        pB = si(initial_B, "Pa", "initial_B", problems, FINITE)
        if not isinstance(oil, Oil):
            problems.append(f"oil: found {oil!r}, expected an Oil")
        if crossover is not None and not isinstance(crossover, ReliefValve):
            problems.append(f"crossover: found {crossover!r}, expected a ReliefValve (crack, full, q_rated) or None")
        raise_all(problems, f"swing motor {name!r}")
        self.displacement, self.crossover, self.leakage = D, crossover, leak
        #: torque per pressure drop, D/2π (N·m/Pa = m³/rad)
        self.torque_per_pressure = D / (2.0 * math.pi)
        self.add(Zero("pA"), Zero("pB"), HydraulicCapacitance("C_A", VA, oil, initial=pA),
                 HydraulicCapacitance("C_B", VB, oil, initial=pB), One("dp"), One("shaft"),
                 TF("motor", 1.0 / self.torque_per_pressure))
        self.connect("pA", "C_A"); self.connect("pB", "C_B")
        self.connect("pA", "dp"); self.connect("dp", "pB")
        self.connect("dp", "motor/1"); self.connect("motor/2", "shaft")
        if crossover is not None or leak > 0:
            rv = crossover

            def law(dp, rv=rv, leak=leak):
                q = leak * dp
                if rv is not None:
                    q = q + rv.law(dp) - rv.law(-dp)
                return q
            self.add(One("cross"), R("crossover", flow=law))
            self.connect("pA", "cross"); self.connect("cross", "pB"); self.connect("cross", "crossover")
        self.expose("A", "pA", label="port A")
        self.expose("B", "pB", label="port B")
        self.expose("M", "shaft", label="motor shaft")

    def crossover_flow(self, dp: float) -> float:
        """Flow from ``A`` to ``B`` past the motor at a pressure drop (m³/s): the relief
        valves and the leakage.

        Examples
        --------
        >>> m = SwingMotor("m", displacement="180 cm^3/rev", oil=Oil(), leakage=1e-12)
        >>> m.crossover_flow(100e5)
        1e-05
        """
        q = self.leakage * dp
        if self.crossover is not None:
            q += float(self.crossover.law(dp)) - float(self.crossover.law(-dp))
        return q

