"""Connection rules and position-level assembly: every violation names its culprit."""

import math

import pytest

from bondgraph import AssemblyError, ConnectionRuleError, ParameterError
from components import Cylinder, Lever, MainBody
from mechanisms import Mechanism
from mechanisms.examples import single_boom


def body(name, **pts):
    return MainBody(name, mass=1.0, inertia=1.0, cog=(0.5, 0.0), points=pts)


def test_body_needs_one_rt_and_one_pd():
    with pytest.raises(ConnectionRuleError) as exc:
        body("arm", A=("Rt", (0, 0)), B=("Rt", (1, 0)), C=("Li", (2, 0)))
    msg = str(exc.value)
    assert "arm (body): has 2 Rt ports; expected exactly one" in msg
    assert "arm (body): has 0 Pd ports; expected exactly one" in msg
    assert "rule: a main body has exactly one Rt and one Pd, any number of Li" in msg


def test_body_cannot_take_a_pr():
    with pytest.raises(ConnectionRuleError, match=r"link \(body\): has a Pr port; a body takes only Rt, Pd, Li"):
        body("link", A=("Rt", (0, 0)), B=("Pd", (1, 0)), C=("Pr", (2, 0)))


def test_unknown_port_class_is_named():
    with pytest.raises(ConnectionRuleError, match=r"boom/X: point spec .*class one of Rt, Pd, Li, Pr"):
        body("boom", A=("Rt", (0, 0)), B=("Pd", (1, 0)), X=("Px", (2, 0)))


def build_pair():
    m = Mechanism("m")
    m.add(body("b1", R=("Rt", (0, 0)), P=("Pd", (1, 0)), L=("Li", (2, 0))))
    m.add(body("b2", R=("Rt", (0, 0)), P=("Pd", (1, 0)), L=("Li", (2, 0))))
    m.add(Cylinder("c1", retracted=1.0, stroke=1.0))
    m.add(Lever("k", length=1.0))
    return m


@pytest.mark.parametrize("a, b, pattern", [
    (("b1", "P"), ("b2", "L"), r"b1/P \(Pd\) – b2/L \(Li\): a Pd must connect to a Pr, found Li"),
    (("b1", "P"), ("b2", "P"), r"a Pd must connect to a Pr, found Pd"),
    (("b1", "R"), ("b2", "R"), r"an Rt not on the chassis connects to an Li, found Rt"),
    (("c1", "B"), ("b2", "L"), r"c1/B \(Pr\) – b2/L \(Li\): a Pr connects to a Pd, found Li"),
    (("b1", "L"), ("b1", "R"), r"both on part b1; a hinge joins two different parts"),
    (("b1", "L"), ("b2", "L"), r"two Li ports cannot be hinged"),
])
def test_hinge_rule_violations_name_parts_ports_and_rule(a, b, pattern):
    m = build_pair()
    with pytest.raises(ConnectionRuleError, match=pattern):
        m.connect(*a, *b)


def test_only_rt_goes_on_the_chassis():
    m = build_pair()
    with pytest.raises(ConnectionRuleError, match=r"b1/L \(Li\) fixed to the chassis: found a Li; expected an Rt"):
        m.fix("b1", "L", at=(0, 0))


def test_a_pd_takes_one_hinge_and_an_i_port_is_driven_not_hinged():
    m = build_pair()
    m.connect("b1", "P", "c1", "B")
    with pytest.raises(ConnectionRuleError, match=r"b1/P \(Pd\): already connected"):
        m.connect("b1", "P", "k", "P")
    with pytest.raises(ConnectionRuleError, match=r"only a cylinder's I port can be driven"):
        m.drive_force("k")


def test_assembly_lists_every_violation_at_once():
    m = build_pair()
    m.fix("b1", "R", at=(0, 0))
    with pytest.raises(ConnectionRuleError) as exc:
        m.check()
    msg = str(exc.value)
    for culprit in ["b1/P (Pd): not connected", "b2/R (Rt): not connected", "b2/P (Pd): not connected",
                    "c1/A (Rt): not connected", "c1/B (Pr): not connected", "c1/I (I): not driven",
                    "k/R (Rt): not connected", "k/P (Pr): not connected"]:
        assert culprit in msg
    assert len(exc.value.problems) >= 8


def test_unknown_part_and_point_are_named():
    m = build_pair()
    with pytest.raises(ConnectionRuleError, match=r"no part 'b3' \(parts: b1, b2, c1, k\)"):
        m.fix("b3", "R", at=(0, 0))
    with pytest.raises(ConnectionRuleError, match=r"b1: no hinge point 'Z'; points are R \(Rt\), P \(Pd\), L \(Li\)"):
        m.connect("b1", "Z", "c1", "B")


