"""A swing valve section: a 4/3 directional valve whose work ports feed a swing motor.

:class:`SwingDrive` is to a :class:`~components.hydraulics.SwingMotor` what
:class:`~components.hydraulics.HydraulicDrive` is to a cylinder: the valve's ``A`` on the
motor's ``A``, its ``B`` on the motor's ``B`` (the motor's side volumes hold the lines),
exposing ``P`` and ``T`` (to the power unit) and ``M`` (the motor shaft, to a
:class:`~components.Turntable` made with ``drive="port"``). A circuit adds it with
:meth:`HydraulicCircuit.add_motor <components.hydraulics.HydraulicCircuit.add_motor>`
(an open-centre or load-sensing circuit chains or registers its valve as one more section).

With the spool centred the closed-centre valve blocks ``A`` and ``B``: the swing is held by
the oil trapped in the motor, and a swing coasting against it pumps oil from one side to
the other through the motor's crossover relief, which takes its kinetic energy.

Examples
--------
>>> from components.hydraulics import DirectionalValve, Oil, ReliefValve, SwingMotor
>>> oil = Oil()
>>> drive = SwingDrive("swing", valve=DirectionalValve("valve", q_nominal="225 L/min",
...                    dp_nominal="10 bar", command=0.5),
...                    motor=SwingMotor("motor", displacement="150 cm^3/rev", oil=oil,
...                                     crossover=ReliefValve("250 bar", "270 bar", "250 L/min")))
>>> sorted(drive.ports)
['M', 'P', 'T']
"""

from __future__ import annotations

from bondgraph import BondGraph
from bondgraph.errors import ParameterError

from .swing_motor import SwingMotor
from .valves import DirectionalValve

__all__ = ["SwingDrive"]


class SwingDrive(BondGraph):
    """Valve + swing motor; ports ``P``, ``T`` (the valve's) and ``M`` (the motor shaft).

    Parameters
    ----------
    name : str
    valve : DirectionalValve
        Or a subclass (an open-centre or a pressure-compensated section); ``x > 0``
        connects P→A, turning the motor (and the swing) positive.
    motor : SwingMotor

    Raises
    ------
    ParameterError
        A valve that is not a :class:`DirectionalValve`, a motor that is not a
        :class:`SwingMotor` (both named at once).

    Examples
    --------
    >>> SwingDrive("swing", valve=None, motor="motor")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: swing drive 'swing': 2 problems
      - valve: found None, expected a DirectionalValve
      - motor: found 'motor', expected a SwingMotor
    """

    def __init__(self, name: str, *, valve: DirectionalValve, motor: SwingMotor):
        problems = []
        if not isinstance(valve, DirectionalValve):
            problems.append(f"valve: found {valve!r}, expected a DirectionalValve")
        if not isinstance(motor, SwingMotor):
            problems.append(f"motor: found {motor!r}, expected a SwingMotor")
        if problems:
            raise ParameterError(problems, subject=f"swing drive {name!r}")
        super().__init__(name)
        self.valve, self.motor = valve, motor
        self.add(valve, motor)
        self.connect(f"{valve.name}/A", f"{motor.name}/A")
        self.connect(f"{motor.name}/B", f"{valve.name}/B")
        self.expose("P", f"{valve.name}/P")
        self.expose("T", f"{valve.name}/T")
        self.expose("M", f"{motor.name}/M")

    def state(self, what: str) -> str:
        """Path below this drive of the motor's port pressure ``"pA"`` or ``"pB"`` (Pa).

        Examples
        --------
        >>> from components.hydraulics import Oil
        >>> d = SwingDrive("swing", valve=DirectionalValve("valve", q_nominal=1e-3, dp_nominal=5e5,
        ...                command=0.0), motor=SwingMotor("motor", displacement=1e-4, oil=Oil()))
        >>> d.state("pA"), d.state("pB")
        ('motor/C_A.e', 'motor/C_B.e')
        """
        local = {"pA": "C_A.e", "pB": "C_B.e"}
        if what not in local:
            raise ParameterError(f"swing drive {self.name!r}: state({what!r}), expected 'pA' or 'pB'")
        return f"{self.motor.name}/{local[what]}"
