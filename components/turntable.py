"""The turntable template: the upper structure turning about the vertical (swing) axis.

Bond graph (all names local to the turntable):

* ``w`` — 1-junction of the swing rate ``φ̇`` (rad/s), with the swing angle ``phi`` as
  its displacement state and the upper structure's inertia ``J`` about the swing axis
  (the front's inertia is added by :func:`mechanisms.swing.with_swing`, which rides the
  front on this junction);
* ``bearing`` — the slew bearing's friction on ``w``: ``c·φ̇ + T_C·tanh(φ̇/ω_C)``
  (viscous plus a smooth Coulomb term, as the cylinder seals and the engine have);
* ``brake`` — the swing brake, a resistor ``u·c_B·φ̇`` engaged by the input
  ``<name>.brake`` (``u`` from 0, released, to 1, engaged);
* ``motor`` — 1-junction of the swing motor's shaft speed, bonded to ``w`` through the
  reduction gear ``gear`` (a transformer: ``ω_motor = i·φ̇``, ``T_swing = i·T_motor``),
  with the motor's own inertia ``J_motor`` if given. With ``drive="torque"`` the shaft
  torque is the input ``<name>.torque`` (N·m, positive turning ``φ`` up); with
  ``drive="port"`` the shaft is the exposed port ``M`` for a motor component; with
  ``motor=`` that component (a :class:`~components.hydraulics.SwingMotor`) is part of the
  turntable, its shaft on the gear and its other ports (``A``, ``B``) the turntable's;
  with ``drive="rate"`` the swing rate itself is prescribed, the input ``<name>.rate``
  (rad/s) on ``w`` through the bond ``drive`` (inverse dynamics: the torque it takes at the
  swing axis is that bond's effort, :meth:`drive_torque`).

Examples
--------
>>> tt = Turntable("swing", inertia="25000 kg*m^2", gear_ratio=120, viscous="2 kN*m*s/rad")
>>> tt.inputs, tt.inertia, tt.gear_ratio
(['swing.torque'], 25000.0, 120.0)
>>> sorted(tt.children)
['J', 'bearing', 'gear', 'motor', 'torque', 'w']
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp

from bondgraph import MSe, MSf, R, TF, BondGraph, I, Input, One
from bondgraph.checks import Check, number_problems

from .part import as_amount, in_si, numeric_only, present, raise_problems

__all__ = ["Turntable"]


class Turntable(BondGraph):
    """The upper structure on its slew bearing, driven through a reduction gear.

    Parameters
    ----------
    name : str
    inertia : float, str or sympy symbol
        The upper structure's inertia about the swing axis (kg·m², ``"25000 kg*m^2"``),
        without the front (whose inertia follows its pose).
    gear_ratio : float
        Reduction ``i = ω_motor / φ̇`` (> 0) of the swing gearbox and pinion on the ring.
    viscous : float or str
        Slew-bearing viscous friction ``c`` about the swing axis (N·m·s/rad, default 0).
    coulomb : float or str
        Slew-bearing Coulomb friction torque ``T_C`` (N·m, default 0).
    coulomb_rate : float or str
        The swing rate ``ω_C`` over which the Coulomb torque builds up,
        ``T_C·tanh(φ̇/ω_C)`` (rad/s, default 0.01).
    brake : float, str or None
        The swing brake's resistance ``c_B`` about the swing axis when engaged
        (N·m·s/rad); ``None`` (default): no brake. Its engagement is the input
        ``<name>.brake`` (0 released … 1 engaged).
    motor_inertia : float or str
        The motor shaft's inertia (kg·m², on the motor side of the gear; default 0).
    drive : {"torque", "port", "rate"}
        ``"torque"`` (default): the motor torque is the input ``<name>.torque`` (N·m);
        ``"port"``: the motor shaft is the exposed port ``M`` for a motor component;
        ``"rate"``: the swing rate is the input ``<name>.rate`` (rad/s).
    motor : BondGraph, optional
        A motor component with its shaft on port ``M`` (a hydraulic
        :class:`~components.hydraulics.SwingMotor`): added to the turntable, its shaft bonded
        to the gear, its other ports exposed under their names (``drive`` is then ignored).
    axis_x : float or str
        Where the swing axis crosses the front's plane: its x in the mechanism's frame
        (m, default 0). Radii of the front's parts are measured from it.
    phi0, rate0 : float or str
        Initial swing angle (rad) and rate (rad/s), default 0.

    Attributes
    ----------
    angle : sympy.Symbol
        The displacement handle of the swing angle ``φ`` (for laws elsewhere).
    inputs : list of str
        The input names the turntable adds (torque, brake).

    Raises
    ------
    ParameterError
        Every bad value at once, naming it, what was found and what was expected.

    Examples
    --------
    >>> Turntable("swing", inertia=1.0e4, gear_ratio=0.0, coulomb="-1 kN*m")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: turntable 'swing': 2 problems
      - gear_ratio: found 0.0, expected a finite number > 0 (ω_motor / φ̇)
      - coulomb: found -1000.0, expected a finite number ≥ 0 (N·m)
    """

    kind = "turntable"

    def __init__(self, name: str, *, inertia: Any, gear_ratio: Any = 1.0, viscous: Any = 0.0,
                 coulomb: Any = 0.0, coulomb_rate: Any = 0.01, brake: Any = None,
                 motor_inertia: Any = 0.0, drive: str = "torque", axis_x: Any = 0.0,
                 phi0: Any = 0.0, rate0: Any = 0.0, motor: BondGraph | None = None):
        super().__init__(name)
        problems: list[str] = []
        v = in_si({"inertia": (inertia, "kg*m^2"), "gear_ratio": (gear_ratio, ""),
                   "viscous": (viscous, "N*m*s/rad"), "coulomb": (coulomb, "N*m"),
                   "coulomb_rate": (coulomb_rate, "rad/s"),
                   "brake": (0.0 if brake is None else brake, "N*m*s/rad"),
                   "motor_inertia": (motor_inertia, "kg*m^2"), "axis_x": (axis_x, "m"),
                   "phi0": (phi0, "rad"), "rate0": (rate0, "rad/s")}, problems)
        problems += number_problems("", numeric_only({
            "inertia": (v["inertia"], Check(">=0", "kg·m²")),
            "gear_ratio": (v["gear_ratio"], Check(">0", "ω_motor / φ̇")),
            "viscous": (v["viscous"], Check(">=0", "N·m·s/rad")),
            "coulomb": (v["coulomb"], Check(">=0", "N·m")),
            "coulomb_rate": (v["coulomb_rate"], Check(">0", "rad/s")),
            "brake": (v["brake"], Check(">=0", "N·m·s/rad")),
            "motor_inertia": (v["motor_inertia"], Check(">=0", "kg·m²")),
            "axis_x": (v["axis_x"], Check("finite", "m")),
            "phi0": (v["phi0"], Check("finite", "rad")),
            "rate0": (v["rate0"], Check("finite", "rad/s"))}))
        if motor is not None:
            if not isinstance(motor, BondGraph) or "M" not in motor.ports:
                problems.append(f"motor: found {motor!r}, expected a component with its shaft on port 'M' "
                                "(a SwingMotor)")
            elif motor.name in ("w", "J", "bearing", "brake", "motor", "gear", "J_motor", "torque"):
                problems.append(f"motor: its name {motor.name!r} is taken by an element of the turntable")
            drive = "motor"
        elif drive not in ("torque", "port", "rate"):
            problems.append(f"drive: found {drive!r}, expected 'torque' (an input torque), 'port' "
                            "(a motor component on port M) or 'rate' (a prescribed swing rate)")
        raise_problems(problems, [], f"turntable {name!r}")
        self.inertia, self.gear_ratio = as_amount(v["inertia"]), float(v["gear_ratio"])
        self.viscous, self.coulomb = as_amount(v["viscous"]), as_amount(v["coulomb"])
        self.coulomb_rate = float(v["coulomb_rate"])
        self.brake = None if brake is None else as_amount(v["brake"])
        self.motor_inertia = as_amount(v["motor_inertia"])
        self.drive = drive
        self.motor = motor
        self.axis_x = float(v["axis_x"])
        self.inputs: list[str] = []
        self._build(float(v["phi0"]), float(v["rate0"]))

    def _build(self, phi0: float, rate0: float) -> None:
        w = One("w", displacement="phi", initial=phi0)
        self.angle = w.displacement
        self.add(w)
        if present(self.inertia):
            self.add(I("J", self.inertia, initial=rate0, prefer="state"))
            self.connect("w", "J")
        if present(self.viscous) or present(self.coulomb):
            c, tc, wc = self.viscous, self.coulomb, self.coulomb_rate
            self.add(R("bearing", effort=lambda f: c * f + tc * sp.tanh(f / wc)))
            self.connect("w", "bearing")
        if self.brake is not None:
            engaged = Input(f"{self.name}.brake")
            self.inputs.append(engaged.name)
            cb = self.brake
            self.add(R("brake", effort=lambda f: engaged * cb * f))
            self.connect("w", "brake")
        if self.drive == "rate":
            rate = Input(f"{self.name}.rate")
            self.inputs.insert(0, rate.name)
            self.add(MSf("rate", rate))
            self.connect("rate", "w", name="drive")
            if not present(self.motor_inertia):
                return
        self.add(One("motor"), TF("gear", 1.0 / self.gear_ratio))
        self.connect("motor", "gear/1")
        self.connect("gear/2", "w")
        if present(self.motor_inertia):
            self.add(I("J_motor", self.motor_inertia))
            self.connect("motor", "J_motor")
        if self.drive == "rate":
            return
        if self.drive == "torque":
            torque = Input(f"{self.name}.torque")
            self.inputs.insert(0, torque.name)
            self.add(MSe("torque", torque))
            self.connect("torque", "motor")
        elif self.drive == "port":
            self.expose("M", "motor", label="swing motor shaft")
        else:
            m = self.motor
            self.add(m)
            self.connect(f"{m.name}/M", "motor")
            for port in m.ports:
                if port != "M":
                    self.expose(port, f"{m.name}/{port}", label=f"{m.name} port {port}")

    def drive_torque(self, res: Any, model: str) -> np.ndarray:
        """The torque the prescribed swing rate takes at the swing axis along a run (N·m,
        positive turning φ up; ``drive="rate"`` only).

        Parameters
        ----------
        res : Results
            A run of a model holding this turntable.
        model : str
            The path of the turntable's parent in that model (the model's name).

        Examples
        --------
        >>> from bondgraph import BondGraph, build, simulate
        >>> tt = Turntable("swing", inertia=2.0e4, viscous=1.0e3, drive="rate")
        >>> top = BondGraph("top")
        >>> _ = top.add(tt)
        >>> res = simulate(build(top), (0.0, 1.0), inputs={"swing.rate": 0.5}, progress=False)
        >>> float(tt.drive_torque(res, "top")[-1])          # at a steady 0.5 rad/s: c·φ̇
        500.0
        """
        from bondgraph.errors import ParameterError

        if self.drive != "rate":
            raise ParameterError(f"turntable {self.name!r}: drive_torque() reads a prescribed rate's torque; "
                                 f"this one is driven by {self.drive!r}")
        return res.effort(f"{model}/{self.name}/drive")

    def friction_torque(self, rate: float) -> float:
        """The slew bearing's friction torque at a swing rate (N·m, opposing it).

        Examples
        --------
        >>> tt = Turntable("swing", inertia=1.0, viscous=100.0, coulomb=50.0, coulomb_rate=0.01)
        >>> round(tt.friction_torque(1.0), 6)       # 100·1 + 50·tanh(100)
        150.0
        """
        import math

        return float(self.viscous) * rate + float(self.coulomb) * math.tanh(rate / self.coulomb_rate)
