"""Every shipped plot, drawn on the shipped machines, is fit for a report.

For every figure: each axes that shows data has an x and a y label that carries a unit
(``[bar]``, ``(kN)``...; a colour bar its label); no text — title, axis label, legend,
tick label, annotation — reaches outside the image the product writes (the figure is
saved with the product's own ``savefig`` options, recorded while it saves, and each
drawn text's extent is compared with the saved area); the full bond graph comes as one
page per part plus one for the hydraulics, every label at least 7 pt, no two element
labels on top of each other. Runs are short and grids small: the point is the drawing.
"""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text

from mechanisms.machine import DATA, Machine

MACHINES = ["excavator", "wheel_loader", "knuckle_crane", "excavator_mini"]
_GROUP = re.compile(r"\[([^\[\]]+)\]|\(([^()]+)\)")


# ---------------------------------------------------------------------------- the checks
def _is_unit(text: str) -> bool:
    text = text.strip()
    if text in ("%", "-", "1", "unit unknown"):
        return True
    from bondgraph.units import ureg

    try:
        ureg().parse_units(text.replace("·", "*").replace("³", "^3").replace("²", "^2"))
    except Exception:  # noqa: BLE001 - anything pint cannot read is not a unit
        return False
    return True


def has_unit(label: str) -> bool:
    """A label carries a unit in ``[...]`` or ``(...)`` that pint (or ``%``) reads."""
    return any(_is_unit(a or b) for a, b in _GROUP.findall(label))


def test_has_unit_tells_units_from_words():
    assert has_unit("pressure [bar]") and has_unit("force (kN)") and has_unit("flow [L/min]")
    assert has_unit("pin-to-pin length [m]\n(dotted: stroke ends)") and has_unit("share [%]")
    assert not has_unit("pressure") and not has_unit("length (dotted: stroke ends)")
    assert not has_unit("x [the frame]") and not has_unit("")


def _axis_labels_problems(fig: Figure, what: str) -> list[str]:
    problems = []
    for ax in fig.axes:
        if not ax.axison or not ax.get_visible():
            continue
        cbar = getattr(ax, "_colorbar", None)
        if cbar is not None:
            label = ax.get_ylabel() if cbar.orientation == "vertical" else ax.get_xlabel()
            if not has_unit(label):
                problems.append(f"{what}: colour bar label {label!r} has no unit")
            continue
        if not ax.has_data():
            continue
        for name, get, shared, axis in (("x", lambda a: a.get_xlabel(), ax.get_shared_x_axes(), ax.xaxis),
                                        ("y", lambda a: a.get_ylabel(), ax.get_shared_y_axes(), ax.yaxis)):
            if _categorical(axis):
                continue                     # bars named by their tick labels: no quantity, no unit
            sibs = shared.get_siblings(ax)
            if not any(has_unit(get(a)) for a in sibs):
                problems.append(f"{what}: axes {ax.get_title() or ax.get_label() or '?'!r}: {name} label "
                                f"{get(ax)!r} has no unit")
    return problems


def _categorical(axis) -> bool:
    """An axis whose ticks are names (``set_xticks(pos, labels)``, categories), not numbers
    (read after a draw)."""
    from matplotlib.ticker import FixedLocator

    if not isinstance(axis.get_major_locator(), FixedLocator) and not axis.units:
        return False
    labels = [t.get_text() for t in axis.get_majorticklabels() if t.get_text()]
    return bool(labels) and not all(re.fullmatch(r"[-+−]?[\d.,eE]+", t) for t in labels)


def _drawn_texts(fig: Figure) -> list[Text]:
    """The text artists a draw of ``fig`` actually renders (visible, non-empty)."""
    if not hasattr(fig.canvas, "get_renderer"):     # a figure closed by pyplot: draw it with Agg
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(fig)
    drawn: list[Text] = []
    original = Text.draw

    def draw(self, renderer):
        original(self, renderer)
        if self.get_visible() and self.get_text().strip() and self.figure is fig:
            drawn.append(self)

    Text.draw = draw
    try:
        fig.canvas.draw()
    finally:
        Text.draw = original
    return drawn


