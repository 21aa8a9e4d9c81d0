"""The machine layer on the shipped machines that are not the excavator, as a user meets it:
features that must not assume an excavator's names (``tip``, ``boom``, three functions)."""

import numpy as np
import pytest

from mechanisms.machine import DATA, Machine
from mechanisms.machine.cli import main
from mechanisms.machine.compare import compare_runs


@pytest.fixture(scope="module")
def crane_runs():
    """Two valve runs of the crane, the second with a heavier hook load."""
    runs = {}
    for label, load in (("light", "300 kg"), ("heavy", "700 kg")):
        m = Machine.from_file(DATA / "knuckle_crane.toml", {"payloads.hook_load.mass": load}, mode="valves")
        runs[label] = m.run(t_end=6.0, progress=False)
    return runs


def test_compare_follows_the_first_output_point_of_any_machine(crane_runs):
    """The crane has no ``tip``: the paths compared are its hook's (the first [outputs] point)."""
    cmp = compare_runs(crane_runs)
    assert cmp.point == "hook"
    a, b = (crane_runs[k].table() for k in ("light", "heavy"))
    d = np.hypot(np.interp(a["time"], b["time"], b["hook_x"]) - a["hook_x"],
                 np.interp(a["time"], b["time"], b["hook_y"]) - a["hook_y"])
    assert d.max() > 1e-3                                   # the heavier load moves otherwise
    gap, when = cmp.tip_gap()["heavy"]
    assert gap == pytest.approx(d.max(), rel=1e-12) and when == pytest.approx(a["time"][np.argmax(d)])
    assert f"hook paths: up to {d.max():.2f} m apart" in cmp.text()
    fig = cmp.plot()
    ax = fig.axes[0]
    assert len(ax.lines) >= 2 and "hook" in ax.get_title()
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_cli_compare_of_two_loader_folders_names_the_edge_paths(tmp_path, capsys):
    for label, mass in (("a", "1600 kg"), ("b", "2400 kg")):
        assert main(["run", "wheel_loader", "--t-end", "4", "--set", f"bucket.mass={mass}", "--out",
                     str(tmp_path / label), "--no-animation", "--no-bond-graph", "--quiet"]) == 0
    capsys.readouterr()
    import matplotlib.pyplot as plt

    open_before = set(plt.get_fignums())
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "c"), "-v"]) == 0
    assert set(plt.get_fignums()) == open_before          # the plots are in the files, none left open
    assert (tmp_path / "c" / "compare.png").stat().st_size > 0 and (tmp_path / "c" / "circuits.png").exists()
    out = capsys.readouterr().out
    assert "edge paths: up to" in out
    table = out[out.index("every common column"):].splitlines()
    rows = table[2:4]       # the [outputs] points head the table, hinge points after
    assert rows[0].startswith("edge (distance)") and rows[1].startswith("pin (distance)")
    summary = out[:out.index("every common column")]
    assert "\n  output point paths  edge " in summary or "\n  output point paths  pin " in summary


def test_a_reader_that_leaves_ends_the_command_quietly(monkeypatch, capsys):
    """``hydrobond list | head -1``: the closed pipe ends the command with 141, no traceback."""
    class Closed:
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self):
            pass

    monkeypatch.setattr("sys.stdout", Closed())
    assert main(["list"]) == 141


def test_the_crane_split_at_its_cylinders_follows_the_monolithic_run():
    """The co-simulation split is any machine's (it was the excavator's alone): the crane's
    mechanical and hydraulic sides, quadratic glue at 1 ms, keep the hook on the monolithic
    model's path (a second formulation of the same machine)."""
    from mechanisms.machine.split import MachineSplit

    split = MachineSplit.from_file(DATA / "knuckle_crane.toml")
    assert split.point == "hook"
    cres = split.cosimulation(1e-3, 2.0, glue="quadratic").run()
    assert cres.time[-1] == pytest.approx(2.0)
    t, x, y = split.tip_path(cres, every=20)
    mono = split.monolithic.run(split.cycle, t_end=float(t[-1]), t_eval=t, rtol=1e-9, atol=1e-11,
                                progress=False).table()
    moved = np.hypot(mono["hook_x"] - mono["hook_x"][0], mono["hook_y"] - mono["hook_y"][0]).max()
    assert moved > 0.05                                        # the hook travels...
    assert np.max(np.hypot(x - mono["hook_x"], y - mono["hook_y"])) < 1e-4   # ...on the same path


