"""Bad inputs of the co-simulation middleware (issue 10): relations, units, steps, end
times, subsystems, glue names, policies, FMU paths, factories and failing user code.

Each case is one mistake a user could make; it must raise one error of our family,
naming the culprit (see ``catalogue.py``).
"""

import importlib.util
import json
import math
import zipfile

import numpy as np
import pytest

from bondgraph.cosim import (Cosimulation, ErrorPolicy, Glue, PythonSubsystem, Relations,
                             Subsystem, TimeManager, cosimulate, load_config)
from bondgraph.cosim import examples as ex
from bondgraph.errors import CosimulationError, ParameterError

from .catalogue import Case, check, ids

HAS_FMI = (importlib.util.find_spec("fmpy") is not None
           and importlib.util.find_spec("pythonfmu") is not None)


class Obj:
    """A plain model object with one input ``u`` and one output ``y``."""

    def __init__(self):
        self.u, self.y = 0.0, 0.0

    def do_step(self, t, h):
        self.y = t + h


def sub(name="a", unit_in="1", unit_out="1", feedthrough=False, obj=None, **kw):
    return PythonSubsystem(obj or Obj(), name, [("u", unit_in)], [("y", unit_out)],
                           direct_feedthrough=feedthrough, **kw)


def pair(rel=("a.y -> b.u", "b.y -> a.u"), step=0.1, end=1.0, a=None, b=None, **kw):
    return cosimulate([a or sub("a"), b or sub("b")], list(rel), step=step, end=end,
                      glue="zoh", **kw)


def b1(step=1e-3, end=0.01, rel=None, **kw):
    return cosimulate(list(ex.b1_subsystems()), rel or ex.B1_RELATIONS, step=step, end=end,
                      **kw)


class Raises:
    """A model whose step raises at t >= 0.3 s."""

    def __init__(self):
        self.u, self.y = 0.0, 0.0

    def do_step(self, t, h):
        if t >= 0.3 - 1e-12:
            raise ValueError("spool stuck at 4.2 mm")
        self.y = t + h


class BadShape(Subsystem):
    def __init__(self):
        super().__init__("valve", [("u", "1")], [("y", "1"), ("q", "m3/s")],
                         direct_feedthrough=False)

    def set_inputs(self, t, values, derivatives):
        pass

    def get_outputs(self):
        return np.zeros(3)

    def do_step(self, t, h):
        return None


class Late:
    """do_step answers with a word instead of a time."""

    def __init__(self):
        self.u, self.y = 0.0, 0.0

    def do_step(self, t, h):
        return "late"


class NanClock(Obj):
    time = math.nan


class RaisingOutput:
    def __init__(self):
        self.u = 0.0

    def y(self):
        raise ZeroDivisionError("orifice area is zero")

    def do_step(self, t, h):
        pass


def write_config(tmp, data, name="c.json"):
    path = tmp / name
    path.write_text(json.dumps(data))
    return path


B1_CFG = {"step": 1e-3, "end": 0.01,
          "relations": ["mass.x -> spring.x", "mass.v -> spring.v", "spring.F -> mass.F"],
          "subsystems": [{"factory": "bondgraph.cosim.examples:b1_mass"},
                         {"factory": "bondgraph.cosim.examples:b1_spring"}]}


def config_case(tmp_path_factory, change):
    def call():
        tmp = tmp_path_factory.mktemp("cfg")
        data = json.loads(json.dumps(B1_CFG))
        change(data)
        return load_config(write_config(tmp, data))
    return call


def raising_module(tmp_path_factory):
    """A module with a factory that raises, importable from a temporary folder."""
    import sys

    d = tmp_path_factory.mktemp("factories")
    (d / "cosim_bad_factories.py").write_text(
        "def boom(**kw):\n    raise ValueError('valve table has 3 columns, expected 4')\n")
    if str(d) not in sys.path:
        sys.path.insert(0, str(d))
    return d / "cosim_bad_factories.py"


@pytest.fixture(scope="module")
def tmp_factory(tmp_path_factory):
    return tmp_path_factory