def _saved_area(fig: Figure, options: dict):
    """The part of the figure (display units) that ``savefig(**options)`` writes."""
    from matplotlib.transforms import Bbox

    renderer = fig.canvas.get_renderer()
    if options.get("bbox_inches") == "tight":
        pad = options.get("pad_inches", matplotlib.rcParams["savefig.pad_inches"])
        pad = 0.0 if pad == "layout" else float(pad)
        bb = fig.get_tightbbox(renderer).padded(pad)
        return Bbox(bb.get_points() * fig.dpi)
    if isinstance(options.get("bbox_inches"), Bbox):
        return Bbox(options["bbox_inches"].get_points() * fig.dpi)
    return fig.bbox


def _clipping_problems(fig: Figure, options: dict, what: str, tol: float = 1.0, texts=None) -> list[str]:
    texts = _drawn_texts(fig) if texts is None else texts
    area = _saved_area(fig, options)
    renderer = fig.canvas.get_renderer()
    problems = []
    for t in texts:
        clip = t.get_clip_box() if t.get_clip_on() else None
        bb = t.get_window_extent(renderer)
        if clip is not None and not bb.overlaps(clip):
            continue            # clipped away by its axes: not drawn
        if (bb.x0 < area.x0 - tol or bb.y0 < area.y0 - tol or bb.x1 > area.x1 + tol
                or bb.y1 > area.y1 + tol):
            problems.append(f"{what}: text {t.get_text()[:60]!r} at x {bb.x0:.0f}…{bb.x1:.0f}, "
                            f"y {bb.y0:.0f}…{bb.y1:.0f} px reaches outside the saved image "
                            f"({area.x0:.0f}…{area.x1:.0f}, {area.y0:.0f}…{area.y1:.0f} px)")
    return problems


#: options of the inline backend of a notebook (what a user sees there)
INLINE = {"bbox_inches": "tight"}


class Saves:
    """Records each ``Figure.savefig`` call with its options (the product's own), and each
    PNG cut out of a figure drawn once (:func:`mechanisms.machine.tightpng.write_tight_png`)
    as the savefig options that write the same area (its test below shows they do)."""

    def __init__(self, monkeypatch):
        import mechanisms.machine.tightpng as tightpng

        self.calls: list[tuple[Figure, dict]] = []
        original = Figure.savefig
        cut = tightpng.write_tight_png

        def savefig(fig, fname, *args, **kwargs):
            self.calls.append((fig, dict(kwargs)))
            return original(fig, fname, *args, **kwargs)

        def write_tight_png(fig, path, dpi=120, pad_inches=0.1):
            area = cut(fig, path, dpi=dpi, pad_inches=pad_inches)
            if area is not None:
                self.calls.append((fig, {"dpi": dpi, "bbox_inches": "tight", "pad_inches": pad_inches}))
            return area

        monkeypatch.setattr(Figure, "savefig", savefig)
        monkeypatch.setattr(tightpng, "write_tight_png", write_tight_png)

    def options(self, fig: Figure) -> dict:
        found = [o for f, o in self.calls if f is fig]
        assert found, "the product did not save this figure"
        return found[-1]


def check(fig: Figure, options: dict, what: str, *, units: bool = True) -> None:
    clipped = _clipping_problems(fig, options, what)          # draws the figure
    problems = (_axis_labels_problems(fig, what) if units else []) + clipped
    plt.close(fig)
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------------------- the runs
@pytest.fixture(scope="module")
def studies():
    from mechanisms.analysis import Study

    return {name: Study(DATA / f"{name}.toml") for name in MACHINES}


@pytest.fixture(scope="module")
def runs(studies):
    return {name: st.machine("valves").run(t_end=0.3, dt=0.01, progress=False)
            for name, st in studies.items()}


