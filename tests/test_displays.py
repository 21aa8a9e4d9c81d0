"""Objects that display themselves in a notebook (IPython's display protocol).

Every display method must return well-formed HTML (tags balanced, checked with
``html.parser``) whose drawings are well-formed SVG (``xml.etree``), for every shipped
machine; what they say must be what the objects hold (stroke use from the file's
strokes, the report's states and dependent storages); plain ``repr`` stays short text;
showing an object leaves no pyplot figure open.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from bondgraph import BondGraph, I, One, R, Se, build, simulate  # noqa: E402
from mechanisms.display import draw_pose, pose_rows  # noqa: E402
from mechanisms.machine import DATA, Machine  # noqa: E402

MACHINES = sorted(p.stem for p in DATA.glob("*.toml"))
VOID = {"br", "hr", "img", "input", "meta", "link", "area", "base", "col", "embed", "param", "source", "track",
        "wbr"}
SVG = "{http://www.w3.org/2000/svg}svg"


class Balanced(HTMLParser):
    """Records every end tag that does not close the innermost open element."""

    def __init__(self):
        super().__init__()
        self.stack: list[str] = []
        self.errors: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else 'nothing'}>")
        else:
            self.stack.pop()


def check_html(text: str) -> list[ET.Element]:
    """Well-formed HTML; returns its SVG drawings parsed."""
    p = Balanced()
    p.feed(text)
    p.close()
    assert not p.errors and not p.stack, (p.errors, p.stack)
    svgs = [ET.fromstring(m) for m in re.findall(r"<svg\b.*?</svg>", text, flags=re.S)]
    assert all(s.tag == SVG for s in svgs)
    return svgs


def svg_texts(svg: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in svg.iter("{http://www.w3.org/2000/svg}text")]


@pytest.fixture(autouse=True)
def no_figure_left():
    before = set(plt.get_fignums())
    yield
    assert set(plt.get_fignums()) == before, "a display left a pyplot figure open"


@pytest.fixture(scope="module", params=MACHINES)
def machine(request):
    return Machine.from_file(DATA / f"{request.param}.toml", mode="extensions")


def test_a_machine_shows_its_summary_and_start_pose(machine):
    text = machine._repr_html_()
    (svg,) = check_html(text)
    desc = machine.description
    assert f"mode {machine.mode}" in text and f"{len(desc.parts)} parts" in text
    assert "mobility " + str(machine.mobility()["M"]) in text
    # every cylinder's stroke use, from the file's strokes, is written on the drawing
    texts = svg_texts(svg)
    for f in desc.functions:
        lo, hi = desc.stroke_limits(f)
        use = (machine.start_pose.length(desc.cylinder_of[f]) - lo) / (hi - lo)
        assert f"{f} {100 * use:.0f} %" in texts, (f, texts)
    # the port classes of the hinge points are labelled
    assert any("Rt" in t for t in texts) and any("Pd" in t for t in texts)
    assert machine._repr_html_() is text          # cached: shown again for free


def test_a_mechanism_shows_itself_and_repr_stays_short(machine):
    mech = machine.mechanism
    check_html(mech._repr_html_())
    r = repr(mech)
    assert r.startswith(("Mechanism(", "SwingMechanism(", "TravelMechanism(")) and len(r) < 200 and "\n" not in r


def test_a_pose_is_a_table_never_the_mechanism(machine):
    pose = machine.start_pose
    r = repr(pose)
    assert r.startswith("Pose(") and "Mechanism" not in r and "object at" not in r and len(r) < 300
    text = pose._repr_html_()
    check_html(text)
    desc = machine.description
    rows = {q: v for q, v, _ in pose_rows(pose)}
    for f in desc.functions:
        c = desc.cylinder_of[f]
        label = f if f == c else f"{f} ({c})"
        assert float(rows[f"{label} length"]) == pytest.approx(pose.length(c), abs=1e-4)
    for name, (part, point) in desc.output_points.items():
        x, y = pose.points()[f"{part}/{point}"]
        assert float(rows[f"{name} x"]) == pytest.approx(x, abs=1e-4)
        assert float(rows[f"{name} y"]) == pytest.approx(y, abs=1e-4)


def test_the_causal_report_is_a_table_of_what_it_holds(machine):
    rep = machine.report
    text = rep._repr_html_()
    check_html(text)
    for s in rep.states:
        assert s in text
    for d in rep.derivative:
        assert d.element in text and " ← ".join(d.path).replace("←", "&larr;") in text.replace("←", "&larr;")
    assert ("sound" in text) == (not rep.conflicts)


def test_a_run_shows_its_summary_and_paths():
    m = Machine.from_file(DATA / "excavator.toml", mode="forces")
    run = m.run(t_end=0.2, progress=False)
    text = run._repr_html_()
    (svg,) = check_html(text)
    assert "end-stop contacts" in text and str(run.results.stats["steps"]) in text
    assert "x [m]" in svg_texts(svg) and "y [m]" in svg_texts(svg)
    assert repr(run).startswith("MachineRun(")


def drag():
    bg = BondGraph("drag")
    bg.add(Se("F", 2.0), One("v"), I("m", 1.0), R("b", 1.0))
    for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
        bg.connect(a, b)
    return bg


def test_core_results_and_bond_graph_show_themselves():
    bg = drag()
    svg = ET.fromstring(bg._repr_svg_())
    assert svg.tag == SVG and {"Se:F", "I:m", "R:b"} <= set(svg_texts(svg))
    res = simulate(build(bg), (0.0, 1.0), progress=False)
    text = res._repr_html_()
    (plot,) = check_html(text)
    assert "time [s]" in svg_texts(plot)
    assert repr(res).startswith("Results(") and "\n" not in repr(res)


def test_a_drawing_is_redrawn_for_another_pose(machine):
    desc = machine.description
    f = desc.functions[0]
    lo, hi = desc.stroke_limits(f)
    L = machine.start_pose.length(desc.cylinder_of[f])
    other = machine.pose_at_lengths({**{g: machine.start_pose.length(desc.cylinder_of[g]) for g in desc.functions},
                                     f: L + 0.3 * ((lo + hi) / 2 - L)})
    a = draw_pose(machine.start_pose)
    b = draw_pose(other)
    ya = [np.asarray(ln.get_ydata(), float) for ln in a.lines]
    yb = [np.asarray(ln.get_ydata(), float) for ln in b.lines]
    assert any(len(p) != len(q) or (abs(p - q) > 1e-6).any() for p, q in zip(ya, yb))


def test_a_mechanism_model_is_its_part_level_causal_diagram(machine):
    svg = ET.fromstring(machine.model._repr_svg_())
    texts = svg_texts(svg)
    assert svg.tag == SVG
    for part, p in machine.mechanism.parts.items():
        assert f"{part}\n({p.kind})" in texts or any(t.startswith(part) for t in texts), part
    assert repr(machine.model).startswith("MechanismModel(") and "\n" not in repr(machine.model)


def test_showing_a_mechanism_solves_no_pose_of_the_users():
    from mechanisms.examples import single_boom

    mech = single_boom()
    first = mech._repr_html_()
    assert "mid-stroke" in first and getattr(mech, "_last_pose", None) is None
    assert mech._repr_html_() == first
    pose = mech.solve_pose({"boom_cyl": 3.2}, guess={"boom": 0.4})
    assert "last pose solved" in mech._repr_html_() and mech._last_pose is pose


def test_a_causal_conflict_is_a_table_with_its_fix():
    from bondgraph import CausalityConflict, Zero

    m = BondGraph("two")
    m.add(Se("a", 1.0), Se("b", 2.0), Zero("p"))
    m.connect("a", "p")
    m.connect("b", "p")
    with pytest.raises(CausalityConflict) as info:
        build(m)
    text = info.value._repr_html_()
    check_html(text)
    (c,) = info.value.conflicts
    assert c.element in text and c.suggestion.split(" (")[0] in text


def test_every_machine_run_and_bond_graph_display_parses(machine):
    run = machine.run(t_end=0.2, progress=False)
    (svg,) = check_html(run._repr_html_())
    assert "x [m]" in svg_texts(svg)
    bg = machine.mechanism.bond_graph()
    drawing = ET.fromstring(bg._repr_svg_())
    texts = svg_texts(drawing)
    assert drawing.tag == SVG and all(part in texts for part in machine.mechanism.parts)
