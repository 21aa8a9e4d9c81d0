"""Bad inputs to the templates: bodies, levers, cylinders and hydraulic parts (issue 10)."""

import math

import pytest

import bondgraph as bg
from components import Cylinder, Lever, MainBody
from components.hydraulics import (Chamber, CompensatedPump, DirectionalValve, EndStop, FixedPump,
                                   Friction, Hose, HydraulicCylinder, Line, Oil, OnOffValve, Orifice,
                                   PowerUnit, ReliefValve, SpoolDynamics, Tank)

from .catalogue import Case, check, ids

NAN, INF = float("nan"), float("inf")
P, RULE = bg.ParameterError, bg.ConnectionRuleError
POINTS = {"O": ("Rt", (0.0, 0.0)), "B": ("Pd", (1.0, 0.2)), "F": ("Li", (3.0, 0.0))}


def body(**kw):
    args = dict(mass=100.0, inertia=10.0, cog=(1.5, 0.1), points=POINTS)
    args.update(kw)
    return lambda: MainBody("boom", **args)


def polar(**points):
    pts = {"C": ("Rt", 3.0, math.radians(258)), "B": ("Pd", 0.6, math.radians(231))}
    pts.update(points)
    return lambda: MainBody.from_polar("boom", mass=1.0, inertia=1.0, points=pts)


def cyl(**kw):
    args = dict(bore="135 mm", rod="50 mm", stroke="1.25 m", oil=Oil())
    args.update(kw)
    return lambda: HydraulicCylinder("boom", **args)


def valve(**kw):
    args = dict(q_nominal="600 L/min", dp_nominal="3 bar", command=bg.Input("u"))
    args.update(kw)
    return lambda: DirectionalValve("dv", **args)


def onoff(**kw):
    args = dict(q_nominal=1e-3, dp_nominal=5e5, command=bg.Input("u"))
    args.update(kw)
    return lambda: OnOffValve("dump", **args)


