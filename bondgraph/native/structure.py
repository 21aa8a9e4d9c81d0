"""The Jacobian's structure, read from the equations, and the linear solver it calls for.

CVODE factors ``I − γJ`` at every Jacobian update. With a dense solver that costs
``n³/3`` operations: for a chain of 200 mass–spring–dampers (``n = 400``) some 21 million
per factorisation, which is what made native CVODE slower than LSODA there. Most bond
graphs are sparse and, in the order their states come in, banded: a chain couples each
element to its neighbours only.

:func:`jacobian_pattern` finds which states each state derivative can depend on. It
follows the equations symbol by symbol, through the intermediates and the algebraic blocks,
and never evaluates a number. So a branch of a piecewise law that is inactive at one state
still counts. :func:`choose_solver` turns the pattern into CVODE's linear solver:

* a **band** solver when the half-bandwidths ``mu`` and ``ml`` are small. The LU of a band
  matrix costs about ``n·ml·(mu + ml)``, and the band is chosen when that is less than a
  tenth of the dense ``n³/3``;
* **dense** otherwise, or for fewer than :data:`BAND_MIN_STATES` states, where the band
  bookkeeping gains nothing.

Examples
--------
A chain of three masses between springs is tridiagonal in its natural order:

>>> from bondgraph import BondGraph, Se, Sf, Zero, One, C, I, R, derive, assemble
>>> bg = BondGraph("chain")
>>> _ = bg.add(Sf("wall", 0.0))
>>> prev = "wall"
>>> for i in range(3):
...     _ = bg.add(Zero(f"s{i}"), C.spring(f"k{i}", 10.0), One(f"v{i}"), I(f"m{i}", 1.0), R(f"c{i}", 0.1))
...     for a, b in [(prev, f"s{i}"), (f"s{i}", f"k{i}"), (f"s{i}", f"v{i}"), (f"v{i}", f"m{i}"), (f"v{i}", f"c{i}")]:
...         _ = bg.connect(a, b)
...     prev = f"v{i}"
>>> pattern = jacobian_pattern(derive(assemble(bg)))
>>> bandwidths(pattern)
(1, 1)
"""

from __future__ import annotations

import re

__all__ = ["jacobian_pattern", "bandwidths", "choose_solver", "BAND_MIN_STATES"]

#: below this many states the dense solver is kept
BAND_MIN_STATES = 16

_STATE = re.compile(r"^xs\[(\d+)\]$")


def jacobian_pattern(eqs) -> list[int]:
    """Row ``i``: a bit mask of the states ``der(x_i)`` can depend on.

    Parameters
    ----------
    eqs : bondgraph.equations.Equations
        From :func:`bondgraph.derive`.

    Returns
    -------
    list of int
        One mask per state (bit ``j`` set: ``∂ẋ_i/∂x_j`` may be nonzero).

    Examples
    --------
    See the module.
    """
    state_bit = {st.name: 1 << i for i, st in enumerate(eqs.states)}
    unknown_pos = {u: i for i, u in enumerate(eqs.unknowns)}
    inter = [(nm, [s.name for s in ex.free_symbols]) for nm, ex in eqs.intermediates]
    rows = [[s.name for s in r.free_symbols] for r in eqs.residuals]
    block_of = {}
    for bi, b in enumerate(eqs.blocks):
        for i in b.unknowns:
            block_of[i] = bi
    dep_u = [0] * len(eqs.unknowns)
    dep_m: dict[str, int] = {nm: 0 for nm, _ in inter}

    def dep(name: str) -> int:
        if name in state_bit:
            return state_bit[name]
        if name in dep_m:
            return dep_m[name]
        i = unknown_pos.get(name)
        return dep_u[i] if i is not None else 0   # parameters, inputs, time

    # a fixed point: the masks only grow, each pass in the order the primal computes
    changed = True
    while changed:
        changed = False
        for nm, syms in inter:
            m = 0
            for s in syms:
                m |= dep(s)
            if m != dep_m[nm]:
                dep_m[nm], changed = m, True
        for b in eqs.blocks:
            m = 0
            for i in b.unknowns:
                for s in rows[i]:
                    m |= dep(s)
            for i in b.unknowns:
                if dep_u[i] != m:
                    dep_u[i], changed = m, True
    return [dep_u[i] for i in eqs.xdot]


def bandwidths(pattern: list[int]) -> tuple[int, int]:
    """Upper and lower half-bandwidths ``(mu, ml)`` of a pattern.

    Parameters
    ----------
    pattern : list of int
        From :func:`jacobian_pattern`.

    Returns
    -------
    tuple of int

    Examples
    --------
    >>> bandwidths([0b011, 0b111, 0b110]), bandwidths([0b100, 0, 0b001])
    ((1, 1), (2, 2))
    """
    mu = ml = 0
    for i, mask in enumerate(pattern):
        if not mask:
            continue
        lo = (mask & -mask).bit_length() - 1
        hi = mask.bit_length() - 1
        mu = max(mu, hi - i)
        ml = max(ml, i - lo)
    return mu, ml


def choose_solver(pattern: list[int], extra: int = 0) -> tuple[str, int, int]:
    """``("band", mu, ml)`` or ``("dense", n, n)`` for CVODE's linear solver.

    Parameters
    ----------
    pattern : list of int
        From :func:`jacobian_pattern`.
    extra : int
        States appended after the model's own with zero Jacobian rows and columns
        (the energy sums).

    Returns
    -------
    tuple
        The solver's kind and half-bandwidths.

    Examples
    --------
    >>> choose_solver([0b11 << max(i - 1, 0) for i in range(400)])
    ('band', 1, 1)
    >>> choose_solver([(1 << 20) - 1] * 20)
    ('dense', 20, 20)
    """
    n = len(pattern) + extra
    mu, ml = bandwidths(pattern)
    if len(pattern) < BAND_MIN_STATES or 30 * ml * (mu + ml + 1) >= n * n:
        return "dense", n, n
    return "band", mu, ml
