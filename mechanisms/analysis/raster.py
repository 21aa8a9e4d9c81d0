"""The envelope's raster drawn in C: sampled segments marked on a boolean image.

:func:`~mechanisms.analysis.reach.envelope` draws every edge of a stroke grid (370 000
on the excavator's 50³ grid) as a segment sampled every cell or closer, about two
million samples. In numpy that is a few large temporaries per group of segments; here
each sample is computed and marked in one loop, with the same floating-point operations
in the same order (``t = j / n``, ``a + (b − a)·t`` rounded after the product and after
the sum, ``rint`` to the cell, row-major index), so the image is the numpy form's cell
for cell. The loop is compiled once into the model cache
(:func:`bondgraph.codegen.build_library`); :func:`mark_segments` returns ``None`` when
no C compiler is found and the caller draws in numpy.

Examples
--------
>>> import numpy as np
>>> img = np.zeros((4, 8), bool)
>>> lim = mark_segments(img, 8, 0.0, 0.0, 1.0, [(np.array([0.0]), np.array([1.0]),
...                                             np.array([6.0]), np.array([1.0]))], [np.array([6])])
>>> lim                                             # the samples' extent: x from 1 to 5, y at 1
(1.0, 5.0, 1.0, 1.0)
>>> img.astype(int)[1]                              # the start (a point drawn apart) is not marked
array([0, 1, 1, 1, 1, 1, 0, 0])
"""

from __future__ import annotations

import ctypes
from typing import Sequence

import numpy as np

__all__ = ["mark_segments"]

_SRC = r"""
#include <math.h>
#include <stdint.h>
/* Samples a + (b - a) * (j / n), 0 < j < n, of each segment: their extent (lim: xmin, xmax,
   ymin, ymax, updated) and, when img is not NULL, their cells marked in img (row-major, nx
   columns, origin x0, y0, cell h). */
void bgr_segments(long count, const double* ax, const double* ay, const double* bx, const double* by,
                  const int64_t* n, double* lim, unsigned char* img, long nx, double x0, double y0,
                  double h) {
    long i, j;
    double xmin = lim[0], xmax = lim[1], ymin = lim[2], ymax = lim[3];
    for (i = 0; i < count; ++i) {
        long m = (long) n[i];
        double a_x = ax[i], a_y = ay[i];
        double dx = bx[i] - a_x, dy = by[i] - a_y;
        for (j = 1; j < m; ++j) {
            double t = (double) j / (double) m;
            double px = dx * t, py = dy * t;
            px += a_x;
            py += a_y;
            if (px < xmin) xmin = px;
            if (px > xmax) xmax = px;
            if (py < ymin) ymin = py;
            if (py > ymax) ymax = py;
            if (img) {
                double col = rint((px - x0) / h);
                double row = rint((py - y0) / h);
                row *= (double) nx;
                row += col;
                img[(int64_t) row] = 1;
            }
        }
    }
    lim[0] = xmin; lim[1] = xmax; lim[2] = ymin; lim[3] = ymax;
}
"""

_LIB: list = []


def _lib():
    """The compiled loop (``None`` without a C compiler)."""
    if not _LIB:
        from bondgraph.codegen import build_library, find_compiler
        from bondgraph.errors import EquationError

        lib = None
        if find_compiler() is not None:
            try:
                path, _ = build_library(_SRC, flags=("-O2", "-std=c99", "-ffp-contract=off", "-fPIC", "-shared"),
                                        prefix="bg_raster", what="the envelope's raster")
                lib = ctypes.CDLL(str(path))
                lib.bgr_segments.restype = None
            except (EquationError, OSError):
                lib = None
        _LIB.append(lib)
    return _LIB[0]


def mark_segments(img: np.ndarray | None, nx: int, x0: float, y0: float, h: float,
                  segs: Sequence[tuple], counts: Sequence[np.ndarray]) -> tuple[float, float, float, float] | None:
    """Mark (``img`` given) or measure (``img`` None) the samples ``a + (b − a)·j/n``,
    ``0 < j < n``, of every segment.

    Parameters
    ----------
    img : ndarray of bool, C-contiguous, or None
        The image (``ny × nx`` cells) whose sampled cells are set; None: only the extent.
    nx : int
        Columns of the image.
    x0, y0, h : float
        The image's origin and cell (m): a sample falls in column ``rint((x − x0)/h)``,
        row ``rint((y − y0)/h)``.
    segs : sequence of (ax, ay, bx, by)
        Arrays of segment ends (float64).
    counts : sequence of ndarray of int64
        ``n`` of each segment (1: no sample).

    Returns
    -------
    (xmin, xmax, ymin, ymax) or None
        The samples' extent (±inf when there is none); None when no C compiler is found
        (nothing done).

    Examples
    --------
    >>> import numpy as np
    >>> seg = [(np.array([0.0]), np.array([0.0]), np.array([2.0]), np.array([4.0]))]
    >>> mark_segments(None, 0, 0.0, 0.0, 1.0, seg, [np.array([4])])    # samples at j/4 = ¼, ½, ¾
    (0.5, 1.5, 1.0, 3.0)
    """
    lib = _lib()
    if lib is None:
        return None
    lim = np.array([np.inf, -np.inf, np.inf, -np.inf])
    if img is not None and not (img.flags.c_contiguous and img.dtype == np.bool_):
        from bondgraph.errors import ParameterError

        raise ParameterError(f"mark_segments: img of dtype {img.dtype}, C-contiguous {img.flags.c_contiguous}: "
                             "expected a C-contiguous boolean array")
    vp = ctypes.c_void_p
    keep = []
    for (ax_, ay_, bx, by), n in zip(segs, counts):
        arrs = [np.ascontiguousarray(a, dtype=np.float64) for a in (ax_, ay_, bx, by)]
        n = np.ascontiguousarray(n, dtype=np.int64)
        keep.append((arrs, n))
        lib.bgr_segments(ctypes.c_long(len(n)), *(vp(a.ctypes.data) for a in arrs), vp(n.ctypes.data),
                         vp(lim.ctypes.data), vp(None if img is None else img.ctypes.data),
                         ctypes.c_long(int(nx)), ctypes.c_double(x0), ctypes.c_double(y0), ctypes.c_double(h))
    return float(lim[0]), float(lim[1]), float(lim[2]), float(lim[3])
