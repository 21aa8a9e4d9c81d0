"""The standalone FMU (bondgraph.export.fmu, `hydrobond export-fmu`): validated by FMPy,
simulated by FMPy in a Python that cannot import this package, and checked against an
analytic solution (a mass–spring–damper) and against the native run of the excavator."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
import zipfile

import numpy as np
import pytest

pytest.importorskip("fmpy")

from bondgraph import BondGraph, C, I, Input, MSe, One, R, build  # noqa: E402
from bondgraph.errors import ParameterError  # noqa: E402
from bondgraph.export.fmu import export_standalone_fmu  # noqa: E402

# FMPy driving the FMU in an isolated interpreter (-I: no cwd, no PYTHONPATH, no user site):
# the repository is not on its path, and it reports whether anything of ours got imported.
_DRIVER = r"""
import json, sys, numpy as np
from fmpy import read_model_description, extract, simulate_fmu
from fmpy.fmi2 import FMU2Slave
from fmpy.fmi3 import FMU3Slave
from fmpy.validation import validate_fmu
a = json.loads(sys.argv[1])
out = {"problems": validate_fmu(a["fmu"])}
if a["kind"] == "ME":
    r = simulate_fmu(a["fmu"], fmi_type="ModelExchange", stop_time=a["t_end"], output_interval=a["dt"],
                     relative_tolerance=a["rtol"], output=a["outputs"], start_values=a.get("start", {}))
    out["t"] = r["time"].tolist()
    out["y"] = [r[n].tolist() for n in a["outputs"]]
else:   # co-simulation, inputs ramped between table points: fmi2SetRealInputDerivatives (FMI 2),
        # the input derivative variables der(u) (FMI 3)
    md = read_model_description(a["fmu"])
    fmi3 = md.fmiVersion.startswith("3")
    out["version"] = md.fmiVersion
    vr = {v.name: v.valueReference for v in md.modelVariables}
    tt = np.array(a["table_t"]); tab = {k: np.array(v) for k, v in a["table"].items()}
    unz = extract(a["fmu"])
    s = (FMU3Slave if fmi3 else FMU2Slave)(guid=md.guid, unzipDirectory=unz,
                                           modelIdentifier=md.coSimulation.modelIdentifier, instanceName="x")
    s.instantiate()
    if fmi3:
        s.enterInitializationMode(tolerance=a["rtol"], startTime=0.0)
        s.setReal = s.setFloat64; s.getReal = s.getFloat64
        dins = [vr["der(" + n + ")"] for n in tab]
        s.setRealInputDerivatives = lambda ins, orders, du: s.setFloat64(dins, du)
    else:
        s.setupExperiment(tolerance=a["rtol"], startTime=0.0); s.enterInitializationMode()
    s.exitInitializationMode()
    ins = [vr[n] for n in tab]; outs = [vr[n] for n in a["outputs"]]
    n = int(round(a["t_end"] / a["dt"])); t_out, y_out = [], []
    for k in range(n + 1):
        t = k * a["dt"]
        if ins:
            j = min(int(np.searchsorted(tt, t + 1e-12, side="right")) - 1, len(tt) - 2)
            u = [float(np.interp(t, tt, v)) for v in tab.values()]
            du = [float((v[j + 1] - v[j]) / (tt[j + 1] - tt[j])) if t < tt[-1] else 0.0 for v in tab.values()]
            s.setReal(ins, u); s.setRealInputDerivatives(ins, [1] * len(ins), du)
        t_out.append(t); y_out.append(s.getReal(outs))
        if k < n:
            s.doStep(currentCommunicationPoint=t, communicationStepSize=a["dt"])
    s.terminate(); s.freeInstance(); shutil.rmtree(unz, ignore_errors=True)
    out["t"] = t_out; out["y"] = np.array(y_out).T.tolist()
