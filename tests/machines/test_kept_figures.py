"""The causal diagram of a machine's bond graph is kept as its finished PNG: a later run of
the same machine writes the same bytes without drawing; another diagram (another machine,
another mode's drives, another style) is another key; a parameter the diagram does not
show is not."""

import matplotlib
import matplotlib.pyplot as plt
import pytest

import mechanisms.machine.plots as plots
from mechanisms.drawing import causal_scene
from mechanisms.machine import DATA, Machine
from mechanisms.machine.keptfigures import figure_key, kept_png_file


@pytest.fixture(scope="module")
def machines():
    return {
        "excavator": Machine.from_file(DATA / "excavator.toml", mode="valves"),
        "excavator forces": Machine.from_file(DATA / "excavator.toml", mode="forces"),
        "excavator heavy bucket": Machine.from_file(DATA / "excavator.toml", {"bucket.mass": "900 kg"},
                                                    mode="valves"),
        "wheel loader": Machine.from_file(DATA / "wheel_loader.toml", mode="valves"),
    }


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("BONDGRAPH_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def fresh_png(machine, path):
    """The diagram drawn now, as plot_bond_graph draws it (no cache involved)."""
    plt.close(plots.plot_bond_graph(machine, path))
    return path.read_bytes()


def no_drawing(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("drawn, though a kept image was expected")
    monkeypatch.setattr(plots, "plot_bond_graph", refuse)


def test_the_kept_diagram_is_the_fresh_one_and_is_not_drawn_again(machines, cache, tmp_path, monkeypatch):
    m = machines["excavator"]
    first = tmp_path / "run1" / "bond_graph.png"
    assert plots.write_bond_graph(m, first) == [first]
    assert len(list(cache.glob("figure_*.pkl"))) == 1
    with monkeypatch.context() as mp:
        no_drawing(mp)
        second = tmp_path / "run2" / "bond_graph.png"
        plots.write_bond_graph(m, second)
    fresh = fresh_png(m, tmp_path / "fresh.png")
    assert second.read_bytes() == first.read_bytes() == fresh
    assert fresh.startswith(b"\x89PNG") and len(fresh) > 20_000


def test_the_key_names_what_is_drawn(machines):
    def key(name, **rc):
        with matplotlib.rc_context(rc):
            return figure_key(causal_scene(machines[name].model).describe(), dpi=120)

    base = key("excavator")
    assert key("wheel loader") != base                          # another graph
    assert key("excavator forces") != base                      # other drives (their labels)
    assert key("excavator", **{"font.size": 11}) != base        # another style
    assert key("excavator heavy bucket") == base                # a value the diagram does not show


def test_a_parameter_the_diagram_does_not_show_reuses_it_and_it_is_right(machines, cache, tmp_path, monkeypatch):
    plots.write_bond_graph(machines["excavator"], tmp_path / "a.png")
    with monkeypatch.context() as mp:
        no_drawing(mp)
        plots.write_bond_graph(machines["excavator heavy bucket"], tmp_path / "b.png")
    assert (tmp_path / "b.png").read_bytes() == fresh_png(machines["excavator heavy bucket"], tmp_path / "c.png")


def test_a_foreign_or_broken_entry_is_drawn_again(machines, cache, tmp_path):
    import pickle

    m = machines["wheel loader"]
    plots.write_bond_graph(m, tmp_path / "a.png")
    (entry,) = cache.glob("figure_*.pkl")
    good = pickle.loads(entry.read_bytes())
    for bad in ({**good, "key": good["key"] + " "}, {**good, "value": good["value"][:-100]}, "junk"):
        entry.write_bytes(pickle.dumps(bad))
        plots.write_bond_graph(m, tmp_path / "b.png")
        assert (tmp_path / "b.png").read_bytes() == (tmp_path / "a.png").read_bytes()
    assert pickle.loads(entry.read_bytes()) == good             # kept again
    key = figure_key(causal_scene(m.model).describe(), size=(12, 7), dpi=120, bbox_inches="tight",
                     pad_inches=0.1)
    assert kept_png_file(key) == entry                          # the key the CLI's writer uses


# ---------------------------------------------------------------------------- the full graph's pages
def page_positions(model):
    from mechanisms.drawing import full_graph_pages

    out = {}
    for page in full_graph_pages(model):
        for t in page.figure.axes[0].texts:
            if t.get_gid():
                out[(page.name, t.get_gid())] = tuple(float(v) for v in t.get_position())
        plt.close(page.figure)
    return out


def test_a_kept_page_layout_is_the_one_placed_and_is_not_placed_again(machines, cache, monkeypatch):
    import mechanisms.drawing as drawing

    m = machines["excavator"]
    placed = []
    place = drawing._place
    monkeypatch.setattr(drawing, "_place", lambda *a: placed.append(1) or place(*a))
    first = page_positions(m.model)                     # laid out, and kept
    assert placed and len(list(cache.glob("layout_*.pkl"))) == len(m.model.mechanism.parts) + 1
    placed.clear()
    again = page_positions(m.model)                      # read back
    assert not placed and again == first                 # exactly the same places
    monkeypatch.setattr(drawing, "_kept_page_layout", lambda und, own, ghosts, size, page:
                        drawing._page_layout(und, own, ghosts, size, page))
    assert page_positions(m.model) == first             # and a fresh layout, without the cache


def test_the_page_layout_key_names_the_graph_and_the_labels(machines):
    import networkx as nx

    from mechanisms.drawing import page_layout_key

    keys = {}
    for name in ("excavator", "wheel loader"):
        g = machines[name].model.model.graph
        und = nx.Graph(g)
        own = {n for n in g.nodes if n.split("/")[1:2] == ["boom"]}
        ghosts = {m for n in own for m in und[n] if m not in own}
        size = {n: (0.1 * len(n), 0.2) for n in own | ghosts}
        keys[name] = page_layout_key(und, own, ghosts, size, "boom")
        longer = {**size, sorted(own)[0]: (5.0, 0.2)}                     # one label longer
        assert page_layout_key(und, own, ghosts, longer, "boom") != keys[name]
        fewer = nx.Graph(und)
        fewer.remove_edge(*next(iter(und.subgraph(own).edges)))          # one bond fewer
        assert page_layout_key(fewer, own, ghosts, size, "boom") != keys[name]
    assert keys["excavator"] != keys["wheel loader"]


def test_the_page_layout_keys_are_the_same_in_every_process():
    """A key made from sets of names must not follow their iteration order, which differs
    from process to process (string hashing): else no process finds another's layout."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = ("import hashlib, networkx as nx\n"
            "from mechanisms.machine import DATA, Machine\n"
            "import mechanisms.drawing as d\n"
            "m = Machine.from_file(DATA / 'excavator.toml', mode='valves')\n"
            "g = m.model.model.graph\n"
            "und = nx.Graph(g)\n"
            "for page, own in d._page_groups(m.model).items():\n"
            "    ghosts = {x for n in own for x in und[n] if x not in own}\n"
            "    size = {n: (0.01 * len(n), 0.2) for n in own | ghosts}\n"
            "    print(page, hashlib.sha256(d.page_layout_key(und, own, ghosts, size, page).encode()).hexdigest())\n")
    outs = []
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(root))
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=root)
        assert out.returncode == 0, out.stderr[-2000:]
        outs.append(out.stdout)
    assert outs[0] == outs[1] and len(outs[0].splitlines()) >= 5
