"""Statics of a machine by virtual work: the cylinder forces that hold a pose against gravity.

Independent of the toolkit's equations: the potential energy ``Σ m·g·y`` of every mass is
written here from the machine file's values (masses, centres of gravity) and the pose's
coordinates only, at poses found by position analysis at perturbed cylinder lengths; each
force is the central difference ``F_f = ∂V/∂s_f`` (virtual work: a cylinder extending by
``δs`` against ``F`` raises the machine's potential by ``F·δs``).
"""

from __future__ import annotations

import math


def potential(machine, pose) -> float:
    """``Σ m·g·y`` (J) of every mass at a pose, from the file's values and the pose vectors."""
    d = machine.description
    g = d.gravity
    V = 0.0
    for name, part in d.parts.items():
        v = part.values
        q = pose.values[name]
        if part.type == "body":
            ox, oy, th = q
            for m, (cx, cy) in [(v["mass"], v["cog"])] + [(pl["mass"], pl["at"]) for pl in d.payloads.values()
                                                          if pl["part"] == name]:
                V += m * g * (oy + math.sin(th) * cx + math.cos(th) * cy)
        elif part.type == "lever":
            rx, ry, phi = q
            cx, cy = v.get("cog", (v["length"] / 2, 0.0))
            V += v["mass"] * g * (ry + math.sin(phi) * cx + math.cos(phi) * cy)
        else:
            rx, ry, phi, s = q
            n = v["count"]
            V += n * v["barrel_mass"] * g * (ry + v["barrel_cog"] * math.sin(phi))
            V += n * v["rod_mass"] * g * (ry + (s - v["rod_cog"]) * math.sin(phi))
    return V


def holding_forces(machine, lengths, near=None, h: float = 1e-6) -> dict[str, float]:
    """Function → net cylinder force (N, + pushing) that holds the pose with the functions'
    cylinders at ``lengths`` (m) still, by central differences of :func:`potential`."""
    near = near or machine.start_pose
    out = {}
    for f in machine.functions:
        up, dn = dict(lengths), dict(lengths)
        up[f] += h
        dn[f] -= h
        out[f] = (potential(machine, machine.pose_at_lengths(up, near=near))
                  - potential(machine, machine.pose_at_lengths(dn, near=near))) / (2 * h)
    return out


def weight_moment(machine, pose, x0: float = 0.0) -> float:
    """``Σ m·g·(x − x0)`` (N·m) of every mass of the front at a pose: the moment of its weights
    about a vertical line at ``x0`` (positive: the weights stand beyond it in +x), from the
    file's values and the pose vectors, as :func:`potential` takes heights."""
    d = machine.description
    g = d.gravity
    M = 0.0
    for name, part in d.parts.items():
        v = part.values
        q = pose.values[name]
        if part.type == "body":
            ox, oy, th = q
            for m, (cx, cy) in [(v["mass"], v["cog"])] + [(pl["mass"], pl["at"]) for pl in d.payloads.values()
                                                          if pl["part"] == name]:
                M += m * g * (ox + math.cos(th) * cx - math.sin(th) * cy - x0)
        elif part.type == "lever":
            rx, ry, phi = q
            cx, cy = v.get("cog", (v["length"] / 2, 0.0))
            M += v["mass"] * g * (rx + math.cos(phi) * cx - math.sin(phi) * cy - x0)
        else:
            rx, ry, phi, s = q
            n = v["count"]
            M += n * v["barrel_mass"] * g * (rx + v["barrel_cog"] * math.cos(phi) - x0)
            M += n * v["rod_mass"] * g * (rx + (s - v["rod_cog"]) * math.cos(phi) - x0)
    return M
