"""The backhoe excavator's front, assembled from templates under the connection rules.

Parts and their causal port classes (SEEDS.md 002):

* ``boom`` (MainBody): ``Rt`` C = foot on the chassis, ``Pd`` B = boom-cylinder rod
  pin, ``Li`` D = arm-cylinder base, ``Li`` F = arm pin;
* ``arm`` (MainBody): ``Rt`` F, ``Pd`` = arm-cylinder rod pin, ``Li`` = bucket-cylinder
  base, rocker pivot and bucket pin;
* ``bucket`` (MainBody): ``Rt`` = bucket pin, ``Pd`` = link pin, ``Li`` Q = tip (free);
* ``rocker`` (MainBody): ``Rt`` = its pivot on the arm, ``Pd`` J = where the bucket
  cylinder pushes and ``Li`` J2 at the same point, which carries the link. The
  rocker must be a body (not a ``Lever``): a lever has no ``Li`` for the link's
  ``Rt`` and its ``Pr`` would need a ``Pd`` it cannot find;
* ``link`` (Lever): ``Rt`` on the rocker's ``Li``, ``Pr`` on the bucket's ``Pd``;
* ``boom_cyl`` (one cylinder of the pair's doubled area — two cylinders would give
  two ``Pr`` for one ``Pd``), ``arm_cyl``, ``bucket_cyl`` (Cylinder).

Examples
--------
>>> import math
>>> from mechanisms.excavator.params import load_params
>>> mech = excavator_mechanism(load_params(), "extension")
>>> pose = start_pose(mech, load_params())
>>> [round(pose.length(c), 3) for c in ("boom_cyl", "arm_cyl", "bucket_cyl")]
[3.668, 2.969, 3.066]
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from components import Cylinder, Lever, MainBody

from ..assembly import Mechanism, Pose

__all__ = ["excavator_mechanism", "start_pose", "pose_from_angles", "PARTS", "CYLINDERS",
           "body_angles"]

CYLINDERS = ("boom_cyl", "arm_cyl", "bucket_cyl")
PARTS = ("boom", "arm", "bucket", "rocker", "link") + CYLINDERS
_SECTION = {"boom_cyl": "boom_cylinder", "arm_cyl": "arm_cylinder", "bucket_cyl": "bucket_cylinder"}


def _cylinder(name: str, c: Mapping[str, float], g: float) -> Cylinder:
    n = c["count"]
    return Cylinder(name, retracted=c["retracted"], stroke=c["stroke"], m_rod=n * c["piston_rod_mass"],
                    m_barrel=n * c["barrel_mass"], d_rod=c["retracted"] / 2, d_barrel=c["retracted"] / 3,
                    gravity=g)


def excavator_mechanism(params: Mapping[str, Mapping[str, Any]],
                        drives: str | Mapping[str, Any] = "force", name: str = "excavator") -> Mechanism:
    """The excavator front as a :class:`~mechanisms.Mechanism`.

    Parameters
    ----------
    params : dict
        From :func:`~mechanisms.excavator.params.load_params` (SI).
    drives : str, dict or callable
        ``"force"`` / ``"extension"`` for all cylinders, or per cylinder; a value
        ``(component, port)`` drives the cylinder with that component; a callable
        ``drives(mech)`` attaches drives itself once the parts exist (hydraulics).
    """
    p = params
    g = p["chassis"]["gravity"]
    mech = Mechanism(name)
    mech.add(MainBody("boom", mass=p["boom"]["mass"], inertia=p["boom"]["inertia"], cog=p["boom"]["cog"],
                      gravity=g, points={"C": ("Rt", (0.0, 0.0)), "B": ("Pd", p["boom"]["boom_cylinder_pin"]),
                                         "D": ("Li", p["boom"]["arm_cylinder_base"]),
                                         "F": ("Li", p["boom"]["arm_pin"])}))
    a = p["arm"]
    mech.add(MainBody("arm", mass=a["mass"], inertia=a["inertia"], cog=a["cog"], gravity=g,
                      points={"F": ("Rt", (0.0, 0.0)), "E": ("Pd", a["arm_cylinder_pin"]),
                              "G": ("Li", a["bucket_cylinder_base"]), "H": ("Li", a["rocker_pivot"]),
                              "K": ("Li", a["bucket_pin"])}))
    b = p["bucket"]
    mech.add(MainBody("bucket", mass=b["mass"], inertia=b["inertia"], cog=b["cog"], gravity=g,
                      points={"K": ("Rt", (0.0, 0.0)), "N": ("Pd", b["link_pin"]), "Q": ("Li", b["tip"])}))
    r = p["rocker"]
    L = r["length"]
    mech.add(MainBody("rocker", mass=r["mass"], inertia=r["mass"] * L**2 / 12, cog=(L / 2, 0.0), gravity=g,
                      points={"H": ("Rt", (0.0, 0.0)), "J": ("Pd", (L, 0.0)), "J2": ("Li", (L, 0.0))}))
    mech.add(Lever("link", length=p["link"]["length"], mass=p["link"]["mass"], gravity=g, root="J", tip="N"))
    for cyl in CYLINDERS:
        mech.add(_cylinder(cyl, p[_SECTION[cyl]], g))
    mech.fix("boom", "C", at=p["chassis"]["boom_foot"])
    mech.fix("boom_cyl", "A", at=p["chassis"]["boom_cylinder_base"])
    mech.connect("boom", "B", "boom_cyl", "B")
    mech.connect("boom", "F", "arm", "F")
    mech.connect("boom", "D", "arm_cyl", "A")
    mech.connect("arm", "E", "arm_cyl", "B")
    mech.connect("arm", "K", "bucket", "K")
    mech.connect("arm", "H", "rocker", "H")
    mech.connect("arm", "G", "bucket_cyl", "A")
    mech.connect("rocker", "J", "bucket_cyl", "B")
    mech.connect("rocker", "J2", "link", "J")
    mech.connect("bucket", "N", "link", "N")
    if callable(drives):  # e.g. the hydraulic circuit, which needs the cylinders' length handles
        drives(mech)
        return mech
    for cyl in CYLINDERS:
        d = drives if isinstance(drives, str) else drives.get(cyl, "force")
        if d == "force":
            mech.drive_force(cyl)
        elif d == "extension":
            mech.drive_extension(cyl)
        else:
            comp, port = d
            mech.drive_external(cyl, comp, port)
    return mech


def _linkage_guess(params, th_arm: float, th_bucket: float, branch: int) -> tuple[float, float]:
    """Rocker and link angles for absolute arm/bucket angles (circle intersection)."""
    a, b = params["arm"], params["bucket"]
    c, s = math.cos(th_arm), math.sin(th_arm)
    R = np.array([c * a["rocker_pivot"][0] - s * a["rocker_pivot"][1], s * a["rocker_pivot"][0] + c * a["rocker_pivot"][1]])
    K = np.array([c * a["bucket_pin"][0] - s * a["bucket_pin"][1], s * a["bucket_pin"][0] + c * a["bucket_pin"][1]])
    cb, sb = math.cos(th_bucket), math.sin(th_bucket)
    N = K + np.array([cb * b["link_pin"][0] - sb * b["link_pin"][1], sb * b["link_pin"][0] + cb * b["link_pin"][1]])
    r1, r2 = params["rocker"]["length"], params["link"]["length"]
    d = float(np.linalg.norm(N - R))
    x = (d**2 + r1**2 - r2**2) / (2 * d)
    h = math.sqrt(max(r1**2 - x**2, 0.0))
    e = (N - R) / d
    n = np.array([-e[1], e[0]])
    J = R + x * e + branch * h * n  # branch +1: left of the directed line R → N
    return math.atan2(J[1] - R[1], J[0] - R[0]), math.atan2(N[1] - J[1], N[0] - J[0])


def pose_from_angles(mech: Mechanism, params, theta1: float, theta2: float, theta3: float,
                     branch: int | None = None) -> Pose:
    """Close the loops for body angles θ1 (absolute), θ2, θ3 (relative), in rad."""
    branch = int(params["start"]["linkage_branch"]) if branch is None else branch
    th_arm, th_bucket = theta1 + theta2, theta1 + theta2 + theta3
    rocker, link = _linkage_guess(params, th_arm, th_bucket, branch)
    return mech.solve_pose({"boom": theta1, "arm": th_arm, "bucket": th_bucket},
                           guess={"rocker": rocker, "link": link})


def start_pose(mech: Mechanism, params) -> Pose:
    """The dig-cycle start pose of the parameter file."""
    s = params["start"]
    return pose_from_angles(mech, params, s["boom"], s["arm"], s["bucket"])


def body_angles(pose: Pose) -> tuple[float, float, float]:
    """(θ1, θ2, θ3): boom absolute, arm and bucket relative, from a pose."""
    t1, ta, tb = pose.angle("boom"), pose.angle("arm"), pose.angle("bucket")
    return t1, ta - t1, tb - ta
