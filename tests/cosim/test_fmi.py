"""FMU export with pythonfmu and import through FMPy: round trip, statuses, errors."""

import importlib.util
import textwrap

import numpy as np
import pytest

from bondgraph.cosim import FmuSubsystem, PythonSubsystem, Relations, cosimulate, export_fmu
from bondgraph.cosim import examples as ex
from bondgraph.errors import CosimulationError, ParameterError

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("fmpy") is None or importlib.util.find_spec("pythonfmu") is None,
    reason="FMU tests need fmpy and pythonfmu (the 'fmi' extra)")


@pytest.fixture(scope="module")
def b1_fmus(tmp_path_factory):
    d = tmp_path_factory.mktemp("fmus")
    mass = export_fmu("bondgraph.cosim.examples:b1_mass", d, model_name="B1Mass")
    spring = export_fmu("bondgraph.cosim.examples:b1_spring", d, model_name="B1Spring")
    return mass, spring


def test_exported_fmus_declare_ports_units_feedthrough_and_derivatives(b1_fmus):
    mass, spring = FmuSubsystem(b1_fmus[0], "mass"), FmuSubsystem(b1_fmus[1], "spring")
    assert [(p.name, p.unit) for p in mass.inputs] == [("F", "N")]
    assert [(p.name, p.unit) for p in mass.outputs] == [("x", "m"), ("v", "m/s")]
    assert [(p.name, p.unit) for p in spring.inputs] == [("x", "m"), ("v", "m/s")]
    assert not mass.direct_feedthrough and spring.direct_feedthrough
    assert mass.input_derivative_order == 2 and mass.output_derivative_order == 2
    assert FmuSubsystem(b1_fmus[0]).name == "B1Mass"


@pytest.mark.parametrize("step,end", [(1e-3, 4.0), (1e-4, 0.3)])
def test_b1_as_two_fmus_matches_in_process(b1_fmus, step, end):
    fmus = [FmuSubsystem(b1_fmus[0], "mass"), FmuSubsystem(b1_fmus[1], "spring")]
    res_fmu = cosimulate(fmus, ex.B1_RELATIONS, step=step, end=end, glue="quadratic")
    res_py = cosimulate(list(ex.b1_subsystems()), ex.B1_RELATIONS, step=step, end=end,
                        glue="quadratic")
    err_fmu = np.abs(res_fmu["mass.x"] - ex.b1_reference(res_fmu.time)).max()
    err_py = np.abs(res_py["mass.x"] - ex.b1_reference(res_py.time)).max()
    assert abs(err_fmu - err_py) <= 1e-9
    assert np.abs(res_fmu["mass.x"] - res_py["mass.x"]).max() <= 1e-9
    if end == 4.0:
        assert err_fmu <= 5e-5
    # the FMUs report their own time (fmi2LastSuccessfulTime), checked at every step
    assert [f.get_time() for f in fmus] == [pytest.approx(end)] * 2


def test_b1_zoh_through_fmus_is_reported_as_diverged(b1_fmus):
    fmus = [FmuSubsystem(b1_fmus[0], "mass"), FmuSubsystem(b1_fmus[1], "spring")]
    with pytest.raises(CosimulationError, match=r"bond spring\.F\*mass\.v: the coupling created"):
        cosimulate(fmus, ex.B1_RELATIONS, step=1e-3, end=4.0, glue="zoh")


FAULTY = '''
import numpy as np
from bondgraph.cosim import Subsystem


class Faulty(Subsystem):
    def __init__(self, fail_at, mode):
        super().__init__("faulty", [("u", "1")], [("y", "1")], direct_feedthrough=False)
        self.fail_at, self.mode, self.t = fail_at, mode, 0.0

    def set_inputs(self, t, values, derivatives):
        pass

    def get_outputs(self):
        return np.array([self.t])

    def do_step(self, t, h):
        if t + h > self.fail_at + 1e-12:
            if self.mode == "raise":
                raise RuntimeError("pump model lost prime")
            self.t = t + h / 2
            return self.t
        self.t = t + h


def make(fail_at, mode):
    return Faulty(fail_at, mode)
'''


class Ramp:
    def __init__(self):
        self.u, self.y = 0.0, 0.0

    def do_step(self, t, h):
        self.y = t + h


