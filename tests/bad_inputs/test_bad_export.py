"""Bad inputs to the exporters: bond graph → Modelica, mechanism → Modelica, rumoca runs
(issue 10)."""

import functools
import os

import pytest
import sympy as sp

import bondgraph as bg
from bondgraph.export import simulate_rumoca, to_modelica
from mechanisms.examples import single_boom
from mechanisms.formulations import build_formulation, double_pendulum, export_modelica

from .catalogue import Case, check, ids

NAN, INF = float("nan"), float("inf")


def cart():
    m = bg.BondGraph("cart")
    m.add(bg.MSe("F", bg.Input("force")), bg.One("v"), bg.I("m", 2.0), bg.R("b", 1.0))
    for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
        m.connect(a, b)
    return m


def mo(**kw):
    return lambda: to_modelica(cart(), **kw)


def closed():
    return to_modelica(cart(), inputs={"force": 1.0})


def rumoca(*args, **kw):
    return lambda: simulate_rumoca(closed(), *args, **kw)


@functools.lru_cache(maxsize=None)
def pendulum():
    mech, pose = double_pendulum()
    return build_formulation(mech, "causal"), build_formulation(mech, "cartesian"), pose


@functools.lru_cache(maxsize=None)
def boom():
    mech = single_boom("force")
    pose = mech.solve_pose({"boom_cyl": 3.2}, guess={"boom": 0.4})
    return build_formulation(mech, "causal"), pose


@functools.lru_cache(maxsize=None)
def moved_boom_pose():
    """A pose of the single boom whose foot sits 0.3 m further along x (same part names)."""
    import mechanisms.examples as ex

    saved = dict(ex.BOOM)
    ex.BOOM["foot"] = (saved["foot"][0] + 0.3, saved["foot"][1])
    try:
        mech = single_boom("force")
    finally:
        ex.BOOM.update(saved)
    return mech.solve_pose({"boom_cyl": 3.2}, guess={"boom": 0.4})


def export_pendulum(which=0, **kw):
    def call():
        caus, cartesian, pose = pendulum()
        return export_modelica((caus, cartesian)[which], pose, **kw)
    return call


def export_boom(**kw):
    def call():
        f, pose = boom()
        return export_modelica(f, pose, **kw)
    return call


def write_under_a_file(tmp_dir):
    def call():
        blocker = os.path.join(tmp_dir, "a_file")
        open(blocker, "w").close()
        return closed().write(os.path.join(blocker, "x.mo"))
    return call


GAMMA = bg.BondGraph("gam")
GAMMA.add(bg.Se("S", sp.gamma(bg.t + 1)), bg.One("v"), bg.I("m", 1.0))
GAMMA.connect("S", "v")
GAMMA.connect("v", "m")

PE, ME = bg.ParameterError, bg.ModelStructureError

