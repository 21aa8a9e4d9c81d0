"""Plots of an excavator run: tip path with postures, time series, animation, bond graph.

All functions return matplotlib figures (and save them when given a path), so a
notebook shows them and the CLI writes them.

Examples
--------
>>> import matplotlib; matplotlib.use("Agg")
>>> from mechanisms.excavator import Excavator, Cycle
>>> run = Excavator(mode="extensions").run(Cycle.default("extensions"), t_end=0.2, progress=False)
>>> fig = plot_trajectory(run)
>>> len(fig.axes)
1
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["plot_trajectory", "plot_timeseries", "animate", "plot_bond_graph", "posture_lines"]

GROUND_Y = -1.70  # the frame origin is 1.70 m above ground (EXCAVATOR.md section B)


def posture_lines(run, i: int) -> list[list[tuple[float, float]]]:
    """Line sketches of every part at sample ``i`` of a run."""
    exc = run.excavator
    mm = exc.model
    pos = run.positions()
    lines = []
    for name, part in exc.mechanism.parts.items():
        root = pos[f"{name}/{part.root.name}"]
        coords = {c: v[i] for c, v in mm.coordinates(run.results, name).items()}
        pose = part.pose_from_states((root[0][i], root[1][i]), coords)
        lines += part.sketch(pose)
    return lines


def _draw_posture(ax, run, i, **kw):
    for line in posture_lines(run, i):
        xs, ys = zip(*line)
        ax.plot(xs, ys, **kw)


def plot_trajectory(run, path: str | Path | None = None, ax=None):
    """Bucket-tip path in the x–y plane with the initial and final postures (paper Fig. 8–9)."""
    import matplotlib.pyplot as plt

    if ax is None:
        fig, ax = plt.subplots(figsize=(8, 6))
    else:
        fig = ax.figure
    tab = run.table()
    _draw_posture(ax, run, 0, color="0.25", lw=2, solid_capstyle="round")
    _draw_posture(ax, run, -1, color="tab:blue", lw=2, solid_capstyle="round")
    ax.plot([], [], color="0.25", lw=2, label=f"posture at t = {run.t[0]:.1f} s")
    ax.plot([], [], color="tab:blue", lw=2, label=f"posture at t = {run.t[-1]:.1f} s")
    ax.plot(tab["tip_x"], tab["tip_y"], color="tab:red", lw=1.6, label="bucket tip Q")
    ax.plot(tab["tip_x"][0], tab["tip_y"][0], "o", color="tab:red")
    xs = np.concatenate([tab["tip_x"], [-1.0]])
    ax.axhline(GROUND_Y, color="saddlebrown", lw=1, ls="--", label="ground")
    ax.set_xlim(min(xs.min(), -1.0) - 0.5, xs.max() + 0.8)
    ax.set_aspect("equal")
    ax.set_xlabel("x [m] (forward)")
    ax.set_ylabel("y [m] (up, origin 1.70 m above ground)")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower left", fontsize="small")
    ax.set_title(f"{run.cycle.mode} cycle: bucket-tip trajectory")
    fig.tight_layout()
    if path:
        fig.savefig(path, dpi=120)
    return fig


def plot_timeseries(run, path: str | Path | None = None):
    """Cylinder lengths, pressures (or required pressures) and forces against time."""
    import matplotlib.pyplot as plt

    tab = run.table()
    t = tab["time"]
    fig, axes = plt.subplots(3, 1, figsize=(8, 8), sharex=True)
    for f in ("boom", "arm", "bucket"):
        axes[0].plot(t, tab[f"{f}_length"], label=f)
        axes[2].plot(t, tab[f"{f}_force"] / 1e3, label=f)
    pressures = [k for k in tab if "pressure" in k]
    for k in pressures:
        axes[1].plot(t, tab[k] / 1e5, label=k.replace("_pressure", "").replace("_", " "))
    axes[0].set_ylabel("pin-to-pin length [m]")
    axes[1].set_ylabel("pressure [bar]")
    axes[2].set_ylabel("cylinder force [kN]\n(total, + pushing)")
    axes[2].set_xlabel("time [s]")
    for ax in axes:
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="x-small", ncol=3)
    fig.tight_layout()
    if path:
        fig.savefig(path, dpi=120)
    return fig


def animate(run, path: str | Path, fps: int = 15, stride: int | None = None):
    """A GIF of the cycle (Pillow)."""
    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation, PillowWriter

    tab = run.table()
    n = len(run.t)
    stride = stride or max(1, int(round(n / (fps * max(run.t[-1] - run.t[0], 1e-9)))))
    frames = list(range(0, n, stride))
    fig, ax = plt.subplots(figsize=(6, 4.5))
    ax.set_aspect("equal")
    ax.set_xlim(min(tab["tip_x"].min(), -1.0) - 0.5, tab["tip_x"].max() + 0.8)
    ax.set_ylim(GROUND_Y - 1.2, max(tab["tip_y"].max(), 3.0) + 1.0)
    ax.axhline(GROUND_Y, color="saddlebrown", lw=1, ls="--")
    ax.grid(True, alpha=0.3)
    path_line, = ax.plot([], [], color="tab:red", lw=1.2)
    parts = [ax.plot([], [], color="0.2", lw=2)[0] for _ in posture_lines(run, 0)]
    title = ax.set_title("")

    def update(k):
        i = frames[k]
        for ln, seg in zip(parts, posture_lines(run, i)):
            xs, ys = zip(*seg)
            ln.set_data(xs, ys)
        path_line.set_data(tab["tip_x"][: i + 1], tab["tip_y"][: i + 1])
        title.set_text(f"t = {run.t[i]:.2f} s")
        return parts + [path_line, title]

    anim = FuncAnimation(fig, update, frames=len(frames), blit=False)
    anim.save(str(path), writer=PillowWriter(fps=fps))
    plt.close(fig)
    return Path(path)


def plot_bond_graph(exc, path: str | Path | None = None, full_path: str | Path | None = None):
    """The machine's bond graph: the part-level causal diagram (readable at this size) and,
    when ``full_path`` is given, every element clustered where its part sits."""
    from ..drawing import draw_causal_diagram, draw_full_graph

    ax = draw_causal_diagram(exc.model)
    if path:
        ax.figure.savefig(path, dpi=120)
    if full_path:
        fax = draw_full_graph(exc.model, exc.pose())
        fax.figure.savefig(full_path, dpi=110)
    return ax.figure
