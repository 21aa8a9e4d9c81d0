"""Independent reference: the shipped excavator's positions from its cylinder lengths by
plain trigonometry of its triangles and its four-bar (no solver, no bond graph).

Numbers are the file's (``mechanisms/data/excavator.toml``, read as SI values). Frames:
each body rotates about its root pin; a body point ``p`` of a body at angle ``a`` with
root at ``O`` (root local ``r``) is at ``O + R(a)(p − r)``.

* boom: the triangle chassis pin C — boom-cylinder base A — boom point B, side ``s1``;
* arm (in the boom frame): the triangle arm pin F — arm-cylinder base D — arm point E,
  side ``s2``;
* rocker (in the arm frame): the triangle rocker pivot H — bucket-cylinder base G —
  rocker joint J, side ``s3``;
* bucket (in the arm frame): the four-bar H–J–N–K: the link (length ℓ) from J meets
  the bucket's point N at its distance from the bucket pin K.

Each triangle has two assemblies; the one of the file's start pose is taken (its sign
is found once, at the start lengths, and holds over the strokes: no dead centre
inside them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mechanisms.machine import DATA
from mechanisms.machine.description import MachineDescription


def rot(a, v):
    c, s = np.cos(a), np.sin(a)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def _triangle_angle(P, Q, s, a, sign):
    """Direction (rad) of the side P→X of the triangle with |X − P| = a, |X − Q| = s."""
    d = np.hypot(Q[0] - P[0], Q[1] - P[1])
    gamma = np.arccos(np.clip((d ** 2 + a ** 2 - s ** 2) / (2 * d * a), -1.0, 1.0))
    return np.arctan2(Q[1] - P[1], Q[0] - P[0]) + sign * gamma


@dataclass
class Excavator:
    """The file's numbers and the assembly signs of its start pose."""

    desc: MachineDescription

    def __post_init__(self):
        d = self.desc
        P = {n: {k: np.array(v[1]) for k, v in p.points.items()} for n, p in d.parts.items()}
        self.P = P
        self.C = np.array(d.chassis[("boom", "C")])
        self.A = np.array(d.chassis[("boom_cylinder", "A")])
        self.link = d.parts["link"].values["length"]
        self.signs = (1, 1, 1, 1)
        from mechanisms.machine import Machine

        m = Machine(d, "extensions")
        s0 = [m.start_pose.length(d.cylinder_of[f]) for f in ("boom", "arm", "bucket")]
        best = None
        for sg in [(a, b, c, e) for a in (1, -1) for b in (1, -1) for c in (1, -1) for e in (1, -1)]:
            self.signs = sg
            ang = self.angles(*s0)
            err = sum(abs(float(ang[k]) - m.start_pose.angle(k)) for k in ("boom", "arm", "bucket", "rocker"))
            if best is None or err < best[0]:
                best = (err, sg)
        self.signs = best[1]
        assert best[0] < 1e-9, best

    def angles(self, s1, s2, s3) -> dict:
        """Absolute angles of boom, arm, rocker, bucket (rad)."""
        P = self.P
        b = P["boom"]["B"]
        th_B = _triangle_angle(self.C, self.A, s1, np.hypot(*b), self.signs[0])
        boom = th_B - np.arctan2(b[1], b[0])
        # arm in the boom frame: F the pivot, D the cylinder base, E on the arm
        F, D, e = P["boom"]["F"], P["boom"]["D"], P["arm"]["E"]
        th_E = _triangle_angle(F, D, s2, np.hypot(*e), self.signs[1])
        arm_rel = th_E - np.arctan2(e[1], e[0])
        # rocker in the arm frame
        H, G, j = P["arm"]["H"], P["arm"]["G"], P["rocker"]["J"]
        th_J = _triangle_angle(H, G, s3, np.hypot(*j), self.signs[2])
        rocker_rel = th_J - np.arctan2(j[1], j[0])
        J = np.array([H[0] + np.hypot(*j) * np.cos(th_J), H[1] + np.hypot(*j) * np.sin(th_J)])
        # four-bar: N at |N − J| = link and |N − K| = |n|
        K, n = P["arm"]["K"], P["bucket"]["N"]
        th_N = _triangle_angle(K, J, self.link, np.hypot(*n), self.signs[3])
        bucket_rel = th_N - np.arctan2(n[1], n[0])
        return {"boom": boom, "arm": boom + arm_rel, "rocker": boom + arm_rel + rocker_rel,
                "bucket": boom + arm_rel + bucket_rel}

    def world(self, s1, s2, s3) -> dict:
        """World positions of the pins, the tip Q, and every body's centre of gravity."""
        a = self.angles(s1, s2, s3)
        P = self.P
        C = self.C[:, None] if np.ndim(s1) else self.C
        out = {"boom/C": C}

        def at(body, origin, point):
            return origin + rot(a[body], point)

        out["boom/F"] = F = at("boom", C, P["boom"]["F"])
        out["boom/B"] = at("boom", C, P["boom"]["B"])
        out["boom/D"] = at("boom", C, P["boom"]["D"])
        out["arm/K"] = K = at("arm", F, P["arm"]["K"])
        out["arm/E"] = at("arm", F, P["arm"]["E"])
        out["arm/G"] = at("arm", F, P["arm"]["G"])
        out["arm/H"] = H = at("arm", F, P["arm"]["H"])
        out["rocker/J"] = at("rocker", H, P["rocker"]["J"])
        out["bucket/Q"] = at("bucket", K, P["bucket"]["Q"])
        out["bucket/N"] = at("bucket", K, P["bucket"]["N"])
        d = self.desc
        for body, origin in (("boom", C), ("arm", F), ("bucket", K), ("rocker", H)):
            out[f"cog/{body}"] = at(body, origin, np.array(d.parts[body].values["cog"]))
        J, N = out["rocker/J"], out["bucket/N"]
        out["cog/link"] = 0.5 * (J + N)          # a uniform lever
        return out

    def weight_points(self, s1, s2, s3) -> list:
        """(mass, (x, y)) of every mass of the front: bodies, the link, the cylinder rods
        (``count`` of them, centre ``rod_cog`` behind the rod eye) and barrels."""
        w = self.world(s1, s2, s3)
        d = self.desc
        out = [(d.parts[b].values["mass"], w[f"cog/{b}"]) for b in ("boom", "arm", "bucket", "rocker")]
        out.append((d.parts["link"].values["mass"], w["cog/link"]))
        ends = {"boom_cylinder": (np.broadcast_to(self.A[:, None] if np.ndim(s1) else self.A, w["boom/B"].shape),
                                  w["boom/B"]),
                "arm_cylinder": (w["boom/D"], w["arm/E"]), "bucket_cylinder": (w["arm/G"], w["rocker/J"])}
        for c, (base, eye) in ends.items():
            v = d.parts[c].values
            axis = (eye - base) / np.hypot(*(eye - base))
            s = np.hypot(*(eye - base))
            out.append((v["count"] * v["rod_mass"], base + axis * (s - v["rod_cog"])))
            out.append((v["count"] * v["barrel_mass"], base + axis * v["barrel_cog"]))
        return out

    def potential(self, s1, s2, s3) -> np.ndarray:
        g = self.desc.gravity
        return sum(m * g * p[1] for m, p in self.weight_points(s1, s2, s3))


def load() -> Excavator:
    return Excavator(MachineDescription.load(DATA / "excavator.toml"))
