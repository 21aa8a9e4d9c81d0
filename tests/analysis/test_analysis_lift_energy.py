"""Lift capacity against an independent moment balance about the tipping line and a
virtual-work hydraulic limit; the cycle's energy terms add up to the pump work."""

import numpy as np
import pytest

from mechanisms.analysis import Study, cycle_energy, lift_capacity
from mechanisms.machine import DATA
from mechanisms.machine.energy import GAP
from reference.excavator_trig import load

FUNCS = ("boom", "arm", "bucket")


@pytest.fixture(scope="module")
def ex():
    return load(DATA / "excavator.toml")


@pytest.fixture(scope="module")
def lc():
    return lift_capacity(DATA / "excavator.toml", heights=["-1.5 m", "0 m", "3 m"], radii=["4.5 m", "7.5 m"])


def _dy(ex, s, k, h=1e-6):
    sp, sm = list(s), list(s)
    sp[k] += h
    sm[k] -= h
    return (float(ex.world(*sp)["arm/K"][1]) - float(ex.world(*sm)["arm/K"][1])) / (2 * h)


def _dV(ex, s, k, h=1e-6):
    sp, sm = list(s), list(s)
    sp[k] += h
    sm[k] -= h
    return (float(ex.potential(*sp)) - float(ex.potential(*sm))) / (2 * h)


def test_lift_capacity_equals_an_independent_moment_balance(ex, lc):
    _check_moment_balance(ex, lc)


def test_mini_excavator_lift_capacity_equals_an_independent_moment_balance():
    """The mini excavator's [base] (the reference's scaled by 0.55) gives it the table too."""
    path = DATA / "excavator_mini.toml"
    _check_moment_balance(load(path), lift_capacity(path, heights=["0 m", "1.5 m"], radii=["3 m", "4.5 m"],
                                                    n=30))


def _check_moment_balance(ex, lc):
    g, grav = ex.ground, ex.gravity
    rows = [r for r in lc.rows if np.isfinite(r["rated"])]
    assert len(rows) >= 3
    for row in rows[:3] + rows[-1:]:
        s = [row[f"{f}_length"] for f in FUNCS]
        K = np.asarray(ex.world(*s)["arm/K"], float)
        # the posture puts the load point (the bucket pin) at the cell's radius and height
        assert K == pytest.approx([row["radius"], row["height"] + g], abs=1e-8)
        # tipping load: moments about the front tipping line of the base, the front, the load
        xt = ex.tipping_line
        weights = ex.weight_points(*s) + list(ex.base.values())
        M = sum(m * grav * (float(p[0]) - xt) for m, p in weights)   # tipping sense (clockwise) positive
        W_tip = -M / (K[0] - xt)
        assert row["tipping"] == pytest.approx(W_tip / grav, rel=1e-6)
        # hydraulic limit: each cylinder's force W·∂y_K/∂s + ∂V/∂s within its relief force
        caps = []
        for k, f in enumerate(FUNCS):
            dy = _dy(ex, s, k)
            if abs(dy) < 1e-9:
                continue
            a_cap, a_rod = ex.areas(f"{f}_cylinder")
            hold = _dV(ex, s, k)
            p = ex.relief()
            caps.append((p * a_cap - hold) / dy if dy > 0 else (-p * a_rod - hold) / dy)
        assert row["hydraulic"] == pytest.approx(min(caps) / grav, rel=1e-6)
        assert row["rated"] == pytest.approx(min(0.87 * min(caps), 0.75 * W_tip) / grav, rel=1e-6)
        # over the side: the upper structure and the front swung 90°, the side tipping line half
        # the track gauge out, the undercarriage (swings = false) on the machine's centreline
        xs = float(ex.data["base"]["side_tipping_line"].split()[0])
        fixed = {k for k, v in ex.data["base"]["masses"].items() if v.get("swings", True) is False}
        M_s = sum(m * grav * (float(p[0]) - xs) for m, p in ex.weight_points(*s))
        M_s += sum(m * grav * ((0.0 if k in fixed else float(p[0])) - xs) for k, (m, p) in ex.base.items())
        W_side = -M_s / (K[0] - xs)
        assert fixed == {"undercarriage"}
        assert row["tipping_side"] == pytest.approx(W_side / grav, rel=1e-6)
        assert row["rated_side"] == pytest.approx(min(0.87 * min(caps), 0.75 * W_side) / grav, rel=1e-6)
        assert row["rated_side"] < row["rated"]                  # the side is the less stable


def test_a_payload_is_what_is_rated_not_front_weight(lc):
    """A ``[payloads]`` mass of the file (300 kg of soil in the bucket) is left out: the rated
    loads are those of the machine without it (at 7.5 m and ground level they were 4.23 t where
    4.44 t is right: the soil counted as dead weight of the front), and the table says what it
    left out."""
    from mechanisms.machine.description import MachineDescription

    text = (DATA / "excavator.toml").read_text() + ('\n[payloads.soil]\npart = "bucket"\n'
                                                    'at = ["0.4 m", "-0.5 m"]\nmass = "300 kg"\n')
    soil = lift_capacity(MachineDescription.from_text(text, name="soil.toml", base=DATA),
                         heights=["-1.5 m", "0 m", "3 m"], radii=["4.5 m", "7.5 m"])
    for a, b in zip(lc.rows, soil.rows):
        for key in ("rated", "hydraulic", "tipping", "rated_side", "tipping_side"):
            assert b[key] == pytest.approx(a[key], rel=1e-12, nan_ok=True), key
    assert soil.payloads == {"soil": 300.0} and lc.payloads == {}
    assert "payloads left out: soil 300 kg" in soil.table_text()
    # the machine's model keeps its payload for the runs that follow
    st = soil.study.statics.machine
    assert st.model.model.params["payloads.soil.mass"] == pytest.approx(300.0)


