"""Figures that depend only on the machine, kept as finished images between runs.

Some figures of a run depend on the machine alone, not on what it did: the part-level
causal diagram of its bond graph (``bond_graph.png``) is the same for every run of the
same machine file. Drawing it is a few tenths of a second of every ``hydrobond run``;
so the finished PNG is kept in the project's cache folder
(:func:`bondgraph.files.cache_dir`) under a key of everything the image is made from,
and the next run writes the kept bytes instead of drawing:

* what is drawn, every call the drawing makes with its exact numbers and texts
  (:meth:`mechanisms.drawing.Scene.describe`: the parts, the hinges, their port classes
  and causal strokes, the places and labels), and the figure's size, resolution and save
  options;
* the drawing code (the source of :mod:`mechanisms.drawing`,
  :mod:`mechanisms.machine.plots` and this module);
* what renders it: matplotlib's and Pillow's versions, zlib's, every ``rcParams`` value
  (a style or a font size set in a notebook), and the font files the text is drawn with.

An entry is used only if it was written for exactly this key (the whole key is stored
and compared, not only its hash) and holds a whole PNG (its signature and its end
chunk); anything else is a miss and the figure is drawn (and kept again). A cache that
cannot be read or written only costs the drawing.

Examples
--------
>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> key = figure_key(f"kept figures doc: a scene drawn into {d}", dpi=120)   # new each time
>>> drawn = []
>>> def draw(path):
...     drawn.append(path)
...     _ = open(path, "wb").write(_PNG_START + b"...pixels..." + _PNG_END)
>>> write_kept_png(key, os.path.join(d, "a.png"), draw), write_kept_png(key, os.path.join(d, "b.png"), draw)
('drawn', 'kept')
>>> len(drawn), open(os.path.join(d, "b.png"), "rb").read() == open(os.path.join(d, "a.png"), "rb").read()
(1, True)
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Callable

__all__ = ["figure_key", "kept_png_file", "write_kept_png"]

#: layout of an entry; a change makes every older entry a miss
_FORMAT = 1
#: the sources whose change makes every kept figure a miss
_SOURCES = ("mechanisms/drawing.py", "mechanisms/machine/plots.py", "mechanisms/machine/keptfigures.py")
_CODE: list[str] = []
_PNG_START = b"\x89PNG\r\n\x1a\n"
_PNG_END = b"IEND\xaeB`\x82"


def _code_hash() -> str:
    if not _CODE:
        root = Path(__file__).resolve().parents[2]
        h = hashlib.sha256()
        for f in _SOURCES:
            h.update((root / f).read_bytes())
        _CODE.append(h.hexdigest()[:16])
    return _CODE[0]


def _renderer() -> str:
    """matplotlib's, Pillow's and zlib's versions, the rcParams and the fonts of the text."""
    import zlib

    import matplotlib
    import PIL
    from matplotlib.font_manager import FontProperties, findfont

    rc = sorted((k, repr(v)) for k, v in matplotlib.rcParams.items()
                if k not in ("backend", "backend_fallback", "interactive"))   # where it shows, not what
    fonts = [findfont(FontProperties(weight=w)) for w in ("normal", "bold")]
    return repr((matplotlib.__version__, PIL.__version__, zlib.ZLIB_RUNTIME_VERSION, fonts, rc))


def figure_key(scene: str, **options) -> str:
    """The key a figure is kept under: what it draws (``scene``, exact text), how it is
    sized and saved (``options``), the drawing code and the renderer (see the module).

    Parameters
    ----------
    scene : str
        Everything the figure draws (:meth:`mechanisms.drawing.Scene.describe`).
    **options
        Its size, resolution, save options.

    Returns
    -------
    str

    Examples
    --------
    >>> import matplotlib
    >>> a = figure_key("scene", dpi=120)
    >>> a == figure_key("scene", dpi=120) != figure_key("scene", dpi=110) != figure_key("other", dpi=120)
    True
    >>> with matplotlib.rc_context({"font.size": 13}):
    ...     a != figure_key("scene", dpi=120)
    True
    """
    return (f"figure {_FORMAT}|{_code_hash()}|{_renderer()}|{sorted(options.items())!r}|{scene}")


def kept_png_file(key: str) -> Path:
    """The cache file of the PNG kept under ``key`` (it may not exist).

    Parameters
    ----------
    key : str

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> kept_png_file("a").name == kept_png_file("a").name != kept_png_file("b").name
    True
    """
    from bondgraph.kept import kept_file

    return kept_file("figure", key)


def _load(key: str) -> bytes | None:
    from bondgraph.kept import kept

    png = kept("figure", key)
    if isinstance(png, bytes) and png.startswith(_PNG_START) and png.endswith(_PNG_END):
        return png
    return None


def write_kept_png(key: str, path, draw: Callable[[Path], object]) -> str:
    """Write the PNG kept under ``key`` to ``path`` (atomically); without one, ``draw(path)``
    writes it and its bytes are kept. Returns ``"kept"`` or ``"drawn"``.

    Parameters
    ----------
    key : str
        :func:`figure_key` of the figure.
    path : str or path-like
        The PNG to write.
    draw : callable
        Draws the figure and writes it to the path it is given.

    Returns
    -------
    str

    Examples
    --------
    See the module.
    """
    from bondgraph.files import atomic_write
    from bondgraph.kept import keep

    path = Path(path)
    png = _load(key)
    if png is not None:
        atomic_write(path, png)
        return "kept"
    draw(path)
    keep("figure", key, path.read_bytes())
    return "drawn"