CASES = [
    # ---- main body: text masses gave a TypeError, NaN points a raw scipy error later
    Case("body-mass-text", body(mass="heavy"), P, ["body 'boom'", "'mass'", "cannot read 'heavy'", "a mass in kg"]),
    Case("body-mass-wrong-unit", body(mass="850 m"), P, ["body 'boom'", "'mass'", "'850 m'", "a mass in kg"]),
    Case("cylinder-stroke-wrong-unit", lambda: Cylinder("c", retracted="2.48 m", stroke="1.25 kg"), P,
         ["cylinder 'c'", "'stroke'", "'1.25 kg'", "a length in m"]),
    Case("body-mass-nan", body(mass=NAN), P, ["body 'boom'", "mass", "nan"]),
    Case("body-point-mass-wrong-unit", body(point_masses={"payload": ("450 m", (2.0, 0.0))}), P,
         ["body 'boom'", "point mass 'payload'", "'450 m'", "a mass in kg"]),
    Case("body-point-mass-negative", body(point_masses={"payload": (-450.0, (2.0, 0.0))}), P,
         ["body 'boom'", "point mass 'payload'", "-450", "≥ 0"]),
    Case("body-inertia-negative", body(inertia=-1.0), P, ["body 'boom'", "inertia", "-1.0", "≥ 0"]),
    Case("body-cog-nan", body(cog=(1.5, NAN)), P, ["body 'boom'", "cog y", "nan"]),
    Case("body-cog-text", body(cog=("about 1", 0.0)), P, ["body 'boom'", "cog x", "'about 1'", "length"]),
    Case("body-cog-wrong-unit", body(cog=("1.4 kg", "0.1 m")), P, ["body 'boom'", "cog x", "'1.4 kg'", "length in m"]),
    Case("body-cog-not-a-pair", body(cog=1.5), P, ["body 'boom'", "cog", "pair"]),
    Case("body-point-nan", body(points={**POINTS, "F": ("Li", (NAN, 0.0))}), P, ["body 'boom'", "point 'F' (Li) x", "nan"]),
    Case("body-point-wrong-unit", body(points={**POINTS, "B": ("Pd", ("1 s", 0.2))}), P,
         ["body 'boom'", "point 'B'", "x", "'1 s'", "length in m"]),
    Case("body-gravity-nan", body(gravity=NAN), P, ["body 'boom'", "gravity", "nan"]),
    Case("body-theta0-inf", body(theta0=INF), P, ["body 'boom'", "theta0", "inf"]),
    Case("body-all-at-once", body(mass="heavy", cog=(NAN, 0), points={**POINTS, "F": ("Li", (INF, 0))}),
         P, ["3 problems", "mass", "cog x", "point 'F'"]),
    Case("body-bad-class-and-number", body(mass=-2.0, points={**POINTS, "F": ("Xx", (3.0, 0.0))}),
         P, ["mass", "boom/F", "Xx"]),
    Case("body-bad-class", body(points={**POINTS, "F": ("Xx", (3.0, 0.0))}), RULE, ["boom/F", "Xx"]),
    Case("body-points-not-a-dict", body(points=[("O", "Rt")]), RULE, ["boom", "points", "dict"]),
    Case("polar-L-nan", polar(F=("Li", NAN, 0.5)), P, ["body 'boom'", "point 'F'", "L", "nan"]),
    Case("polar-alpha-text", polar(F=("Li", 3.0, "40 deg")), P, ["body 'boom'", "point 'F'", "alpha", "'40 deg' (text)"]),
    Case("polar-bad-spec", polar(F=("Li", 3.0)), RULE, ["boom/F", "(class, L, alpha)"]),
    # ---- lever: a NaN mass was silently dropped
    Case("lever-mass-nan", lambda: Lever("link", length=0.7, mass=NAN), P, ["lever 'link'", "mass", "nan"]),
    Case("lever-mass-text", lambda: Lever("link", length=0.7, mass="fifty"), P, ["lever 'link'", "'mass'", "'fifty'"]),
    Case("lever-inertia-negative", lambda: Lever("link", length=0.7, mass=1.0, inertia=-0.1), P,
         ["lever 'link'", "inertia", "-0.1"]),
    Case("lever-length-zero", lambda: Lever("link", length=0.0), P, ["lever 'link'", "length", "> 0"]),
    Case("lever-cog-inf", lambda: Lever("link", length=0.7, mass=1.0, cog=(INF, 0.0)), P,
         ["lever 'link'", "cog x", "inf"]),
    Case("lever-phi0-nan", lambda: Lever("link", length=0.7, phi0=NAN), P, ["lever 'link'", "phi0"]),
    # ---- mechanical cylinder: a NaN mass was silently dropped
    Case("cylinder-m-barrel-nan", lambda: Cylinder("c", retracted=2.0, stroke=1.0, m_barrel=NAN), P,
         ["cylinder 'c'", "m_barrel", "nan"]),
    Case("cylinder-m-rod-text", lambda: Cylinder("c", retracted=2.0, stroke=1.0, m_rod="light"), P,
         ["cylinder 'c'", "m_rod", "'light'"]),
    Case("cylinder-retracted-nan", lambda: Cylinder("c", retracted=NAN, stroke=1.0), P,
         ["cylinder 'c'", "retracted", "nan"]),
    Case("cylinder-stroke-negative", lambda: Cylinder("c", retracted=2.0, stroke=-1.0), P,
         ["cylinder 'c'", "stroke", "-1.0"]),
    Case("cylinder-J-rod-negative", lambda: Cylinder("c", retracted=2.0, stroke=1.0, J_rod=-3.0), P,
         ["cylinder 'c'", "J_rod"]),
    Case("cylinder-d-barrel-nan", lambda: Cylinder("c", retracted=2.0, stroke=1.0, d_barrel=NAN), P,
         ["cylinder 'c'", "d_barrel"]),
    Case("cylinder-s0-inf", lambda: Cylinder("c", retracted=2.0, stroke=1.0, s0=INF), P,
         ["cylinder 'c'", "s0", "inf"]),
    # ---- hydraulic cylinder: a negative bore was blamed on the rod
    Case("hyd-cyl-bore-negative", cyl(bore=-0.1), P, ["hydraulic cylinder 'boom'", "'bore'", "-0.1"]),
    Case("hyd-cyl-bore-text", cyl(bore="big"), P, ["'bore'", "'big'"]),
    Case("hyd-cyl-rod-too-big", cyl(rod="150 mm"), P, ["'rod'", "less than the bore"]),
    Case("hyd-cyl-x0-nan", cyl(x0=NAN), P, ["'x0'", "nan"]),
    Case("hyd-cyl-pressures-text", cyl(pressures=("1 bar", "two")), P, ["pressures[1]", "'two'"]),
    Case("hyd-cyl-pressures-shape", cyl(pressures=0.0), P, ["'pressures'", "(cap, rod)"]),
    Case("hyd-cyl-piston-mass-nan", cyl(piston_mass=NAN), P, ["'piston_mass'", "nan"]),
    Case("hyd-cyl-count-bool", cyl(count=True), P, ["'count'", "True"]),
    Case("hyd-cyl-leakage-negative", cyl(leakage_external=(-1e-12, 0.0)), P,
         ["leakage_external[0]", "≥ 0"]),
    Case("hyd-cyl-tank-nan", cyl(tank_pressure=NAN), P, ["'tank_pressure'", "nan"]),
    # ---- orifices and valves
    Case("orifice-area-negative", lambda: Orifice("o", area=-1e-5), P, ["orifice 'o'", "area", "-1e-05"]),
    Case("orifice-area-text", lambda: Orifice("o", area="big"), P, ["orifice 'o'", "area", "'big'"]),
    Case("orifice-cd-above-one", lambda: Orifice("o", area=1e-5, cd=1.5), P, ["orifice 'o'", "cd", "1.5"]),
    Case("orifice-density-nan", lambda: Orifice("o", area=1e-5, density=NAN), P, ["orifice 'o'", "density"]),
    Case("orifice-opening-two", lambda: Orifice("o", q_nominal=1e-3, dp_nominal=5e5, opening=2.0), P,
         ["orifice 'o'", "opening", "2.0"]),
    Case("orifice-conductance-inf", lambda: Orifice("o", conductance=INF), P, ["orifice 'o'", "conductance"]),
    Case("orifice-p-tr-zero", lambda: Orifice("o", area=1e-5, p_tr=0.0), P, ["orifice 'o'", "p_tr"]),
    Case("valve-leakage-nan", valve(leakage=NAN), P, ["valve 'dv'", "'leakage'", "nan"]),
    Case("valve-q-nominal-nan", valve(q_nominal=NAN), P, ["valve 'dv'", "'q_nominal'", "nan"]),
    Case("valve-all-at-once", valve(q_nominal=-1.0, dp_nominal="3 m", leakage=2.0), P,
         ["3 problems", "'q_nominal'", "'dp_nominal'", "'leakage'"]),
    Case("valve-makeup-negative", valve(makeup=-1e-9), P, ["valve 'dv'", "'makeup'"]),
    Case("onoff-dp-negative", onoff(dp_nominal=-5e5), P, ["valve 'dump'", "'dp_nominal'", "-500000.0"]),
    Case("onoff-p-tr-nan", onoff(p_tr=NAN), P, ["valve 'dump'", "'p_tr'"]),
    Case("onoff-leakage-text", onoff(leakage="tiny"), P, ["valve 'dump'", "'leakage'", "'tiny'"]),
    Case("spool-bandwidth-text", lambda: SpoolDynamics(bandwidth="fast"), P, ["spool", "bandwidth", "'fast'"]),
    Case("spool-order", lambda: SpoolDynamics(bandwidth=10.0, order=3), P, ["spool", "order", "3"]),
    # ---- oil, friction, stops, lines, supply
    Case("oil-density-text", lambda: Oil(density="870"), P, ["oil", "density", "'870' without a unit",
                                                              '"870 kg/m^3"']),
    Case("oil-air-text", lambda: Oil(air_fraction="some"), P, ["oil", "air_fraction", "'some'"]),
    Case("friction-coulomb-text", lambda: Friction(coulomb="1 kg"), P, ["friction", "coulomb", "'1 kg'",
                                                                       "a force"]),
    Case("friction-vbrk-inf", lambda: Friction(coulomb=100.0, breakaway_velocity=INF), P,
         ["friction", "breakaway_velocity", "inf"]),
    Case("endstop-stiffness-text", lambda: EndStop(stiffness="hard"), P, ["end stop", "stiffness", "'hard'"]),
    Case("hose-volume-nan", lambda: Hose("h", Oil(), volume=NAN), P, ["hose 'h'", "'volume'", "nan"]),
    Case("hose-volume-negative", lambda: Hose("h", Oil(), volume="-1 L"), P, ["hose 'h'", "'volume'", "'-1 L'"]),
    Case("line-diameter-inf", lambda: Line("l", Oil(), length=1.0, diameter=INF), P, ["line 'l'", "'diameter'"]),
    Case("chamber-initial-nan", lambda: Chamber("c", 1e-3, Oil(), initial=NAN), P, ["chamber 'c'", "initial"]),
    Case("chamber-volume-zero", lambda: Chamber("c", 0.0, Oil()), P, ["chamber 'c'", "volume", "> 0"]),
    Case("pump-speed-nan", lambda: FixedPump("100 cm^3/rev", NAN), P, ["fixed pump", "'speed'", "nan"]),
    Case("pump-speed-hz-table", lambda: FixedPump("100 cm^3/rev", {"value": 25, "unit": "Hz"}), P,
         ["fixed pump", "'speed'", "'Hz'", "revolutions or radians"]),
    Case("pump-band-negative", lambda: CompensatedPump(1e-4, 25.0, "200 bar", "-5 bar"), P,
         ["compensated pump", "'band'"]),
    Case("relief-full-below-crack", lambda: ReliefValve(crack="300 bar", full="290 bar", q_rated=1e-3), P,
         ["relief valve", "full", "crack"]),
    Case("tank-pressure-text", lambda: Tank("t", pressure="high"), P, ["tank pressure", "'high'"]),
    Case("power-unit-tank-nan", lambda: PowerUnit("pu", oil=Oil(), pressure="100 bar", tank_pressure=NAN), P,
         ["power unit 'pu'", "'tank_pressure'", "nan"]),
    Case("power-unit-initial-text", lambda: PowerUnit("pu", oil=Oil(), pump=FixedPump(1e-4, 25.0),
                                                      initial_pressure="low"), P,
         ["power unit 'pu'", "'initial_pressure'", "'low'"]),
    # bare numbers are SI, but only when their size is plausible for their kind
    Case("bore-bare-millimetres", cyl(bore=135), P, ["'bore'", "bare number 135", '"135 mm"']),
    Case("stroke-bare-millimetres", cyl(stroke=1250), P, ["'stroke'", "1250", '"1250 mm"']),
    Case("valve-flow-bare-litres-per-minute", valve(q_nominal=600), P,
         ["'q_nominal'", "600", '"600 L/min"']),
    Case("valve-drop-bare-bar", valve(dp_nominal=3), P, ["'dp_nominal'", "bare number 3", '"3 bar"']),
    Case("oil-bulk-modulus-bare-gigapascal", lambda: Oil(bulk_modulus=1.4), P,
         ["oil", "bulk_modulus", "1.4 Pa", '"1.4 GPa"']),
    Case("oil-viscosity-in-centistokes", lambda: Oil(viscosity=46.0), P, ["oil", "viscosity", "46"]),
    Case("power-unit-pressure-bare-bar", lambda: PowerUnit("pu", oil=Oil(), pressure=200), P,
         ["'pressure'", "bare number 200", '"200 bar"']),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_template_input(case):
    check(case)


def test_a_negative_bore_is_not_blamed_on_the_rod():
    err = check(CASES[ids(CASES).index("hyd-cyl-bore-negative")])
    assert err.problems == ["'bore': found -0.1, expected a finite number > 0 (m)"]


def test_the_catalogue_is_large_enough():
    assert len(CASES) >= 50
    assert len(set(ids(CASES))) == len(CASES)


def test_a_point_mass_takes_its_unit_like_the_body_mass():
    """``"0.45 t"`` is 450 kg for a point mass as for the body's own mass (it was refused as text)."""
    b = body(mass="100 kg", point_masses={"payload": ("0.45 t", (2.0, 0.0))})()
    assert b.mass == 100.0 and b.point_masses["payload"] == (450.0, (2.0, 0.0))
