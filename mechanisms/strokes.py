"""A mechanism within its strokes: lengths checked before a run, excursions named after it,
the physical cause of a failed run (a cylinder past its stroke, a toggle).

:func:`stroke_problems` names every excursion of prescribed or simulated lengths beyond a
stroke (the worst value, when, and for how long); :class:`MechanismModel
<mechanisms.MechanismModel>` refuses a prescribed-lengths run that leaves a stroke and
warns after a forces run whose cylinders went past their stops, and the machine layer
(:mod:`mechanisms.machine.strokes`) does the same by function name.

When an integration stops at a singular point, the core can only say which divisor of
the equations vanished and how a different state choice might avoid it. A mechanism
knows more: the cylinders' strokes (:attr:`Cylinder.length_limits
<components.Cylinder.length_limits>`) and the dead centres of its loops. :func:`physical_causes`
reads them at the failed state, and :func:`explain` rewrites the error so that it says the
physical cause first and gives advice that fits it (the state-choice advice of the core is
dropped when the cause is the stroke or a toggle).

Examples
--------
>>> from mechanisms import MechanismModel
>>> from mechanisms.examples import single_boom
>>> mm = MechanismModel.build(single_boom("force"))
>>> pose = mm.mechanism.solve_pose({"boom_cyl": 3.2}, guess={"boom": 0.4})
>>> state = mm.initial_state(pose)
>>> state["boom_lift/boom_cyl/ext.s"] = 3.80          # 70 mm past the stroke end 3.73 m
>>> physical_causes(mm, state)
['cylinder boom_cyl at 3.8000 m, 70.0 mm past its stroke end 3.730 m']
"""

from __future__ import annotations

import math
from typing import Mapping

from bondgraph.errors import SimulationError

from components import Cylinder

__all__ = ["stroke_problems", "physical_causes", "explain", "part_poses"]

#: a loop whose pusher's line passes the pivot within this fraction of the arm is at a toggle
TOGGLE_FRACTION = 0.02


def stroke_problems(limits: Mapping[str, tuple[float, float]], t, lengths: Mapping[str, object],
                    tol: float = 1e-9) -> list[str]:
    """Each first excursion beyond a stroke over the times ``t``: its worst value and when,
    the limit, and how long it lasted.

    Parameters
    ----------
    limits : dict
        Name (a function or a cylinder) → (shortest, longest) pin-to-pin length (m).
    t : array
        Times (s).
    lengths : dict
        Name → lengths at ``t`` (m).
    tol : float
        How far past a limit counts (m).

    Examples
    --------
    >>> import numpy as np
    >>> t = np.linspace(0, 2, 21)
    >>> stroke_problems({"lift": (1.3, 2.1)}, t, {"lift": 1.5 + 0.4 * t})
    ['lift: 2.300 m at t = 2 s exceeds the stroke end 2.100 m (outside from t = 1.6 s to 2 s)']
    """
    import numpy as np

    problems = []
    t = np.asarray(t, dtype=float)
    for name, (lo, hi) in limits.items():
        v = np.asarray(lengths[name], dtype=float)
        for bad, limit, word in ((v > hi + tol, hi, "exceeds the stroke end"),
                                 (v < lo - tol, lo, "is below the retracted length")):
            if not bad.any():
                continue
            i0 = int(np.argmax(bad))
            i1 = i0 + int(np.argmax(~bad[i0:])) if (~bad[i0:]).any() else len(v)
            seg = v[i0:i1]
            k = i0 + int(np.argmax(seg) if word.startswith("exceeds") else np.argmin(seg))
            span = (f" (outside from t = {t[i0]:.3g} s to {t[i1 - 1]:.3g} s)" if i1 - i0 > 1
                    else "")
            problems.append(f"{name}: {v[k]:.3f} m at t = {t[k]:.3g} s {word} {limit:.3f} m{span}")
    return problems


def part_poses(mm, state: Mapping[str, float]) -> dict[str, tuple] | None:
    """Every part's pose at a state of ``mm``'s model (``None`` if a coordinate is missing).

    Examples
    --------
    >>> from mechanisms import MechanismModel
    >>> from mechanisms.examples import single_boom
    >>> mm = MechanismModel.build(single_boom("extension"))
    >>> pose = mm.mechanism.solve_pose({"boom_cyl": 3.2}, guess={"boom": 0.4})
    >>> round(part_poses(mm, pose.states())["boom_cyl"][3], 12)
    3.2
    """
    mech = getattr(mm, "mechanism", None)
    if mech is None or not hasattr(mm, "state"):   # a reference formulation: no causal states
        return None
    try:
        coords = {n: {c: float(state[mm.state(n, c)]) for c in p.coordinate_states}
                  for n, p in mech.parts.items()}
    except (KeyError, TypeError, ValueError):
        return None
    world: dict[str, dict] = {}
    poses = {}
    for name in mech._tree_order():
        part = mech.parts[name]
        parent = mech._parent(part)
        root = mech.fixed[(name, part.root.name)] if parent is None else world[parent[0]][parent[1]]
        poses[name] = part.pose_from_states(root, coords[name])
        world[name] = part.world_points(poses[name])
    return poses


