"""Planar geometry kept apart from physics.

* :func:`polar_from_cog` / :func:`local_from_polar` — hinge points as the paper's
  ``(L, α)`` pairs about the centre of gravity, or as local coordinates;
* :class:`Pathway` — a linear actuator's line between two pins: length,
  extension rate, unit axis, and how an axial force maps to forces on the pins.
  The hydraulic side reuses it (chamber volumes from the length).

Examples
--------
>>> L, a = polar_from_cog((3.0, 4.0), cog=(0.0, 0.0))
>>> round(L, 6), round(a, 6)
(5.0, 0.927295)
>>> p = Pathway((0.0, 0.0), (3.0, 4.0))
>>> p.length, p.axis
(5.0, (0.6, 0.8))
>>> p.extension_rate((0.0, 0.0), (0.0, 1.0))
0.8
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["polar_from_cog", "local_from_polar", "rotate", "Pathway"]


def polar_from_cog(point: tuple[float, float], cog: tuple[float, float]) -> tuple[float, float]:
    """``(L, α)`` of a point about the centre of gravity, both in the part frame (m, rad):
    the source paper's way of placing a body's hinge points.

    Examples
    --------
    >>> L, a = polar_from_cog((2.85, 1.18), cog=(3.44, 0.65))
    >>> round(L, 3), round(math.degrees(a), 1)
    (0.793, 138.1)
    """
    dx, dy = point[0] - cog[0], point[1] - cog[1]
    return math.hypot(dx, dy), math.atan2(dy, dx)


def local_from_polar(L: float, alpha: float, cog: tuple[float, float] = (0.0, 0.0)) -> tuple[float, float]:
    """Part-frame coordinates of the point at ``(L, α)`` from the centre of gravity (m):
    the inverse of :func:`polar_from_cog`.

    Examples
    --------
    >>> x, y = local_from_polar(*polar_from_cog((2.85, 1.18), (3.44, 0.65)), cog=(3.44, 0.65))
    >>> round(x, 12), round(y, 12)
    (2.85, 1.18)
    """
    return cog[0] + L * math.cos(alpha), cog[1] + L * math.sin(alpha)


def rotate(v: tuple[float, float], angle: float) -> tuple[float, float]:
    """Rotate a vector by ``angle`` (rad, counter-clockwise).

    Examples
    --------
    >>> tuple(round(c, 12) for c in rotate((1.0, 0.0), math.pi / 2))
    (0.0, 1.0)
    """
    c, s = math.cos(angle), math.sin(angle)
    return c * v[0] - s * v[1], s * v[0] + c * v[1]


@dataclass(frozen=True)
class Pathway:
    """The straight line of a linear actuator from its root pin to its output pin.

    Geometry only: its length, axis and normal, the extension rate from the pins'
    velocities and the pin forces of an axial force; the hydraulic side takes its chamber
    volumes from the length.

    Examples
    --------
    >>> p = Pathway((0.0, 0.0), (3.0, 4.0))
    >>> p.length, p.axis, p.pin_forces(10.0)
    (5.0, (0.6, 0.8), ((-6.0, -8.0), (6.0, 8.0)))
    """

    root: tuple[float, float]
    tip: tuple[float, float]

    @property
    def length(self) -> float:
        """Pin-to-pin length (m)."""
        return math.hypot(self.tip[0] - self.root[0], self.tip[1] - self.root[1])

    @property
    def angle(self) -> float:
        """Axis angle ``φ`` from the world x axis (rad)."""
        return math.atan2(self.tip[1] - self.root[1], self.tip[0] - self.root[0])

    @property
    def axis(self) -> tuple[float, float]:
        """Unit vector from the root pin to the output pin."""
        L = self.length
        return (self.tip[0] - self.root[0]) / L, (self.tip[1] - self.root[1]) / L

    @property
    def normal(self) -> tuple[float, float]:
        """The Pr frame's x axis ``(sin φ, −cos φ)`` (see :mod:`components.ports`)."""
        a = self.axis
        return a[1], -a[0]

    def extension_rate(self, v_root: tuple[float, float], v_tip: tuple[float, float]) -> float:
        """``ṡ`` from the two pin velocities."""
        a = self.axis
        return (v_tip[0] - v_root[0]) * a[0] + (v_tip[1] - v_root[1]) * a[1]

    def pin_forces(self, force: float) -> tuple[tuple[float, float], tuple[float, float]]:
        """Forces on the root and tip pins of an axial force (positive pushing apart)."""
        a = self.axis
        return (-force * a[0], -force * a[1]), (force * a[0], force * a[1])