# ---------------------------------------------------------------------------- the tests
def test_a_png_drawn_once_is_savefigs_image(runs, tmp_path):
    """The run's figures are drawn once and cut out of the canvas: the image savefig writes
    with the same options, to within the one-pixel widening of its area and the sub-pixel
    shift of savefig's second drawing (grey levels, best of the shifts by 0-2 px)."""
    from PIL import Image

    from mechanisms.machine.plots import plot_timeseries, plot_trajectory
    from mechanisms.machine.tightpng import write_tight_png

    for fn in (plot_trajectory, plot_timeseries):
        fig = fn(runs["excavator"])
        fig.savefig(tmp_path / "savefig.png", dpi=120, bbox_inches="tight", pad_inches=0.1)
        area = write_tight_png(fig, tmp_path / "once.png", dpi=120, pad_inches=0.1)
        plt.close(fig)
        assert area is not None, fn.__name__
        a = np.asarray(Image.open(tmp_path / "savefig.png").convert("L"), dtype=float)
        b = np.asarray(Image.open(tmp_path / "once.png").convert("L"), dtype=float)
        assert b.shape == (area.height, area.width)
        assert 0 <= b.shape[0] - a.shape[0] <= 2 and 0 <= b.shape[1] - a.shape[1] <= 2, (a.shape, b.shape)
        h, w = a.shape[0] - 2, a.shape[1] - 2
        best = min(np.abs(a[:h, :w] - b[dy:dy + h, dx:dx + w]).mean() for dy in range(3) for dx in range(3))
        assert best < 4.0, (fn.__name__, best)           # of 255: anti-aliasing only
        off = np.abs(a[:h - 6, :w - 6] - b[6:h, 6:w]).mean()    # the same images 6 px apart
        assert best < off / 3, (fn.__name__, best, off)            # (the measure tells images apart)


@pytest.mark.parametrize("name", MACHINES)
def test_run_plots(runs, name, tmp_path, monkeypatch):
    from mechanisms.machine.plots import plot_timeseries, plot_trajectory

    saves = Saves(monkeypatch)
    run = runs[name]
    for fn in (plot_trajectory, plot_timeseries):
        fig = fn(run, tmp_path / f"{fn.__name__}.png")
        assert (tmp_path / f"{fn.__name__}.png").stat().st_size > 0
        check(fig, saves.options(fig), f"{name} {fn.__name__}")


def test_timeseries_of_prescribed_lengths(tmp_path, monkeypatch):
    from mechanisms.machine.plots import plot_timeseries

    saves = Saves(monkeypatch)
    run = Machine.from_file(DATA / "wheel_loader.toml", mode="extensions").run(t_end=0.3, progress=False)
    fig = plot_timeseries(run, tmp_path / "ts.png")
    check(fig, saves.options(fig), "wheel loader extensions timeseries")


@pytest.mark.parametrize("name", ["excavator", "knuckle_crane"])
def test_animation_frame(runs, name, tmp_path):
    from PIL import Image

    from mechanisms.machine.plots import _frame_figure, animate

    run = runs[name]
    fig = _frame_figure(run)[0]
    ax = fig.axes[0]
    assert has_unit(ax.get_xlabel()) and has_unit(ax.get_ylabel()), (ax.get_xlabel(), ax.get_ylabel())
    check(fig, {}, f"{name} animation frame", units=False)    # a frame is the whole canvas
    gif = animate(run, tmp_path / "cycle.gif", fps=5, progress=False)
    with Image.open(gif) as im:
        assert im.n_frames >= 2


def test_plot_compare(runs, tmp_path, monkeypatch):
    from mechanisms.machine.plots import plot_compare
    from mechanisms.machine.table import read_csv

    saves = Saves(monkeypatch)
    run = runs["excavator"]
    run.to_csv(tmp_path / "a.csv")
    cols = read_csv(tmp_path / "a.csv")
    fig = plot_compare({"A": cols, "B": cols}, tmp_path / "compare.png")
    check(fig, saves.options(fig), "plot_compare")


