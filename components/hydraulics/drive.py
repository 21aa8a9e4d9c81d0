"""A hydraulic drive for a mechanism cylinder, and a circuit of drives on one power unit.

:class:`HydraulicDrive` bundles a :class:`DirectionalValve`, the hose volumes
on both sides and a :class:`HydraulicCylinder` (hydraulic side); it exposes
``P`` and ``T`` (to the power unit) and ``I`` (to the mechanical cylinder's
``I`` port). :class:`HydraulicCircuit` holds one :class:`PowerUnit` and any
number of drives, connects each drive's ``P``/``T`` to its own pair of
power-unit ports and exposes ``<drive>.I`` for ``Mechanism.drive_external``.

Coupling to a mechanism (the excavator issue)::

    cyl = mech.parts["boom_cyl"]                       # components.Cylinder
    circuit = HydraulicCircuit("hyd", PowerUnit("pu", oil=oil, pump=..., relief=...))
    circuit.add(HydraulicDrive("boom", cylinder=HydraulicCylinder(
        "cyl", bore="135 mm", rod="50 mm", stroke="1.25 m", retracted="2.48 m",
        length=cyl.length_symbol, oil=oil, count=2),
        valve=DirectionalValve("valve", q_nominal="0.01 m^3/s", dp_nominal="3 bar",
                               command=Input("boom.cmd"), spool=SpoolDynamics(10.0)),
        hoses=("1.96 L", "1.96 L")))
    mech.drive_external("boom_cyl", circuit, "boom.I")

Examples
--------
>>> from bondgraph import Input
>>> from components.hydraulics import (Oil, HydraulicCylinder, DirectionalValve, PowerUnit,
...                                    HydraulicCircuit, HydraulicDrive)
>>> oil = Oil()
>>> drive = HydraulicDrive("lift", cylinder=HydraulicCylinder(
...     "cyl", bore=0.08, rod=0.04, stroke=0.5, oil=oil, piston_mass=200.0),
...     valve=DirectionalValve("valve", q_nominal=1e-3, dp_nominal=5e5, command=Input("cmd")),
...     hoses=("0.5 L", "0.5 L"))
>>> circuit = HydraulicCircuit("hyd", PowerUnit("pu", oil=oil, pressure="100 bar"))
>>> circuit.add_drive(drive)
'lift.I'
>>> sorted(circuit.ports)
['lift.I']
"""

from __future__ import annotations

from typing import Any

from bondgraph import BondGraph
from bondgraph.errors import ParameterError

from .cylinder import HydraulicCylinder
from .lines import Hose
from .supply import PowerUnit
from .valves import DirectionalValve

__all__ = ["HydraulicDrive", "HydraulicCircuit"]


class HydraulicDrive(BondGraph):
    """Valve + hoses + cylinder (hydraulic side); ports ``P``, ``T``, ``I``.

    Parameters
    ----------
    name : str
    cylinder : HydraulicCylinder
        Double-acting (its ``A`` port on the valve's ``A``, ``B`` on ``B``).
    valve : DirectionalValve
    hoses : (volume, volume), optional
        Hose volumes on the cap and rod sides (m³ or with units), lumped with
        the chambers; ``None`` for none.

    Raises
    ------
    ParameterError
        A single-acting cylinder, or a valve that is not a :class:`DirectionalValve`.

    Examples
    --------
    Fully open on a 100 bar supply against 20 kN, the rod settles where the two metering
    edges and the piston balance, ``p_A·A_A − p_B·A_B = F`` with
    ``v·A_A = Q_N·√((p_s − p_A)/Δp_N)`` and ``v·A_B = Q_N·√(p_B/Δp_N)`` (solved here by
    scipy's root finder):

    >>> from scipy.optimize import brentq
    >>> from bondgraph import BondGraph, Se, build, simulate
    >>> from components.hydraulics import Oil, HydraulicCylinder, DirectionalValve, PowerUnit
    >>> oil = Oil()
    >>> cyl = HydraulicCylinder("cyl", bore=0.08, rod=0.04, stroke=1.0, oil=oil,
    ...                         piston_mass=200.0, x0=0.1)
    >>> drive = HydraulicDrive("lift", cylinder=cyl, hoses=("0.5 L", "0.5 L"),
    ...                        valve=DirectionalValve("valve", q_nominal=1e-3, dp_nominal=5e5,
    ...                                               command=1.0))
    >>> circuit = HydraulicCircuit("hyd", PowerUnit("pu", oil=oil, pressure="100 bar"))
    >>> top = BondGraph("rig")
    >>> _ = top.add(circuit, Se("load", -20e3))
    >>> _ = top.connect("load", "hyd/" + circuit.add_drive(drive))
    >>> res = simulate(build(top), (0.0, 0.5), method="CVODE", progress=False)
    >>> A, B = cyl.area_A, cyl.area_B
    >>> v = brentq(lambda v: (100e5 - 5e5 * (v * A / 1e-3) ** 2) * A
    ...            - 5e5 * (v * B / 1e-3) ** 2 * B - 20e3, 1e-6, 1.0, xtol=1e-14)
    >>> bool(abs(res["rig/" + circuit.state("lift", "v")][-1] / v - 1) < 1e-6)
    True
    """

    def __init__(self, name: str, *, cylinder: HydraulicCylinder, valve: DirectionalValve,
                 hoses: tuple[Any, Any] | None = None):
        super().__init__(name)
        if not isinstance(cylinder, HydraulicCylinder) or cylinder.single_acting:
            raise ParameterError(f"drive {name!r}: cylinder = {cylinder!r}, expected a "
                                 "double-acting HydraulicCylinder")
        if not isinstance(valve, DirectionalValve):
            raise ParameterError(f"drive {name!r}: valve = {valve!r}, expected a DirectionalValve")
        self.cylinder, self.valve = cylinder, valve
        self.add(cylinder, valve)
        if hoses is None:
            self.connect(f"{valve.name}/A", f"{cylinder.name}/A")
            self.connect(f"{cylinder.name}/B", f"{valve.name}/B")
        else:
            hA = Hose("hose_A", cylinder.oil, volume=hoses[0], ports=("valve", "cyl"))
            hB = Hose("hose_B", cylinder.oil, volume=hoses[1], ports=("valve", "cyl"))
            self.add(hA, hB)
            self.connect(f"{valve.name}/A", "hose_A/valve")
            self.connect("hose_A/cyl", f"{cylinder.name}/A")
            self.connect(f"{cylinder.name}/B", "hose_B/cyl")
            self.connect("hose_B/valve", f"{valve.name}/B")
        self.expose("P", f"{valve.name}/P")
        self.expose("T", f"{valve.name}/T")
        self.expose("I", f"{cylinder.name}/I")


