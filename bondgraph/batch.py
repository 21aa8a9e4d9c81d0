"""A compiled model evaluated at many points in one call: outputs or ``ẋ`` of ``N`` states.

:class:`~bondgraph.CompiledSystem` evaluates one state per call; a static analysis
over a grid of poses needs the same function at 10⁵ states, where a Python loop
costs more than the generated code. :func:`evaluate_many` hands the whole batch to a
small C loop (compiled once and cached next to the models) that calls the model's own
``bg_out`` or ``bg_rhs`` through its function pointer, row after row (each with its own
time and inputs, or one shared), and keeps only the outputs asked for. Nothing is
re-derived: the numbers are those of the generated code. :meth:`Results.outputs
<bondgraph.Results.outputs>` evaluates a whole run this way. With ``outputs=`` it calls
instead a function generated to compute only those outputs and what they depend on
(:mod:`bondgraph.selective`): a few outputs of a large model cost a fraction of all.

Examples
--------
>>> import numpy as np
>>> from bondgraph import BondGraph, Se, One, I, C, build
>>> bg = BondGraph("osc")
>>> _ = bg.add(Se("F", 2.0), One("v"), I("m", 1.0), C.spring("k", 4.0))
>>> for a, b in [("F", "v"), ("v", "m"), ("v", "k")]:
...     _ = bg.connect(a, b)
>>> model = build(bg)
>>> model.state_names                                # velocity and spring force
['osc/m.f', 'osc/k.e']
>>> X = np.array([[0.0, 0.0], [1.0, 0.5]])
>>> evaluate_many(model.system, X, what="rhs")       # ẋ = ((F − f_k)/m, k·v)
array([[2. , 0. ],
       [1.5, 4. ]])
"""

from __future__ import annotations

import ctypes
from typing import Sequence

import numpy as np

from .codegen import CompiledSystem, build_library
from .errors import ParameterError
from .selective import selected_outputs

__all__ = ["evaluate_many"]

_SRC = r"""
#include <math.h>
#include <stddef.h>
typedef int (*bg_fn)(double, const double*, const double*, const double*, const double*,
                     double*, double*, double*, int);
int bg_many(void* fp, int n, const double* T, int st_t, const double* X, int nx, const double* U, int su,
            const double* DU, int sdu, const double* P, double* Uw, double* work, double* ybuf,
            const int* sel, int nsel, double* Y, int* status) {
  bg_fn f = (bg_fn) fp; int bad = 0; int i, j;
  for (i = 0; i < n; ++i) {
    int st = f(T[(size_t)i * st_t], X + (size_t)i * nx, U + (size_t)i * su, DU + (size_t)i * sdu, P, Uw,
               ybuf, work, 0);
    status[i] = st;
    if (st) ++bad;
    for (j = 0; j < nsel; ++j) Y[(size_t)i * nsel + j] = st ? NAN : ybuf[sel[j]];
  }
  return bad;
}
"""

_LIB: list = []


def _lib():
    if _LIB:
        return _LIB[0]
    path, _ = build_library(_SRC, flags=("-O2", "-std=c99", "-fPIC", "-shared"), libs=(),
                            prefix="bg_many", what="the batch evaluator")
    lib = ctypes.CDLL(str(path))
    lib.bg_many.restype = ctypes.c_int
    _LIB.append(lib)
    return lib


