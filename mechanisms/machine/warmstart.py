"""The start pose and start state a warm build keeps beside its compiled model.

A machine built a second time from the same file loads its compiled model by its key
(:mod:`.buildkey`). Its start pose is fixed by the same key — the description (its
``[start]`` targets and guesses), the mode and the source of the packages — so the pose
solved the first time is stored under that key and read back the next time, instead
of closing the loops again with :func:`scipy.optimize.least_squares` (whose import is
about 0.15–0.3 s of a warm build).

A stored pose is used only if it was written for exactly this key (the whole key is
stored and compared), for a mechanism of the same parts and pose sizes, and if it still
closes every loop and meets every target to the solver's tolerance (one residual of the
loop equations, evaluated here); otherwise the pose is solved as usual. An unreadable
entry is a miss, never an error; a cache that cannot be written only costs speed.

The hydraulic start state of a run (:func:`~.start.start_state`: the pressures that hold
the start pose, settled with the supply by :func:`bondgraph.equilibrium`) is kept the
same way, under the machine's key and everything the equilibrium is solved from (the
state it starts from, the free states, the inputs and the parameter values), and is
used only if it is still an equilibrium to :func:`~bondgraph.equilibrium`'s own
acceptance test (:func:`load_start_state`). A warm ``hydrobond run`` then loads neither
scipy.optimize's least squares nor runs it.

Examples
--------
>>> from mechanisms.machine import DATA
>>> from mechanisms.machine.description import MachineDescription
>>> from mechanisms.machine.assemble import assemble
>>> from mechanisms.machine.machine import start_pose_of
>>> desc = MachineDescription.load(DATA / "knuckle_crane.toml")
>>> mech = assemble(desc, "forces").mechanism
>>> pose = start_pose_of(desc, mech)
>>> save_start_pose("warmstart doc: knuckle crane", pose)
>>> again = load_start_pose("warmstart doc: knuckle crane", mech, start_targets(desc)[0])
>>> again.values == pose.values
True
>>> load_start_pose("warmstart doc: never stored", mech, start_targets(desc)[0]) is None
True
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Mapping

import numpy as np

__all__ = ["start_targets", "save_start_pose", "load_start_pose", "start_pose_file",
           "start_state_key", "save_start_state", "load_start_state"]

#: layout of an entry; a change makes every older entry a miss
_FORMAT = 1
#: the loop-closure tolerance a stored pose must still meet (:meth:`Mechanism.solve_pose`'s)
TOL = 1e-9


def start_targets(desc) -> tuple[dict[str, float], dict[str, float], list[str]]:
    """The ``[start]`` section as :meth:`Mechanism.solve_pose <mechanisms.Mechanism.solve_pose>`
    takes it: targets (cylinder lengths, absolute angles), guesses, and the problems
    (angles relative to an angle that is not a start target).

    Parameters
    ----------
    desc : MachineDescription

    Returns
    -------
    (dict, dict, list of str)

    Examples
    --------
    >>> from mechanisms.machine import DATA
    >>> from mechanisms.machine.description import MachineDescription
    >>> targets, guess, problems = start_targets(MachineDescription.load(DATA / "excavator.toml"))
    >>> sorted(targets), problems
    (['arm', 'boom', 'bucket'], [])
    """
    targets: dict[str, float] = {}
    pending = dict(desc.start)
    for k, v in list(pending.items()):
        if k in desc.parts and desc.parts[k].type == "cylinder":
            targets[k] = v
            del pending[k]
    absolute: dict[str, float] = {}
    for _ in range(len(pending) + 1):
        for k, v in list(pending.items()):
            part, ref = desc.angles.get(k, (k, None))
            if ref is None:
                absolute[part] = v
            elif ref in absolute:
                absolute[part] = absolute[ref] + v
            else:
                continue
            del pending[k]
    problems = [f"'start.{k}' ({desc.where(f'start.{k}')}): angle {k!r} is relative to "
                f"{desc.angles[k][1]!r}, whose angle is not a start target; give it too" for k in pending]
    targets.update(absolute)
    return targets, {**desc.guess, **absolute}, problems


def start_pose_file(key: str) -> Path:
    """The cache file of the start pose stored under ``key`` (it may not exist).

    Parameters
    ----------
    key : str

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> start_pose_file("a").name == start_pose_file("a").name != start_pose_file("b").name
    True
    """
    from bondgraph.kept import kept_file

    return kept_file("start", _pose_key(key))


def _pose_key(key: str) -> str:
    return f"start pose {_FORMAT}|{key}"


def _layout(mechanism) -> list[tuple[str, int]]:
    return [(name, part.pose_size()) for name, part in mechanism.parts.items()]


def save_start_pose(key: str, pose) -> None:
    """Store a solved start pose under ``key`` (atomically; a failure only costs speed).

    Parameters
    ----------
    key : str
        The machine's key (:func:`~.buildkey.machine_key`).
    pose : Pose

    Examples
    --------
    >>> from mechanisms.examples import single_boom
    >>> pose = single_boom().solve_pose({"boom_cyl": 3.2}, guess={"boom": 0.4})
    >>> save_start_pose("warmstart doc: single boom", pose)
    >>> start_pose_file("warmstart doc: single boom").exists()
    True
    """
    from bondgraph.kept import keep

    keep("start", _pose_key(key), {"layout": _layout(pose.mechanism),
                                   "values": {n: tuple(float(x) for x in v) for n, v in pose.values.items()}})


def load_start_pose(key: str, mechanism, targets: Mapping[str, float]) -> Any:
    """The start pose stored under ``key`` for ``mechanism``, if it still closes its loops
    and meets ``targets`` to :data:`TOL`; ``None`` otherwise (see the module).

    Parameters
    ----------
    key : str
    mechanism : Mechanism
    targets : mapping
        Cylinder name → length (m), part name → angle (rad), as :func:`start_targets` gives.

    Returns
    -------
    Pose or None

    Examples
    --------
    >>> from mechanisms.examples import single_boom
    >>> mech = single_boom()
    >>> save_start_pose("warmstart doc: boom", mech.solve_pose({"boom_cyl": 3.2}, guess={"boom": 0.4}))
    >>> round(load_start_pose("warmstart doc: boom", mech, {"boom_cyl": 3.2}).length("boom_cyl"), 12)
    3.2
    >>> load_start_pose("warmstart doc: boom", mech, {"boom_cyl": 3.3}) is None   # another target
    True
    """
    from bondgraph.kept import kept

    from ..assembly import Pose

    try:
        entry = kept("start", _pose_key(key))      # None: missing, unreadable or another key's
        if entry is None or entry.get("layout") != _layout(mechanism):
            return None
        values = entry["values"]
        z = np.concatenate([np.asarray(values[name], dtype=float) for name in mechanism.parts])
        res = mechanism._residual(z, targets)
    except Exception:   # noqa: BLE001 - missing, unreadable or foreign: a miss
        return None
    if not (res.size and np.all(np.isfinite(res)) and float(np.max(np.abs(res))) <= TOL):
        return None
    pose = Pose(mechanism, {n: tuple(float(v) for v in values[n]) for n in mechanism.parts})
    mechanism._last_pose = pose            # as Mechanism.solve_pose leaves it
    return pose


def start_state_key(machine_key: str, model, x: np.ndarray, free: list[str], inputs: Mapping[str, Any]) -> str:
    """The key a start state is kept under: the machine's key and everything the
    equilibrium is solved from (starting state, free states, inputs at t = 0, parameters).

    Parameters
    ----------
    machine_key : str
    model : Model
    x : ndarray
        The state the equilibrium search starts from (held states included).
    free : list of str
    inputs : mapping
        Input values or signals at t = 0.

    Returns
    -------
    str

    Examples
    --------
    >>> from bondgraph import BondGraph, Se, One, I, C, build
    >>> bg = BondGraph("hang")
    >>> _ = bg.add(Se("g", -9.81), One("v"), I("m", 1.0), C.spring("k", 100.0))
    >>> for a, b in [("g", "v"), ("v", "m"), ("v", "k")]:
    ...     _ = bg.connect(a, b)
    >>> model = build(bg)
    >>> x = model.initial_state()
    >>> k = start_state_key("k", model, x, ["hang/k.e"], {})
    >>> k == start_state_key("k", model, x, ["hang/k.e"], {}) != start_state_key("k", model, x + 1, ["hang/k.e"], {})
    True
    """
    from bondgraph.linearize import _inputs

    u, du = _inputs(model, inputs, 0.0)
    h = hashlib.sha256()
    params = dict(model.params)
    for part in (machine_key, "|".join(free), "|".join(model.state_names), "|".join(model.input_names),
                 "|".join(params)):
        h.update(part.encode())
        h.update(b"\0")
    for arr in (x, u, du, list(params.values())):
        h.update(np.ascontiguousarray(np.asarray(arr, dtype=float)).tobytes())
        h.update(b"\0")
    return f"start state {_FORMAT}|{h.hexdigest()}"


def _state_file(key: str) -> Path:
    from bondgraph.kept import kept_file

    return kept_file("start", key)


def save_start_state(key: str, x: np.ndarray) -> None:
    """Store a settled start state under ``key`` (:func:`start_state_key`); a failure only
    costs speed.

    Parameters
    ----------
    key : str
    x : ndarray
        The full state vector.

    Examples
    --------
    >>> import numpy as np
    >>> save_start_state("warmstart doc: a state", np.array([1.0, 2.0]))
    >>> _state_file("warmstart doc: a state").exists()
    True
    """
    from bondgraph.kept import keep

    keep("start", key, np.asarray(x, dtype=float).copy())


def load_start_state(key: str, model, x0: np.ndarray, free: list[str], inputs: Mapping[str, Any],
                     tol: float = 1e-8) -> np.ndarray | None:
    """The start state stored under ``key`` if it is still an equilibrium of ``model`` from
    ``x0`` by :func:`bondgraph.equilibrium`'s acceptance test (held states exactly those of
    ``x0``; the free states' rates, each row scaled by its sensitivity to them, below
    ``tol`` × the largest free state or ``tol``); ``None`` otherwise. Leaves the model's
    inputs set to ``inputs`` at t = 0, as the equilibrium search does.

    Parameters
    ----------
    key : str
    model : Model
    x0 : ndarray
        The state the search starts from.
    free : list of str
    inputs : mapping
    tol : float
        As for :func:`bondgraph.equilibrium`.

    Returns
    -------
    ndarray or None

    Examples
    --------
    >>> from bondgraph import BondGraph, Se, One, I, C, build, equilibrium
    >>> bg = BondGraph("hang")
    >>> _ = bg.add(Se("g", -9.81), One("v"), I("m", 1.0), C.spring("k", 100.0))
    >>> for a, b in [("g", "v"), ("v", "m"), ("v", "k")]:
    ...     _ = bg.connect(a, b)
    >>> model = build(bg)
    >>> x0 = model.initial_state()
    >>> key = start_state_key("warmstart doc: hang", model, x0, ["hang/k.e"], {})
    >>> save_start_state(key, equilibrium(model, x0, free=["hang/k.e"]))
    >>> round(float(load_start_state(key, model, x0, ["hang/k.e"], {})[1]), 6)
    -9.81
    >>> save_start_state(key, x0)                      # not an equilibrium: refused
    >>> load_start_state(key, model, x0, ["hang/k.e"], {}) is None
    True
    """
    from bondgraph.kept import kept
    from bondgraph.linearize import _accepted, _inputs, _row_scale

    try:
        out = kept("start", key)                    # None: missing, unreadable or another key's
        if out is None:
            return None
        out = np.asarray(out, dtype=float)
        x0 = np.asarray(x0, dtype=float)
        idx = [model.state_index(n) for n in free]
        held = np.ones(len(x0), dtype=bool)
        held[idx] = False
        if out.shape != x0.shape or not np.array_equal(out[held], x0[held]) or not np.all(np.isfinite(out)):
            return None
        u, du = _inputs(model, inputs, 0.0)
        sysm = model.system
        sysm.set_inputs(u, du)
        row = _row_scale(sysm.jac(0.0, x0)[:, idx])
        resid = float(np.max(np.abs(sysm.rhs(0.0, out) / row)))
    except Exception:   # noqa: BLE001 - missing, unreadable, foreign or failing: a miss
        return None
    return out if _accepted(resid, out[idx], tol) else None