def cases(tmpf):
    ss = [
        # ---------------------------------------------------------------- relations
        Case("relation without an arrow", lambda: Relations(["mass.x spring.x"]),
             ParameterError, ["'mass.x spring.x'", "->"]),
        Case("endpoint without a port", lambda: Relations(["mass -> spring.x"]),
             ParameterError, ["endpoint 'mass'", "subsystem.port"]),
        Case("relations as one string", lambda: Relations("mass.x -> spring.x"),
             ParameterError, ["relations: found 'mass.x -> spring.x'", "list"]),
        Case("relation from an unknown subsystem",
             lambda: b1(rel=["pump.x -> spring.x", "mass.v -> spring.v", "spring.F -> mass.F"]),
             CosimulationError, ["no subsystem 'pump'", "known: mass, spring"]),
        Case("relation from an unknown output",
             lambda: b1(rel=["mass.a -> spring.x", "mass.v -> spring.v", "spring.F -> mass.F"]),
             CosimulationError, ["subsystem 'mass' has no output 'a'", "outputs: x, v"]),
        Case("input fed twice",
             lambda: b1(rel=["mass.x -> spring.x", "mass.v -> spring.x", "mass.v -> spring.v",
                             "spring.F -> mass.F"]),
             CosimulationError, ["input spring.x is fed 2 times"]),
        Case("input fed by no relation",
             lambda: b1(rel=["mass.x -> spring.x", "mass.v -> spring.v"]),
             CosimulationError, ["input mass.F [N] is fed by no relation"]),
        Case("subsystem fed by itself", lambda: pair(rel=["a.y -> a.u", "a.y -> b.u"]),
             CosimulationError, ["a.y -> a.u", "connects subsystem 'a' to itself"]),
        Case("power bond as one string",
             lambda: Relations(["a.y -> b.u"], bonds=["spring.F*mass.v"]),
             ParameterError, ["bond 'spring.F*mass.v'", "(effort, flow) pair"]),
        Case("power bond with both ends on one subsystem",
             lambda: b1(rel=Relations(ex.B1_RELATIONS.relations, bonds=[("mass.x", "mass.v")])),
             CosimulationError, ["bond mass.x*mass.v", "both come from subsystem 'mass'"]),
        Case("algebraic loop of feedthrough subsystems",
             lambda: pair(a=sub("a", feedthrough=True), b=sub("b", feedthrough=True)),
             CosimulationError, ["algebraic loop", "direct-feedthrough"]),
        # ---------------------------------------------------------------- units
        Case("unknown unit on both sides",
             lambda: pair(a=sub("a", unit_out="banana", unit_in="banana"),
                          b=sub("b", unit_in="banana", unit_out="banana")),
             CosimulationError, ["a.y -> b.u", "unit 'banana'", "not a unit"]),
        Case("units of different dimensions",
             lambda: pair(a=sub("a", unit_out="m"), b=sub("b", unit_in="N")),
             CosimulationError, ["a.y -> b.u", "'m' and 'N'", "different dimensions"]),
        Case("temperatures in different scales",
             lambda: pair(a=sub("a", unit_out="degC"), b=sub("b", unit_in="K")),
             CosimulationError, ["a.y -> b.u", "'degC' and 'K'", "offset"]),
        Case("malformed unit", lambda: pair(a=sub("a", unit_out="m**"), b=sub("b", unit_in="m")),
             CosimulationError, ["unit 'm**'", "not a unit"]),
        # ---------------------------------------------------------------- steps
        Case("zero communication step", lambda: b1(step=0), CosimulationError,
             ["communication step: found 0", "positive"]),
        Case("negative communication step", lambda: b1(step=-1e-3), CosimulationError,
             ["communication step: found -0.001"]),
        Case("NaN communication step", lambda: b1(step=math.nan), CosimulationError,
             ["communication step: found nan"]),
        Case("infinite communication step", lambda: b1(step=math.inf), CosimulationError,
             ["communication step: found inf"]),
        Case("communication step as text", lambda: b1(step="1e-3"), CosimulationError,
             ["communication step: found '1e-3'"]),
        Case("substeps of zero", lambda: b1(substeps={"mass": 0}), CosimulationError,
             ["substeps of 'mass': found 0"]),
        Case("substeps for an unknown subsystem", lambda: b1(substeps={"pump": 2}),
             CosimulationError, ["substeps given for 'pump'", "known: mass, spring"]),
        # ---------------------------------------------------------------- end times
        Case("end time zero", lambda: b1(end=0.0), CosimulationError,
             ["end time: found 0.0", "after the start time"]),
        Case("end time infinite", lambda: b1(end=math.inf), CosimulationError,
             ["end time: found inf", "finite"]),
        Case("end time not a whole number of steps", lambda: b1(step=3e-3, end=0.01),
             CosimulationError, ["end time 0.01 s", "3.33333 communication steps"]),
        Case("end time before the start", lambda: TimeManager(step=0.1, end=0.5, start=1.0),
             ParameterError, ["end time: found 0.5", "start time 1.0"]),
        # ---------------------------------------------------------------- subsystems
        Case("a subsystem that is not one", lambda: pair(b="b"), CosimulationError,
             ["subsystems[1]: found str, expected a subsystem"]),
        Case("two subsystems with one name", lambda: pair(b=sub("a")), CosimulationError,
             ["subsystem name 'a' is used 2 times"]),
        Case("subsystem name with a space", lambda: sub("boom cyl"), ParameterError,
             ["name 'boom cyl'", "identifier"]),
        Case("model object without the output attribute",
             lambda: PythonSubsystem(object(), "valve", [("u", "1")], [("q", "m3/s")],
                                     direct_feedthrough=False),
             ParameterError, ["subsystem 'valve'", "do_step", "output 'q'"]),
        Case("internal step larger than the communication step",
             lambda: pair(a=sub("a", max_step=0.5)), CosimulationError,
             ["subsystem 'a': internal step 0.5 s exceeds its communication step 0.1 s"]),
        Case("Gauss-Seidel sequence naming an unknown subsystem",
             lambda: Cosimulation([sub("a"), sub("b")], Relations(["a.y -> b.u", "b.y -> a.u"]),
                                  TimeManager(step=0.1, end=1.0, scheme="gauss-seidel",
                                              sequence=["a", "pump"])),
             CosimulationError, ["sequence ['a', 'pump']", "exactly once"]),
        # ---------------------------------------------------------------- glue, scheme, policy
        Case("unknown glue name", lambda: b1(glue="cubic"), CosimulationError,
             ["order: found 'cubic'", "'quadratic'"]),
        Case("unknown glue start", lambda: Glue("quadratic", start="taylor"), ParameterError,
             ["start: found 'taylor'", "'derivatives'"]),
        Case("unknown scheme", lambda: b1(scheme="parallel"), CosimulationError,
             ["scheme: found 'parallel'", "'gauss-seidel'"]),
        Case("unknown policy level", lambda: ErrorPolicy(divergence="loud"), ParameterError,
             ["divergence: found 'loud'", "'off'"]),
        Case("non-finite values switched off", lambda: ErrorPolicy(non_finite="off"),
             ParameterError, ["non_finite: found 'off'"]),
        # ---------------------------------------------------------------- failing user code
        Case("a model step that raises", lambda: pair(a=sub("valve", obj=Raises()),
                                                      rel=["valve.y -> b.u", "b.y -> valve.u"]),
             CosimulationError, ["step_failed at t=0.4 s", "subsystem 'valve'",
                                 "ValueError: spool stuck at 4.2 mm", "t=0.3 s"]),
        Case("outputs of the wrong length", lambda: pair(a=BadShape(), b=sub("b"),
                                                         rel=["valve.y -> b.u", "b.y -> valve.u"]),
             CosimulationError, ["subsystem 'valve'", "get_outputs() returned shape (3,)",
                                 "expected (2,)"]),
        Case("do_step answering with a word",
             lambda: pair(a=sub("late", obj=Late()), rel=["late.y -> b.u", "b.y -> late.u"]),
             CosimulationError, ["subsystem 'late'", "returned 'late'", "finite time"]),
        Case("a clock that reads NaN",
             lambda: pair(a=sub("clock", obj=NanClock()), rel=["clock.y -> b.u", "b.y -> clock.u"]),
             CosimulationError, ["subsystem 'clock'", "get_time() returned nan"]),
        Case("an output method that raises",
             lambda: pair(a=sub("valve", obj=RaisingOutput()),
                          rel=["valve.y -> b.u", "b.y -> valve.u"]),
             CosimulationError, ["subsystem 'valve'", "ZeroDivisionError: orifice area is zero"]),
        # ---------------------------------------------------------------- configurations, factories
        Case("configuration factory that raises",
             config_case(tmpf, lambda d: (raising_module(tmpf), d["subsystems"].append(
                 {"factory": "cosim_bad_factories:boom"}))),
             ParameterError, ["subsystems[2]", "factory 'cosim_bad_factories:boom'",
                              "ValueError: valve table has 3 columns, expected 4"]),
        Case("configuration factory that cannot be imported",
             config_case(tmpf, lambda d: d["subsystems"].append({"factory": "no_such_mod:make"})),
             ParameterError, ["subsystems[2]", "cannot import module 'no_such_mod'"]),
        Case("configuration with a zero step and an unknown policy kind",
             config_case(tmpf, lambda d: d.update(step=0, policy={"divergance": "warning"})),
             ParameterError, ["communication step: found 0", "unknown kind 'divergance'"]),
        Case("configuration that is a directory",
             lambda: load_config(tmpf.mktemp("cfgdir")), ParameterError,
             ["is a directory", ".toml"]),
        Case("configuration that is a binary file",
             lambda: load_config(_binary(tmpf)), ParameterError,
             ["cannot read it as text", "blob.toml"]),
    ]
    if HAS_FMI:
        from bondgraph.cosim import FmuSubsystem, export_fmu
        ss += [
            Case("missing FMU file", lambda: FmuSubsystem(tmpf.mktemp("f") / "nope.fmu"),
                 ParameterError, ["nope.fmu", "not found"]),
            Case("FMU path that is a directory", lambda: FmuSubsystem(tmpf.mktemp("fmudir")),
                 ParameterError, ["fmudir", "is a directory"]),
            Case("a zip that is not an FMU", lambda: FmuSubsystem(_zip(tmpf)), ParameterError,
                 ["plain.fmu", "cannot read its model description", "modelDescription.xml"]),
            Case("export with a factory that raises",
                 lambda: export_fmu("cosim_bad_factories:boom", tmpf.mktemp("out"),
                                    model_name="Boom",
                                    project_files=[raising_module(tmpf)]),
                 ParameterError, ["factory 'cosim_bad_factories:boom'",
                                  "valve table has 3 columns"]),
        ]
    return ss


