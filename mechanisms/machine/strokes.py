"""Stroke ends and joint ranges, enforced: strokes and reachability before a run, end-stop
contacts during it, the physical cause of a failure after it (not the ISO 7135 working
range of :mod:`mechanisms.analysis.reach`, which measures what the machine can reach).

* :func:`check_cycle` — a lengths cycle (mode ``extensions``) is sampled densely (the
  spline between the table's rows too) and checked against every stroke, then followed
  pose by pose from the start pose's assembly branch; the first time a value leaves its
  stroke or the loops cannot close is a named error
  (``boom: 3.918 m at t = 2.0 s exceeds the stroke end 3.730 m``), and so is a pose
  outside a ``[limits]`` joint range (:func:`range_problems`; a run's report flags one).
* :func:`contact_events` — root functions ``s − s_max`` and ``s_min − s`` per cylinder,
  located by the integrator (:func:`contact_transitions`: the same as hybrid transitions,
  for a run a controller drives); :func:`contacts` turns them into contact intervals with
  the deepest penetration, found on the contact integrated again from the state before it
  with a fine output step (:func:`replay_contacts`): an impact shorter than the output
  step is resolved.
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
bondgraph.errors.AssemblyError: cycle arrays (extensions) leaves a stroke: 1 problem
  - boom: 3.918 m at t = 1.88 s exceeds the stroke end 3.730 m (outside from t = 0.75 s to 3 s)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from bondgraph.errors import AssemblyError
from bondgraph.events import StateEvent

__all__ = ["check_cycle", "check_strokes", "stroke_problems", "range_problems", "contact_events", "contact_transitions", "crossings",
           "contacts", "Contact", "replay_contacts", "replay_windows", "diagnose", "sample_times"]


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
    check_strokes(desc, cycle, t_end)
    ts = sample_times(cycle.time, min(t_end, cycle.end), 4)   # reachability: coarser
    vals = cycle.sample(ts)
    targets = {desc.cylinder_of[f]: vals[f] for f in desc.functions}
    start = machine.pose_at_lengths({f: vals[f][0] for f in desc.functions})
    try:
        poses = machine.mechanism.track(targets, start)
    except AssemblyError as exc:
        i = getattr(exc, "index", 0)
        lo = ts[i - 1] if i > 0 else ts[0]
        if getattr(exc, "dead_centre", False):
            raise AssemblyError([f"between t = {lo:.4g} s and t = {ts[i]:.4g} s: {p}" for p in exc.problems],
                                subject=f"cycle {cycle.source} ({cycle.mode}) leaves the start pose's "
                                        "assembly branch") from None
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
                            subject=f"cycle {cycle.source} ({cycle.mode}) leaves the reachable set") from None
    problems = range_problems(desc, ts, lambda part, ref: [p.angle(part) - (p.angle(ref) if ref else 0.0)
                                                          for p in poses])
    if problems:
        raise AssemblyError(problems, subject=f"cycle {cycle.source} ({cycle.mode}) leaves the joint ranges")


def range_problems(desc, t: np.ndarray, angle: Callable[[str, str | None], np.ndarray]) -> list[str]:
    """Each ``[limits]`` joint range left over the times ``t``: the angle, its worst value and
    when, the range and its key. ``angle(part, reference or None)`` gives the angle's series
    (rad)."""
    problems = []
    for name, (lo, hi) in desc.limits.items():
        part, ref = desc.angles.get(name, (name, None))
        a = np.asarray(angle(part, ref), dtype=float)
        for bad, word in ((a > hi + 1e-9, "above"), (a < lo - 1e-9, "below")):
            if not bad.any():
                continue
            k = int(np.argmax(np.where(bad, a if word == "above" else -a, -np.inf)))
            i0, i1 = int(np.argmax(bad)), len(bad) - 1 - int(np.argmax(bad[::-1]))
            span = f" (outside from t = {t[i0]:.3g} s to {t[i1]:.3g} s)" if i1 > i0 else ""
            problems.append(f"angle {name}: {math.degrees(a[k]):.2f}° at t = {t[k]:.3g} s, {word} its range "
                            f"{math.degrees(lo):.2f}° … {math.degrees(hi):.2f}° ('limits.{name}', "
                            f"{desc.where(f'limits.{name}')}){span}")
    return problems


def check_strokes(desc, cycle, t_end: float | None = None) -> None:
    """Refuse a lengths cycle that leaves a stroke (sampled densely: the spline between the
    table's rows too); every function and its worst value, with the time.

    Raises
    ------
    AssemblyError
        ``boom: 3.918 m at t = 1.88 s exceeds the stroke end 3.730 m``.
    """
    if cycle.mode != "extensions":
        return
    t_end = cycle.end if t_end is None else float(t_end)
    ts = sample_times(cycle.time, min(t_end, cycle.end), 16)
    problems = stroke_problems(desc, ts, cycle.sample(ts))
    if problems:
        raise AssemblyError(problems, subject=f"cycle {cycle.source} ({cycle.mode}) leaves a stroke")


def stroke_problems(desc, t: np.ndarray, lengths) -> list[str]:
    """Each function's first excursion beyond a stroke end over the times ``t`` (``lengths``:
    function → its cylinder's lengths, m): its worst value and when, the limit
    (:func:`mechanisms.strokes.stroke_problems` by function)."""
    from ..strokes import stroke_problems as problems

    return problems({f: desc.stroke_limits(f) for f in desc.functions}, t, lengths)


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


#: suffix of the discrete variable that follows a function's stroke ends in a hybrid run
STROKE_END = "_stroke_end"


def contact_transitions(machine) -> tuple[list, list]:
    """The stroke ends as hybrid transitions, for runs that :func:`bondgraph.hybrid.simulate_hybrid`
    drives (a valves run with a controller): per function a discrete variable
    ``<function>_stroke_end`` (``free``, ``outer``, ``inner``) switched when the cylinder's
    length state crosses an end, in either direction. No law uses it (the stops' forces are
    in the bond graph); its transitions, located by the integrator, are the contacts.

    Returns ``(variables, transitions)`` for :class:`bondgraph.hybrid.HybridModel`.
    """
    from bondgraph.hybrid import Above, Below, Discrete, Transition

    mm = machine.model
    variables, transitions = [], []
    for f in machine.functions:
        s = mm.state(machine.cylinder_of[f], "s")
        lo, hi = machine.description.stroke_limits(f)
        v = f"{f}{STROKE_END}"
        variables.append(Discrete(v, ["free", "outer", "inner"]))
        transitions += [Transition(v, "free", "outer", Above(s, hi)), Transition(v, "outer", "free", Below(s, hi)),
                        Transition(v, "free", "inner", Below(s, lo)), Transition(v, "inner", "free", Above(s, lo))]
    return variables, transitions


def crossings(results, events: list) -> dict[tuple[str, str], list[tuple[float, bool | None]]]:
    """Located stroke-end crossings of a run: ``(function, end) → [(time, entering)]``.

    From the run's events (``events``: :func:`contact_events`, in the order they were
    given; ``entering`` is ``None``, a crossing either way) or, for a hybrid run, from its
    ``<function>_stroke_end`` transitions (``entering`` known)."""
    out: dict[tuple[str, str], list] = {(g.function, g.end): [] for g in events}
    records = getattr(results, "transitions", None)
    if records is not None:
        for r in records:
            if not r.variable.endswith(STROKE_END):
                continue
            f = r.variable[: -len(STROKE_END)]
            end = r.target if r.target != "free" else r.source
            if (f, end) in out:
                out[(f, end)].append((float(r.time), r.target != "free"))
        return out
    tev, iev, _ = results.events
    for x, j in zip(tev, iev):
        if 0 <= int(j) < len(events):      # later events are not contacts (an interrupt)
            g = events[int(j)]
            out[(g.function, g.end)].append((float(x), None))
    return out


@dataclass(frozen=True)
class Contact:
    """One end-stop contact of a run (bounces less than :data:`MERGE_GAP` apart merged):
    which function, which end, when it began and ended (located by the integrator) and the
    deepest penetration past the end (m).

    Examples
    --------
    >>> c = Contact("boom", "outer", start=2.0, stop=2.5, depth=0.0012)
    >>> str(c)
    'boom: outer end-stop contact from t = 2 s to 2.5 s, 1.20 mm deep'
    """

    function: str
    end: str            # "outer" (fully extended) or "inner" (fully retracted)
    start: float        # s, located by the integrator
    stop: float         # s (end of the run if still in contact)
    depth: float        # deepest penetration past the end (m)
    ongoing: bool = False
    bounces: int = 0    # separations shorter than MERGE_GAP within the contact
    resolved: bool = True   # depth from the contact integrated again finely (else the output times)

    def __str__(self) -> str:
        until = f"{self.stop:.4g} s" + (" (end of run)" if self.ongoing else "")
        b = f", {self.bounces} bounce{'s' if self.bounces != 1 else ''}" if self.bounces else ""
        how = "" if self.resolved else " at the output times"
        return (f"{self.function}: {self.end} end-stop contact from t = {self.start:.4g} s to {until}"
                f"{b}, {self.depth * 1e3:.2f} mm deep{how}")


#: contacts of one stop closer than this (s) are one contact with bounces
MERGE_GAP = 0.05


def contacts(machine, results, events: list, replays: list | None = None) -> list[Contact]:
    """Contact intervals from a run's located crossings (:func:`crossings`); the depth from
    its samples, and from ``replays`` (:func:`replay_contacts`) where they cover a contact."""
    if not events:
        return []
    desc = machine.description
    mm = machine.model
    out: list[Contact] = []
    t = results.t
    if not len(t):
        return []
    fine = []
    for rr in replays or []:
        fine.append((rr.t, {c: mm.coordinates(rr, c)["s"] for c in desc.cylinders}))
    for (f, end), items in crossings(results, events).items():
        lo, hi = desc.stroke_limits(f)
        c = desc.cylinder_of[f]
        s = mm.coordinates(results, c)["s"]

        def pen(x, end=end, lo=lo, hi=hi):
            return (x - hi) if end == "outer" else (lo - x)
        samples = [(t, pen(s))] + [(tt, pen(ss[c])) for tt, ss in fine]
        inside = bool(pen(s[0]) > 0)
        t_in = float(t[0]) if inside else None
        for te, entering in sorted(items, key=lambda x: x[0]):
            if entering is None:
                entering = not inside
            if entering and not inside:
                t_in, inside = te, True
            elif not entering and inside:
                out.append(_contact(f, end, t_in, te, samples, False, bool(fine)))
                inside = False
        if inside and t_in is not None:
            out.append(_contact(f, end, t_in, float(t[-1]), samples, True, bool(fine)))
    merged: list[Contact] = []
    for c in sorted(out, key=lambda c: (c.function, c.end, c.start)):
        last = merged[-1] if merged else None
        if last is not None and (last.function, last.end) == (c.function, c.end) and c.start - last.stop < MERGE_GAP:
            merged[-1] = Contact(c.function, c.end, last.start, c.stop, max(last.depth, c.depth), c.ongoing,
                                 last.bounces + 1, last.resolved and c.resolved)
        else:
            merged.append(c)
    return sorted(merged, key=lambda c: c.start)


def _contact(f, end, a, b, samples, ongoing, refined) -> Contact:
    depth = 0.0
    covered = False
    for k, (t, pen) in enumerate(samples):
        sel = (t >= a) & (t <= b)
        if sel.any():
            depth = max(depth, float(np.max(pen[sel])))
            covered = covered or (k > 0 and t[0] <= a and t[-1] >= b)
    return Contact(f, end, float(a), float(b), max(depth, 0.0), ongoing, resolved=bool(refined and covered))


#: a replayed contact window is sampled this many times per output step, and its contacts
#: this many times each (at most MAX_REPLAY_POINTS points per window)
REPLAY_PER_STEP, REPLAY_PER_CONTACT, MAX_REPLAY_POINTS = 20, 200, 50_000


def replay_windows(t: np.ndarray, intervals: list[tuple[float, float]]) -> list[tuple[int, int]]:
    """Index pairs ``(k, m)`` of the output times around each interval (merged when they
    touch): ``t[k] ≤`` its start, ``t[m] ≥`` its stop."""
    out: list[list[int]] = []
    for a, b in sorted(intervals):
        k = max(int(np.searchsorted(t, a, side="right")) - 1, 0)
        m = min(int(np.searchsorted(t, b, side="left")), len(t) - 1)
        if m <= k:
            continue
        if out and k <= out[-1][1]:
            out[-1][1] = max(out[-1][1], m)
        else:
            out.append([k, m])
    return [(k, m) for k, m in out]


def replay_contacts(run, coarse: list[Contact]) -> list:
    """The run integrated again over each window of output times around a contact, from
    the run's state at the window's start, with the same inputs and tolerances and a fine
    output step (a short impact falls between two output times): the depths and the energy
    split use these samples there. Only runs whose inputs are signals of time (not a
    controller); a window that fails is left out (its contacts say "at the output times")."""
    from bondgraph import simulate
    from bondgraph.errors import SimulationError

    res = run.results
    opts = getattr(run, "solver_options", None)
    if not coarse or opts is None or getattr(res, "transitions", None) is not None:
        return []
    t = res.t
    model = run.machine.model.model
    inputs = dict(zip(res.inputs.names, res.inputs.signals))
    out = []
    for k, m in replay_windows(t, [(c.start, c.stop) for c in coarse]):
        pts = [np.linspace(t[j], t[j + 1], REPLAY_PER_STEP + 1) for j in range(k, m)]
        pts += [np.linspace(max(c.start, t[k]), min(c.stop, t[m]), REPLAY_PER_CONTACT + 1) for c in coarse
                if c.stop >= t[k] and c.start <= t[m]]
        ts = np.unique(np.concatenate(pts))
        if len(ts) > MAX_REPLAY_POINTS:
            ts = np.unique(np.concatenate([ts[:: int(np.ceil(len(ts) / MAX_REPLAY_POINTS))], [t[k], t[m]]]))
        try:
            out.append(simulate(model, (float(t[k]), float(t[m])), x0=res.x[k], inputs=inputs, t_eval=ts,
                                progress=False, **opts))
        except SimulationError:
            continue
    return out


# --------------------------------------------------------------------------- diagnosis
def diagnose(machine, state: dict[str, float] | None) -> list[str]:
    """Physical causes visible in a (failed) run's state: strokes left, toggle positions
    (:func:`mechanisms.strokes.physical_causes`, by function name)."""
    from ..strokes import physical_causes

    return physical_causes(machine.model, state)