def _rows(a, width: int, n: int, name: str) -> tuple[np.ndarray, int]:
    """An input array as C rows: one row shared by all points (stride 0) or one per point."""
    try:
        arr = np.zeros(max(width, 1)) if a is None else np.asarray(a, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(f"{name}: found {a!r}, expected {width} numbers per row") from None
    if arr.ndim == 1:
        if a is not None and arr.shape[0] != width:
            raise ParameterError(f"{name}: {arr.shape[0]} values, expected {width}")
        buf = np.zeros(max(width, 1))
        buf[:width] = arr[:width]
        return buf, 0
    if arr.ndim != 2 or arr.shape != (n, width):
        raise ParameterError(f"{name}: shape {arr.shape}, expected ({n}, {width}) or ({width},)")
    return np.ascontiguousarray(arr), width


_INDEX: dict[int, tuple[list, tuple, dict]] = {}


def _index_of(names: list[str]) -> dict[str, int]:
    """Name → position in ``names``, made once per list (a model's outputs: hundreds of
    names, looked up at every call of a batched analysis), remade when the list changes."""
    hit = _INDEX.get(id(names))
    if hit is not None and hit[0] is names and hit[1] == tuple(names):
        return hit[2]
    lookup = {nm: i for i, nm in enumerate(names)}
    if len(_INDEX) > 64:
        _INDEX.clear()
    _INDEX[id(names)] = (names, tuple(names), lookup)
    return lookup


def evaluate_many(system: CompiledSystem, X: np.ndarray, inputs=None, dinputs=None, *,
                  what: str = "outputs", select: Sequence[str] | Sequence[int] | None = None,
                  t: float | np.ndarray = 0.0, outputs: Sequence[str] | None = None,
                  status: bool = False) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Evaluate a compiled model at every row of ``X``.

    Parameters
    ----------
    system : CompiledSystem
        ``model.system``; its current parameter values are used.
    X : array, shape (N, n_states)
        One state per row.
    inputs, dinputs : array, optional
        Input values and input derivatives (order of ``Equations.inputs`` and
        ``Equations.input_derivatives``): one row for all points, or one row per point.
        Default zero.
    what : {"outputs", "rhs"}
        The named outputs (bond efforts and flows, energies...) or the state derivatives.
    select : sequence of names or indices, optional
        Which outputs to keep (default all): names of ``system.output_names``.
    t : float or array, shape (N,)
        Time passed to the model: one for all points, or one per point (a run's times).
    outputs : sequence of str, optional
        Compute only these outputs (names of ``system.output_names``, in this order), with
        a function generated for them (:func:`bondgraph.selective.selected_outputs`: the
        first request of a selection may compile, later ones are cached); the same numbers
        as the full evaluation's columns. Not with ``select`` or ``what="rhs"``.
    status : bool
        Also return each row's status (0: evaluated; else as
        :meth:`CompiledSystem.describe_status <bondgraph.CompiledSystem.describe_status>`).

    Returns
    -------
    ndarray, shape (N, n_selected)
        Rows where the model cannot be evaluated (a singular block) are NaN; with
        ``outputs``, where the blocks those outputs need cannot (a block they do not read
        is not solved).
    status : ndarray of int, shape (N,)
        With ``status=True``.

    Raises
    ------
    ParameterError
        Wrong shapes, unknown output names (:class:`~bondgraph.errors.UnknownNameError`
        for ``outputs``, every one named), ``outputs`` with ``select`` or ``what="rhs"``.

    Examples
    --------
    The damper force ``b·v`` of a mass–damper at three velocities, in one call:

    >>> import numpy as np
    >>> from bondgraph import BondGraph, Se, One, I, R, build
    >>> bg = BondGraph("d")
    >>> _ = bg.add(Se("F", 2.0), One("v"), I("m", 1.0), R("b", 0.5))
    >>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
    ...     _ = bg.connect(a, b)
    >>> model = build(bg)
    >>> evaluate_many(model.system, [[0.0], [2.0], [4.0]], select=["e[d/b3]"]).ravel()
    array([0., 1., 2.])
    >>> evaluate_many(model.system, [[0.0]], select=["e[d/b9]"])
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: output 'e[d/b9]': not an output of the model

    The same force computed alone (a function generated for it), with the rows' status:

    >>> Y, st = evaluate_many(model.system, [[0.0], [2.0], [4.0]], outputs=["e[d/b3]"], status=True)
    >>> Y.ravel(), st
    (array([0., 1., 2.]), array([0, 0, 0], dtype=int32))
    """
    if what not in ("outputs", "rhs"):
        raise ParameterError(f"what = {what!r}: expected 'outputs' or 'rhs'")
    if outputs is not None and (select is not None or what != "outputs"):
        raise ParameterError("evaluate_many: outputs= computes only the outputs named; it takes no select= "
                             f"and only what='outputs' (found what={what!r}"
                             + (", select given)" if select is not None else ")"))
    X = np.ascontiguousarray(np.asarray(X, dtype=float))
    if X.ndim != 2 or X.shape[1] != system.nx:
        raise ParameterError(f"X: shape {X.shape}, expected (N, {system.nx}) (one state per row)")
    n = X.shape[0]
    if what == "outputs":
        names = system.output_names
        fn, width = system._out, len(names)
    else:
        names = [s.name for s in system.equations.states]
        fn, width = system._rhs, system.nx
    work = system._work
    if outputs is not None:
        chosen = selected_outputs(system, outputs)     # writes its outputs at their places in bg_out's
        fn, work, sel = chosen.function, chosen.work, chosen.index
        work.view(np.uint64)[0] = system._work.view(np.uint64)[0]   # the model's native input tables (a pointer)
    elif select is None:
        sel = np.arange(width, dtype=np.int32)
    else:
        idx, bad = [], []
        lookup = _index_of(names)
        for s in select:
            if isinstance(s, (int, np.integer)) and not isinstance(s, bool) and 0 <= int(s) < width:
                idx.append(int(s))
            elif s in lookup:
                idx.append(lookup[s])
            else:
                bad.append(s)
        if bad:
            raise ParameterError([f"output {b!r}: not an output of the model" for b in bad])
        sel = np.asarray(idx, dtype=np.int32)
    T = np.ascontiguousarray(np.atleast_1d(np.asarray(t, dtype=float)))
    if T.ndim != 1 or T.shape[0] not in (1, n):
        raise ParameterError(f"t: shape {np.shape(t)}, expected one time or ({n},) (one per row)")
    st_t = 1 if T.shape[0] == n and n > 1 else 0
    U, su = _rows(inputs, len(system.equations.inputs), n, "inputs")
    DU, sdu = _rows(dinputs, len(system.equations.input_derivatives), n, "dinputs")
    Y = np.empty((n, len(sel)))
    status_wanted = status
    status = np.zeros(max(n, 1), dtype=np.int32)
    ybuf = np.empty(width + 3)
    vp = ctypes.c_void_p
    if n:
        _lib().bg_many(vp(ctypes.cast(fn, vp).value), ctypes.c_int(n), vp(T.ctypes.data), ctypes.c_int(st_t),
                       vp(X.ctypes.data), ctypes.c_int(system.nx), vp(U.ctypes.data), ctypes.c_int(su),
                       vp(DU.ctypes.data), ctypes.c_int(sdu), vp(system.params.ctypes.data),
                       vp(system._U.ctypes.data), vp(work.ctypes.data), vp(ybuf.ctypes.data),
                       vp(sel.ctypes.data), ctypes.c_int(len(sel)), vp(Y.ctypes.data),
                       vp(status.ctypes.data))
    return (Y, status[:n]) if status_wanted else Y