def _zip(tmpf):
    path = tmpf.mktemp("zip") / "plain.fmu"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("readme.txt", "no model description here")
    return path


def _binary(tmpf):
    path = tmpf.mktemp("bin") / "blob.toml"
    path.write_bytes(bytes(range(256)) * 4)
    return path


# The cases need a temporary folder; build them once with a placeholder factory and run
# each with the module-scoped one.
class _LazyTmp:
    def __init__(self):
        self.real = None

    def mktemp(self, name):
        return self.real.mktemp(name)


_TMP = _LazyTmp()
CASES = cases(_TMP)


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_bad_cosim_input(case, tmp_factory):
    _TMP.real = tmp_factory
    check(case)


def test_the_catalogue_is_large_enough():
    assert len(CASES) >= 25


def test_a_zero_step_is_one_problem_about_the_step_only():
    for step in (0, -1e-3, math.nan, math.inf):
        with pytest.raises(CosimulationError) as info:
            b1(step=step)
        assert len(info.value.problems) == 1, info.value.problems
        assert "communication step" in info.value.problems[0]
        assert "end time" not in str(info.value)


def test_every_set_up_problem_is_listed_at_once():
    with pytest.raises(CosimulationError) as info:
        cosimulate([ex.b1_mass(), "spring"], ["mass.x -> spring.x", "mass.v spring.v"],
                   step=0, end=-1, glue="cubic", scheme="parallel")
    text = str(info.value)
    for culprit in ("relation 'mass.v spring.v'", "order: found 'cubic'",
                    "communication step: found 0", "end time: found -1",
                    "scheme: found 'parallel'", "subsystems[1]: found str"):
        assert culprit in text, culprit