class HydraulicCircuit(BondGraph):
    """A power unit shared by several drives; exposes ``<drive>.I`` per drive.

    Parameters
    ----------
    name : str
    power_unit : PowerUnit

    Raises
    ------
    ParameterError
        Not a :class:`PowerUnit`.

    Examples
    --------
    See :class:`HydraulicDrive` and the module.
    """

    def __init__(self, name: str, power_unit: PowerUnit):
        super().__init__(name)
        if not isinstance(power_unit, PowerUnit):
            raise ParameterError(f"circuit {name!r}: power_unit = {power_unit!r}, expected a PowerUnit")
        self.power_unit = power_unit
        self.drives: dict[str, HydraulicDrive] = {}
        #: the swing drives (:meth:`add_motor`) by name
        self.motors: dict[str, Any] = {}
        self.add(power_unit)

    def add_drive(self, drive: HydraulicDrive) -> str:
        """Add a drive, connect it to the power unit; returns its mechanical port name.

        Parameters
        ----------
        drive : HydraulicDrive

        Returns
        -------
        str
            ``"<drive>.I"``.

        Raises
        ------
        ParameterError
            Not a drive, or a drive added twice.
        """
        if not isinstance(drive, HydraulicDrive):
            raise ParameterError(f"circuit {self.name!r}: add_drive got {drive!r}, expected a "
                                 "HydraulicDrive")
        self.add(drive)
        p, t = self.power_unit.consumer(drive.name)
        self.connect(f"{self.power_unit.name}/{p}", f"{drive.name}/P")
        self.connect(f"{drive.name}/T", f"{self.power_unit.name}/{t}")
        port = f"{drive.name}.I"
        self.expose(port, f"{drive.name}/I")
        self.drives[drive.name] = drive
        return port

    def add_motor(self, drive: Any) -> str:
        """Add a :class:`~components.hydraulics.SwingDrive` (a valve section feeding a swing
        motor), connect it to the power unit; returns its shaft port name ``"<drive>.M"``
        (for a :class:`~components.Turntable` made with ``drive="port"``).

        Parameters
        ----------
        drive : SwingDrive

        Returns
        -------
        str

        Raises
        ------
        ParameterError
            Not a swing drive, or a name already used.

        Examples
        --------
        >>> from components.hydraulics import (DirectionalValve, Oil, PowerUnit, SwingDrive,
        ...                                    SwingMotor)
        >>> oil = Oil()
        >>> hyd = HydraulicCircuit("hyd", PowerUnit("pu", oil=oil, pressure="200 bar"))
        >>> hyd.add_motor(SwingDrive("swing", valve=DirectionalValve("valve", q_nominal=3e-3,
        ...               dp_nominal=1e6, command=0.0), motor=SwingMotor("motor",
        ...               displacement="150 cm^3/rev", oil=oil)))
        'swing.M'
        """
        from .swing_drive import SwingDrive

        if not isinstance(drive, SwingDrive):
            raise ParameterError(f"circuit {self.name!r}: add_motor got {drive!r}, expected a SwingDrive")
        if drive.name in self.children:
            raise ParameterError(f"circuit {self.name!r}: a part named {drive.name!r} exists already")
        self.add(drive)
        p, t = self.power_unit.consumer(drive.name)
        self.connect(f"{self.power_unit.name}/{p}", f"{drive.name}/P")
        self.connect(f"{drive.name}/T", f"{self.power_unit.name}/{t}")
        port = f"{drive.name}.M"
        self.expose(port, f"{drive.name}/M")
        self.motors[drive.name] = drive
        return port

    def state(self, drive: str, what: str) -> str:
        """Path of a drive's cylinder state below this circuit (``"pA"``, ``"pB"``, ``"v"``).

        Parameters
        ----------
        drive : str
        what : {"pA", "pB", "v"}

        Returns
        -------
        str
            Prefix it with the path of the circuit's parent (``"rig/"``).
        """
        d = self.drives[drive]
        return f"{self.name}/{drive}/{d.cylinder.name}/{d.cylinder.state(what)}"