def test_table_cells_out_of_reach_and_the_familiar_layout(lc, tmp_path):
    m = lc.matrix()
    assert list(m.index) == [3.0, 0.0, -1.5] and list(m.columns) == [4.5, 7.5]
    side = lc.matrix("side")
    assert (side.values <= m.values).all()
    text = lc.table_text()
    assert "rated lift capacity over the front / over the side" in text and "4.50 m" in text
    row = next(r for r in lc.rows if np.isfinite(r["rated"]))
    assert f"{row['rated'] / 1e3:.2f}" in text and f"{row['rated_side'] / 1e3:.2f}" in text
    far = lift_capacity(lc.study, heights=["0 m"], radii=["20 m"])
    assert far.rows[0]["limit"] == "out of reach" and np.isnan(far.rows[0]["rated"])
    lc.write(tmp_path)
    assert (tmp_path / "lift_capacity.csv").read_text().splitlines()[0].startswith("height [m],radius [m],rated [kg]")


def test_heavier_counterweight_lifts_more(lc):
    s = Study(DATA / "excavator.toml")
    s.update({"base.masses.counterweight.mass": "4700 kg"})
    more = lift_capacity(s, heights=["-1.5 m", "0 m", "3 m"], radii=["4.5 m", "7.5 m"])
    for a, b in zip(lc.rows, more.rows):
        if np.isfinite(a["rated"]):
            assert b["tipping"] > a["tipping"]
            assert b["hydraulic"] == pytest.approx(a["hydraulic"], rel=1e-12)   # the base is not the front


@pytest.fixture(scope="module")
def ce():
    return cycle_energy(DATA / "excavator.toml")


def test_cycle_energy_terms_sum_to_the_pump_work(ce):
    t = ce.terms
    parts = ("relief_loss", "throttling_loss", "friction", "other", "potential_energy", "kinetic_energy")
    assert abs(sum(t[k] for k in parts) - t["pump_work"]) <= 1e-4 * t["pump_work"]
    # the named terms carry the balance: what the output samples miss is a small row of its own
    gaps = [v for k, v in ce.other.items() if k.startswith(GAP)]
    assert gaps and sum(abs(v) for v in gaps) <= 1e-4 * t["pump_work"]
    assert not any(k.endswith("(supplied) (supplied)") for k in ce.other)
    # the pump work is the pump's own p·Q over the run (its bond in the circuit's read-outs)
    tab = ce.run.table()
    q = tab["pump_pressure"] * tab["pump_flow"]
    W = float(np.sum(0.5 * (q[1:] + q[:-1]) * np.diff(tab["time"])))
    assert W == pytest.approx(t["pump_work"], rel=1e-9)
    # the actuator work reaches the linkage as potential and kinetic energy (no losses there)
    assert t["actuator_work"] == pytest.approx(t["potential_energy"] + t["kinetic_energy"], rel=1e-3)
    # the potential energy gained equals the weights lifted, by the trigonometry
    ex = load(DATA / "excavator.toml")
    L = [tab[f"{f}_length"] for f in FUNCS]
    dV = float(ex.potential(*(v[-1] for v in L)) - ex.potential(*(v[0] for v in L)))
    assert t["potential_energy"] == pytest.approx(dV, rel=1e-6)


def test_cycle_energy_takes_progress_and_run_options(ce):
    """``progress`` (and other run options) pass through: the same split as the default call."""
    again = cycle_energy(DATA / "excavator.toml", progress=False, t_end=2.0)
    assert again.run.t[-1] == pytest.approx(2.0)
    short = ce.run.table()
    i = int(np.searchsorted(short["time"], 2.0))
    assert again.run.table()["tip_x"][-1] == pytest.approx(short["tip_x"][i], abs=1e-6)


def test_cycle_energy_table_and_plot(ce, tmp_path):
    df = ce.table()
    assert df.loc[df.term == "pump_work", "share_of_pump_work"].item() == pytest.approx(100.0)
    ce.write(tmp_path)
    head = (tmp_path / "cycle_energy.csv").read_text().splitlines()[0]
    assert head == "term,title,energy [J],share_of_pump_work [%]"


def test_the_cli_takes_held_heights_radii_and_writes_where_run_would(tmp_path, monkeypatch, capsys):
    """issue 20: the lift table's held functions, heights and radii from the command line (the
    error named a Python keyword the CLI had no option for); --out defaults as hydrobond run's."""
    import csv

    from mechanisms.machine.cli import main

    monkeypatch.chdir(tmp_path)
    code = main(["analyse", "excavator", "--analysis", "lift-capacity", "--point", "tip", "--held", "bucket=extend",
                 "--heights", "0 m, 3 m", "--radii", "6 m, 7.5 m", "--n", "20"])
    assert code == 0
    out = tmp_path / "out" / "lift-capacity" / "lift_capacity.csv"
    rows = list(csv.DictReader(out.open()))
    want = lift_capacity(Study(DATA / "excavator.toml"), point="tip", held={"bucket": "extend"},
                         heights=["0 m", "3 m"], radii=["6 m", "7.5 m"], n=20).table()
    assert len(rows) == len(want) == 4
    got = sorted(float(r["rated [kg]"]) for r in rows)
    assert np.allclose(got, sorted(want["rated"]), rtol=1e-6)
    assert main(["analyse", "excavator", "--analysis", "lift-capacity", "--point", "tip", "--held", "bucket"]) == 2
    assert "--held 'bucket': expected FUNCTION=extend|retract|LENGTH" in capsys.readouterr().err
