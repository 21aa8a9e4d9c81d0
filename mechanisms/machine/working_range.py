"""The working range, enforced: strokes and reachability before a run, end-stop contacts
during it, the physical cause of a failure after it.

* :func:`check_cycle` — a lengths cycle (mode ``extensions``) is sampled densely (the
  spline between the table's rows too) and checked against every stroke, then followed
  pose by pose from the start pose's assembly branch; the first time a value leaves its
  stroke or the loops cannot close is a named error
  (``boom: 3.918 m at t = 2.0 s exceeds the stroke end 3.730 m``).
* :func:`contact_events` — root functions ``s − s_max`` and ``s_min − s`` per cylinder,
  located by the integrator; :func:`contacts` turns them into contact intervals with the
  deepest penetration.
* :func:`diagnose` — at a failed run's last state: a toggle position (an actuator line
  through the pivot of the part it turns, named with its loop), or a stroke left.

Examples
--------
>>> from mechanisms.machine import Machine, DATA, Cycle
>>> m = Machine.from_file(DATA / "excavator.toml", mode="extensions")
>>> c = Cycle("extensions", [0, 2, 4], {"boom": [3.6683, 3.918, 3.6], "arm": [2.9692] * 3,
...           "bucket": [3.0662] * 3}, m.functions)
>>> check_cycle(m, c)
Traceback (most recent call last):
...
bondgraph.errors.AssemblyError: cycle arrays (extensions) leaves the working range: 1 problem
  - boom: 3.918 m at t = 1.88 s exceeds the stroke end 3.730 m (outside from t = 0.75 s to 3 s)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from bondgraph.errors import AssemblyError
from bondgraph.events import StateEvent

from components.ports import PortClass

__all__ = ["check_cycle", "contact_events", "contacts", "Contact", "diagnose", "sample_times"]


def sample_times(times: np.ndarray, t_end: float, per_interval: int = 8) -> np.ndarray:
    """The table's times plus ``per_interval`` points inside each interval, up to ``t_end``."""
    t = np.asarray(times, dtype=float)
    t = t[t <= t_end + 1e-12]
    pieces = [np.linspace(a, b, per_interval + 1)[:-1] for a, b in zip(t[:-1], t[1:])]
    out = np.concatenate(pieces + [t[-1:]]) if pieces else t
    if out[-1] < t_end - 1e-12:
        out = np.append(out, t_end)
    return out


def check_cycle(machine, cycle, t_end: float | None = None) -> None:
    """Refuse a prescribed cycle that leaves a stroke or cannot be assembled (mode extensions).

    Raises
    ------
    AssemblyError
        Naming the function, the time, the value and the limit (strokes), or the time
        and the loop that cannot close, with the inputs that cannot be met together.
    """
    if cycle.mode != "extensions":
        return
    desc = machine.description
    t_end = cycle.end if t_end is None else float(t_end)
    ts = sample_times(cycle.time, min(t_end, cycle.end), 16)
    vals = cycle.sample(ts)
    problems = []
    for f in desc.functions:
        lo, hi = desc.stroke_limits(f)
        v = vals[f]
        for bad, limit, word in ((v > hi + 1e-9, hi, "exceeds the stroke end"),
                                 (v < lo - 1e-9, lo, "is below the retracted length")):
            if not bad.any():
                continue
            i0 = int(np.argmax(bad))
            i1 = i0 + int(np.argmax(~bad[i0:])) if (~bad[i0:]).any() else len(v)
            seg = v[i0:i1]
            k = i0 + int(np.argmax(seg) if word.startswith("exceeds") else np.argmin(seg))
            span = (f" (outside from t = {ts[i0]:.3g} s to {ts[i1 - 1]:.3g} s)" if i1 - i0 > 1
                    else "")
            problems.append(f"{f}: {v[k]:.3f} m at t = {ts[k]:.3g} s {word} {limit:.3f} m{span}")
    if problems:
        raise AssemblyError(problems, subject=f"cycle {cycle.source} ({cycle.mode}) leaves the working range")
    ts = sample_times(cycle.time, min(t_end, cycle.end), 4)   # reachability: coarser
    vals = cycle.sample(ts)
    targets = {desc.cylinder_of[f]: vals[f] for f in desc.functions}
    start = machine.pose_at_lengths({f: vals[f][0] for f in desc.functions})
    try:
        machine.mechanism.track(targets, start)
    except AssemblyError as exc:
        i = getattr(exc, "index", 0)
        lo = ts[i - 1] if i > 0 else ts[0]
        # narrow down the last time that assembles
        a, b = lo, ts[i]
        pose = start
        if i > 0:
            good = machine.mechanism.track({k: v[: i] for k, v in targets.items()}, start, diagnose=False)[-1]
            for _ in range(14):
                mid = 0.5 * (a + b)
                at_mid = cycle.sample(np.array([mid]))
                try:
                    good = machine.mechanism.track(
                        {desc.cylinder_of[f]: at_mid[f] for f in desc.functions}, good, diagnose=False)[-1]
                    a = mid
                except AssemblyError:
                    b = mid
            pose = good
        at = ", ".join(f"{f} {float(vals[f][i]):.4f} m" for f in desc.functions)
        raise AssemblyError([f"unreachable at t = {b:.4g} s (last assembled at t = {a:.4g} s; "
                             f"lengths at t = {ts[i]:.4g} s: {at})"] + exc.problems,
                            subject=f"cycle {cycle.source} ({cycle.mode}) leaves the working range") from None