def test_output_points_with_underscores_are_compared_and_plotted(tmp_path):
    """An output point may be named ``cutting_edge``: the comparison plot and the summaries
    take the table's leading point columns, not names without an underscore (which dropped
    it, and would have taken a hinge point such as ``boom_A`` for an output)."""
    from mechanisms.machine.description import MachineDescription
    from mechanisms.machine.plots import plot_compare
    from mechanisms.machine.table import read_csv

    text = (DATA / "wheel_loader.toml").read_text().replace('points.edge = "bucket.Q"',
                                                             'points.cutting_edge = "bucket.Q"')
    desc = MachineDescription.from_text(text, name="loader.toml", base=DATA)
    cols = {}
    for label, mass in (("A", "1600 kg"), ("B", "2400 kg")):
        run = Machine(desc.with_overrides({"bucket.mass": mass}), mode="valves").run(t_end=2.0, progress=False)
        run.to_csv(tmp_path / f"{label}.csv")
        cols[label] = read_csv(tmp_path / f"{label}.csv")
    cmp = compare_runs({k: tmp_path / f"{k}.csv" for k in cols})
    assert cmp.point == "cutting_edge" and cmp["A"].points() == ["cutting_edge", "pin"]
    assert "B" in cmp.tip_gap()
    fig = plot_compare(cols)
    labels = [line.get_label() for line in fig.axes[0].lines]
    assert labels == ["A: cutting_edge", "A: pin", "B: cutting_edge", "B: pin"]
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_mini_excavator_runs_its_load_sensing_circuit():
    """The mini excavator carries [circuit.load_sensing] (the reference's, pressures and time
    constants carry over by its scaling): the LS run balances its energy, keeps its loops
    closed and passes nothing over the relief, where the fixed pump on the same commands
    passes a large share of its work."""
    runs = {k: Machine.from_file(DATA / "excavator_mini.toml", ov, mode="valves").run(t_end=5.0, progress=False)
            for k, ov in (("fixed", {}), ("LS", {"circuit.type": "load-sensing"}))}
    ls = runs["LS"]
    assert ls.energy_balance().relative < 1e-4 and ls.loop_closure() < 1e-6
    assert "ls_pressure" in ls.table() and "pump_displacement" in ls.table()
    split = {k: r.energy_split() for k, r in runs.items()}
    pump = {k: s.terms["pump work"] for k, s in split.items()}
    assert split["fixed"].terms["relief"] > 0.2 * pump["fixed"]
    assert split["LS"].terms["relief"] < 1e-3 * pump["LS"]


def test_a_cycle_beyond_a_joint_range_is_refused_and_a_run_beyond_one_flagged():
    """``[limits]`` on the loader's bucket (tilt = bucket − boom within −60° … 40°): the
    lengths cycle rolls the bucket back to 71° at t = 2.25 s: refused before the run with
    the angle, the time and the key; a valves run that goes beyond is flagged in its report.
    The angles are checked on the assembly solver's poses of a machine without the limits."""
    import re

    from bondgraph import AssemblyError
    from mechanisms.machine.description import MachineDescription

    text = (DATA / "wheel_loader.toml").read_text() + '\n[limits]\ntilt = ["-60 deg", "40 deg"]\n'
    desc = MachineDescription.from_text(text, name="loader.toml", base=DATA)
    free = Machine.from_file(DATA / "wheel_loader.toml", mode="extensions")

    def tilt_at(lengths):
        p = free.pose_at_lengths(lengths)
        return np.degrees(p.angle("bucket") - p.angle("boom"))

    with pytest.raises(AssemblyError) as err:
        Machine(desc, mode="extensions").run(progress=False)
    msg = str(err.value)
    assert "leaves the joint ranges" in msg and "'limits.tilt', loader.toml, line" in msg
    worst = re.search(r"angle tilt: ([\d.]+)° at t = ([\d.]+) s, above its range", msg)
    at = float(worst.group(2))
    cyc = free.cycle(mode="extensions").sample(np.array([at]))
    assert tilt_at({f: float(cyc[f][0]) for f in free.functions}) == pytest.approx(float(worst.group(1)), abs=0.01)
    run = Machine(desc, mode="valves").run(progress=False)
    flagged = [f for f in run.report().splitlines() if "JOINT RANGE  angle tilt" in f]
    assert len(flagged) == 2
    tab = run.table()
    k = int(np.argmax(tab["tilt_length"]))          # the bucket rolled back furthest
    assert tilt_at({f: float(tab[f"{f}_length"][k]) for f in free.functions}) > 40.0


