"""Plots of a machine run: postures and output paths, time series, animation, bond graph.

Every function returns its matplotlib figure (and writes it, atomically, when given
a path), so a notebook shows it and the CLI saves it.

:func:`animate` draws the static background once and blits only the moving
artists on each frame, quantises every frame to *one* palette built from a frame
that holds the whole output path (so the path keeps its colour), shows a progress
bar, and writes the GIF atomically (an interrupted write leaves no file).

Examples
--------
>>> import matplotlib; matplotlib.use("Agg")
>>> from mechanisms.machine import Machine, DATA
>>> run = Machine.from_file(DATA / "excavator.toml", mode="extensions").run(t_end=0.2, progress=False)
>>> len(plot_trajectory(run).axes), len(plot_timeseries(run).axes)
(1, 3)
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .files import atomic_path

__all__ = ["plot_trajectory", "plot_timeseries", "animate", "plot_bond_graph", "posture_lines",
           "plot_compare", "save_figure", "write_full_bond_graph", "write_bond_graph"]

_PATH_COLOURS = ("tab:red", "tab:purple", "tab:green", "tab:orange")
#: the causal diagram's figure size (inch) and resolution (dpi) as plot_bond_graph writes it
_DIAGRAM_SIZE, _DIAGRAM_DPI = (12, 7), 120


def _check_run(run, what: str) -> None:
    """A machine run, or a named error saying what was given and how to draw it."""
    if hasattr(run, "machine") and hasattr(run, "table"):
        return
    from bondgraph.errors import ParameterError

    hint = ("a Results of a MechanismModel run: draw it with MechanismModel.plot_trajectory(res), or make "
            "the mechanism a machine (Machine.from_mechanism(mechanism, start=...)) whose runs every plot takes"
            if type(run).__name__.endswith("Results") else "expected a machine run (Machine.run(...))")
    raise ParameterError(f"{what}: got {type(run).__name__}; {hint}")


def save_figure(fig, path: str | Path | None, dpi: int = 120, *, draw_once: bool = False):
    """Write ``fig`` atomically when a path is given (format from the suffix); return it.

    The image is cut to what the figure draws (``bbox_inches="tight"``), so a legend or a
    title outside the axes is in the file, never clipped at the figure's edge. With
    ``draw_once``, a PNG whose drawing lies inside the figure is drawn once and cut out of
    the canvas (:func:`.tightpng.write_tight_png`; savefig draws twice); any other file,
    or a drawing past the figure's edge, is savefig's.
    """
    if path:
        if draw_once and (Path(path).suffix.lower() or ".png") == ".png":
            from .tightpng import write_tight_png

            if write_tight_png(fig, path, dpi=dpi, pad_inches=0.1) is not None:
                return fig
        with atomic_path(path) as tmp:
            fig.savefig(tmp, dpi=dpi, format=Path(path).suffix.lstrip(".") or "png", bbox_inches="tight",
                        pad_inches=0.1)
    return fig


_save = save_figure


def _legend_outside(ax, **kw):
    """A legend right of the axes, top-aligned: it never hides the curves."""
    return ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, **kw)


def _poses(run):
    """Pose arrays of every part along the run (``name → pose tuple of arrays``)."""
    from .energy import _part_poses

    if not hasattr(run, "_poses"):
        run._poses = _part_poses(run.machine, run.results)
    return run._poses


def posture_lines(run, i: int) -> list[list[tuple[float, float]]]:
    """Line sketches of every part at sample ``i`` of a run."""
    poses = _poses(run)
    lines = []
    for name, part in run.machine.mechanism.parts.items():
        pose = tuple(float(np.asarray(v)[i]) for v in poses[name])
        lines += part.sketch(pose)
    return lines


def _extent(run):
    pos = run.positions()
    xs = np.concatenate([v[0] for v in pos.values()])
    ys = np.concatenate([v[1] for v in pos.values()])
    g = run.machine.description.ground
    lo_y = min(float(ys.min()), g if g is not None else float(ys.min()))
    pad = 0.08 * max(float(np.ptp(xs)), float(ys.max() - lo_y), 1e-3)
    return (float(xs.min()) - pad, float(xs.max()) + pad), (lo_y - pad, float(ys.max()) + pad)


def plot_trajectory(run, path: str | Path | None = None, ax=None):
    """Output-point paths in the machine's plane with the first and last postures."""
    import matplotlib.pyplot as plt

    _check_run(run, "plot_trajectory")
    desc = run.machine.description
    if ax is None:
        fig, ax = plt.subplots(figsize=(8, 6))
    else:
        fig = ax.figure
    tab = run.table()
    for i, colour, label in ((0, "0.25", f"posture at t = {run.t[0]:.2f} s"),
                             (-1, "tab:blue", f"posture at t = {run.t[-1]:.2f} s")):
        for k, line in enumerate(posture_lines(run, i)):
            xs, ys = zip(*line)
            ax.plot(xs, ys, color=colour, lw=2, solid_capstyle="round", label=label if k == 0 else None)
    for (name, _), colour in zip(desc.output_points.items(), _PATH_COLOURS):
        ax.plot(tab[f"{name}_x"], tab[f"{name}_y"], color=colour, lw=1.6, label=f"{name} path")
        ax.plot(tab[f"{name}_x"][0], tab[f"{name}_y"][0], "o", color=colour)
    for c in run.contacts:
        for name, _ in list(desc.output_points.items())[:1]:
            k = int(np.argmin(np.abs(run.t - c.start)))
            ax.plot(tab[f"{name}_x"][k], tab[f"{name}_y"][k], "x", color="k", ms=8)
    if desc.ground is not None:
        ax.axhline(desc.ground, color="saddlebrown", lw=1, ls="--", label="ground")
    (x0, x1), (y0, y1) = _extent(run)
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.grid(True, alpha=0.3)
    _legend_outside(ax, fontsize="small")
    ax.set_title(f"{desc.name}: {run.mode} cycle {run.cycle.source}")
    fig.tight_layout()
    return _save(fig, path, draw_once=True)


