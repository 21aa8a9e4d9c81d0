"""The base machine under the front: its masses and tipping lines (``[base]``).

The planar front stands on a base machine (undercarriage, upper structure,
counterweight) that tips about a line on the ground: the front tipping line (front
idler) or the rear one — or, with the upper structure swung 90° (ISO 10567's lift
capacity over the side), the side tipping line (a crawler's track, half the gauge from
the swing axis). Over the side the front, the upper structure and the counterweight keep
their distances from the swing axis in the front's plane, while the masses that do not
swing (``swings = false``: the undercarriage) stand on the machine's centreline, at
distance zero from the swing axis in that plane. :class:`BaseMachine` reads ``[base]`` of the machine file and
gives the moments that decide tipping; the front's own part of the moment comes from
the bond graph (the chassis reactions, :mod:`.statics`), an external load's from its
point of application.

Sign convention: a *tipping moment* about a line is positive when it turns the
machine over that line (clockwise about the front line, counter-clockwise about the
rear one, x forward and y up); a stable machine has a negative one.

Examples
--------
>>> from mechanisms.machine import DATA
>>> from mechanisms.machine.description import MachineDescription
>>> base = BaseMachine.of(MachineDescription.load(DATA / "excavator.toml"))
>>> base.front, base.rear, base.side, round(base.mass)
(1.83, -1.83, 1.19, 17100)
>>> round(base.tipping_moment("front") / 9.81)          # kg·m: the base alone holds it down
-43548
>>> round(base.tipping_moment("side") / 9.81)           # the undercarriage on the centreline
-32604
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from bondgraph.errors import ParameterError

__all__ = ["BaseMachine"]


@dataclass(frozen=True)
class BaseMachine:
    """Masses (world frame) and tipping lines of the base machine, SI.

    Attributes
    ----------
    masses : mapping
        Name → ``(mass, (x, y))`` of each part of the base.
    front, rear : float
        x of the front and rear tipping lines (m; ``rear`` may be None).
    ground : float
        y of the ground (m).
    gravity : float
        m/s².

    Examples
    --------
    A 10 t base whose centre of mass is 1 m behind the front line holds
    ``−10 000·9.81·1`` N·m against tipping forward; a 2 t load 4 m ahead tips it with
    ``+2000·9.81·4``:

    >>> base = BaseMachine({"body": (10e3, (0.0, 1.0))}, front=1.0, rear=-1.0, ground=0.0,
    ...                    gravity=9.81)
    >>> base.tipping_moment("front"), float(base.load_moment("front", 5.0, 1.0, 0.0, -2e3 * 9.81))
    (-98100.0, 78480.0)
    """

    masses: Mapping[str, tuple[float, tuple[float, float]]]
    front: float
    rear: float | None
    ground: float
    gravity: float
    side: float | None = None                      # the side tipping line's distance from the swing axis
    fixed: frozenset = frozenset()                 # masses that do not swing (the undercarriage)

    @classmethod
    def of(cls, desc) -> "BaseMachine":
        """From a description's ``[base]``.

        Parameters
        ----------
        desc : MachineDescription

        Returns
        -------
        BaseMachine

        Raises
        ------
        ParameterError
            The file has no ``[base]`` (the tipping limit needs it).
        """
        if desc.base is None:
            raise ParameterError(f"{desc.file.name}: no [base] section: the tipping limit needs the base "
                                 "machine (tipping_line, rear_tipping_line and [base.masses.NAME] with "
                                 "mass and cog; see mechanisms/machine/description.py)")
        b = desc.base
        return cls({k: (v["mass"], tuple(v["cog"])) for k, v in b["masses"].items()}, b["tipping_line"],
                   b["rear_tipping_line"], desc.ground, desc.gravity, b.get("side_tipping_line"),
                   frozenset(k for k, v in b["masses"].items() if not v.get("swings", True)))

    @property
    def mass(self) -> float:
        """Total mass of the base (kg)."""
        return float(sum(m for m, _ in self.masses.values()))

    def line(self, which: str) -> float:
        """The tipping line's x in the front's plane: ``"front"``, ``"rear"`` or ``"side"``
        (the upper structure swung 90°).

        Raises
        ------
        ParameterError
            The file gives no such line (``rear_tipping_line``, ``side_tipping_line``).
        """
        x = {"front": self.front, "rear": self.rear, "side": self.side}[which]
        if x is None:
            key = {"rear": "rear_tipping_line", "side": "side_tipping_line"}[which]
            raise ParameterError(f"[base]: no {which} tipping line: give [base] {key}"
                                 + (" (a crawler: half its track gauge, e.g. \"1.19 m\")" if which == "side" else ""))
        return x

    def tipping_moment(self, which: str = "front") -> float:
        """Tipping moment of the base's own weight about a line (N·m, negative = stable).

        Parameters
        ----------
        which : {"front", "rear"}

        Returns
        -------
        float
        """
        x_t = self.line(which)
        m = sum(mass * self.gravity * ((0.0 if which == "side" and k in self.fixed else cog[0]) - x_t)
                for k, (mass, cog) in self.masses.items())
        return -m if which == "rear" else m

    def load_moment(self, which: str, px, py, fx, fy) -> np.ndarray:
        """Tipping moment about a line of forces ``(fx, fy)`` (N) acting on the machine at
        ``(px, py)`` (the front's plane)."""
        x_t = self.line(which)
        ccw = (np.asarray(px) - x_t) * fy - (np.asarray(py) - self.ground) * fx
        return ccw if which == "rear" else -ccw

    def front_moment(self, which: str, statics) -> np.ndarray:
        """Tipping moment of the front's weight, from its forces on the chassis
        (:class:`~.statics.StaticsAt`).

        Parameters
        ----------
        which : {"front", "rear"}
        statics : StaticsAt

        Returns
        -------
        ndarray
        """
        ccw = statics.moment_about(self.line(which), self.ground)
        return ccw if which == "rear" else -ccw
