"""Evaluations reused across the points of a sweep, keyed by everything they read.

A sweep moves one :class:`~.study.Study` from point to point. Points often differ only in
values a given evaluation does not read: a boom cylinder's bore changes no tool force of
the arm or the bucket, a bucket mass changes no pose of the stroke grid. An
:class:`EvaluationMemo` keeps the results of the tool-force evaluation at a batch of poses
(:func:`~.digging.tool_forces`' maps and its optimiser's probes) under a key made of
**every input** of that evaluation:

* the geometry (everything the position analysis reads, :func:`.study.geometry_key`)
  and the stroke grid the poses start from;
* the compiled statics model (its identity) and its run-time parameter vector (masses,
  gravity...), so a new mass is a new key and a new model (a rebuild) is too;
* the cylinder areas of the functions evaluated, their digging directions, the relief
  and tank pressures, whether the weights count, the base machine (masses, tipping
  lines, gravity) and the tool point;
* the poses themselves (the lengths' and the angles' bytes).

A point whose evaluation has the same key gets the same numbers (the arrays are
read-only, shared); any input that differs misses. Outside :func:`reusing` nothing is
kept: a single analysis evaluates afresh as before.

Examples
--------
>>> calls = []
>>> @memoised(key=lambda study, grid, L, *rest: (L["c"].tobytes(),))
... def square(study, grid, L, *rest):
...     calls.append(1)
...     return {"y": L["c"] ** 2}
>>> import numpy as np
>>> memo = EvaluationMemo()
>>> with reusing(memo):
...     a = square(None, None, {"c": np.array([2.0])})
...     b = square(None, None, {"c": np.array([2.0])})     # the same inputs: kept
...     c = square(None, None, {"c": np.array([3.0])})     # another pose: evaluated
>>> len(calls), float(b["y"][0]), float(c["y"][0]), memo.hits
(2, 4.0, 9.0, 1)
>>> _ = square(None, None, {"c": np.array([2.0])}); len(calls)      # no memo: always evaluated
3
"""

from __future__ import annotations

import contextvars
import dataclasses
import functools
import hashlib
from collections import OrderedDict
from contextlib import contextmanager
from typing import Any, Callable, Iterator

import numpy as np

__all__ = ["EvaluationMemo", "reusing", "memoised", "tool_force_key", "statics_key"]

_ACTIVE: contextvars.ContextVar = contextvars.ContextVar("hydrobond evaluation memo", default=None)


def _digest(arrays: dict[str, Any] | None) -> tuple | None:
    """The bytes of named arrays (name, shape, blake2b of the float64 values)."""
    if arrays is None:
        return None
    out = []
    for name in sorted(arrays):
        a = np.ascontiguousarray(np.asarray(arrays[name], dtype=float))
        out.append((name, a.shape, hashlib.blake2b(a.tobytes(), digest_size=16).digest()))
    return tuple(out)


def tool_force_key(study, grid, L, functions, direction, pressures, weights, base, point, angles=None) -> tuple:
    """Every input of the tool-force evaluation at poses (:func:`~.digging._evaluate`), as
    one hashable key (see the module): what the evaluation reads beyond its arguments (the
    geometry, the statics model and its parameters, the cylinder areas) included.

    Parameters
    ----------
    study, grid, L, functions, direction, pressures, weights, base, point, angles
        The evaluation's arguments.

    Returns
    -------
    tuple

    Examples
    --------
    A new bucket mass is a new key (the statics model's parameters), a boom bore is not
    (the arm's and bucket's evaluation does not read it); the poses are part of the key:

    >>> import numpy as np
    >>> from mechanisms.machine import DATA
    >>> from mechanisms.analysis import Study
    >>> s = Study(DATA / "excavator.toml")
    >>> grid = s.grid(3)
    >>> L = {c: np.array([v]) for c, v in {"boom_cylinder": 3.0, "arm_cylinder": 2.6, "bucket_cylinder": 2.1}.items()}
    >>> args = (grid, L, ("arm", "bucket"), {"arm": 1.0, "bucket": 1.0}, s.pressures(), True, None, None)
    >>> k0 = tool_force_key(s, *args)
    >>> _ = s.update({"boom_cylinder.bore": "150 mm"}); tool_force_key(s, *args) == k0
    True
    >>> _ = s.update({"bucket.mass": "900 kg"}); tool_force_key(s, *args) == k0
    False
    >>> L2 = {**L, "bucket_cylinder": np.array([2.2])}
    >>> _ = s.update({}); tool_force_key(s, *args) == k0, tool_force_key(s, grid, L2, *args[2:]) == k0
    (True, False)
    """
    from .reach import tool_point
    from .study import geometry_key

    desc = study.description
    model = study.statics.model
    return (geometry_key(desc), _Same(grid), _Same(model), model.system.params.tobytes(),
            tuple(functions), tuple((f, desc.areas(f)) for f in functions),
            tuple(sorted(direction.items())),
            tuple((k, tuple(sorted(v.items()))) for k, v in sorted(pressures.items()) if k != "source"),
            bool(weights), repr(base), tool_point(desc, point), _digest(L), _digest(angles))