def test_branch_is_chosen_by_the_guess():
    mech = single_boom("force")
    up = mech.solve_pose({"boom_cyl": 3.3}, guess={"boom": 0.6})
    down = mech.solve_pose({"boom_cyl": 3.3}, guess={"boom": -2.5})
    assert up.angle("boom") != pytest.approx(down.angle("boom"), abs=1e-3)
    for pose in (up, down):
        pts = pose.points()
        assert math.dist(pts["boom/B"], pts["boom_cyl/A"]) == pytest.approx(3.3, abs=1e-10)
        assert math.dist(pts["boom/B"], pts["boom_cyl/B"]) < 1e-10


def test_a_length_outside_the_stroke_is_refused():
    mech = single_boom("force")
    with pytest.raises(AssemblyError, match=r"boom_cyl: length 6 m requested, outside its stroke "
                                            r"2.48 … 3.73 m \(beyond the stroke end\)"):
        mech.solve_pose({"boom_cyl": 6.0}, guess={"boom": 0.5})
    with pytest.raises(AssemblyError, match=r"length 2 m requested, outside its stroke 2.48 … 3.73 m "
                                            r"\(below the retracted length\)"):
        mech.solve_pose({"boom_cyl": 2.0}, guess={"boom": 0.5})


def _long_stroke_boom():
    """The boom on a cylinder whose stroke (2.48 … 6.48 m) outreaches the geometry."""
    from components import Cylinder, MainBody
    from mechanisms import Mechanism
    from mechanisms.examples import BOOM

    b = BOOM
    mech = Mechanism("long")
    mech.add(MainBody("boom", mass=b["mass"], inertia=b["inertia"], cog=b["cog"],
                      points={"C": ("Rt", (0.0, 0.0)), "B": ("Pd", b["rod_pin"])}))
    mech.add(Cylinder("boom_cyl", retracted=2.48, stroke=4.0))
    mech.fix("boom", "C", at=b["foot"])
    mech.fix("boom_cyl", "A", at=b["cyl_base"])
    mech.connect("boom", "B", "boom_cyl", "B")
    mech.drive_force("boom_cyl")
    return mech


def test_a_length_that_cannot_close_names_the_loop_and_the_reachable_range():
    mech = _long_stroke_boom()
    with pytest.raises(AssemblyError) as exc:
        mech.solve_pose({"boom_cyl": 6.0}, guess={"boom": 0.5})
    msg = str(exc.value)
    assert "loop boom_cyl – chassis – boom (closed at hinge boom/B (Pd) – boom_cyl/B (Pr)) cannot close" in msg
    # reachable range of the triangle chassis pin A – foot C – rod pin B: | |CA| − |CB| | … |CA| + |CB|
    ca = math.dist((-0.164, 1.428), (0.655, 0.703))
    cb = math.hypot(2.85, 1.18)
    lo, hi = [float(x) for x in msg.split("the loop reaches ")[1].split(" m")[0].split(" … ")]
    assert lo == pytest.approx(abs(cb - ca), abs=2e-3) and hi == pytest.approx(ca + cb, abs=2e-3)


def test_targets_must_match_degrees_of_freedom():
    mech = single_boom("force")
    with pytest.raises(ParameterError, match=r"2 targets given, expected 1"):
        mech.solve_pose({"boom_cyl": 3.0, "boom": 0.3})
    with pytest.raises(ParameterError, match=r"'arm': no such part"):
        mech.solve_pose({"boom_cyl": 3.0}, guess={"arm": 0.1})


def test_templates_take_values_with_units_as_the_machine_files_do():
    """A part given in other units (t, mm, cm, g, kg·cm²) is the same part as one given in
    SI: the same masses, lengths and inertias (conversions by hand: 3e6 kg·cm² = 300 kg·m²;
    a lever's default inertia m·L²/12)."""
    si = dict(body=MainBody("boom", mass=1200.0, inertia=300.0, cog=(1.0, 0.0),
                            points={"O": ("Rt", (0, 0)), "P": ("Pd", (1.5, 0.0))}),
              cyl=Cylinder("cyl", retracted=1.2, stroke=0.8, m_rod=20.0, J_rod=0.5),
              lever=Lever("link", length=0.6, mass=20.0))
    units = dict(body=MainBody("boom", mass="1.2 t", inertia="3e6 kg*cm^2", cog=(1.0, 0.0),
                               points={"O": ("Rt", (0, 0)), "P": ("Pd", (1.5, 0.0))}),
                 cyl=Cylinder("cyl", retracted="1200 mm", stroke="80 cm", m_rod="20000 g", J_rod="0.5 kg*m^2"),
                 lever=Lever("link", length="600 mm", mass="0.02 t"))
    assert (units["body"].mass, units["body"].inertia) == pytest.approx((si["body"].mass, si["body"].inertia))
    assert units["cyl"].length_limits == pytest.approx(si["cyl"].length_limits)
    assert (units["cyl"].m_rod, units["cyl"].J_rod) == pytest.approx((si["cyl"].m_rod, si["cyl"].J_rod))
    assert (units["lever"].length, units["lever"].mass, units["lever"].inertia) == pytest.approx(
        (0.6, 20.0, 20.0 * 0.6**2 / 12))