def plot_timeseries(run, path: str | Path | None = None):
    """Cylinder lengths (with the stroke ends), pressures, forces against time."""
    import matplotlib.pyplot as plt

    _check_run(run, "plot_timeseries")
    desc = run.machine.description
    tab = run.table()
    t = tab["time"]
    fig, axes = plt.subplots(3, 1, figsize=(9, 8), sharex=True)
    ends = []
    for f in desc.functions:
        line, = axes[0].plot(t, tab[f"{f}_length"], label=f)
        for lim in desc.stroke_limits(f):
            axes[0].axhline(lim, color=line.get_color(), ls=":", lw=0.8)
            ends.append(lim)
        ends += [float(np.nanmin(tab[f"{f}_length"])), float(np.nanmax(tab[f"{f}_length"]))]
        axes[2].plot(t, tab[f"{f}_force"] / 1e3, label=f)
    if ends:                    # every stroke end in view: how close each function came to it
        lo, hi = min(ends), max(ends)
        pad = 0.04 * (hi - lo or 1.0)
        axes[0].set_ylim(lo - pad, hi + pad)
    for k in [k for k in tab if k.endswith("_pressure") or k.endswith("_pressure_required")]:
        axes[1].plot(t, tab[k] / 1e5, label=k.replace("_pressure", "").replace("_", " "), lw=1)
    circ = run.machine.circuit
    if circ is not None and circ.relief_pressure:
        axes[1].axhline(circ.relief_pressure / 1e5, color="k", ls=":", lw=0.8, label="relief setting")
    axes[0].set_ylabel("pin-to-pin length [m]\n(dotted: stroke ends)")
    axes[1].set_ylabel("pressure [bar]" if run.mode == "valves" else "pressure needed [bar]")
    axes[2].set_ylabel("cylinder force [kN]\n(total, + pushing)")
    axes[2].set_xlabel("time [s]")
    for ax in axes:
        ax.grid(True, alpha=0.3)
        _legend_outside(ax, fontsize="x-small")
    fig.tight_layout()
    return _save(fig, path, draw_once=True)


def _frame_figure(run, dpi: float = 80):
    """The animation's figure: the static background (ground, axes labelled in m, title)
    and the moving artists, still empty: ``(fig, ax, part_lines, path_lines, clock)``."""
    import matplotlib.pyplot as plt

    _check_run(run, "animate")
    desc = run.machine.description
    fig = plt.figure(figsize=(6, 4.5), dpi=dpi)
    ax = fig.add_subplot()
    (x0, x1), (y0, y1) = _extent(run)
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("equal")
    ax.grid(True, alpha=0.3)
    if desc.ground is not None:
        ax.axhline(desc.ground, color="saddlebrown", lw=1, ls="--")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_title(f"{desc.name}: {run.mode}", fontsize=9)
    # every part's sketch in one line, its pieces apart by NaN breaks: one path per frame
    parts = [ax.plot([], [], color="0.2", lw=2, animated=True)[0]]
    paths = [(name, ax.plot([], [], color=c, lw=1.2, animated=True)[0])
             for (name, _), c in zip(desc.output_points.items(), _PATH_COLOURS)]
    clock = ax.text(0.02, 0.96, "", transform=ax.transAxes, va="top", fontsize=8, animated=True)
    fig.tight_layout()
    return fig, ax, parts, paths, clock


