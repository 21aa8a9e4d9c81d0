"""Bad input to the turntable and the swing coupling: one error naming every problem; the
front is left as it was."""

import pytest

from bondgraph import ParameterError
from components import Turntable
from mechanisms import MechanismModel
from mechanisms.examples import single_boom
from mechanisms.swing import swing_inertia, with_swing


def test_turntable_lists_every_bad_value():
    with pytest.raises(ParameterError) as err:
        Turntable("swing", inertia="-3 kg*m^2", gear_ratio=-2.0, viscous="1 m", coulomb_rate=0.0,
                  brake=-1.0, drive="hydraulic")
    msg = str(err.value)
    for word in ("inertia: found -3.0", "gear_ratio: found -2.0", "'viscous'", "coulomb_rate: found 0.0",
                 "brake: found -1.0", "drive: found 'hydraulic'"):
        assert word in msg, (word, msg)


def test_turntable_port_drive_exposes_the_motor_shaft():
    tt = Turntable("swing", inertia=1.0e4, drive="port")
    assert list(tt.ports) == ["M"] and tt.inputs == []


@pytest.mark.parametrize("tensors,expected", [
    ({"stick": ((1.0, 0.0), (0.0, 1.0))}, "stick: no such part"),
    ({"boom": ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0))}, "boom: tensor"),
    ({"boom": ((5000.0, 10.0), (-10.0, 5000.0))}, "not symmetric"),
    ({"boom": ((9000.0, 0.0), (0.0, -1000.0))}, "not positive semi-definite"),
    ({"boom": ((100.0, 0.0), (0.0, 100.0))}, "expected J_a + J_b ≥ J_n"),
    ({"boom": ((0.0, 0.0), (0.0, 9000.0))}, "|J_a − J_b| ≤ J_n"),
])
def test_bad_inertia_tensors_are_named(tensors, expected):
    with pytest.raises(ParameterError, match="in-plane inertia tensors") as err:
        with_swing(single_boom(), Turntable("swing", inertia=1.0), tensors=tensors)
    assert expected in str(err.value)


def test_every_bad_tensor_at_once():
    with pytest.raises(ParameterError) as err:
        with_swing(single_boom(), Turntable("swing", inertia=1.0),
                   tensors={"stick": ((1, 0), (0, 1)), "boom": ((100.0, 0.0), (0.0, 100.0))})
    assert "stick" in str(err.value) and "boom" in str(err.value)


def test_with_swing_wants_a_mechanism_and_a_turntable():
    with pytest.raises(ParameterError, match="expected a Mechanism"):
        with_swing("excavator", Turntable("swing", inertia=1.0))
    with pytest.raises(ParameterError, match="expected a Turntable"):
        with_swing(single_boom(), 3.0e4)
    with pytest.raises(ParameterError, match="expected 'angle' or 'rate'"):
        with_swing(single_boom(), Turntable("swing", inertia=1.0)).swing_state("speed")


def test_the_front_is_not_modified():
    front = single_boom("extension", m_rod=20.0)
    before = {n: (sorted(p.children), len(p.bonds)) for n, p in front.parts.items()}
    swung = with_swing(front, Turntable("swing", inertia=1.0e4))
    MechanismModel.build(swung)
    assert {n: (sorted(p.children), len(p.bonds)) for n, p in front.parts.items()} == before
    planar = MechanismModel.build(front)           # the front still builds as a planar model
    assert "swing" not in " ".join(planar.model.state_names)


def test_swing_inertia_names_missing_parameters():
    import sympy as sp

    front = single_boom()
    front.replace(front.parts["boom"].evolve(mass=sp.Symbol("boom.mass")))
    swung = with_swing(front, Turntable("swing", inertia=1.0))
    pose = swung.solve_pose({"boom_cyl": 3.2}, guess={"boom": 0.4})
    with pytest.raises(ParameterError, match="'boom.mass' has no value"):
        swing_inertia(swung, pose)
    assert swing_inertia(swung, pose, params={"boom.mass": 1307.0}) == pytest.approx(swing_inertia(
        with_swing(single_boom(), Turntable("swing", inertia=1.0)), pose))


def test_turntable_ports_need_their_terminals():
    from bondgraph import Sf
    from components.hydraulics import Oil, SwingMotor

    tt = Turntable("swing", inertia=1.0e4, motor=SwingMotor("motor_", displacement="180 cm^3/rev", oil=Oil()))
    with pytest.raises(ParameterError) as err:
        with_swing(single_boom(), tt, terminals={"A": Sf("blocked", 0.0), "C": Sf("x", 0.0)})
    msg = str(err.value)
    assert "C: the turntable has no such port" in msg and "B: not connected" in msg


def test_a_replaced_part_is_seen_by_the_swing():
    import math

    swung = with_swing(single_boom(), Turntable("swing", inertia=0.0))
    pose = swung.solve_pose({"boom_cyl": 3.2}, guess={"boom": 0.4})
    before = swing_inertia(swung, pose)
    swung.replace(swung.parts["boom"].evolve(inertia="9060 kg*m^2"))
    after = swing_inertia(swung, pose)
    assert after - before == pytest.approx(1000.0 * math.cos(pose.angle("boom")) ** 2, rel=1e-12)
    assert swung.front.parts["boom"].inertia == 8060.0                  # the front is not changed