CASES = [
    # ---- to_modelica
    Case("source not a model", lambda: to_modelica(42), ME, ["to_modelica", "int", "BondGraph"]),
    Case("class name with a space", mo(name="my model"), PE, ["name='my model'", "my_model"]),
    Case("class name a keyword", mo(name="model"), PE, ["name='model'", "keyword"]),
    Case("class name empty", mo(name=""), PE, ["name=''", "Modelica class name"]),
    Case("class name starts with a digit", mo(name="1abc"), PE, ["name='1abc'", "digit"]),
    Case("class name not text", mo(name=3), PE, ["name=3"]),
    Case("description not text", mo(description=["x"]), PE, ["description=['x']", "text"]),
    Case("input for no input", mo(inputs={"nope": 1.0}), PE, ["'nope'", "force"]),
    Case("input as text", mo(inputs={"force": "abc"}), PE, ["'force'", "str"]),
    Case("input NaN", mo(inputs={"force": NAN}), PE, ["'force'", "nan", "finite"]),
    Case("input infinite", mo(inputs={"force": INF}), PE, ["'force'", "inf", "finite"]),
    Case("input uses another symbol", mo(inputs={"force": 2 * sp.Symbol("z")}), PE,
         ["'force'", "uses z", "bondgraph.t"]),
    Case("inputs not a mapping", mo(inputs=[1.0]), PE, ["inputs=[1.0]", "mapping"]),
    Case("input complex (sympy I)", mo(inputs={"force": sp.I}), PE, ["'force'", "complex", "real"]),
    Case("input complex formula", mo(inputs={"force": sp.I * bg.t}), PE, ["'force'", "I*t", "complex"]),
    Case("input complex infinity", mo(inputs={"force": sp.zoo}), PE, ["'force'", "zoo", "finite"]),
    Case("start of no state", mo(start={"nope": 1.0}), PE, ["'nope'", "cart/m.f"]),
    Case("start NaN", mo(start={"cart/m.f": NAN}), PE, ["start['cart/m.f']", "finite"]),
    Case("start as text", mo(start={"cart/m.f": "fast"}), PE, ["start['cart/m.f']", "'fast'"]),
    Case("start not a mapping", mo(start=3.0), PE, ["start=3.0", "mapping"]),
    Case("unit not text", mo(units={"m": 5}), PE, ["units['m']", "5", "unit string"]),
    Case("unit unknown to pint", mo(units={"m": "banana"}), PE, ["units['m']", "'banana'"]),
    Case("unit for no element", mo(units={"zz": "kg"}), PE, ["units['zz']", "elements: F, b, m, v"]),
    Case("units not a mapping", mo(units=3), PE, ["units=3", "mapping"]),
    Case("param of no element", mo(params={"nope": 1.0}), PE, ["params['nope']", "cart/m.m"]),
    Case("param NaN", mo(params={"cart/m.m": NAN}), PE, ["params['cart/m.m']", "finite"]),
    Case("param as text", mo(params={"cart/m.m": "heavy"}), PE, ["params['cart/m.m']", "'heavy'"]),
    Case("negative mass", mo(params={"cart/m.m": -1.0}), PE, ["params['cart/m.m']", "-1.0", "≥ 0"]),
    Case("negative resistance", mo(params={"cart/b.r": -2.0}), PE, ["params['cart/b.r']", "-2.0"]),
    Case("a law Modelica lacks", lambda: to_modelica(GAMMA), ME, ["gamma", "no Modelica equivalent"]),
    Case("several problems at once",
         mo(name="a b", inputs={"force": NAN}, start={"cart/m.f": "x"}, units={"m": "banana"}), PE,
         ["4 problems", "name='a b'", "'force'", "start['cart/m.f']", "'banana'"]),
    # ---- rumoca runs
    Case("rumoca: not an export", lambda: simulate_rumoca("cart.mo", 1.0, 0.1), PE,
         ["model", "str", "ModelicaModel"]),
    Case("rumoca: negative end time", rumoca(-1.0, 0.1), PE, ["t_end = -1.0", "> 0"]),
    Case("rumoca: NaN end time", rumoca(NAN, 0.1), PE, ["t_end = nan"]),
    Case("rumoca: zero output step", rumoca(1.0, 0.0), PE, ["dt = 0.0"]),
    Case("rumoca: end time given as True", rumoca(True, 0.1), PE, ["t_end = True"]),
    Case("param given as True", mo(params={"cart/m.m": True}), PE, ["params['cart/m.m']", "True"]),
    Case("rumoca: output step beyond the end", rumoca(1.0, 5.0), PE, ["dt = 5.0", "t_end = 1.0"]),
    Case("rumoca: negative rtol", rumoca(1.0, 0.1, rtol=-1e-6), PE, ["rtol = -1e-06"]),
    Case("rumoca: infinite atol", rumoca(1.0, 0.1, atol=INF), PE, ["atol = inf"]),
    Case("rumoca: an input left open", lambda: simulate_rumoca(to_modelica(cart()), 1.0, 0.1),
         bg.SimulationError, ["rumoca on 'cart'", "force"]),
    Case("rumoca: a name the export lacks", rumoca(1.0, 0.1, names=["cart/zz.f"]),
         bg.SimulationError, ["'cart/zz.f'", "not a name"]),
    # ---- mechanisms
    Case("mechanism export: not a formulation", lambda: export_modelica("f", None), PE,
         ["formulation", "str", "build_formulation"]),
    Case("mechanism export: pose not a Pose", lambda: export_modelica(pendulum()[0], {"rod1": 0.1}),
         PE, ["pose", "dict", "'pendulum'"]),
    Case("mechanism export: pose of another mechanism",
         lambda: export_modelica(pendulum()[0], boom()[1]), PE, ["'boom_lift'", "'pendulum'", "rod1"]),
    Case("mechanism export: pose of a mechanism with the same parts, another geometry",
         lambda: export_modelica(boom()[0], moved_boom_pose()), PE,
         ["pose", "boom.C fixed at", "gap 0.3 m", "'boom_lift'"]),
    Case("mechanism export: unknown form", export_pendulum(form="acausal"), PE, ["form = 'acausal'"]),
    Case("mechanism export: index 2", export_pendulum(1, index=2), PE, ["index = 2"]),
    Case("mechanism export: Cartesian as bond graph", export_pendulum(1, form="bondgraph"), PE,
         ["Cartesian formulation has no bond graph"]),
    Case("mechanism export: input for no drive", export_boom(inputs={"arm_cyl": 1.0}), PE,
         ["'arm_cyl'", "boom_cyl"]),
    Case("mechanism export: NaN force", export_boom(inputs={"boom_cyl": NAN}), PE,
         ["'boom_cyl'", "finite"]),
    Case("mechanism export: input as text", export_boom(inputs={"boom_cyl": "push"}), PE,
         ["'boom_cyl'", "'push'"]),
    Case("mechanism export: input of another symbol", export_boom(inputs={"boom_cyl": sp.Symbol("F")}),
         PE, ["'boom_cyl'", "uses F"]),
    Case("mechanism export: complex force", export_boom(inputs={"boom_cyl": sp.I * 1e3}), PE,
         ["'boom_cyl'", "complex", "real"]),
    Case("mechanism export: Python complex force", export_boom(inputs={"boom_cyl": 2j}), PE,
         ["'boom_cyl'", "2j", "complex"]),
    Case("mechanism export: complex infinity", export_boom(inputs={"boom_cyl": sp.zoo}), PE,
         ["'boom_cyl'", "zoo", "finite"]),
    Case("mechanism export: force complex at t = 0",
         export_boom(inputs={"boom_cyl": 1e3 * sp.sqrt(bg.t - 1)}), PE,
         ["'boom_cyl'", "t = 0", "1000.0*I", "real finite"]),
    Case("mechanism export: force infinite at t = 0", export_boom(inputs={"boom_cyl": sp.log(bg.t)}),
         PE, ["'boom_cyl'", "t = 0", "zoo"]),
    Case("mechanism export: rate of no drive", export_boom(rates={"nope": 0.1}), PE,
         ["rates['nope']", "boom_cyl"]),
    Case("mechanism export: NaN rate", export_boom(rates={"boom_cyl": NAN}), PE,
         ["rates['boom_cyl']", "finite"]),
    Case("mechanism export: bad class name (Cartesian)", export_pendulum(1, name="a b"), PE,
         ["name='a b'"]),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_export_input(case):
    check(case)


def test_writing_under_a_file_is_named(tmp_path):
    check(Case("write under a file", write_under_a_file(str(tmp_path)), PE, ["a_file", "x.mo"]))


def test_catalogue_size():
    assert len(CASES) >= 40
