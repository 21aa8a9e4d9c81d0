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


def test_table_cells_out_of_reach_and_the_familiar_layout(lc, tmp_path):
    m = lc.matrix()
    assert list(m.index) == [3.0, 0.0, -1.5] and list(m.columns) == [4.5, 7.5]
    text = lc.table_text()
    assert "rated lift capacity" in text and "4.50 m" in text
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


def test_cycle_energy_table_and_plot(ce, tmp_path):
    df = ce.table()
    assert df.loc[df.term == "pump_work", "share_of_pump_work"].item() == pytest.approx(100.0)
    ce.write(tmp_path)
    head = (tmp_path / "cycle_energy.csv").read_text().splitlines()[0]
    assert head == "term,title,energy [J],share_of_pump_work [%]"
