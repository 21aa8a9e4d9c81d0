"""Where a run's energy went: actuator work, potential, kinetic, oil, relief, throttling...

Every term comes from the bond graph's own variables: the power *into* each element
is ``Σ ±e·f`` over its bonds, integrated by the trapezoidal rule over the run's
output times — and, in the windows around end-stop contacts, over the contacts
integrated again with a fine output step (:meth:`MachineRun.replays
<mechanisms.machine.MachineRun.replays>`), so a short impact is resolved; stored
energies are the elements' own at the first and last state; the potential energy is
``Σ m·g·y`` of every mass at its world position (bodies, levers, cylinder barrels and
rods, payloads). Resistors are grouped by what they are (the circuit names its
elements: relief, valves, make-up valves, friction, end stops, leakage).

With the energy accounting integrated by the solver (``energy=True``, the default of
a run), the totals are the solver's: all sources less gravity, all resistors, the
chamber law's parametric work. What the sampled categories miss of them is its own
row on each side, ``between the output samples``; so the ``balance`` (supplied −
dissipated − stored change) is the solver's own residual
(:func:`bondgraph.power_balance`), not the sampling's. (The solver integrates three
sums; integrating each category would need the compiled code to sum powers by group.)

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

__all__ = ["EnergySplit", "energy_split", "potential_energy", "GAP", "SPOOL"]


@dataclass
class EnergySplit:
    """Energy terms over a run (J).

    ``terms`` maps a label to its value: supplied work (positive into the machine),
    dissipation by kind (positive), changes of stored energy (kinetic, potential, oil);
    ``supplied``, ``dissipated`` and ``stored`` list which labels are which (a label is
    in one list only).
    """

    terms: dict[str, float]
    supplied: list[str] = field(default_factory=list)
    dissipated: list[str] = field(default_factory=list)
    stored: list[str] = field(default_factory=list)
    actuator: float = 0.0
    #: the solver's integrated totals (J): ``supplied`` (sources less gravity) and
    #: ``dissipated``; empty when the run integrated no energy accounting
    integrated: dict[str, float] = field(default_factory=dict)
    #: labels of energy passed on inside the machine, shown but not in the balance (the work
    #: of an engine-driven pump: the fuel is the supply then)
    transferred: list[str] = field(default_factory=list)

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
        w = max([34] + [len(k) + 2 for k in self.terms])
        lines = [f"{'energy over the run':<{w}} {'kJ':>10}"]
        for title, keys in (("supplied", self.supplied), ("dissipated", self.dissipated),
                            ("stored (change)", self.stored)):
            if not keys:
                continue
            lines.append(f"{title}:")
            for k in keys:
                lines.append(f"  {k:<{w - 2}} {self.terms[k] / 1e3:>10.2f}")
        if self.transferred:
            lines.append("passed on (not in the balance):")
            for k in self.transferred:
                lines.append(f"  {k:<{w - 2}} {self.terms[k] / 1e3:>10.2f}")
        lines.append(f"{'actuator work on the linkage':<{w}} {self.actuator / 1e3:>10.2f}")
        how = ("the solver's accounting" if self.integrated else "sampled: no energy accounting integrated")
        lines.append(f"{'balance (supplied − dissipated − stored)':<{w}} "
                     f"{self.residual / 1e3:>10.3f}  ({abs(self.residual) / self.scale:.1e} of the largest term; "
                     f"{how})")
        if self.integrated:
            lines.append(f"  (each term is integrated over the output samples, finely around end-stop contacts; "
                         f"'{GAP}' is what they miss of the solver's totals)")
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


#: label of what the sampled categories miss of the solver's integrated totals (one per role:
#: "... (supplied)", "... (dissipated)")
GAP = "between the output samples"
#: the soil tool's sub-graph name (:class:`components.soil_tool.SoilTool`): its resistors'
#: dissipation is the row "soil", its payload weight's work "soil payload weight"
SOIL = "soil"
#: the valves' spool dynamics (a signal filter in bond-graph form): its stored energy; its
#: source and damping are "spool model (drive)" and "spool model (damping)"
SPOOL = "spool model"


def _segments(run) -> list[tuple[np.ndarray, dict[str, np.ndarray], object]]:
    """``(times, outputs, results)`` pieces covering the run: its output samples, and inside
    the windows around contacts the finely sampled replays (:meth:`MachineRun.replays`)."""
    res = run.results
    t = res.t
    pieces, k = [], 0
    for rr in sorted(run.replays(), key=lambda r: r.t[0]):
        a = int(np.searchsorted(t, rr.t[0], side="left"))
        b = int(np.searchsorted(t, rr.t[-1], side="left"))
        if a > k or (a == k and k == 0):
            pieces.append((t[k: a + 1], _slice(res.outputs(), k, a + 1), (res, k, a + 1)))
        pieces.append((rr.t, rr.outputs(), (rr, 0, len(rr.t))))
        k = b
    pieces.append((t[k:], _slice(res.outputs(), k, len(t)), (res, k, len(t))))
    return [p for p in pieces if len(p[0]) > 1] or [(t, res.outputs(), (res, 0, len(t)))]


def _slice(out: dict[str, np.ndarray], a: int, b: int) -> dict[str, np.ndarray]:
    return _Lazy(out, a, b)


class _Lazy(dict):
    """Columns of an outputs dict sliced on first use."""

    def __init__(self, out, a, b):
        super().__init__()
        self._src, self._a, self._b = out, a, b

    def __missing__(self, key):
        v = self._src[key][self._a: self._b]
        self[key] = v
        return v

    def __contains__(self, key):
        return key in self._src


def energy_split(run) -> EnergySplit:
    machine = run.machine
    res = run.results
    t = res.t
    model = machine.model.model
    g = model.graph
    out = res.outputs()
    pieces = _segments(run)
    circ = machine.circuit
    root = machine.mechanism.name
    hyd_prefix = f"{root}/{circ.name}/" if circ is not None else None
    sup: dict[str, float] = {}
    dis: dict[str, float] = {}
    sto: dict[str, float] = {}

    def work_in(node) -> float:
        """∫ power into an element dt over the pieces (trapezoids)."""
        total = 0.0
        for tt, o, _ in pieces:
            p = np.zeros(len(tt))
            for u, v, k in g.in_edges(node, keys=True):
                p += o[f"e[{k}]"] * o[f"f[{k}]"]
            for u, v, k in g.out_edges(node, keys=True):
                p -= o[f"e[{k}]"] * o[f"f[{k}]"]
            total += _trap(p, tt)
        return total

    kinetic = np.zeros(len(t))
    oil = np.zeros(len(t))
    spool = np.zeros(len(t))
    other_store = np.zeros(len(t))
    own_store: dict[str, np.ndarray] = {}      # a circuit's own stored category (the engine's shaft)
    combustion = 0.0                           # fuel energy not turned into indicated work
    transferred: dict[str, float] = {}

    def _out_work(node) -> float:
        """∫ power out of an element through its outgoing bonds (a pump's hydraulic work)."""
        total = 0.0
        for tt, o, _ in pieces:
            p = np.zeros(len(tt))
            for u, v, k in g.out_edges(node, keys=True):
                p += o[f"e[{k}]"] * o[f"f[{k}]"]
            total += _trap(p, tt)
        return total
    from .swing import energy_label
    from .travel import travel_energy_label

    for node, el in g.nodes(data="element"):
        kind = el.kind
        local = node[len(hyd_prefix):] if hyd_prefix and node.startswith(hyd_prefix) else None
        cat = circ.energy_category(local) if (circ is not None and local is not None) else None
        cat = cat or energy_label(node, root) or travel_energy_label(node, root)   # turntable's, carrier's
        if kind in ("I", "C"):
            key = f"energy[{node}]"
            if key not in out:
                continue
            E = out[key]
            if cat == SPOOL:
                spool += E
            elif cat is not None:
                own_store[cat] = own_store.get(cat, 0.0) + E
            elif kind == "I":
                kinetic += E
            elif circ is not None:
                oil += E
            else:
                other_store += E
        elif kind == "R":
            W = work_in(node)
            label = cat or ("end stops and cushions" if node.endswith("_stop") else
                            SOIL if f"/{SOIL}/" in node else "other losses")
            if label == SPOOL:              # one label per role: a dict holds the terms
                label = f"{SPOOL} (damping)"
            dis[label] = dis.get(label, 0.0) + W
        elif kind == "MTF" and cat == "pump":
            # an engine-driven pump: its hydraulic work is passed on, the fuel is the supply
            transferred["pump work"] = transferred.get("pump work", 0.0) + _out_work(node)
        elif kind in ("Se", "Sf", "MSe", "MSf"):
            leaf = node.rsplit("/", 1)[-1]
            if leaf == "g" or leaf.startswith("g_") or leaf.endswith("_g"):
                continue  # gravity: counted as potential energy below
            W = -work_in(node)
            if cat == "engine" and getattr(circ, "engine", None) is not None:
                # Willans: fuel = indicated work / η_i; the rest is the engine's combustion loss
                fuel = W / circ.engine.indicated_efficiency
                sup["fuel"] = sup.get("fuel", 0.0) + fuel
                combustion += fuel - W
                continue
            if f"/{SOIL}/" in node:         # the payload's weight (its mass changes: not a potential)
                label = f"{SOIL} payload weight"
            elif cat == "pump" or leaf == "pump":
                label = "pump work"
            elif cat == SPOOL:
                label = f"{SPOOL} (drive)"
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
            sto[SPOOL] = float(spool[-1] - spool[0])
    for cat, E in own_store.items():
        sto[cat] = float(E[-1] - E[0])
    if combustion:
        dis["engine losses (combustion)"] = combustion
    if np.any(other_store):
        sto["other storage"] = float(other_store[-1] - other_store[0])
    integrated = {}
    if getattr(res, "_w", None) is not None:
        W, D, P = res.source_work(), res.dissipated(), res.parametric_work()
        if np.any(P):
            sup["chamber law (parametric)"] = float(P[-1] - P[0])
        # the solver's totals: sources less gravity (whose work is −ΔV), resistors
        integrated = {"supplied": float(W[-1] - W[0]) + sto["potential energy"] + combustion,
                      "dissipated": float(D[-1] - D[0]) + combustion}
        sampled_sup = sum(v for k, v in sup.items() if k != "chamber law (parametric)")
        sup[f"{GAP} (supplied)"] = integrated["supplied"] - sampled_sup
        dis[f"{GAP} (dissipated)"] = integrated["dissipated"] - sum(dis.values())
    actuator = 0.0
    mm = machine.model
    for tt, _, (r, a, b) in pieces:
        for f in machine.functions:
            c = machine.cylinder_of[f]
            actuator += _trap(mm.cylinder_force(r, c)[a:b] * mm.cylinder_rate(r, c)[a:b], tt)
    terms = {**sup, **dis, **sto, **transferred}
    split = EnergySplit(terms, list(sup), list(dis), list(sto), actuator, transferred=list(transferred))
    split.integrated = integrated
    return split