def test_a_formulation_without_end_stops_flags_the_strokes_it_leaves():
    """Mode forces on the stiff-joint formulation (no end stops): the loader's tilt cylinder,
    pushed at 150 kN, runs 1 m past its 1.35 m stroke end; the report names it (it said
    nothing, the lengths line only showing '263 % of the stroke'), where the causal
    formulation's end stops hold it within millimetres."""
    from mechanisms.machine import Cycle

    runs = {}
    for form in ("causal", "stiff"):
        m = Machine.from_file(DATA / "wheel_loader.toml", mode="forces", formulation=form)
        c = Cycle("forces", [0, 2], {"lift": [230e3] * 2, "tilt": [150e3] * 2}, m.functions)
        runs[form] = m.run(c, progress=False)
    hi = runs["stiff"].machine.description.stroke_limits("tilt")[1]
    stiff = runs["stiff"].table()["tilt_length"]
    assert stiff.max() > hi + 0.5
    flags = [f for f in runs["stiff"].report().splitlines() if "STROKE  tilt" in f]
    assert flags and f"{stiff.max():.3f} m" in flags[0] and "no end stops" in flags[0]
    assert runs["causal"].table()["tilt_length"].max() < hi + 0.005
    assert "STROKE" not in runs["causal"].report() and runs["causal"].contacts


def _crossings(points, segments):
    """Pairs of segments (no shared end) that cross, by the orientation test."""
    def orient(a, b, c):
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    n = 0
    for i, (a, b) in enumerate(segments):
        for c, d in segments[i + 1:]:
            if {a, b} & {c, d}:
                continue
            p, q, r, s = (points[k] for k in (a, b, c, d))
            if orient(p, q, r) * orient(p, q, s) < 0 and orient(r, s, p) * orient(r, s, q) < 0:
                n += 1
    return n


def test_the_part_level_diagram_of_the_loader_has_no_crossing_bonds_and_fits_its_axes():
    """Parts ordered in each column by the barycentre of the parts they hinge to: the
    loader's Z-bar (tilt cylinder → bell crank, boom → bucket) drew two crossing bonds
    before; and every part's box lies inside the axes (the title sat on the boom's box)."""
    import matplotlib.pyplot as plt

    from mechanisms.drawing import draw_causal_diagram, tree_layout

    m = Machine.from_file(DATA / "wheel_loader.toml", mode="forces")
    mech = m.model.mechanism
    pos = {k: tuple(v) for k, v in tree_layout(mech).items()}
    pos["chassis"] = (min(x for x, _ in pos.values()) - 3.2, 0.0)
    segs = [(a.part, b.part) for a, b in mech.hinges] + [(p, "chassis") for (p, _) in mech.fixed]
    assert _crossings(pos, segs) == 0
    ax = draw_causal_diagram(m.model, m.start_pose)
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    assert all(x0 < x < x1 and y0 < y < y1 for x, y in pos.values())
    plt.close(ax.figure)


def test_the_length_plot_shows_every_stroke_end():
    """In the loader's valves cycle the tilt cylinder's retracted end (0.85 m) lay on the
    length panel's lower edge, hidden by the spine (limits 0.846 … 2.369 m); every stroke
    end now lies clear of the edges (2 % of the span at least)."""
    import matplotlib.pyplot as plt

    from mechanisms.machine.plots import plot_timeseries

    m = Machine.from_file(DATA / "wheel_loader.toml", mode="valves")
    fig = plot_timeseries(m.run(progress=False))
    y0, y1 = fig.axes[0].get_ylim()
    for f in m.functions:
        lo, hi = m.description.stroke_limits(f)
        assert lo - y0 > 0.02 * (y1 - y0) and y1 - hi > 0.02 * (y1 - y0)
    plt.close(fig)