def _joined(lines: list[list[tuple[float, float]]]) -> tuple[np.ndarray, np.ndarray]:
    """Line sketches as one polyline, NaN between pieces (``(xs, ys)``)."""
    pts = []
    for seg in lines:
        if pts:
            pts.append((np.nan, np.nan))
        pts += seg
    arr = np.asarray(pts, dtype=float).reshape(-1, 2)
    return arr[:, 0], arr[:, 1]


def _clock_writer(fig, clock):
    """Draw the clock's text straight onto a frame image (PIL, the clock artist's font,
    size and place): a frame then renders no matplotlib text. ``write(image, text)``."""
    from matplotlib import font_manager
    from PIL import ImageDraw, ImageFont

    size_px = clock.get_fontsize() * fig.dpi / 72.0
    try:
        font = ImageFont.truetype(font_manager.findfont(clock.get_fontproperties()), size=round(size_px))
    except (OSError, ImportError):     # a Pillow without FreeType: its own font
        font = ImageFont.load_default()
    x, y = clock.get_transform().transform(clock.get_position())
    top = fig.bbox.height - y            # PIL counts rows from the top, matplotlib from the bottom

    def write(image, text: str) -> None:
        ImageDraw.Draw(image).text((x, top), text, fill=(0, 0, 0), font=font, anchor="la")

    return write


def animate(run, path: str | Path, fps: int = 15, *, dpi: int = 80, progress: bool = True):
    """A GIF of the run: postures and the growing output paths (Pillow, one palette)."""
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    tab = run.table()
    n = len(run.t)
    span = max(float(run.t[-1] - run.t[0]), 1e-9)
    frames = np.unique(np.linspace(0, n - 1, max(2, int(round(span * fps)) + 1)).astype(int))
    fig, ax, parts, paths, clock = _frame_figure(run, dpi)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    background = canvas.copy_from_bbox(fig.bbox)
    state = {"bg": background, "last": 0}
    write_clock = _clock_writer(fig, clock)
    path_xy = [(ln, np.asarray(tab[f"{name}_x"]), np.asarray(tab[f"{name}_y"])) for name, ln in paths]

    def render(i: int, *, whole_path: bool = False):
        # the paths grow on a cached background: each frame draws only its new piece
        canvas.restore_region(background if whole_path else state["bg"])
        a = 0 if whole_path else state["last"]
        for ln, xs, ys in path_xy:
            ln.set_data(xs[a: i + 1], ys[a: i + 1])
            ax.draw_artist(ln)
        if not whole_path:
            state["bg"], state["last"] = canvas.copy_from_bbox(fig.bbox), i
        parts[0].set_data(*_joined(posture_lines(run, i)))
        ax.draw_artist(parts[0])
        w, h = canvas.get_width_height()
        image = Image.frombuffer("RGBA", (w, h), canvas.buffer_rgba(), "raw", "RGBA", 0, 1).convert("RGB")
        write_clock(image, f"t = {run.t[i]:.2f} s")
        return image

    # one palette from a frame that holds the whole path and a posture
    palette = render(frames[-1], whole_path=True).quantize(colors=96, method=Image.Quantize.MEDIANCUT)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(frames), desc="animation", unit="frame", leave=False, delay=0.5)
    images = []
    try:
        for i in frames:
            images.append(render(int(i)).quantize(palette=palette, dither=Image.Dither.NONE))
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
        plt.close(fig)
    with atomic_path(path) as tmp:
        images[0].save(tmp, format="GIF", save_all=True, append_images=images[1:], optimize=False,
                       palette=bytes(palette.getpalette()),   # the global table: no local ones
                       duration=int(round(1000 / fps)), loop=0)
    return Path(path)


