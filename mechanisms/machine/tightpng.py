"""A figure written as a PNG cut to what it draws, drawn once.

``savefig(..., bbox_inches="tight")`` draws a figure twice: once without output to find
the box its artists cover, then again into an image of that box. A figure whose box lies
inside its own canvas (as a figure laid out by ``tight_layout`` does) can instead be
drawn once at the resolution wanted and the image cut out of the canvas: the same area
(the tight box padded by ``pad_inches``, widened to whole pixels), the same pixels up to
the sub-pixel shift of savefig's second drawing, the same PNG options (matplotlib's
``Software`` tag and resolution). :func:`write_tight_png` does that and declines (writes
nothing) when the box reaches past the canvas, where only savefig's second drawing shows
everything; :func:`mechanisms.machine.plots.save_figure` then calls savefig.

Examples
--------
>>> import matplotlib; matplotlib.use("Agg")
>>> import os, tempfile
>>> import matplotlib.pyplot as plt
>>> from PIL import Image
>>> fig, ax = plt.subplots(figsize=(4, 3))
>>> _ = ax.plot([0, 1], [0, 2]); _ = ax.set_xlabel("time [s]")
>>> fig.tight_layout()
>>> path = os.path.join(tempfile.mkdtemp(), "a.png")
>>> area = write_tight_png(fig, path, dpi=100, pad_inches=0.1)
>>> w, h = Image.open(path).size
>>> (w, h) == (round(area.width), round(area.height)), w <= 400 and h <= 300
(True, True)
>>> fig.dpi == 100 and fig.get_size_inches().tolist() == [4.0, 3.0]   # the figure as it was
True
>>> plt.close(fig)
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from .files import atomic_path

__all__ = ["write_tight_png"]


def write_tight_png(fig, path: str | Path, dpi: float = 120, pad_inches: float = 0.1):
    """Draw ``fig`` once at ``dpi`` and write (atomically) the part of it that
    ``savefig(path, dpi=dpi, bbox_inches="tight", pad_inches=pad_inches)`` writes; returns
    that area (a :class:`matplotlib.transforms.Bbox` in pixels of the drawing), or ``None``
    — nothing written — when it reaches past the figure's canvas.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    path : str or path-like
        The PNG to write.
    dpi : float
    pad_inches : float

    Returns
    -------
    matplotlib.transforms.Bbox or None

    Examples
    --------
    A legend far outside the axes is past the canvas: declined, savefig's to write.

    >>> import matplotlib; matplotlib.use("Agg")
    >>> import os, tempfile
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(figsize=(3, 2))
    >>> _ = ax.plot([0, 1], label="far"); _ = ax.legend(bbox_to_anchor=(3.0, 1.0))
    >>> path = os.path.join(tempfile.mkdtemp(), "b.png")
    >>> write_tight_png(fig, path) is None, os.path.exists(path)
    (True, False)
    >>> plt.close(fig)
    """
    import matplotlib as mpl
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.transforms import Bbox

    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else None
    if canvas is None:           # another backend's canvas (a notebook's): draw on an Agg one
        return None
    old_dpi = fig.dpi
    try:
        fig.dpi = dpi
        canvas.draw()
        box = fig.get_tightbbox(canvas.get_renderer()).padded(pad_inches)     # inches
        width, height = canvas.get_width_height()
        x0, x1 = math.floor(box.x0 * dpi), math.ceil(box.x1 * dpi)
        y0, y1 = math.floor(box.y0 * dpi), math.ceil(box.y1 * dpi)              # from the bottom
        if x0 < 0 or y0 < 0 or x1 > width or y1 > height:
            return None
        rgba = np.asarray(canvas.buffer_rgba())[height - y1: height - y0, x0:x1]
        with atomic_path(path) as tmp:
            mpl.image.imsave(tmp, rgba, format="png", origin="upper", dpi=dpi)
        return Bbox([[x0, y0], [x1, y1]])
    finally:
        fig.dpi = old_dpi
