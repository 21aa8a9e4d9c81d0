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
    for bad in ({**good, "key": good["key"] + " "}, {**good, "png": good["png"][:-100]}, "junk"):
        entry.write_bytes(pickle.dumps(bad))
        plots.write_bond_graph(m, tmp_path / "b.png")
        assert (tmp_path / "b.png").read_bytes() == (tmp_path / "a.png").read_bytes()
    assert pickle.loads(entry.read_bytes()) == good             # kept again
    key = figure_key(causal_scene(m.model).describe(), size=(12, 7), dpi=120, bbox_inches="tight",
                     pad_inches=0.1)
    assert kept_png_file(key) == entry                          # the key the CLI's writer uses