def write_full_bond_graph(machine, path: str | Path) -> list[Path]:
    """Every element of the machine's bond graph, one page per part and one for the
    hydraulics (:func:`mechanisms.drawing.full_graph_pages`), written atomically.

    ``path`` ending in ``.pdf``: one multi-page PDF. Any other suffix (``.png``): one image
    per page beside it, ``<stem>_<page><suffix>`` (``bond_graph_full_boom.png``...), and
    at ``path`` itself a contents sheet naming the pages. Returns the files written.
    """
    import matplotlib.pyplot as plt

    from ..drawing import full_graph_pages

    path = Path(path)
    model = machine.model
    pages = full_graph_pages(model)
    written: list[Path] = []
    try:
        if path.suffix.lower() == ".pdf":
            from matplotlib.backends.backend_pdf import PdfPages

            with atomic_path(path) as tmp:
                with PdfPages(tmp) as pdf:
                    for page in pages:
                        pdf.savefig(page.figure)
                        info = pdf.infodict()
                        info["Title"] = f"bond graph of {model.mechanism.name}, one page per part"
            return [path]
        g = model.model.graph
        rows = []
        for page in pages:
            out = path.with_name(f"{path.stem}_{page.name}{path.suffix}")
            save_figure(page.figure, out, dpi=110)
            written.append(out)
            rows.append(f"{out.name}: {page.title.split(': ', 1)[1].split(';')[0]}")
        fig = plt.figure(figsize=(8.5, 1.0 + 0.22 * len(rows)))
        fig.text(0.02, 0.98, f"bond graph of {model.mechanism.name}: {g.number_of_nodes()} elements, "
                 f"{g.number_of_edges()} bonds, one page per part and one for the hydraulics", fontsize=10,
                 va="top", fontweight="bold")
        fig.text(0.02, 0.98 - 0.35 / fig.get_size_inches()[1], "\n".join(rows), fontsize=8, va="top",
                 linespacing=1.5)
        save_figure(fig, path, dpi=110)
        plt.close(fig)
        return [path] + written
    finally:
        for page in pages:
            plt.close(page.figure)


def plot_bond_graph(machine, path: str | Path | None = None, full_path: str | Path | None = None):
    """The part-level causal diagram (and, with ``full_path``, every element, one page per
    part: :func:`write_full_bond_graph`)."""
    from ..drawing import draw_causal_diagram

    ax = draw_causal_diagram(machine.model, figsize=_DIAGRAM_SIZE)
    _save(ax.figure, path, dpi=_DIAGRAM_DPI)
    if full_path:
        write_full_bond_graph(machine, full_path)
    return ax.figure


def write_bond_graph(machine, path: str | Path, full_path: str | Path | None = None) -> list[Path]:
    """Write what :func:`plot_bond_graph` writes (the part-level causal diagram at ``path``,
    every element at ``full_path``), the diagram as a PNG kept from an earlier run of the
    same machine when there is one (:mod:`.keptfigures`: the same bytes, not drawn
    again). Returns the files written.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import os, tempfile
    >>> from mechanisms.machine import Machine, DATA
    >>> m = Machine.from_file(DATA / "knuckle_crane.toml", mode="forces")
    >>> d = tempfile.mkdtemp()
    >>> [p.name for p in write_bond_graph(m, os.path.join(d, "bond_graph.png"))]
    ['bond_graph.png']
    """
    import matplotlib.pyplot as plt

    from ..drawing import causal_scene
    from .keptfigures import figure_key, write_kept_png

    path = Path(path)
    model = machine.model
    if path.suffix.lower() == ".png":
        key = figure_key(causal_scene(model).describe(), size=_DIAGRAM_SIZE, dpi=_DIAGRAM_DPI,
                         bbox_inches="tight", pad_inches=0.1)

        def draw(p: Path) -> None:
            plt.close(plot_bond_graph(machine, p))
        write_kept_png(key, path, draw)
    else:                  # a PDF or SVG carries its date: drawn every time
        plt.close(plot_bond_graph(machine, path))
    return [path] + (write_full_bond_graph(machine, full_path) if full_path else [])


def plot_compare(runs: dict, path: str | Path | None = None):
    """Overlay runs read from CSV (``name → (columns, units)``): output paths and lengths."""
    import matplotlib.pyplot as plt

    from .table import output_point_names

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 5))
    for (name, (cols, _units)), ls in zip(runs.items(), ("-", "--", ":", "-.")):
        for p in output_point_names(cols)[:3]:
            a1.plot(cols[f"{p}_x"], cols[f"{p}_y"], ls, label=f"{name}: {p}")
        for k in [k for k in cols if k.endswith("_length")]:
            a2.plot(cols["time"], cols[k], ls, label=f"{name}: {k[:-7]}")
    a1.set_aspect("equal")
    a1.set_xlabel("x [m]")
    a1.set_ylabel("y [m]")
    a2.set_xlabel("time [s]")
    a2.set_ylabel("pin-to-pin length [m]")
    for a in (a1, a2):
        a.grid(True, alpha=0.3)
        a.legend(fontsize="x-small")
    fig.tight_layout()
    return _save(fig, path)