@pytest.mark.parametrize("name", MACHINES)
def test_analysis_plots(studies, name, tmp_path, monkeypatch):
    from mechanisms.analysis import cycle_energy, lift_capacity, tool_forces, working_range

    saves = Saves(monkeypatch)
    st = studies[name]
    from mechanisms.analysis import breakout_forces

    functions = None if name == "excavator" else st.description.functions[-1:]   # one panel will do
    results = [working_range(st, n=10), tool_forces(st, n=6, functions=functions, generic=True),
               cycle_energy(st, t_end=0.3, dt=0.01)]
    if st.description.kind == "loader":
        results.append(breakout_forces(st, n=10))
    if st.description.base:
        results.append(lift_capacity(st, n=10))
    for res in results:
        written = res.write(tmp_path / res.name)
        assert all(Path(p).stat().st_size > 0 for p in written)
        fig, options = saves.calls[-1]
        check(fig, options, f"{name} {res.name}")


def test_cycle_energy_bars_start_at_zero(studies, monkeypatch):
    from mechanisms.analysis import cycle_energy

    fig = cycle_energy(studies["excavator"], t_end=0.6, dt=0.01).plot()
    lo, hi = fig.axes[0].get_ylim()
    plt.close(fig)
    assert lo <= 0.0 < hi


# ---------------------------------------------------------------------------- the bond graphs
def _overlaps(boxes) -> list[tuple[int, int]]:
    out = []
    for i, a in enumerate(boxes):
        for j in range(i + 1, len(boxes)):
            b = boxes[j]
            if a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1:
                out.append((i, j))
    return out


@pytest.mark.parametrize("name", MACHINES)
def test_full_bond_graph_pages(studies, name):
    from mechanisms.drawing import full_graph_pages

    machine = studies[name].machine("valves")
    pages = full_graph_pages(machine.model)
    titles = [p.title for p in pages]
    assert len(pages) == len(machine.model.mechanism.parts) + 1, titles   # one per part, one for the hydraulics
    assert [p.name for p in pages[:-1]] == list(machine.model.mechanism.parts)
    assert "hydraulics" in titles[-1], titles
    graph = machine.model.model.graph
    shown = set().union(*(p.elements for p in pages))
    assert shown == set(graph.nodes), f"elements on no page: {sorted(set(graph.nodes) - shown)[:5]}"
    for page in pages:
        fig = page.figure
        texts = _drawn_texts(fig)
        renderer = fig.canvas.get_renderer()
        small = sorted({round(t.get_fontsize(), 1) for t in texts if t.get_fontsize() < 7.0})
        assert not small, f"{name} page {page.title!r}: labels of {small} pt (< 7 pt)"
        labels = [t for t in texts if (t.get_gid() or "").startswith(("element:", "ghost:"))]
        assert {t.get_gid().split(":", 1)[1] for t in labels if t.get_gid().startswith("element:")} \
            == set(page.elements)
        boxes = [t.get_bbox_patch().get_window_extent(renderer) for t in labels]
        clash = _overlaps(boxes)
        assert not clash, (f"{name} page {page.title!r}: element labels overlap: "
                           + ", ".join(f"{labels[i].get_text()!r}/{labels[j].get_text()!r}" for i, j in clash[:5]))
        problems = _clipping_problems(fig, {}, f"{name} page {page.title!r}", texts=texts)  # the page as it is
        assert not problems, "\n".join(problems)
        plt.close(fig)


def test_full_bond_graph_written_as_pdf_and_as_pngs(studies, tmp_path, monkeypatch):
    from mechanisms.machine.plots import plot_bond_graph

    saves = Saves(monkeypatch)
    machine = studies["excavator"].machine("valves")
    n_pages = len(machine.model.mechanism.parts) + 1
    fig = plot_bond_graph(machine, tmp_path / "bond_graph.png", tmp_path / "bond_graph_full.pdf")
    check(fig, saves.options(fig), "excavator causal diagram", units=False)
    pdf = (tmp_path / "bond_graph_full.pdf").read_bytes()
    assert len(re.findall(rb"/Type\s*/Page\b(?!s)", pdf)) == n_pages
    crane = studies["knuckle_crane"].machine("valves")
    plt.close(plot_bond_graph(crane, None, tmp_path / "crane" / "bond_graph_full.png"))
    files = sorted(p.name for p in (tmp_path / "crane").iterdir())
    assert "bond_graph_full.png" in files                              # the contents sheet
    pages = [f for f in files if f.startswith("bond_graph_full_")]
    assert len(pages) == len(crane.model.mechanism.parts) + 1, files
    plt.close("all")