def faulty_fmu(tmp_path, mode):
    module = f"faulty_models_{mode}"
    src = tmp_path / f"{module}.py"
    src.write_text(textwrap.dedent(FAULTY))
    return export_fmu(f"{module}:make", tmp_path / "out", model_name=f"Faulty{mode.title()}",
                      kwargs={"fail_at": 0.05, "mode": mode}, project_files=[src])


def couple(fmu_path):
    fmu = FmuSubsystem(fmu_path, "pump")
    ramp = PythonSubsystem(Ramp(), "ramp", [("u", "1")], [("y", "1")], direct_feedthrough=False)
    return [fmu, ramp], Relations(["pump.y -> ramp.u", "ramp.y -> pump.u"])


def test_an_fmu_error_status_aborts_with_partial_results(tmp_path):
    subs, rel = couple(faulty_fmu(tmp_path, "raise"))
    with pytest.raises(CosimulationError) as info:
        cosimulate(subs, rel, step=0.01, end=0.2, glue="zoh")
    err = info.value
    msg = str(err)
    assert "fmu_status" in msg and "FMU subsystem 'pump' (FaultyRaise.fmu)" in msg
    assert "fmi2DoStep failed with status 4 (fatal)" in msg
    # the FMU's own words: the slave's Python exception, through its logger
    assert "the FMU says: [FATAL]" in msg and "pump model lost prime" in msg
    assert err.time == pytest.approx(0.05)
    assert np.allclose(err.results["pump.y"], np.arange(6) * 0.01)


def test_an_fmu_that_stops_early_is_a_time_stamp_mismatch(tmp_path):
    subs, rel = couple(faulty_fmu(tmp_path, "early"))
    with pytest.raises(CosimulationError) as info:
        cosimulate(subs, rel, step=0.01, end=0.2, glue="zoh")
    msg = str(info.value)
    assert "time_mismatch" in msg and "subsystem 'pump'" in msg
    assert "expected t=0.06 s" in msg
    assert info.value.results.time[-1] == pytest.approx(0.05)


def test_fmu_subsystem_argument_errors(b1_fmus, tmp_path):
    with pytest.raises(ParameterError, match=r"FMU file '.*nope\.fmu': not found"):
        FmuSubsystem(tmp_path / "nope.fmu")
    with pytest.raises(ParameterError) as info:
        FmuSubsystem(b1_fmus[0], "mass", inputs=["G"], outputs=["x", "a"],
                     parameters={"m": 1.0}, units={"q": "m"})
    text = str(info.value)
    assert "FMU 'B1Mass.fmu'" in text
    assert "input 'G': not a real input of the FMU (found: F)" in text
    assert "output 'a': not a real output of the FMU (found: x, v)" in text
    assert "parameter 'm': the FMU has no such variable" in text
    assert "units: the FMU has no variable 'q'" in text


def test_export_argument_errors(tmp_path):
    with pytest.raises(ParameterError) as info:
        export_fmu("bondgraph.cosim.examples:b1_mass", tmp_path, model_name="b1 mass",
                   kwargs={"m": object()}, project_files=[tmp_path / "missing.py"])
    assert len(info.value.problems) == 3
    with pytest.raises(ParameterError, match="returned tuple, expected a Subsystem"):
        export_fmu("bondgraph.cosim.examples:b1_subsystems", tmp_path, model_name="B1")


FMI3_SLAVE = '''
from pythonfmu3 import Fmi3Slave, Fmi3Causality, Fmi3Variability, Float64


class CosimIntegrator3(Fmi3Slave):
    description = "y' = u"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.time = 0.0
        self.u = 0.0
        self.y = 0.0
        self.register_variable(Float64("time", causality=Fmi3Causality.independent,
                                       variability=Fmi3Variability.continuous))
        self.register_variable(Float64("u", causality=Fmi3Causality.input,
                                       variability=Fmi3Variability.continuous, start=0.0))
        self.register_variable(Float64("y", causality=Fmi3Causality.output,
                                       variability=Fmi3Variability.continuous))

    def do_step(self, current_time, step_size):
        self.y += self.u * step_size
        self.time = current_time + step_size
        return True
'''


