"""Where a run's energy went: actuator work, potential, kinetic, oil, relief, throttling...

Every term comes from the bond graph's own variables at the run's output times:
the power *into* each element is ``Σ ±e·f`` over its bonds, integrated by the
trapezoidal rule; stored energies are the elements' own; the potential energy is
``Σ m·g·y`` of every mass at its world position (bodies, levers, cylinder barrels and
rods, payloads). Resistors are grouped by what they are (the circuit names its
elements: relief, valves, make-up valves, friction, end stops, leakage). The
``balance`` row says how well the sampled terms add up (supplied − dissipated −
stored change); the exact balance is :func:`bondgraph.power_balance` on the
integrated accounting.

Examples
--------
>>> from mechanisms.machine import Machine, DATA
>>> run = Machine.from_file(DATA / "excavator.toml", mode="extensions").run(t_end=1.0, progress=False)
>>> split = run.energy_split()
>>> gain = split.terms["potential energy"] + split.terms["kinetic energy"]
>>> abs(split.actuator - gain) < 1e-3 * abs(split.actuator)     # no losses in this mode
True
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["EnergySplit", "energy_split", "potential_energy"]


@dataclass
class EnergySplit:
    """Energy terms over a run (J).

    ``terms`` maps a label to its value: supplied work (positive into the machine),
    dissipation by kind (positive), changes of stored energy (kinetic, potential, oil);
    ``supplied``, ``dissipated`` and ``stored`` list which labels are which.
    """

    terms: dict[str, float]
    supplied: list[str] = field(default_factory=list)
    dissipated: list[str] = field(default_factory=list)
    stored: list[str] = field(default_factory=list)
    actuator: float = 0.0

    @property
    def residual(self) -> float:
        s = sum(self.terms[k] for k in self.supplied)
        d = sum(self.terms[k] for k in self.dissipated)
        e = sum(self.terms[k] for k in self.stored)
        return s - d - e

    @property
    def scale(self) -> float:
        return max([abs(v) for v in self.terms.values()] + [1e-300])

    def table(self) -> str:
        lines = [f"{'energy over the run':<34} {'kJ':>10}"]
        for title, keys in (("supplied", self.supplied), ("dissipated", self.dissipated),
                            ("stored (change)", self.stored)):
            if not keys:
                continue
            lines.append(f"{title}:")
            for k in keys:
                lines.append(f"  {k:<32} {self.terms[k] / 1e3:>10.2f}")
        lines.append(f"{'actuator work on the linkage':<34} {self.actuator / 1e3:>10.2f}")
        lines.append(f"{'balance (sampled; supplied − dissipated − stored)':<34} "
                     f"{self.residual / 1e3:>10.3f}  ({abs(self.residual) / self.scale:.1e} of the largest term)")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


def _trap(y: np.ndarray, t: np.ndarray) -> float:
    if len(t) < 2:
        return 0.0
    return float(np.sum(0.5 * (y[1:] + y[:-1]) * np.diff(t)))


def potential_energy(machine, results) -> np.ndarray:
    """``Σ m·g·y`` of every mass of the machine along a run (J), from the positions."""
    desc = machine.description
    mm = machine.model
    g = desc.gravity
    pos_parts = _part_poses(machine, results)
    V = np.zeros(len(results.t))
    for name, part in desc.parts.items():
        pose = pos_parts[name]
        p = machine.mechanism.parts[name]
        v = part.values
        if part.type == "body":
            V += v["mass"] * g * p.world_cog(pose)[1]
            for pl in desc.payloads.values():
                if pl["part"] == name:
                    ox, oy, th = pose
                    y = oy + np.sin(th) * pl["at"][0] + np.cos(th) * pl["at"][1]
                    V += pl["mass"] * g * y
        elif part.type == "lever":
            V += v["mass"] * g * p.world_cog(pose)[1]
        else:
            n = v["count"]
            rx, ry, phi, s = pose
            V += n * v["barrel_mass"] * g * (ry + v["barrel_cog"] * np.sin(phi))
            V += n * v["rod_mass"] * g * (ry + (s - v["rod_cog"]) * np.sin(phi))
    return V


def _part_poses(machine, results):
    mm = machine.model
    mech = machine.mechanism
    world: dict[str, dict] = {}
    out = {}
    n = len(results.t)
    for name in mech._tree_order():
        part = mech.parts[name]
        parent = mech._parent(part)
        if parent is None:
            at = mech.fixed[(name, part.root.name)]
            root = (np.full(n, at[0]), np.full(n, at[1]))
        else:
            root = world[parent[0]][parent[1]]
        pose = part.pose_from_states(root, mm.coordinates(results, name))
        out[name] = pose
        world[name] = part.world_points(pose)
    return out


def energy_split(run) -> EnergySplit:
    machine = run.machine
    res = run.results
    t = res.t
    model = machine.model.model
    g = model.graph
    out = res.outputs()
    tab = run.table()
    circ = machine.circuit
    root = machine.mechanism.name
    hyd_prefix = f"{root}/{circ.name}/" if circ is not None else None
    sup: dict[str, float] = {}
    dis: dict[str, float] = {}
    sto: dict[str, float] = {}

    def p_in(node):
        p = np.zeros(len(t))
        for u, v, k in g.in_edges(node, keys=True):
            p += out[f"e[{k}]"] * out[f"f[{k}]"]
        for u, v, k in g.out_edges(node, keys=True):
            p -= out[f"e[{k}]"] * out[f"f[{k}]"]
        return p

    kinetic = np.zeros(len(t))
    oil = np.zeros(len(t))
    spool = np.zeros(len(t))
    for node, el in g.nodes(data="element"):
        kind = el.kind
        local = node[len(hyd_prefix):] if hyd_prefix and node.startswith(hyd_prefix) else None
        cat = circ.energy_category(local) if (circ is not None and local is not None) else None
        if kind in ("I", "C"):
            key = f"energy[{node}]"
            if key not in out:
                continue
            E = out[key]
            if cat == "spool model":
                spool += E
            elif kind == "I":
                kinetic += E
            else:
                oil += E
        elif kind == "R":
            W = _trap(p_in(node), t)
            label = cat or ("end stops and cushions" if node.endswith("_stop") else "other losses")
            dis[label] = dis.get(label, 0.0) + W
        elif kind in ("Se", "Sf", "MSe", "MSf"):
            W = -_trap(p_in(node), t)
            leaf = node.rsplit("/", 1)[-1]
            if leaf == "g" or leaf.startswith("g_") or leaf.endswith("_g"):
                continue  # gravity: counted as potential energy below
            if cat == "pump" or leaf == "pump":
                label = "pump work"
            elif cat is not None:
                label = cat
            elif kind in ("MSe", "MSf") and (leaf.endswith("_drive") or leaf.endswith("_force")):
                label = "prescribed cylinder drives"
            elif abs(W) < 1e-9 * max(1.0, abs(W)):
                continue
            else:
                label = "other sources"
            sup[label] = sup.get(label, 0.0) + W
    V = potential_energy(machine, res)
    sto["potential energy"] = float(V[-1] - V[0])
    sto["kinetic energy"] = float(kinetic[-1] - kinetic[0])
    if circ is not None:
        sto["oil compression"] = float(oil[-1] - oil[0])
        if np.any(spool):
            sto["spool model"] = float(spool[-1] - spool[0])
    if getattr(res, "_w", None) is not None:
        par = res.parametric_work()
        if np.any(par):
            sup["chamber law (parametric)"] = float(par[-1] - par[0])
    actuator = sum(_trap(tab[f"{f}_force"] * tab[f"{f}_rate"], t) for f in machine.functions)
    terms = {**sup, **dis, **sto}
    return EnergySplit(terms, list(sup), list(dis), list(sto), actuator)