class EvaluationMemo:
    """Results of an evaluation by the key of its inputs, kept within a row budget.

    Parameters
    ----------
    budget : int
        Rows (poses) kept in all; the least recently used go first.

    Attributes
    ----------
    hits, misses : int

    Examples
    --------
    See the module.
    """

    def __init__(self, budget: int = 500_000):
        self.budget = int(budget)
        self._kept: OrderedDict = OrderedDict()
        self._rows = 0
        self.hits = 0
        self.misses = 0

    def get(self, fn: Callable, args: tuple, key: Callable[..., tuple] | None = None) -> Any:
        """``fn(*args)``, or what it returned before for the same key.

        Parameters
        ----------
        fn : callable
        args : tuple
        key : callable, optional
            ``key(*args)``: every input ``fn`` reads (default :func:`tool_force_key`).

        Returns
        -------
        object
        """
        k = (getattr(fn, "__qualname__", fn), *(key or tool_force_key)(*args))
        if k in self._kept:
            self._kept.move_to_end(k)
            self.hits += 1
            return _fresh(self._kept[k][0])
        self.misses += 1
        out = fn(*args)
        rows = _rows(out)
        self._kept[k] = (_frozen(out), rows)
        self._rows += rows
        while self._rows > self.budget and len(self._kept) > 1:
            _, (_, r) = self._kept.popitem(last=False)
            self._rows -= r
        return _fresh(self._kept[k][0])

    def clear(self) -> None:
        """Forget everything kept."""
        self._kept.clear()
        self._rows = 0


class _Same:
    """An object in a key by its identity (held, so its id cannot be reused meanwhile)."""

    __slots__ = ("obj",)

    def __init__(self, obj: Any):
        self.obj = obj

    def __hash__(self) -> int:
        return id(self.obj)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, _Same) and other.obj is self.obj


def _frozen(value: Any) -> Any:
    """Arrays made read-only (a caller writing into a kept result raises, it cannot spoil it)."""
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.replace(value, **{f.name: _frozen(getattr(value, f.name))
                                             for f in dataclasses.fields(value) if f.init})
    if isinstance(value, dict):
        return {k: _frozen(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(_frozen(v) for v in value)
    return value


def _fresh(value: Any) -> Any:
    """New containers around the kept arrays (a caller may add keys to the dicts)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.replace(value, **{f.name: _fresh(getattr(value, f.name))
                                             for f in dataclasses.fields(value) if f.init})
    if isinstance(value, dict):
        return {k: _fresh(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(_fresh(v) for v in value)
    return value


def _rows(value: Any) -> int:
    if isinstance(value, np.ndarray):
        return int(value.shape[0]) if value.ndim else 1
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return max((_rows(getattr(value, f.name)) for f in dataclasses.fields(value)), default=1)
    if isinstance(value, dict):
        return max((_rows(v) for v in value.values()), default=1)
    if isinstance(value, tuple):
        return max((_rows(v) for v in value), default=1)
    return 1


@contextmanager
def reusing(memo: EvaluationMemo | None) -> Iterator[EvaluationMemo | None]:
    """Within the block, :func:`memoised` evaluations go through ``memo`` (``None``: off).

    Parameters
    ----------
    memo : EvaluationMemo or None

    Examples
    --------
    See the module.
    """
    token = _ACTIVE.set(memo)
    try:
        yield memo
    finally:
        _ACTIVE.reset(token)


def memoised(fn: Callable | None = None, *, key: Callable[..., tuple] | None = None) -> Callable:
    """An evaluation that uses the active :class:`EvaluationMemo` (:func:`reusing`) if any.

    Parameters
    ----------
    fn : callable
        Called with positional arguments only when a memo is active (keyword calls
        bypass it).
    key : callable, optional
        ``key(*args)``: every input of ``fn`` (default :func:`tool_force_key`);
        ``@memoised(key=...)`` as a decorator.

    Returns
    -------
    callable

    Examples
    --------
    See the module.
    """
    if fn is None:
        return lambda f: memoised(f, key=key)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        memo = _ACTIVE.get()
        if memo is None or kwargs:
            return fn(*args, **kwargs)
        return memo.get(fn, args, key)

    return wrapper


def statics_key(study, X, points, functions) -> tuple:
    """Every input of the statics of the front at states ``X`` (:meth:`.statics.FrontStatics.evaluate`):
    the compiled model (its identity: its structure, the pins), its run-time parameter
    vector, the points and functions asked for and the states' bytes. A bore is none of
    them: the points of a sweep that differ only in bores share the statics over a grid.

    Parameters
    ----------
    study, X, points, functions
        The evaluation's arguments.

    Returns
    -------
    tuple

    Examples
    --------
    >>> import numpy as np
    >>> from mechanisms.machine import DATA
    >>> from mechanisms.analysis import Study
    >>> s = Study(DATA / "excavator.toml")
    >>> X = np.zeros((2, s.statics.model.system.nx))
    >>> k0 = statics_key(s, X, [("bucket", "Q")], ("arm",))
    >>> _ = s.update({"arm_cylinder.bore": "150 mm"}); statics_key(s, X, [("bucket", "Q")], ("arm",)) == k0
    True
    >>> _ = s.update({"arm.mass": "2000 kg"}); statics_key(s, X, [("bucket", "Q")], ("arm",)) == k0
    False
    """
    model = study.statics.model
    return (_Same(model), model.system.params.tobytes(), tuple(points), tuple(functions), _digest({"X": X}))
