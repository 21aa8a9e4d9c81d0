"""A loader is rated by the loader standards (issue 20): its ISO 14397-2 breakout forces
against a virtual-work computation on the assembly solver's poses (written here), and the
excavator standards refused for it by name."""

import math

import numpy as np
import pytest
from scipy.optimize import fsolve

from bondgraph import ParameterError
from mechanisms.analysis import breakout_forces, tool_forces
from mechanisms.machine import DATA, Machine
from reference.statics import potential

LOADER = DATA / "wheel_loader.toml"


@pytest.fixture(scope="module")
def bf():
    return breakout_forces(LOADER, n=20)


def test_breakout_forces_equal_virtual_work_at_the_level_bucket_on_the_ground(bf):
    """The pose: the bucket floor level (the bucket's angle zero) and the cutting edge on the
    ground, by fsolve on the assembly solver; the force: vertical, 100 mm behind the edge along
    the floor, F = (relief force − holding force)/∂y_P/∂s for the working cylinder, the held one
    within its own relief too, the holding forces from the weights of the empty equipment
    (the 5 t payload left out)."""
    m = Machine.from_file(LOADER, {"payloads.load.mass": "0 kg"}, mode="extensions")
    d = m.description

    def residual(L):
        p = m.pose_at_lengths({"lift": L[0], "tilt": L[1]})
        return [p.angle("bucket"), p.points()["bucket/Q"][1] - d.ground]

    L = fsolve(residual, [1.2, 1.1], xtol=1e-13)
    pose = m.pose_at_lengths({"lift": L[0], "tilt": L[1]})
    assert bf.pose["lift"] == pytest.approx(L[0], abs=1e-7) and bf.pose["tilt"] == pytest.approx(L[1], abs=1e-7)

    def P(p):
        ox, oy, th = p.values["bucket"]
        qx, qy = 1.10 - 0.100, -0.55                  # bucket.Q of the file, 100 mm back along the floor
        return np.array([ox + math.cos(th) * qx - math.sin(th) * qy, oy + math.sin(th) * qx + math.cos(th) * qy])

    assert bf.point == pytest.approx(tuple(P(pose)), abs=1e-8)
    h = 1e-6
    limit = {}
    for f in ("lift", "tilt"):
        up, dn = {"lift": L[0], "tilt": L[1]}, {"lift": L[0], "tilt": L[1]}
        up[f] += h
        dn[f] -= h
        pu, pd = m.pose_at_lengths(up, near=pose), m.pose_at_lengths(dn, near=pose)
        vy = (P(pu)[1] - P(pd)[1]) / (2 * h)
        hold = (potential(m, pu) - potential(m, pd)) / (2 * h)
        a_cap, a_rod = d.areas(f)
        limit[f] = (250e5 * a_cap - hold) / vy if vy > 0 else (-250e5 * a_rod - hold) / vy
    rows = {r["function"]: r for r in bf.rows}
    for f in ("lift", "tilt"):
        assert rows[f]["own"] == pytest.approx(limit[f], rel=1e-6), f
        assert rows[f]["force"] == pytest.approx(min(limit.values()), rel=1e-6), f
    assert rows["tilt"]["limit"] == "lift cylinder (held) at its relief"   # the lift gives way first here
    assert "the tilt cylinder alone" in bf.table_text() and "payloads left out" in bf.table_text()


def test_excavator_standards_are_refused_for_a_loader_and_loader_ones_for_an_excavator():
    with pytest.raises(ParameterError, match="ISO 14397-2"):
        tool_forces(LOADER, n=5)
    with pytest.raises(ParameterError, match="kind = \"loader\""):
        breakout_forces(DATA / "excavator.toml")
    assert tool_forces(LOADER, n=5, generic=True).functions == ("lift", "tilt")


def test_breakout_chart_and_files(bf, tmp_path):
    files = bf.write(tmp_path)
    assert [f.name for f in files] == ["breakout_forces.csv", "breakout_forces.png"]
    head = (tmp_path / "breakout_forces.csv").read_text().splitlines()[0]
    assert head.startswith("function,force [N],limit,own [N]")


def test_cli_analyse_breakout_forces(tmp_path, capsys):
    from mechanisms.machine.cli import main

    assert main(["analyse", "wheel_loader", "--analysis", "breakout-forces", "--n", "12", "--out",
                 str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "ISO 14397-2 breakout forces" in out and "lift breakout" in out and "tilt breakout" in out
    assert (tmp_path / "breakout_forces.csv").is_file() and (tmp_path / "breakout_forces.png").is_file()