def test_an_fmi3_cosimulation_fmu(tmp_path):
    builder = pytest.importorskip(
        "pythonfmu3", reason="building an FMI 3 test FMU needs pythonfmu3 (not a dependency)")
    script = tmp_path / "cosim_integrator3.py"
    script.write_text(FMI3_SLAVE)
    path = builder.FmuBuilder.build_FMU(script, dest=tmp_path)
    fmu = FmuSubsystem(path, "integ")
    assert fmu.version == "3.0" and [p.name for p in fmu.inputs] == ["u"]
    assert fmu.direct_feedthrough   # no dependencies declared: FMI says "depends on all"
    src = PythonSubsystem(Ramp(), "ramp", [("u", "1")], [("y", "1")], direct_feedthrough=False)
    res = cosimulate([fmu, src], ["ramp.y -> integ.u", "integ.y -> ramp.u"], step=0.01,
                     end=1.0, glue="linear")
    # integ.u(t) = t exactly with linear glue, so y = t^2 / 2 up to the hold in the FMU
    assert res["integ.y"][-1] == pytest.approx(0.5 - 0.005, abs=1e-9)


class _Recorder:
    """Stands in for an FMPy instance: records the calls the adapter makes."""

    def __init__(self):
        self.calls = []

    def __getattr__(self, name):
        def call(*args):
            self.calls.append((name, args))
        return call


def _with_description(monkeypatch, path, change):
    """FmuSubsystem of ``path`` whose model description is changed by ``change(md)``."""
    import fmpy

    md = fmpy.read_model_description(str(path))
    change(md)
    monkeypatch.setattr(fmpy, "read_model_description", lambda *a, **k: md)
    return md


def test_fmi2_can_interpolate_inputs_gets_the_glue_derivatives(b1_fmus, monkeypatch):
    def interpolating(md):
        md.coSimulation.canInterpolateInputs = True
        md.modelVariables[:] = [v for v in md.modelVariables if not v.name.startswith("der(")]
    _with_description(monkeypatch, b1_fmus[0], interpolating)
    fmu = FmuSubsystem(b1_fmus[0], "mass")
    assert fmu.input_derivative_order == 2
    fmu.fmu = rec = _Recorder()
    fmu._set = lambda vr, values: rec.calls.append(("setReal", (vr, values)))
    fmu.set_inputs(0.0, np.array([3.0]), np.array([[-2.0], [0.5]]))
    vr = fmu._vin[0]
    assert rec.calls == [("setReal", ([vr], [3.0])),
                         ("setRealInputDerivatives", ([vr, vr], [1, 2], [-2.0, 0.5]))]


def test_fmi3_intermediate_update_sets_inputs_on_the_glue_polynomial(b1_fmus, monkeypatch):
    def fmi3(md):
        md.fmiVersion = "3.0"
        md.coSimulation.providesIntermediateUpdate = True
        md.modelVariables[:] = [v for v in md.modelVariables if not v.name.startswith("der(")]
        for v in md.modelVariables:
            if v.type == "Real":
                v.type = "Float64"
            if v.causality == "input":
                v.intermediateUpdate = True
    _with_description(monkeypatch, b1_fmus[0], fmi3)
    fmu = FmuSubsystem(b1_fmus[0], "mass")
    assert fmu.version == "3.0" and fmu.input_derivative_order == 2
    written = []
    fmu._set = lambda vr, values: written.append((vr, values))
    fmu.set_inputs(1.0, np.array([3.0]), np.array([[-2.0], [0.5]]))
    early = [True]
    # the FMU calls back at t = 1.2 s inside its step: u = 3 - 2*0.2 + 0.5*0.04/2
    fmu._intermediate_update(None, 1.2, True, True, False, False, early, [0.0])
    assert written[-1][1] == [pytest.approx(2.61)] and early == [False]
    fmu._intermediate_update(None, 1.3, False, True, False, False, early, [0.0])
    assert len(written) == 2          # no set requested: nothing written


def test_fmu_paths_that_are_not_fmus(tmp_path):
    with pytest.raises(ParameterError, match=r"is a directory, expected a \.fmu file"):
        FmuSubsystem(tmp_path)
    fake = tmp_path / "notes.fmu"
    fake.write_text("not a zip")
    with pytest.raises(ParameterError, match=r"notes\.fmu': cannot read its model description"):
        FmuSubsystem(fake)
