"""The outline of a rigid body: the convex hull of its hinge points, found once.

A rigid body's points keep their distances at every pose, so the hull of its points
in its own frame has the same vertices, in the same counter-clockwise order, as the
hull of the same points drawn at any pose (a rotation and a translation). The hull is
found once per set of points by :class:`scipy.spatial.ConvexHull` and kept: on the body
(:meth:`components.MainBody.sketch` asks :func:`hull_order` once), and in the project's
cache folder (:func:`bondgraph.files.cache_dir`) keyed by the exact bytes of the points,
so that a later process drawing the same body (every frame of an animation, every
snapshot of a trajectory) needs no :mod:`scipy.spatial` at all.

A kept order (:mod:`bondgraph.kept`) is used only if it was written for exactly these points
(their bytes are the key, stored and compared) and if it still is their hull: a counter-clockwise loop of
distinct points with no point outside any of its edges (checked here, a few products
per point). Anything else is a miss and the hull is found again; an unreadable or
unwritable cache only costs that. Fewer than three points, or points on one line
(Qhull finds no hull), have no outline: ``None``.

Examples
--------
>>> import numpy as np
>>> square = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
>>> hull_order(square)                       # counter-clockwise; the centre is inside
(0, 2, 1, 4)
>>> hull_order(np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])) is None    # one line
True
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["hull_order", "hull_file", "is_hull"]

#: layout of a kept entry; a change makes every older entry a miss
_FORMAT = 1


def _key(points: np.ndarray) -> str:
    """What a kept hull is kept under: the format and the exact bytes of the points."""
    return f"hull {_FORMAT}|" + np.ascontiguousarray(points, dtype=np.float64).tobytes().hex()


def hull_file(points) -> Path:
    """The cache file of the hull of ``points`` (an ``(n, 2)`` array; it may not exist).

    Parameters
    ----------
    points : array_like, shape (n, 2)

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> import numpy as np
    >>> a, b = np.zeros((3, 2)), np.ones((3, 2))
    >>> hull_file(a).name == hull_file(a.copy()).name != hull_file(b).name
    True
    """
    from bondgraph.kept import kept_file

    return kept_file("hull", _key(points))


def is_hull(points, order) -> bool:
    """Whether ``order`` (indices into ``points``) is a counter-clockwise convex loop of
    distinct points with every point of ``points`` inside it or on its edges (to a
    rounding tolerance relative to the points' size).

    Parameters
    ----------
    points : array_like, shape (n, 2)
    order : sequence of int

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> pts = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0], [0.5, 0.5]])
    >>> is_hull(pts, [0, 1, 2]), is_hull(pts, [0, 2, 1]), is_hull(pts, [0, 1, 3])
    (True, False, False)
    """
    pts = np.asarray(points, dtype=float)
    idx = list(order)
    n = len(pts)
    if len(idx) < 3 or len(set(idx)) != len(idx) or not all(isinstance(i, int) and 0 <= i < n for i in idx):
        return False
    loop = pts[idx]
    edge = np.roll(loop, -1, axis=0) - loop                            # edge k: loop[k] → loop[k+1]
    rel = pts[None, :, :] - loop[:, None, :]                            # every point from every edge's start
    cross = edge[:, None, 0] * rel[:, :, 1] - edge[:, None, 1] * rel[:, :, 0]
    size = float(np.max(np.abs(pts))) or 1.0
    tol = 1e-9 * size * size
    turn = edge[:, 0] * np.roll(edge, -1, axis=0)[:, 1] - edge[:, 1] * np.roll(edge, -1, axis=0)[:, 0]
    return bool(np.all(cross >= -tol) and np.all(turn > tol))


def _found(points: np.ndarray) -> tuple[int, ...] | None:
    """The hull's vertices by :class:`scipy.spatial.ConvexHull` (counter-clockwise in 2-D)."""
    from scipy.spatial import ConvexHull, QhullError

    try:
        return tuple(int(i) for i in ConvexHull(points).vertices)
    except QhullError:         # on one line (or all at one point): no hull
        return None


def hull_order(points) -> tuple[int, ...] | None:
    """Indices of the points on the convex hull of ``points``, counter-clockwise (as
    :class:`scipy.spatial.ConvexHull` gives them), or ``None`` when there is no hull
    (fewer than 3 points, or all on one line).

    Read from the cache when kept there for exactly these points and still their hull
    (:func:`is_hull`); otherwise found by :class:`~scipy.spatial.ConvexHull` and kept.

    Parameters
    ----------
    points : array_like, shape (n, 2)

    Returns
    -------
    tuple of int or None

    Examples
    --------
    >>> import numpy as np
    >>> tri = np.array([[0.0, 0.0], [3.0, 0.0], [1.0, 0.5], [0.0, 2.0]])
    >>> hull_order(tri)
    (0, 1, 3)
    >>> hull_file(tri).exists(), hull_order(tri)      # kept; the second call reads it
    (True, (0, 1, 3))
    >>> hull_order(tri[:2]) is None
    True
    """
    pts = np.ascontiguousarray(points, dtype=np.float64).reshape(-1, 2)
    if len(pts) < 3:
        return None
    from bondgraph.kept import keep, kept

    key = _key(pts)
    entry = kept("hull", key)       # None: missing, unreadable or kept for other points
    if isinstance(entry, dict) and "hull" in entry:
        order = entry["hull"]
        if order is None:            # kept: no hull (Qhull refused these points)
            return None
        if isinstance(order, (list, tuple)) and is_hull(pts, order):
            return tuple(order)
    order = _found(pts)
    keep("hull", key, {"hull": None if order is None else list(order)})
    return order