# --------------------------------------------------------------------------- contacts
def contact_events(machine) -> list:
    """Root functions of the stroke ends of every cylinder (non-terminal)."""
    mm = machine.model
    events = []
    for f in machine.functions:
        c = machine.cylinder_of[f]
        lo, hi = machine.description.stroke_limits(f)
        s = mm.state(c, "s")
        # x − hi and lo − x: state events, checked in C when the run is native
        for g, end in ((StateEvent(mm.model, s, hi), "outer"), (StateEvent(mm.model, s, lo, sign=-1), "inner")):
            g.function = f
            g.end = end
            events.append(g)
    return events


@dataclass(frozen=True)
class Contact:
    """One end-stop contact of a run (bounces less than :data:`MERGE_GAP` apart merged)."""

    function: str
    end: str            # "outer" (fully extended) or "inner" (fully retracted)
    start: float        # s, located by the integrator
    stop: float         # s (end of the run if still in contact)
    depth: float        # deepest penetration past the end at the output times (m)
    ongoing: bool = False
    bounces: int = 0    # separations shorter than MERGE_GAP within the contact

    def __str__(self) -> str:
        until = f"{self.stop:.4g} s" + (" (end of run)" if self.ongoing else "")
        b = f", {self.bounces} bounce{'s' if self.bounces != 1 else ''}" if self.bounces else ""
        return (f"{self.function}: {self.end} end-stop contact from t = {self.start:.4g} s to {until}"
                f"{b}, {self.depth * 1e3:.2f} mm deep at the output times")


#: contacts of one stop closer than this (s) are one contact with bounces
MERGE_GAP = 0.05


def contacts(machine, results, events: list) -> list[Contact]:
    """Contact intervals from a run's located events (and its samples, for the depth)."""
    if not events:
        return []
    desc = machine.description
    tev, iev, _ = results.events
    mm = machine.model
    out: list[Contact] = []
    t = results.t
    for k, g in enumerate(events):
        f, end = g.function, g.end
        lo, hi = desc.stroke_limits(f)
        s = mm.coordinates(results, desc.cylinder_of[f])["s"]
        pen = (s - hi) if end == "outer" else (lo - s)
        times = sorted(float(x) for x, j in zip(tev, iev) if j == k)
        inside = bool(len(pen) and pen[0] > 0)
        t_in = float(t[0]) if inside else None
        for te in times:
            if not inside:
                t_in, inside = te, True
            else:
                out.append(_contact(f, end, t_in, te, t, pen, False))
                inside = False
        if inside and t_in is not None:
            out.append(_contact(f, end, t_in, float(t[-1]), t, pen, True))
    merged: list[Contact] = []
    for c in sorted(out, key=lambda c: (c.function, c.end, c.start)):
        last = merged[-1] if merged else None
        if last is not None and (last.function, last.end) == (c.function, c.end) and c.start - last.stop < MERGE_GAP:
            merged[-1] = Contact(c.function, c.end, last.start, c.stop, max(last.depth, c.depth), c.ongoing,
                                 last.bounces + 1)
        else:
            merged.append(c)
    return sorted(merged, key=lambda c: c.start)


def _contact(f, end, a, b, t, pen, ongoing) -> Contact:
    sel = (t >= a) & (t <= b)
    depth = float(np.max(pen[sel])) if sel.any() else 0.0
    return Contact(f, end, float(a), float(b), max(depth, 0.0), ongoing)


# --------------------------------------------------------------------------- diagnosis
def diagnose(machine, state: dict[str, float] | None) -> list[str]:
    """Physical causes visible in a (failed) run's state: strokes left, toggle positions."""
    if not state:
        return []
    mm = machine.model
    mech = machine.mechanism
    desc = machine.description
    out = []
    try:
        coords = {n: {c: state[mm.state(n, c)] for c in p.coordinate_states}
                  for n, p in mech.parts.items()}
    except KeyError:
        return out
    world: dict[str, dict] = {}
    poses = {}
    for name in mech._tree_order():
        part = mech.parts[name]
        parent = mech._parent(part)
        root = mech.fixed[(name, part.root.name)] if parent is None else world[parent[0]][parent[1]]
        poses[name] = part.pose_from_states(root, coords[name])
        world[name] = part.world_points(poses[name])
    for f in desc.functions:
        c = desc.cylinder_of[f]
        lo, hi = desc.stroke_limits(f)
        s = poses[c][3]
        if s > hi + 1e-4:
            out.append(f"{f}: cylinder {c} at {s:.4f} m, {1e3 * (s - hi):.1f} mm past its stroke end {hi:.3f} m")
        elif s < lo - 1e-4:
            out.append(f"{f}: cylinder {c} at {s:.4f} m, {1e3 * (lo - s):.1f} mm below its retracted "
                       f"length {lo:.3f} m")
    for a, b in mech.hinges:
        if {a.cls, b.cls} != {PortClass.PD, PortClass.PR}:
            continue
        pr, pd = (a, b) if a.cls is PortClass.PR else (b, a)
        body = mech.parts[pd.part]
        pivot = world[pd.part][body.root.name]
        tip = world[pd.part][pd.name]
        prp = mech.parts[pr.part]
        base = world[pr.part][prp.root.name]
        axis = np.array(world[pr.part][pr.name], float) - np.array(base, float)
        r = np.array(tip, float) - np.array(pivot, float)
        d = np.array(pivot, float) - np.array(base, float)
        la, lr = float(np.hypot(*axis)), float(np.hypot(*r))
        if la < 1e-12 or lr < 1e-12:
            continue
        arm = abs(float(d[0] * axis[1] - d[1] * axis[0])) / la  # distance of the pivot from the line
        if arm / lr < 0.02:
            loop = " – ".join(mech._loop_members(pr.part, pd.part))
            out.append(f"toggle position: the line of {pr.part} passes {arm * 1e3:.1f} mm from "
                       f"{pd.part}'s pivot {body.root.name} (loop {loop}); {pr.part} cannot turn "
                       f"{pd.part} there (a dead centre)")
    return out