# ---------------------------------------------------------------------------- the core
def _cart():
    from bondgraph import BondGraph, C, I, One, R, Se, build

    bg = BondGraph("cart")
    bg.add(Se("F", 1.0), One("v"), I("m", 2.0), R("b", 0.5), C.spring("k", 4.0))
    for a, b in [("F", "v"), ("v", "m"), ("v", "b"), ("v", "k")]:
        bg.connect(a, b)
    return build(bg)


def test_results_plot_one_axis_per_unit():
    from bondgraph import simulate

    res = simulate(_cart(), (0, 2), progress=False)
    names = res.state_names
    res.units = {names[0]: "kg*m/s"}
    fig = res.plot(*names).flat[0].figure if len(names) > 1 else res.plot(*names).figure
    axes = [a for a in fig.axes if a.has_data()]
    assert len(axes) == 2                                                 # one known unit, one unknown
    ylabels = sorted(a.get_ylabel() for a in axes)
    assert any("[kg*m/s]" in y or "[kg·m/s]" in y for y in ylabels), ylabels
    assert any("[unit unknown]" in y for y in ylabels), ylabels
    assert axes[-1].get_xlabel() == "time [s]"
    check(fig, INLINE, "Results.plot")


def test_results_plot_refuses_two_units_on_one_axes():
    from bondgraph import simulate
    from bondgraph.errors import ParameterError

    res = simulate(_cart(), (0, 1), progress=False)
    _, ax = plt.subplots()
    with pytest.raises(ParameterError, match="unit"):
        res.plot(*res.state_names, ax=ax, units={res.state_names[0]: "m", res.state_names[1]: "rad"})
    plt.close("all")


def test_results_plot_engineering_units():
    """A pressure in Pa is drawn in bar: the same curve, divided by 1e5."""
    from bondgraph import simulate

    res = simulate(_cart(), (0, 1), progress=False)
    name = res.state_names[0]
    ax = res.plot(name, units={name: "Pa"})
    line = ax.get_lines()[0]
    assert ax.get_ylabel().endswith("[bar]")
    assert np.allclose(line.get_ydata(), res[name] / 1e5)
    check(ax.figure, INLINE, "Results.plot in bar")


def test_core_drawings(tmp_path):
    from bondgraph import simulate
    from bondgraph.plotting import draw_bond_graph, plot_series

    model = _cart()
    res = simulate(model, (0, 1), progress=False)
    ax = plot_series(res, res.state_names[0], ylabel="momentum [kg*m/s]")
    check(ax.figure, INLINE, "plot_series")
    ax = plot_series(res, res.state_names)
    assert ax.get_ylabel() == "value [unit unknown]"
    check(ax.figure, INLINE, "plot_series, no unit given")
    ax = draw_bond_graph(model)
    check(ax.figure, INLINE, "draw_bond_graph", units=False)


# ---------------------------------------------------------------------------- the report
@pytest.mark.parametrize("name", ["excavator", "wheel_loader"])
def test_report_in_engineering_units(runs, name):
    """report.txt says energies in kJ, pressures in bar, forces in kN — never J, Pa or N —
    and its energy balance is the solver's (bondgraph.power_balance), converted."""
    from bondgraph import power_balance

    run = runs[name]
    text = run.report()
    assert not re.search(r"\d\s*(J|Pa|N)\b", text), re.findall(r".*\d\s*(?:J|Pa|N)\b.*", text)
    line = next(ln for ln in text.splitlines() if ln.startswith("energy balance:"))
    pb = power_balance(run.results)
    source = float(re.search(r"source work ([-\d.]+) kJ", line).group(1))
    assert source == pytest.approx(pb.source_work / 1e3, abs=0.05)
    assert "bar" in text and "kN" in text
