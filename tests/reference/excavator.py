"""Excavator kinematics and static boom-holding check (hand calculation).

OpenHydraulics excavator geometry, planar.  World frame: x forward, y up,
gravity ``-g`` along y, angles counter-clockwise positive.

Frames (each frame's x axis points toward the next link's pin):

* **boom** frame: origin at the boom foot pin ``C`` (world), x axis at the
  absolute angle ``theta1`` from world x;
* **arm** frame: origin at the arm pin, x axis at ``theta1 + theta2``
  (``theta2`` relative to the boom);
* **bucket** frame: origin at the bucket pin, x axis at
  ``theta1 + theta2 + theta3`` (``theta3`` relative to the arm).

A body point ``r`` of a frame with origin ``o`` and angle ``a`` is at
``o + R(a) r``.

Bucket linkage: the rocker (length 0.717 m) turns about the arm's rocker
pivot; the bucket link (0.674 m) joins the rocker's free end (the *rocker
joint* ``J``, where the bucket-cylinder rod is also pinned) to the bucket's
link pin.  ``J`` is the intersection of the circles ``|J - rocker_pivot| =
0.717`` and ``|J - link_pin| = 0.674``:

    J = R0 + alpha e + branch * h n,   e = (L - R0)/|L - R0|,  n = z x e,

with ``R0`` the rocker pivot, ``L`` the link pin, ``alpha = (0.717^2 -
0.674^2 + d^2) / (2 d)``, ``h = sqrt(0.717^2 - alpha^2)``.  **branch = +1**
(``J`` to the left of the directed line rocker pivot -> link pin,
``cross(L - R0, J - R0) > 0``) is the assembled excavator: it gives the
published bucket-cylinder length 3.066 m at ``(50, -80, 20) deg``; branch -1
gives 3.326 m there.

Cylinder lengths (pin to pin): boom = chassis base ``(0.655, 0.703)`` to the
boom's rod pin; arm = the boom's arm-cylinder base to the arm's arm-cylinder
rod pin; bucket = the arm's bucket-cylinder base to ``J``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

__all__ = [
    "ExcavatorGeometry",
    "OPENHYDRAULICS_EXCAVATOR",
    "excavator_points",
    "excavator_cylinder_lengths",
    "excavator_gravity_moment",
    "excavator_static_boom_force",
]


@dataclass(frozen=True)
class ExcavatorGeometry:
    """OpenHydraulics excavator data (SI units; coordinates in the frames
    described in the module docstring)."""

    boom_foot: tuple[float, float] = (-0.164, 1.428)  # world
    boom_cyl_base: tuple[float, float] = (0.655, 0.703)  # world (chassis)
    # boom frame
    boom_cyl_rod: tuple[float, float] = (2.85, 1.18)
    arm_cyl_base: tuple[float, float] = (4.22, 1.33)
    arm_pin: tuple[float, float] = (7.11, 0.0)
    boom_cog: tuple[float, float] = (3.44, 0.65)
    boom_mass: float = 1307.0
    # arm frame
    arm_cyl_rod: tuple[float, float] = (-0.920, 0.217)
    bucket_cyl_base: tuple[float, float] = (0.49, 0.96)
    rocker_pivot: tuple[float, float] = (2.97, 0.13)
    bucket_pin: tuple[float, float] = (3.654, 0.0)
    arm_cog: tuple[float, float] = (1.176, 0.296)
    arm_mass: float = 700.5
    # bucket frame
    link_pin: tuple[float, float] = (0.52, 0.07)
    tip: tuple[float, float] = (-0.075, -1.368)
    bucket_cog: tuple[float, float] = (0.5, -0.6)
    bucket_mass: float = 50.0
    # bucket linkage
    rocker_length: float = 0.717
    link_length: float = 0.674
    g: float = 9.81


OPENHYDRAULICS_EXCAVATOR = ExcavatorGeometry()


def _R(a: float) -> np.ndarray:
    return np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])


def _circle_intersection(P0, r0, P1, r1, branch):
    d = float(np.linalg.norm(P1 - P0))
    alpha = (r0**2 - r1**2 + d**2) / (2 * d)
    h2 = r0**2 - alpha**2
    if h2 < 0:
        raise ValueError("bucket linkage cannot be assembled")
    e = (P1 - P0) / d
    n = np.array([-e[1], e[0]])
    return P0 + alpha * e + branch * np.sqrt(h2) * n


def excavator_points(
    theta1: float, theta2: float, theta3: float, branch: int = 1, geom: ExcavatorGeometry = OPENHYDRAULICS_EXCAVATOR
) -> dict[str, np.ndarray]:
    """World positions (x forward, y up) [m] of every pin, the bucket tip and
    the three centres of gravity.

    Keys: ``boom_foot``, ``boom_cyl_base``, ``boom_cyl_rod``,
    ``arm_cyl_base``, ``arm_pin``, ``boom_cog``, ``arm_cyl_rod``,
    ``bucket_cyl_base``, ``rocker_pivot``, ``bucket_pin``, ``arm_cog``,
    ``link_pin``, ``tip``, ``bucket_cog``, ``rocker_joint``.
    """
    C = np.asarray(geom.boom_foot, float)
    Rb, Ra, Rk = _R(theta1), _R(theta1 + theta2), _R(theta1 + theta2 + theta3)
    pts = {"boom_foot": C, "boom_cyl_base": np.asarray(geom.boom_cyl_base, float)}
    for k in ("boom_cyl_rod", "arm_cyl_base", "arm_pin", "boom_cog"):
        pts[k] = C + Rb @ np.asarray(getattr(geom, k), float)
    O2 = pts["arm_pin"]
    for k in ("arm_cyl_rod", "bucket_cyl_base", "rocker_pivot", "bucket_pin", "arm_cog"):
        pts[k] = O2 + Ra @ np.asarray(getattr(geom, k), float)
    O3 = pts["bucket_pin"]
    for k in ("link_pin", "tip", "bucket_cog"):
        pts[k] = O3 + Rk @ np.asarray(getattr(geom, k), float)
    pts["rocker_joint"] = _circle_intersection(pts["rocker_pivot"], geom.rocker_length, pts["link_pin"], geom.link_length, branch)
    return pts


def excavator_cylinder_lengths(
    theta1: float, theta2: float, theta3: float, branch: int = 1, geom: ExcavatorGeometry = OPENHYDRAULICS_EXCAVATOR
) -> dict[str, float]:
    """Pin-to-pin lengths [m] of the ``boom``, ``arm`` and ``bucket`` cylinders.

    Examples
    --------
    >>> d = np.radians
    >>> L = excavator_cylinder_lengths(d(50), d(-80), d(20))
    >>> [round(L[k], 3) for k in ("boom", "arm", "bucket")]
    [3.668, 2.969, 3.066]
    """
    p = excavator_points(theta1, theta2, theta3, branch, geom)
    dist = lambda a, b: float(np.linalg.norm(p[a] - p[b]))  # noqa: E731
    return {
        "boom": dist("boom_cyl_rod", "boom_cyl_base"),
        "arm": dist("arm_cyl_rod", "arm_cyl_base"),
        "bucket": dist("rocker_joint", "bucket_cyl_base"),
    }


def excavator_gravity_moment(theta: Sequence[float], geom: ExcavatorGeometry = OPENHYDRAULICS_EXCAVATOR) -> float:
    """Clockwise gravity moment [N m] of boom + arm + bucket about the boom
    foot: ``g * sum m_i (x_i - x_C)`` (positive = tends to lower the boom)."""
    p = excavator_points(*theta, geom=geom)
    xC = p["boom_foot"][0]
    return geom.g * (
        geom.boom_mass * (p["boom_cog"][0] - xC)
        + geom.arm_mass * (p["arm_cog"][0] - xC)
        + geom.bucket_mass * (p["bucket_cog"][0] - xC)
    )


def excavator_static_boom_force(
    theta: Sequence[float],
    geom: ExcavatorGeometry = OPENHYDRAULICS_EXCAVATOR,
    n_cylinders: int = 2,
    bore: float = 0.135,
) -> dict[str, float]:
    """Total boom-cylinder axial force holding boom + arm + bucket at rest.

    Moment balance about the boom foot ``C`` with the arm and bucket held
    rigid relative to the boom; cylinders, rocker and link massless;
    ``g = geom.g``.  The cylinder force ``F`` (positive pushing) acts along
    ``e = (B - A) / |B - A|`` at the rod pin ``B`` (``A`` = chassis base):
    ``F * cross(B - C, e) = g sum m_i (x_i - x_C)``.

    Parameters
    ----------
    theta
        ``(theta1, theta2, theta3)`` [rad], see the module docstring.
    geom
        Geometry and masses.
    n_cylinders, bore
        Number of parallel boom cylinders and their bore [m]; used for the
        cap-side pressure ``F / (n_cylinders * pi bore^2 / 4)`` (rod side at
        zero pressure).

    Returns
    -------
    dict
        ``gravity_moment`` [N m], ``lever_arm`` [m] (perpendicular distance
        from ``C`` to the cylinder axis, positive when pushing raises the
        boom), ``force`` [N] (total), ``force_per_cylinder`` [N],
        ``cap_pressure`` [Pa], ``cap_pressure_bar`` [bar].

    Examples
    --------
    >>> r = excavator_static_boom_force(np.radians([50.0, -80.0, 20.0]))
    >>> round(r["gravity_moment"] / 1e3, 1), round(r["force"] / 1e3, 1), round(r["cap_pressure_bar"], 1)
    (65.4, 77.8, 27.2)
    """
    p = excavator_points(*theta, geom=geom)
    M = excavator_gravity_moment(theta, geom)
    B, A, C = p["boom_cyl_rod"], p["boom_cyl_base"], p["boom_foot"]
    e = (B - A) / np.linalg.norm(B - A)
    r = B - C
    lever = float(r[0] * e[1] - r[1] * e[0])
    F = M / lever
    area = np.pi * bore**2 / 4.0
    pcap = F / (n_cylinders * area)
    return {"gravity_moment": float(M), "lever_arm": lever, "force": float(F), "force_per_cylinder": float(F / n_cylinders),
            "cap_pressure": float(pcap), "cap_pressure_bar": float(pcap / 1e5)}