def _who(c: Cylinder) -> str:
    return f"cylinder {c.name}" if c.function == c.name else f"{c.function}: cylinder {c.name}"


def physical_causes(mm, state: Mapping[str, float] | None) -> list[str]:
    """The physical causes visible at a state of a :class:`~mechanisms.MechanismModel`'s model:
    each cylinder outside its stroke (by more than 0.1 mm) and each loop at a toggle
    position (an actuator's line passing within 2 % of the arm from the pivot of the part
    it turns).

    Examples
    --------
    >>> from mechanisms import MechanismModel
    >>> from mechanisms.examples import single_boom
    >>> mm = MechanismModel.build(single_boom("extension"))
    >>> physical_causes(mm, mm.mechanism.solve_pose({"boom_cyl": 3.2}, guess={"boom": 0.4}).states())
    []
    """
    if not state:
        return []
    poses = part_poses(mm, state)
    if poses is None:
        return []
    mech = mm.mechanism
    out = []
    for c in mech.parts.values():
        if not isinstance(c, Cylinder):
            continue
        lo, hi = c.length_limits
        s = poses[c.name][3]
        if s > hi + 1e-4:
            out.append(f"{_who(c)} at {s:.4f} m, {1e3 * (s - hi):.1f} mm past its stroke end {hi:.3f} m")
        elif s < lo - 1e-4:
            out.append(f"{_who(c)} at {s:.4f} m, {1e3 * (lo - s):.1f} mm below its retracted length {lo:.3f} m")
    from .assembly import Pose

    world = {n: mech.parts[n].world_points(p) for n, p in poses.items()}
    for (pd, pr), m in mech.dead_centre_measures(Pose(mech, poses)).items():
        if abs(m) < TOGGLE_FRACTION:
            body = mech.parts[pd.part]
            arm = abs(m) * math.dist(world[pd.part][pd.name], world[pd.part][body.root.name])
            loop = " – ".join(mech._loop_members(pr.part, pd.part))
            out.append(f"toggle position: the line of {pr.part} passes {arm * 1e3:.1f} mm from "
                       f"{pd.part}'s pivot {body.root.name} (loop {loop}); {pr.part} cannot turn "
                       f"{pd.part} there (a dead centre)")
    return out


def _advice(causes: list[str], mm) -> str:
    stroke = [c for c in causes if "stroke" in c or "retracted length" in c]
    if stroke:
        unstopped = [n for n, d in mm.mechanism.drives.items() if d.kind == "force" and d.end_stop is None]
        how = (f" ({', '.join(unstopped)} driven by force without end stops: drive_force(..., end_stop=None) "
               "gives a cylinder its stops)" if unstopped else "")
        return ("the cause is the stroke, not the state choice: keep the cylinders within their strokes "
                f"(end stops on force drives, prescribed lengths within the stroke){how}")
    return ("the cause is the linkage's geometry, not the state choice: keep the motion away from the dead "
            "centre (a shorter stroke, a hinge point moved) or stop the cycle before it")


def explain(err: SimulationError, mm) -> SimulationError:
    """``err`` with the physical causes at its state first, the core's state-choice advice
    replaced by advice that fits them; ``err`` itself if no cause is visible. The time, the
    state and the partial results are kept.

    Examples
    --------
    >>> from bondgraph import SimulationError
    >>> from mechanisms import MechanismModel
    >>> from mechanisms.examples import single_boom
    >>> mm = MechanismModel.build(single_boom("force"))
    >>> state = mm.initial_state(mm.mechanism.solve_pose({"boom_cyl": 3.2}, guess={"boom": 0.4}))
    >>> state["boom_lift/boom_cyl/ext.s"] = 3.9
    >>> err = explain(SimulationError("failed; try a state choice", time=1.0, state=state,
    ...                               advice="try a state choice"), mm)
    >>> err.problems[0]
    'physical cause: cylinder boom_cyl at 3.9000 m, 170.0 mm past its stroke end 3.730 m'
    >>> "try a state choice" in err.problems[1], "the cause is the stroke" in err.problems[1]
    (False, True)
    """
    if getattr(err, "causes", None) is not None:     # explained already
        return err
    causes = physical_causes(mm, err.state)
    if not causes:
        err.causes = []
        return err
    problems = [f"physical cause: {c}" for c in causes]
    for p in err.problems:
        if err.advice and err.advice in p:
            p = p.replace(f"; {err.advice}", f"; {_advice(causes, mm)}")
        problems.append(p)
    new = SimulationError(problems, subject=err.subject, time=err.time, state=err.state, results=err.results,
                          advice=_advice(causes, mm))
    new.causes = causes
    return new
