"""Statics of a machine by virtual work: the cylinder forces that hold a pose against gravity.

Independent of the toolkit's equations: the potential energy ``Σ m·g·y`` of every mass is
written here from the machine file's values (masses, centres of gravity) and the pose's
coordinates only, at poses found by position analysis at perturbed cylinder lengths; each
force is the central difference ``F_f = ∂V/∂s_f`` (virtual work: a cylinder extending by
``δs`` against ``F`` raises the machine's potential by ``F·δs``).
"""

from __future__ import annotations

import math


def masses(machine, pose):
    """``(m, x, y)`` of every mass of the front at a pose (world frame), from the file's values
    (masses, centres of gravity, payloads) and the pose vectors."""
    d = machine.description
    for name, part in d.parts.items():
        v = part.values
        q = pose.values[name]
        if part.type == "body":
            ox, oy, th = q
            for m, (cx, cy) in [(v["mass"], v["cog"])] + [(pl["mass"], pl["at"]) for pl in d.payloads.values()
                                                          if pl["part"] == name]:
                yield m, ox + math.cos(th) * cx - math.sin(th) * cy, oy + math.sin(th) * cx + math.cos(th) * cy
        elif part.type == "lever":
            rx, ry, phi = q
            cx, cy = v.get("cog", (v["length"] / 2, 0.0))
            yield v["mass"], rx + math.cos(phi) * cx - math.sin(phi) * cy, ry + math.sin(phi) * cx + math.cos(phi) * cy
        else:
            rx, ry, phi, s = q
            n = v["count"]
            yield n * v["barrel_mass"], rx + v["barrel_cog"] * math.cos(phi), ry + v["barrel_cog"] * math.sin(phi)
            yield (n * v["rod_mass"], rx + (s - v["rod_cog"]) * math.cos(phi),
                   ry + (s - v["rod_cog"]) * math.sin(phi))


def potential(machine, pose) -> float:
    """``Σ m·g·y`` (J) of every mass at a pose, from the file's values and the pose vectors."""
    g = machine.description.gravity
    return sum(m * g * y for m, _, y in masses(machine, pose))


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
    about a vertical line at ``x0`` (positive: the weights stand beyond it in +x)."""
    g = machine.description.gravity
    return sum(m * g * (x - x0) for m, x, _ in masses(machine, pose))
