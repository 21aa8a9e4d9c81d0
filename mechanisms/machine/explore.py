"""Pose a machine by hand in a notebook: sliders, the machine redrawn, what holds it there.

:class:`Explorer` (``machine.explore()``) gives one slider per function, each within its
cylinder's stroke. Moving one follows the pose from the current one along the straight
path in length space (:meth:`Machine.pose_at_lengths
<mechanisms.machine.Machine.pose_at_lengths>`: the branch the cylinders reach by moving,
never the loop's mirror image) and shows:

* the machine redrawn at that pose (:func:`mechanisms.display.draw_pose`);
* the output points' coordinates;
* the cylinder forces that hold the pose at rest, read from the machine's bond graph
  (:class:`~mechanisms.analysis.statics.FrontStatics`: the efforts on the drive bonds
  with every rate zero), and the chamber pressure each needs, the other side at zero
  (the ``*_pressure_required`` read-outs of a run);
* the margin to each stroke end, and of the lowest point to the ground;
* a button **use as start pose** that writes the pose into the machine's ``[start]``
  (cylinder lengths, and every part's angle as the ``guess`` that keeps the assembly
  branch): :meth:`Machine.save <mechanisms.machine.Machine.save>` then writes it to a file.

The widgets come from ipywidgets, an optional dependency imported only here; without it
:func:`Explorer` raises a :class:`~bondgraph.errors.ParameterError` saying what to install.
Executed without a browser (``nbconvert``, the tests) a widget renders nothing, so an
explorer's display also carries a static HTML snapshot (table and drawing) that shows
wherever the widget cannot.

Examples
--------
>>> from mechanisms.machine import Machine, DATA
>>> ex = Machine.from_file(DATA / "knuckle_crane.toml", mode="forces").explore()
>>> ex.sliders["lift"].value = ex.sliders["lift"].max - 0.05
>>> round(ex.margins()["lift"][1], 9)                    # 5 cm short of full extension
0.05
>>> ex.forces()["lift"] > 0                                # the lift cylinder pushes
True
"""

from __future__ import annotations

import math
from typing import Any

from bondgraph.errors import AssemblyError, ParameterError

__all__ = ["Explorer", "ipywidgets_or_error"]

#: slider positions over a stroke
SLIDER_STEPS = 1000


def ipywidgets_or_error(what: str):
    """The ipywidgets module, or a :class:`~bondgraph.errors.ParameterError` naming what to install.

    Parameters
    ----------
    what : str
        What needs it (said in the message).

    Returns
    -------
    module

    Raises
    ------
    ParameterError
        ipywidgets is not installed.

    Examples
    --------
    >>> ipywidgets_or_error("Machine.explore").__name__
    'ipywidgets'
    """
    try:
        import ipywidgets
    except ImportError:
        raise ParameterError(f"{what} needs the 'ipywidgets' package (sliders in a notebook), which is not "
                             "installed; expected it importable: pip install ipywidgets (or pip install "
                             "'hydrobond[notebooks]')") from None
    return ipywidgets


