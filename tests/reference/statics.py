"""Statics of a machine by virtual work: the cylinder forces that hold a pose against gravity.

Independent of the bond graph's derivation: the potential energy ``Σ m·g·y`` of every mass
is evaluated at poses found by position analysis at perturbed cylinder lengths, and each
force is its central difference ``F_f = ∂V/∂s_f`` (virtual work: a cylinder extending by
``δs`` against ``F`` raises the machine's potential by ``F·δs``).
"""

from __future__ import annotations

import numpy as np


def potential_at(machine, pose) -> float:
    """``Σ m·g·y`` (J) of the machine at a pose."""
    from mechanisms.machine.energy import potential_energy

    mm = machine.model
    states = pose.states()
    coords = {n: {c: np.array([states[mm.state(n, c)]]) for c in part.coordinate_states}
              for n, part in machine.mechanism.parts.items()}

    class _One:  # the pose as a one-sample result for potential_energy
        t = np.zeros(1)

    orig = mm.coordinates
    mm.coordinates = lambda res, name: coords[name]
    try:
        return float(potential_energy(machine, _One())[0])
    finally:
        mm.coordinates = orig


def holding_forces(machine, lengths, near=None, h: float = 1e-6) -> dict[str, float]:
    """Function → net cylinder force (N, + pushing) that holds the pose with the functions'
    cylinders at ``lengths`` (m) still, by central differences of the potential energy."""
    near = near or machine.start_pose
    out = {}
    for f in machine.functions:
        up, dn = dict(lengths), dict(lengths)
        up[f] += h
        dn[f] -= h
        Vu = potential_at(machine, machine.pose_at_lengths(up, near=near))
        Vd = potential_at(machine, machine.pose_at_lengths(dn, near=near))
        out[f] = (Vu - Vd) / (2 * h)
    return out