out["ours"] = sorted(m for m in sys.modules if m.split(".")[0] in ("bondgraph", "mechanisms", "components"))
print(json.dumps(out))
""".replace("import json, sys", "import json, shutil, sys")


def _fmpy(tmp_path, **args) -> dict:
    proc = subprocess.run([sys.executable, "-I", "-c", _DRIVER, json.dumps(args)], capture_output=True,
                          text=True, cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    assert res["problems"] == []
    assert res["ours"] == []          # FMPy ran the FMU without importing anything of ours
    return res


def _msd():
    bg = BondGraph("msd")
    _ = bg.add(MSe("F", Input("F")), One("v"), I("m", 2.0), C.spring("k", 50.0), R("c", 3.0))
    for a, b in [("F", "v"), ("v", "m"), ("v", "k"), ("v", "c")]:
        _ = bg.connect(a, b)
    return build(bg)


def _msd_exact(t, m=2.0, k=50.0, c=3.0, F=10.0):
    """x(t) of m·x″ + c·x′ + k·x = F from rest (underdamped), and v(t)."""
    wn, z = math.sqrt(k / m), c / (2 * math.sqrt(k * m))
    wd = wn * math.sqrt(1 - z * z)
    e = np.exp(-z * wn * t)
    x = F / k * (1 - e * (np.cos(wd * t) + z / math.sqrt(1 - z * z) * np.sin(wd * t)))
    v = F / k * e * wn / math.sqrt(1 - z * z) * np.sin(wd * t)
    return x, v


@pytest.fixture(scope="module", params=[2, 3], ids=["fmi2", "fmi3"])
def msd_fmu(tmp_path_factory, request):
    model = _msd()
    assert list(model.state_names) == ["msd/m.f", "msd/k.e"]   # the mass's velocity, the spring's force
    path = tmp_path_factory.mktemp("msd") / "msd.fmu"
    return export_standalone_fmu(model, path, inputs_start={"F": 10.0}, rtol=1e-10, atol=1e-12,
                                 fmi_version=request.param)


@pytest.mark.parametrize("kind", ["ME", "CS"])
def test_mass_spring_damper_matches_the_analytic_solution(msd_fmu, tmp_path, kind):
    res = _fmpy(tmp_path, fmu=str(msd_fmu), kind=kind, t_end=3.0, dt=0.01, rtol=1e-10,
                outputs=["msd/m.f", "msd/k.e"], table_t=[0.0, 3.0], table={"F": [10.0, 10.0]})
    t = np.array(res["t"])
    x, v = _msd_exact(t)
    v_fmu, spring_force = (np.array(y) for y in res["y"])
    assert np.max(np.abs(v_fmu - v)) < 1e-7
    assert np.max(np.abs(spring_force / 50.0 - x)) < 1e-8     # k·x, k = 50 N/m
    assert np.ptp(x) > 0.1                                      # it moved and rang


def test_fmu_library_needs_no_python(msd_fmu, tmp_path):
    fmu = msd_fmu
    with zipfile.ZipFile(fmu) as z:
        names = z.namelist()
        z.extractall(tmp_path)
        fmi3 = 'fmiVersion="3.0"' in z.read("modelDescription.xml").decode()
    platform = "binaries/x86_64-linux" if fmi3 else "binaries/linux64"   # the standard's platform names
    assert "modelDescription.xml" in names and f"{platform}/msd.so" in names
    readelf = shutil.which("readelf")
    if readelf is None:
        pytest.skip("no readelf to list the library's dependencies")
    lib = str(tmp_path / platform / "msd.so")
    dyn = subprocess.run([readelf, "-d", lib], capture_output=True, text=True).stdout
    needed = [line.split("[")[1].rstrip("]") for line in dyn.splitlines() if "(NEEDED)" in line]
    assert needed and not any("python" in n for n in needed)
    assert all(n.startswith(("libc.", "libm.")) or (tmp_path / platform / n).is_file() for n in needed)
    assert "$ORIGIN" in dyn
    # it exports the entry points of its own version only
    syms = subprocess.run([readelf, "--dyn-syms", "-W", lib], capture_output=True, text=True).stdout
    exported = {line.split()[-1] for line in syms.splitlines() if " GLOBAL " in line and " UND " not in line}
    ours, other = ("fmi3", "fmi2") if fmi3 else ("fmi2", "fmi3")
    assert f"{ours}DoStep" in exported and f"{ours}GetContinuousStates" in exported
    assert not any(n.startswith(other) for n in exported)


def test_export_names_every_problem(tmp_path):
    model = _msd()
    with pytest.raises(ParameterError) as err:
        export_standalone_fmu(model, tmp_path / "no" / "x.fmu", start={"nope": 1.0}, outputs=["zzz"],
                              inputs_start={"G": 1.0}, rtol=2.0)
    text = str(err.value)
    for word in ("nope", "zzz", "G", "rtol", "does not exist"):
        assert word in text
    with pytest.raises(ParameterError, match="fmi_version = 4: expected 2"):
        export_standalone_fmu(model, tmp_path / "x.fmu", fmi_version=4)


def test_fmi3_model_description(tmp_path):
    """The FMI 3.0 model description: Float64 variables, the instantiation token the library
    checks, the independent variable, the input derivatives, the model structure by value
    reference (outputs, state derivatives, initial unknowns, event indicators)."""
    import xml.etree.ElementTree as ET

    fmu = export_standalone_fmu(_msd(), tmp_path / "msd.fmu", fmi_version=3, inputs_start={"F": 1.0},
                                crossings=[("msd/k.e", 5.0, 1)], units={"F": "N"})
    with zipfile.ZipFile(fmu) as z:
        root = ET.fromstring(z.read("modelDescription.xml"))
        assert "binaries/x86_64-linux/msd.so" in z.namelist()
    assert root.get("fmiVersion") == "3.0" and root.get("instantiationToken", "").startswith("{")
    variables = {v.get("name"): v for v in root.find("ModelVariables")}
    assert {v.tag for v in variables.values()} == {"Float64"}
    assert variables["time"].get("causality") == "independent"
    vr = {n: v.get("valueReference") for n, v in variables.items()}
    assert variables["der(msd/m.f)"].get("derivative") == vr["msd/m.f"]
    assert variables["der(F)"].get("causality") == "input" and variables["der(F)"].get("derivative") == vr["F"]
    assert variables["der(F,2)"].get("derivative") == vr["der(F)"]
    assert variables["F"].get("unit") == "N" and len(set(vr.values())) == len(vr)
    ms = root.find("ModelStructure")
    assert [e.get("valueReference") for e in ms.findall("ContinuousStateDerivative")] == \
        [vr["der(msd/m.f)"], vr["der(msd/k.e)"]]
    assert [e.get("valueReference") for e in ms.findall("EventIndicator")] == [vr["crossing(msd/k.e > 5.0)"]]
    assert {e.get("valueReference") for e in ms.findall("Output")} == \
        {vr[n] for n, v in variables.items() if v.get("causality") == "output"}
    from fmpy.validation import validate_fmu

    assert validate_fmu(str(fmu)) == []


@pytest.mark.parametrize("version", [2, 3], ids=["fmi2", "fmi3"])
def test_excavator_valves_fmu_matches_the_native_run(tmp_path, version):
    from mechanisms.machine import DATA, Machine
    from mechanisms.machine.fmu import export_machine_fmu

    m = Machine.from_file(DATA / "excavator.toml", mode="valves")
    cyc = m.cycle(None)
    run = m.run(cyc, rtol=1e-10, atol=1e-12, progress=False, method="CVODE")
    table = run.table()
    fmu = export_machine_fmu(m, tmp_path / "excavator.fmu", rtol=1e-10, atol=1e-12, fmi_version=version)
    res = _fmpy(tmp_path, fmu=str(fmu), kind="CS", t_end=float(run.t[-1]), dt=0.01, rtol=1e-10,
                outputs=["tip_x", "tip_y", "boom_cap_pressure"], table_t=cyc.time.tolist(),
                table={f"{f}.cmd": cyc.values[f].tolist() for f in cyc.functions})
    assert res["version"] == f"{version}.0"
    t = np.array(res["t"])
    assert np.allclose(t, run.t, atol=1e-12, rtol=0)
    tip_x, tip_y, p_cap = (np.array(y) for y in res["y"])
    # the FMU's read-outs are generated C; the table's are the Python kinematics of the states
    assert np.max(np.hypot(tip_x - table["tip_x"], tip_y - table["tip_y"])) <= 1e-6
    assert np.max(np.abs(p_cap - table["boom_cap_pressure"])) <= 1e-6 * np.max(np.abs(table["boom_cap_pressure"]))
    # and the tip moved: the comparison is not of two resting machines
    assert np.ptp(table["tip_x"]) > 0.1


def test_truck_loading_in_valves_fmu_matches_the_native_run(tmp_path):
    """The swinging machine on its valves (swing valve section, swing motor, crossover relief,
    open-centre circuit and engine, soil): its spool table through dig and swing out,
    co-simulated by FMPy, equals the native run (tip ≤ 1e-6 m, swing angle ≤ 1e-6 rad)."""
    from mechanisms.machine import DATA, Machine

    m = Machine.from_file(DATA / "excavator_truck.toml", mode="valves")
    cyc = m.cycle(None)
    t_end = 9.0                                     # the bite and most of the swing out
    run = m.run(cyc, t_end=t_end, rtol=1e-10, atol=1e-12, progress=False, method="CVODE")
    tab = run.table()
    fmu = m.export_fmu(tmp_path / "truck.fmu", rtol=1e-10, atol=1e-12)
    table = {f"{f}.cmd": cyc.values[f].tolist() for f in cyc.functions}
    table["swing.cmd"] = np.asarray(cyc.swing).tolist()
    res = _fmpy(tmp_path, fmu=str(fmu), kind="CS", t_end=t_end, dt=0.01, rtol=1e-10,
                outputs=["tip_x", "tip_y", "swing_angle"], table_t=cyc.time.tolist(), table=table)
    assert np.allclose(res["t"], run.t, atol=1e-12, rtol=0)
    tip_x, tip_y, phi = (np.array(y) for y in res["y"])
    assert np.max(np.hypot(tip_x - tab["tip_x"], tip_y - tab["tip_y"])) <= 1e-6
    assert np.max(np.abs(phi - tab["swing_angle"])) <= 1e-6
    assert np.ptp(tab["swing_angle"]) > 0.5 and np.ptp(tab["tip_y"]) > 0.5   # it dug and swung


def test_export_fmu_refuses_mode_extensions(tmp_path):
    from mechanisms.machine import DATA, Machine
    from mechanisms.machine.fmu import export_machine_fmu

    m = Machine.from_file(DATA / "excavator.toml", mode="extensions")
    with pytest.raises(ParameterError, match="mode 'extensions'"):
        export_machine_fmu(m, tmp_path / "x.fmu")


def test_cli_export_fmu(tmp_path, capsys):
    from mechanisms.machine.cli import main

    out = tmp_path / "exc.fmu"
    assert main(["export-fmu", "excavator", "--mode", "valves", "--out", str(out), "--model-exchange-only"]) == 0
    assert "wrote" in capsys.readouterr().out
    with zipfile.ZipFile(out) as z:
        assert not any("sundials" in n for n in z.namelist())
    assert main(["export-fmu", "excavator", "--out", str(tmp_path / "none" / "x.fmu")]) == 2
    assert "does not exist" in capsys.readouterr().err
    out3 = tmp_path / "exc3.fmu"
    assert main(["export-fmu", "excavator", "--out", str(out3), "--model-exchange-only", "--fmi-version", "3"]) == 0
    assert "FMI 3.0" in capsys.readouterr().out
    with zipfile.ZipFile(out3) as z:
        assert 'fmiVersion="3.0"' in z.read("modelDescription.xml").decode()


@pytest.mark.parametrize("version", [2, 3], ids=["fmi2", "fmi3"])
def test_excavator_valves_fmu_model_exchange_matches_the_native_run(tmp_path, version):
    """Model exchange, integrated by FMPy's own CVODE, with constant spool commands (FMPy's
    model-exchange loop holds inputs between output points, so ramps would differ by that
    hold, not by the equations)."""
    from bondgraph import simulate
    from mechanisms.machine import DATA, Machine
    from mechanisms.machine.fmu import export_machine_fmu

    m = Machine.from_file(DATA / "excavator.toml", mode="valves")
    cmd = {"boom.cmd": 0.3, "arm.cmd": -0.2, "bucket.cmd": 0.25}
    t_eval = np.linspace(0.0, 1.5, 151)
    res = simulate(m.model.model, (0.0, 1.5), x0=m.start_state(), inputs=cmd, t_eval=t_eval, rtol=1e-10,
                   atol=1e-12, method="CVODE", progress=False)
    tip = m.model.positions(res)["bucket/Q"]
    fmu = export_machine_fmu(m, tmp_path / "excavator.fmu", rtol=1e-10, atol=1e-12, co_simulation=False,
                             fmi_version=version)
    out = _fmpy(tmp_path, fmu=str(fmu), kind="ME", t_end=1.5, dt=0.01, rtol=1e-10, outputs=["tip_x", "tip_y"],
                start=cmd)
    t = np.array(out["t"])
    tip_x, tip_y = (np.interp(t_eval, t, y) for y in out["y"])
    assert np.max(np.hypot(tip_x - tip[0], tip_y - tip[1])) <= 1e-6
    assert np.ptp(tip[0]) > 0.1


def test_export_without_a_compiler_says_so(tmp_path, monkeypatch):
    from bondgraph.errors import EquationError
    from bondgraph.export import fmu as fmu_module

    monkeypatch.setattr(fmu_module, "find_compiler", lambda: None)
    with pytest.raises(EquationError, match="no C compiler"):
        export_standalone_fmu(_msd(), tmp_path / "x.fmu")
    assert not (tmp_path / "x.fmu").exists()


def _truck_forces_cycle(m, t_end: float = 1.5):
    """The first ``t_end`` s of the truck-loading cycle's forces (its inverse dynamics) with a
    swing torque of our own at the axis: swing out, then brake (N·m). Resampled on the
    0.01 s communication grid, so that the co-simulation's ramps between communication
    points are the native run's linear table exactly. Short: these forces drive the front
    open loop, and later (bucket at its stroke ends, in the soil) the native run itself
    changes by more than 1e-6 m between rtol 1e-10 and 1e-11."""
    from mechanisms.machine.cycle import Cycle

    c = m.cycle(None)
    t = np.round(np.arange(0.0, t_end + 1e-9, 0.01), 12)
    tau = np.interp(t, [0.0, 0.5, 1.0, t_end], [0.0, 60e3, 60e3, -60e3])
    return Cycle("forces", t, {f: np.interp(t, c.time, c.values[f]) for f in c.functions}, functions=c.functions,
                 source="truck-loading forces and a swing torque", swing=tau)


@pytest.mark.parametrize("version", [2, 3], ids=["fmi2", "fmi3"])
def test_swinging_machine_fmu_matches_the_native_run(tmp_path, version):
    """The excavator on its turntable (mode forces): inputs the cylinder forces and the swing
    motor's torque, outputs the tip in the front's plane and the swing angle and rate;
    co-simulated by FMPy it equals the native run (tip ≤ 1e-6 m, angle ≤ 1e-6 rad)."""
    from mechanisms.machine import DATA, Machine

    m = Machine.from_file(DATA / "excavator_truck.toml", mode="forces")
    cyc = _truck_forces_cycle(m)
    run = m.run(cyc, rtol=1e-10, atol=1e-12, progress=False, method="CVODE")
    tab = run.table()
    fmu = m.export_fmu(tmp_path / "truck.fmu", rtol=1e-10, atol=1e-12, fmi_version=version)
    from fmpy import read_model_description

    md = read_model_description(str(fmu))
    causal = {v.name: (v.causality, v.unit) for v in md.modelVariables}
    assert causal["swing.torque"] == ("input", "N*m") and causal["boom_cylinder.force"] == ("input", "N")
    assert causal["swing_angle"] == ("output", "rad") and causal["swing_rate"] == ("output", "rad/s")
    # the FMU's swing input is the motor shaft's torque: the axis torque through the gear
    table = {f"{m.cylinder_of[f]}.force": cyc.values[f].tolist() for f in cyc.functions}
    table["swing.torque"] = (np.asarray(cyc.swing) / m.turntable.gear_ratio).tolist()
    res = _fmpy(tmp_path, fmu=str(fmu), kind="CS", t_end=float(run.t[-1]), dt=0.01, rtol=1e-10,
                outputs=["tip_x", "tip_y", "swing_angle", "swing_rate"], table_t=cyc.time.tolist(), table=table)
    assert res["version"] == f"{version}.0"
    assert np.allclose(res["t"], run.t, atol=1e-12, rtol=0)
    tip_x, tip_y, phi, rate = (np.array(y) for y in res["y"])
    assert np.max(np.hypot(tip_x - tab["tip_x"], tip_y - tab["tip_y"])) <= 1e-6
    assert np.max(np.abs(phi - tab["swing_angle"])) <= 1e-6
    assert np.max(np.abs(rate - tab["swing_rate"])) <= 1e-6
    # it swung and the front moved: not two machines at rest
    assert np.ptp(tab["swing_angle"]) > 0.2 and np.ptp(tab["tip_y"]) > 0.5


class _Ramp:
    """A co-simulation source whose output is the time: y(t) = t."""

    def __init__(self):
        self.u, self.y = 0.0, 0.0

    def do_step(self, t, h):
        self.y = t + h


@pytest.mark.parametrize("glue", ["linear", "quadratic"])
@pytest.mark.parametrize("version", [2, 3], ids=["fmi2", "fmi3"])
def test_standalone_fmu_in_this_packages_cosimulation_master(tmp_path, version, glue):
    """The standalone FMU imported by :class:`bondgraph.cosim.FmuSubsystem`: FMI 2.0 through
    ``canInterpolateInputs`` (orders 1 and 2), FMI 3.0 through its input derivative variables
    ``der(F)``, ``der(F,2)`` (the importer's derivative companions). A mass on a damper pushed
    by F = t from a ramp source with linear or quadratic glue follows the analytic solution:
    the glue has one sample at the first step, so F is held at 0 over [0, h]; after it the
    glue's polynomial through the ramp's samples is F = t."""
    import sympy as sp

    from bondgraph.cosim import FmuSubsystem, PythonSubsystem, cosimulate

    bg = BondGraph("push")
    _ = bg.add(MSe("F", Input("F")), One("v"), I("m", 2.0), R("b", 4.0))
    for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
        _ = bg.connect(a, b)
    model = build(bg, observe={"v": sp.Symbol("push/m.f")})
    fmu = FmuSubsystem(export_standalone_fmu(model, tmp_path / "push.fmu", rtol=1e-10, atol=1e-12,
                                             fmi_version=version), "push")
    assert fmu.version == f"{version}.0" and fmu.input_derivative_order == 2
    ramp = PythonSubsystem(_Ramp(), "ramp", [("u", "1")], [("y", "1")], direct_feedthrough=False)
    with pytest.warns(Warning, match="subsystem 'ramp'"):      # the ramp itself holds its input
        res = cosimulate([fmu, ramp], ["ramp.y -> push.F", "push.v -> ramp.u"], step=0.01, end=1.0,
                         glue=glue)
    t, h, m, a = res.time, 0.01, 2.0, 4.0 / 2.0
    ramp_v = (t - (1 - np.exp(-a * t)) / a) / (m * a)          # m·v' = t − b·v from rest
    held = np.exp(-a * t) / m * (np.exp(a * h) * (h / a - 1 / a**2) + 1 / a**2)   # of F = t on [0, h]
    after = t >= h - 1e-12
    assert np.max(np.abs(res["push.v"][after] - (ramp_v - held)[after])) <= 1e-8
    assert res["push.v"][-1] > 0.1


@pytest.mark.parametrize("version", [2, 3], ids=["fmi2", "fmi3"])
def test_fmu_state_rolls_back_a_step(tmp_path, version):
    """``canGetAndSetFMUstate`` / ``canGetAndSetFMUState`` and serialisation: a step redone
    from a saved state lands on the values of the step first taken, to the solver's
    tolerance (a restored state restarts CVODE: its step history is not part of the FMU's
    state), and exactly on those of a redo from the serialised copy; the step moved the
    spring (so the rollback is not vacuous)."""
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave
    from fmpy.fmi3 import FMU3Slave

    fmu = export_standalone_fmu(_msd(), tmp_path / "msd.fmu", inputs_start={"F": 10.0}, rtol=1e-10, atol=1e-12,
                                fmi_version=version)
    md = read_model_description(str(fmu))
    vr = [v.valueReference for v in md.modelVariables if v.name in ("msd/m.f", "msd/k.e")]
    s = (FMU3Slave if version == 3 else FMU2Slave)(guid=md.guid, unzipDirectory=extract(str(fmu), tmp_path / "x"),
                                                   modelIdentifier=md.coSimulation.modelIdentifier, instanceName="s")
    s.instantiate()
    if version == 3:
        s.enterInitializationMode(tolerance=1e-10)
        get, save, restore, ser, deser, free = (s.getFloat64, s.getFMUState, s.setFMUState, s.serializeFMUState,
                                                s.deserializeFMUState, s.freeFMUState)
    else:
        s.setupExperiment(tolerance=1e-10)
        s.enterInitializationMode()
        get, save, restore, ser, deser, free = (s.getReal, s.getFMUstate, s.setFMUstate, s.serializeFMUstate,
                                                s.deSerializeFMUstate, s.freeFMUstate)
    s.exitInitializationMode()
    s.doStep(0.0, 0.5)
    at_half = get(vr)
    state = save()
    blob = ser(state)
    s.doStep(0.5, 0.5)
    first = get(vr)
    restore(state)
    assert get(vr) == at_half
    s.doStep(0.5, 0.5)
    redo = get(vr)
    assert redo == pytest.approx(first, rel=1e-8, abs=1e-10)
    restore(deser(blob))
    assert get(vr) == at_half
    s.doStep(0.5, 0.5)
    assert get(vr) == redo
    assert abs(first[1] - at_half[1]) > 1e-3
    free(state)
    s.terminate()
    s.freeInstance()


def test_swinging_machine_fmi3_model_exchange_matches_the_native_run(tmp_path):
    """FMI 3.0 model exchange of the machine on its turntable, integrated by FMPy's own CVODE
    with constant inputs (the cycle's first forces and 40 kN·m at the swing axis), against
    the native integration of the same model: tip ≤ 1e-6 m, swing angle ≤ 1e-6 rad."""
    from bondgraph import simulate
    from mechanisms.machine import DATA, Machine

    m = Machine.from_file(DATA / "excavator_truck.toml", mode="forces")
    c = m.cycle(None)
    u = {f"{m.cylinder_of[f]}.force": float(c.values[f][0]) for f in c.functions}
    u["swing.torque"] = 40e3 / m.turntable.gear_ratio
    t_eval = np.linspace(0.0, 1.0, 101)
    res = simulate(m.model.model, (0.0, 1.0), x0=m.start_state(), inputs=u, t_eval=t_eval, rtol=1e-10,
                   atol=1e-12, method="CVODE", progress=False)
    tip = m.model.positions(res)["bucket/Q"]
    phi = np.asarray(res[m.mechanism.swing_state("angle")])
    fmu = m.export_fmu(tmp_path / "truck.fmu", rtol=1e-10, atol=1e-12, co_simulation=False, fmi_version=3)
    out = _fmpy(tmp_path, fmu=str(fmu), kind="ME", t_end=1.0, dt=0.01, rtol=1e-10,
                outputs=["tip_x", "tip_y", "swing_angle"], start=u)
    t = np.array(out["t"])
    tip_x, tip_y, angle = (np.interp(t_eval, t, y) for y in out["y"])
    assert np.max(np.hypot(tip_x - tip[0], tip_y - tip[1])) <= 1e-6
    assert np.max(np.abs(angle - phi)) <= 1e-6
    assert np.ptp(phi) > 0.1


def test_swing_rate_of_a_turntable_without_inertia(tmp_path):
    """A turntable with no inertia of its own (nor its motor's) has no rate state: the FMU's
    ``swing_rate`` is then its drive bond's flow through the gear. It equals the native run
    table's, and the time derivative of the FMU's own ``swing_angle`` (central differences)."""
    from mechanisms.machine import DATA, Machine

    m = Machine.from_file(DATA / "excavator_truck.toml", {"swing.inertia": "0 kg*m^2",
                                                          "swing.motor_inertia": "0 kg*m^2"}, mode="forces")
    assert m.mechanism.swing_state("rate") not in m.model.model.state_names
    cyc = _truck_forces_cycle(m, t_end=0.6)
    tab = m.run(cyc, rtol=1e-10, atol=1e-12, progress=False, method="CVODE").table()
    fmu = m.export_fmu(tmp_path / "j0.fmu", rtol=1e-10, atol=1e-12, fmi_version=3)
    table = {f"{m.cylinder_of[f]}.force": cyc.values[f].tolist() for f in cyc.functions}
    table["swing.torque"] = (np.asarray(cyc.swing) / m.turntable.gear_ratio).tolist()
    res = _fmpy(tmp_path, fmu=str(fmu), kind="CS", t_end=float(tab["time"][-1]), dt=0.01, rtol=1e-10,
                outputs=["swing_angle", "swing_rate"], table_t=cyc.time.tolist(), table=table)
    t = np.array(res["t"])
    phi, rate = (np.array(y) for y in res["y"])
    assert np.max(np.abs(rate - tab["swing_rate"])) <= 1e-6
    dphi = (phi[2:] - phi[:-2]) / (t[2:] - t[:-2])
    assert np.max(np.abs(dphi - rate[1:-1])) <= 1e-3 * np.max(np.abs(rate))
    assert np.max(np.abs(rate)) > 0.1