class Explorer:
    """A machine posed by hand: sliders, drawing, holding forces, margins, start-pose button.

    Made by :meth:`Machine.explore <mechanisms.machine.Machine.explore>` (and
    :meth:`Mechanism.explore <mechanisms.Mechanism.explore>`). In a notebook its display is
    the widget; without a widget manager, a static snapshot of the same table and drawing.

    Parameters
    ----------
    machine : Machine

    Attributes
    ----------
    machine : Machine
    pose : Pose
        The current pose (starts at the machine's start pose).
    sliders : dict
        Function → ``ipywidgets.FloatSlider`` (pin-to-pin length, m, within the stroke).
    button : ipywidgets.Button
        **use as start pose** (:meth:`use_as_start`).
    drawing, table, status : ipywidgets.HTML
        The drawing (SVG), the table of the pose and what holds it, a line saying what
        the last move did (a length that cannot be reached is said here, the pose kept).
    widget : ipywidgets.VBox
        All of it.

    Raises
    ------
    ParameterError
        ipywidgets is not installed.

    Examples
    --------
    >>> from mechanisms.machine import Machine, DATA
    >>> m = Machine.from_file(DATA / "excavator.toml", mode="extensions")
    >>> ex = Explorer(m)
    >>> ex.sliders["arm"].value = 2.5
    >>> round(ex.pose.length("arm_cylinder"), 9), sorted(ex.forces())
    (2.5, ['arm', 'boom', 'bucket'])
    """

    def __init__(self, machine):
        w = ipywidgets_or_error("Machine.explore")
        self.machine = machine
        self.pose = machine.start_pose
        self._statics = None
        desc = machine.description
        self.sliders: dict[str, Any] = {}
        for f in desc.functions:
            lo, hi = desc.stroke_limits(f)
            s = w.FloatSlider(value=self.pose.length(desc.cylinder_of[f]), min=lo, max=hi,
                              step=(hi - lo) / SLIDER_STEPS, description=f, readout_format=".3f",
                              continuous_update=False, layout=w.Layout(width="420px"),
                              style={"description_width": "90px"})
            s.observe(self._moved, names="value")
            self.sliders[f] = s
        self.button = w.Button(description="use as start pose", icon="thumb-tack",
                               tooltip="write these cylinder lengths into the machine's [start]")
        self.button.on_click(lambda _b: self.use_as_start())
        self.status = w.HTML(value="")
        self.drawing = w.HTML(value="")
        self.table = w.HTML(value="")
        units = w.HTML(value="<small>pin-to-pin lengths [m]</small>")
        self.widget = w.VBox([w.HBox([w.VBox([units, *self.sliders.values(), self.button, self.status]),
                                      self.table]), self.drawing])
        self._syncing = False
        self.refresh()

    # ------------------------------------------------------------------ statics
    @property
    def statics(self):
        """The machine's :class:`~mechanisms.analysis.statics.FrontStatics` (built for mode
        extensions once, whatever the machine's own mode)."""
        if self._statics is None:
            from ..analysis.statics import FrontStatics

            m = self.machine
            if m.mode != "extensions" or m.formulation != "causal":
                m = m.with_mode("extensions", formulation="causal")
            self._statics = FrontStatics(m)
        return self._statics

    def lengths(self) -> dict[str, float]:
        """Function → pin-to-pin length (m) of its cylinder at the current pose.

        Returns
        -------
        dict
        """
        desc = self.machine.description
        return {f: self.pose.length(desc.cylinder_of[f]) for f in desc.functions}

    def forces(self) -> dict[str, float]:
        """Function → the cylinder force that holds the current pose at rest (N, + pushing).

        Returns
        -------
        dict
        """
        st = self.statics
        X = st.model.initial_state(self.pose.states())[None, :]
        res = st.evaluate(X)
        return {f: float(v[0]) for f, v in res.holding.items()}

    def pressures(self, forces: dict[str, float] | None = None) -> dict[str, tuple[float, float]]:
        """Function → ``(cap, rod)`` chamber pressure (Pa, gauge) that holds the pose, the other
        side at zero: a pushing force on the cap side, a pulling one on the rod side.

        Parameters
        ----------
        forces : dict, optional
            The holding forces (default :meth:`forces`).

        Returns
        -------
        dict
        """
        desc = self.machine.description
        out = {}
        for f, F in (self.forces() if forces is None else forces).items():
            a_cap, a_rod = desc.areas(f)
            out[f] = (F / a_cap if F > 0 else 0.0, -F / a_rod if F < 0 else 0.0)
        return out

    def margins(self) -> dict[str, tuple[float, float]]:
        """Function → ``(to the retracted end, to the extended end)`` (m, ≥ 0 inside the stroke);
        and, when the machine has a ground level, ``"ground"`` → ``(lowest point's height
        above the ground, its x)`` (m).

        Returns
        -------
        dict
        """
        desc = self.machine.description
        out: dict[str, tuple[float, float]] = {}
        for f, L in self.lengths().items():
            lo, hi = desc.stroke_limits(f)
            out[f] = (L - lo, hi - L)
        if desc.ground is not None:
            pts = self.pose.points()
            x, y = min(pts.values(), key=lambda p: p[1])
            out["ground"] = (y - desc.ground, x)
        return out

    # ------------------------------------------------------------------ moving
    def _moved(self, change) -> None:
        if self._syncing:
            return
        self.move({f: s.value for f, s in self.sliders.items()})

    def move(self, lengths: dict[str, float]) -> bool:
        """Go to the pose at these cylinder lengths (function → m), followed from the current
        one; redraw. A pose that cannot be reached keeps the current one, says why in
        :attr:`status` and puts the sliders back.

        Parameters
        ----------
        lengths : dict
            Some or all functions.

        Returns
        -------
        bool
            Whether the pose changed.

        Raises
        ------
        ParameterError
            A name that is not a function of the machine.
        """
        desc = self.machine.description
        bad = [f"{f!r}: not a function of {desc.name!r} ({', '.join(desc.functions)})"
               for f in lengths if f not in desc.functions]
        if bad:
            raise ParameterError(bad, subject="Explorer.move")
        target = {**self.lengths(), **{f: float(v) for f, v in lengths.items()}}
        try:
            pose = self.machine.pose_at_lengths(target, near=self.pose)
        except (AssemblyError, ParameterError) as exc:
            self.status.value = f'<span style="color:#b00020">{_esc(str(exc))}</span>'
            self._sync_sliders()
            return False
        self.pose = pose
        self.status.value = ""
        self._sync_sliders()
        self.refresh()
        return True

    def _sync_sliders(self) -> None:
        self._syncing = True
        try:
            for f, L in self.lengths().items():
                if abs(self.sliders[f].value - L) > 1e-12:
                    self.sliders[f].value = L
        finally:
            self._syncing = False

    # ------------------------------------------------------------------ showing
    def rows(self) -> list[tuple[str, str, str]]:
        """The table: output points, then per function its length, stroke margins, holding
        force and pressure, then the ground margin.

        Returns
        -------
        list of (str, str, str)
        """
        desc = self.machine.description
        pts = self.pose.points()
        rows = []
        for name, (part, point) in desc.output_points.items():
            x, y = pts[f"{part}/{point}"]
            rows += [(f"{name} x", f"{x:.3f}", "m"), (f"{name} y", f"{y:.3f}", "m")]
        forces = self.forces()
        pressures, margins = self.pressures(forces), self.margins()
        for f, L in self.lengths().items():
            cap, rod = pressures[f]
            lo, hi = margins[f]
            side, p = ("cap", cap) if forces[f] >= 0 else ("rod", rod)
            rows += [(f"{f} length", f"{L:.3f}", "m"),
                     (f"{f} margin to retracted / extended end", f"{lo:.3f} / {hi:.3f}", "m"),
                     (f"{f} holding force (+ pushing)", f"{forces[f] / 1e3:.2f}", "kN"),
                     (f"{f} holding pressure, {side} side", f"{p / 1e5:.1f}", "bar")]
        if "ground" in margins:
            h, x = margins["ground"]
            rows.append(("lowest point above the ground", f"{h:.3f} (at x = {x:.2f} m)", "m"))
        return rows

    def refresh(self) -> None:
        """Redraw the drawing and the table at the current pose."""
        from bondgraph.display import figure_svg, html_table

        from ..display import draw_pose

        self.table.value = html_table(self.rows(), ("at this pose", "value", "unit"))
        ax = draw_pose(self.pose, title=f"{self.machine.name}: posed by hand")
        self.drawing.value = figure_svg(ax.figure)

    def html(self) -> str:
        """The static snapshot: the table and the drawing as HTML.

        Returns
        -------
        str
        """
        return (f'<div style="display:flex;gap:12px;align-items:flex-start"><div>{self.drawing.value}</div>'
                f"<div>{self.table.value}</div></div>")

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = dict(self.widget._repr_mimebundle_(include=include, exclude=exclude) or {})
        bundle["text/html"] = self.html()
        bundle["text/plain"] = repr(self)
        return bundle

    def __repr__(self) -> str:
        lengths = ", ".join(f"{f} {L:.3f} m" for f, L in self.lengths().items())
        return f"Explorer({self.machine.name!r}: {lengths})"

    # ------------------------------------------------------------------ start pose
    def use_as_start(self) -> dict[str, Any]:
        """Make the current pose the machine's start pose: ``[start]`` becomes the functions'
        cylinder lengths with every rigid part's angle as ``guess`` (the assembly branch), the
        machine's description and start pose are replaced (no rebuild: the start pose is not
        in the equations). Returns the new ``[start]`` table (values with units).

        Returns
        -------
        dict

        Raises
        ------
        AssemblyError
            The new start pose outside a stroke or a ``[limits]`` range.
        """
        from .machine import check_pose, start_pose_of

        m = self.machine
        desc = m.description
        start: dict[str, Any] = {desc.cylinder_of[f]: f"{L!r} m" for f, L in self.lengths().items()}
        start["guess"] = {n: f"{math.degrees(self.pose.angle(n))!r} deg" for n, p in desc.parts.items()
                          if p.type != "cylinder"}
        new = desc.with_sections(start=start)
        pose = start_pose_of(new, m.mechanism)
        check_pose(new, pose, f"start pose of {new.file.name}")
        m.description = new
        m.mechanism.description = new
        m.start_pose = pose
        m._branches = None
        self.pose = pose
        self.status.value = "written into the machine's [start]: Machine.save(path) writes it to a file"
        self.refresh()
        return start


def _esc(text: str) -> str:
    import html

    return html.escape(text).replace("\n", "<br>")

