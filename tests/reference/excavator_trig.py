"""Independent reference: the shipped excavator's positions from its cylinder lengths by
plain trigonometry of its triangles and its four-bar (no solver, no bond graph, nothing
of the toolkit: the machine file is read with :mod:`tomllib`, its units with pint).

Frames: each body rotates about its root pin; a point ``p`` (body frame, the root at the
body's origin) of a body at absolute angle ``a`` whose root is at ``O`` is at
``O + R(a) p``.

* boom: the triangle chassis pin C — boom-cylinder base A — boom point B, side ``s1``;
* arm (in the boom frame): the triangle arm pin F — arm-cylinder base D — arm point E,
  side ``s2``;
* rocker (in the arm frame): the triangle rocker pivot H — bucket-cylinder base G —
  rocker joint J, side ``s3``;
* bucket (in the arm frame): the four-bar H–J–N–K: the link (length ℓ) from J meets the
  bucket's point N at its distance from the bucket pin K.

Each triangle closes two ways; the assembly is the file's start pose: its angles
(``[start]`` boom, arm, bucket, with the rocker's guess for the four-bar) give the start
lengths by forward trigonometry, and the signs that give those angles back are kept (no
dead centre inside the strokes).
"""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

import numpy as np
import pint

_U = pint.UnitRegistry()


def _si(text: str, unit: str) -> float:
    return float(_U.Quantity(text).to(unit).magnitude)


def rot(a, v):
    c, s = np.cos(a), np.sin(a)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def _triangle_angle(P, Q, s, a, sign):
    """Direction (rad) of the side P→X of the triangle with |X − P| = a, |X − Q| = s."""
    d = np.hypot(Q[0] - P[0], Q[1] - P[1])
    gamma = np.arccos(np.clip((d ** 2 + a ** 2 - s ** 2) / (2 * d * a), -1.0, 1.0))
    return np.arctan2(Q[1] - P[1], Q[0] - P[0]) + sign * gamma


class Excavator:
    """The file's numbers (SI) and the assembly of its start pose."""

    def __init__(self, path: str | Path):
        data = tomllib.loads(Path(path).read_text())
        self.data = data
        self.ground = _si(data["machine"]["ground"], "m")
        self.gravity = _si(data["machine"]["gravity"], "m/s^2")
        self.P = {b: {k: np.array([_si(v[1], "m"), _si(v[2], "m")]) for k, v in data[b]["points"].items()}
                  for b in ("boom", "arm", "bucket", "rocker")}
        self.C = np.array([_si(v, "m") for v in data["chassis"]["boom.C"]])
        self.A = np.array([_si(v, "m") for v in data["chassis"]["boom_cylinder.A"]])
        self.link = _si(data["link"]["length"], "m")
        self.base = {k: (_si(v["mass"], "kg"), np.array([_si(c, "m") for c in v["cog"]]))
                     for k, v in data["base"]["masses"].items()}
        self.tipping_line = _si(data["base"]["tipping_line"], "m")
        self.rear_tipping_line = _si(data["base"]["rear_tipping_line"], "m")
        self.signs = self._assembly()

    # -------------------------------------------------------------- the start pose
    def _assembly(self) -> tuple:
        st = self.data["start"]
        th1 = _si(st["boom"], "rad")
        th12 = th1 + _si(st["arm"], "rad")
        th123 = th12 + _si(st["bucket"], "rad")
        P = self.P
        F = self.C + rot(th1, P["boom"]["F"])
        s1 = np.hypot(*(self.C + rot(th1, P["boom"]["B"]) - self.A))
        s2 = np.hypot(*(F + rot(th12, P["arm"]["E"]) - (self.C + rot(th1, P["boom"]["D"]))))
        # the rocker from the four-bar (in the arm frame), its branch from the file's guess
        K, H, n = P["arm"]["K"], P["arm"]["H"], P["bucket"]["N"]
        N = K + rot(th123 - th12, n)
        r = np.hypot(*P["rocker"]["J"])
        guess = _si(st["guess"]["rocker"], "rad") - th12
        rocker = min((_triangle_angle(H, N, self.link, r, sg) - math.atan2(P["rocker"]["J"][1], P["rocker"]["J"][0])
                      for sg in (1, -1)), key=lambda a: abs(math.remainder(a - guess, 2 * math.pi)))
        J = H + rot(rocker, P["rocker"]["J"])
        s3 = np.hypot(*(J - P["arm"]["G"]))
        want = {"boom": th1, "arm": th12, "bucket": th123, "rocker": th12 + rocker}
        best = None
        for sg in [(a, b, c, e) for a in (1, -1) for b in (1, -1) for c in (1, -1) for e in (1, -1)]:
            self.signs = sg
            got = self.angles(s1, s2, s3)
            err = sum(abs(math.remainder(float(got[k]) - v, 2 * math.pi)) for k, v in want.items())
            if best is None or err < best[0]:
                best = (err, sg)
        assert best[0] < 1e-9, best
        return best[1]

    # -------------------------------------------------------------- lengths → angles
    def angles(self, s1, s2, s3) -> dict:
        """Absolute angles of boom, arm, rocker, bucket (rad)."""
        P = self.P
        b = P["boom"]["B"]
        boom = _triangle_angle(self.C, self.A, s1, np.hypot(*b), self.signs[0]) - np.arctan2(b[1], b[0])
        F, D, e = P["boom"]["F"], P["boom"]["D"], P["arm"]["E"]
        arm_rel = _triangle_angle(F, D, s2, np.hypot(*e), self.signs[1]) - np.arctan2(e[1], e[0])
        H, G, j = P["arm"]["H"], P["arm"]["G"], P["rocker"]["J"]
        th_J = _triangle_angle(H, G, s3, np.hypot(*j), self.signs[2])
        rocker_rel = th_J - np.arctan2(j[1], j[0])
        J = np.array([H[0] + np.hypot(*j) * np.cos(th_J), H[1] + np.hypot(*j) * np.sin(th_J)])
        K, n = P["arm"]["K"], P["bucket"]["N"]
        bucket_rel = _triangle_angle(K, J, self.link, np.hypot(*n), self.signs[3]) - np.arctan2(n[1], n[0])
        return {"boom": boom, "arm": boom + arm_rel, "rocker": boom + arm_rel + rocker_rel,
                "bucket": boom + arm_rel + bucket_rel}

    def world(self, s1, s2, s3) -> dict:
        """World positions of the pins, the tip Q, and every body's centre of gravity."""
        a = self.angles(s1, s2, s3)
        P = self.P
        C = self.C[:, None] if np.ndim(s1) else self.C

        def at(body, origin, point):
            return origin + rot(a[body], point)

        out = {"boom/C": C}
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
        for body, origin in (("boom", C), ("arm", F), ("bucket", K), ("rocker", H)):
            cog = np.array([_si(c, "m") for c in self.data[body]["cog"]])
            out[f"cog/{body}"] = at(body, origin, cog)
        out["cog/link"] = 0.5 * (out["rocker/J"] + out["bucket/N"])      # a uniform lever
        return out

    # -------------------------------------------------------------- weights
    def weight_points(self, s1, s2, s3) -> list:
        """(mass, (x, y)) of every mass of the front: bodies, the link, the cylinders' rods
        (``count`` of them, centre ``rod_cog`` behind the rod eye) and barrels."""
        w = self.world(s1, s2, s3)
        d = self.data
        out = [(_si(d[b]["mass"], "kg"), w[f"cog/{b}"]) for b in ("boom", "arm", "bucket", "rocker")]
        out.append((_si(d["link"]["mass"], "kg"), w["cog/link"]))
        A = np.broadcast_to(self.A[:, None] if np.ndim(s1) else self.A, np.shape(w["boom/B"]))
        ends = {"boom_cylinder": (A, w["boom/B"]), "arm_cylinder": (w["boom/D"], w["arm/E"]),
                "bucket_cylinder": (w["arm/G"], w["rocker/J"])}
        for c, (base, eye) in ends.items():
            v = d[c]
            n = v.get("count", 1)
            s = np.hypot(*(eye - base))
            axis = (eye - base) / s
            out.append((n * _si(v["rod_mass"], "kg"), base + axis * (s - _si(v["rod_cog"], "m"))))
            out.append((n * _si(v["barrel_mass"], "kg"), base + axis * _si(v["barrel_cog"], "m")))
        return out

    def potential(self, s1, s2, s3) -> np.ndarray:
        return sum(m * self.gravity * p[1] for m, p in self.weight_points(s1, s2, s3))

    # -------------------------------------------------------------- the rest of the file
    def stroke_limits(self, cylinder: str) -> tuple[float, float]:
        v = self.data[cylinder]
        lo = _si(v["retracted"], "m")
        return lo, lo + _si(v["stroke"], "m")

    def areas(self, cylinder: str) -> tuple[float, float]:
        v = self.data[cylinder]
        n, bore, rod = v.get("count", 1), _si(v["bore"], "m"), _si(v["rod"], "m")
        return n * math.pi * bore ** 2 / 4, n * math.pi * (bore ** 2 - rod ** 2) / 4

    def relief(self) -> float:
        return _si(self.data["circuit"]["power_unit"]["relief_crack"], "Pa")


def load(path: str | Path) -> Excavator:
    return Excavator(path)
