"""A standalone FMI 2.0 or 3.0 FMU of a built model: the generated C equations, no Python inside.

:func:`export_standalone_fmu` writes an FMU whose shared library is compiled at export
time, with the system C compiler, from

* the model's own generated C (:func:`bondgraph.codegen.generate_c`: ``bg_rhs``,
  ``bg_jac``, ``bg_out`` — the same code a native run calls; nothing is printed twice);
* a small FMI runtime (``fmu_runtime.c`` next to this module) with its own LU for the
  coupled algebraic blocks, so that neither LAPACK nor Python is needed: one core (values,
  equations, solver) and the thin entry points of the version exported, the ``fmi2…``
  functions or the ``fmi3…`` functions;
* a header of sizes, start values and parameter values written here.

It offers **model exchange** (states, ``fmi2GetDerivatives``, outputs, inputs; event
indicators only for the state crossings given as ``crossings`` — a machine's stroke ends,
where a native run locates an event and restarts; the other switching laws —
``Heaviside``, piecewise — are integrated through, as the native run integrates them) and, unless ``co_simulation=False``, **co-simulation**:
``fmi2DoStep`` steps SUNDIALS CVODE (BDF, dense direct solver, the generated analytic
Jacobian) with the FMU's tolerances; inputs are held over a step, or follow the
polynomial of the first and second derivatives given by ``fmi2SetRealInputDerivatives``
(``canInterpolateInputs``).
The SUNDIALS 7 shared libraries of the scikit-sundae wheel are copied next to the FMU's
library, which finds them through an ``$ORIGIN`` run path: the importing host needs
neither Python nor SUNDIALS, only a Linux x86-64 C library.

Value references: states ``0 … nx−1``, their derivatives ``nx … 2nx−1``, then the
inputs, the outputs and the parameters (fixed, settable before initialisation). FMI 3.0
(``fmi_version=3``) adds, after these, the independent variable ``time``, the event
indicators as variables (``crossing(<state> > <threshold>)``, FMI 3 lists them in the
model structure) and, with co-simulation, the input derivatives ``der(<input>)`` and
``der(<input>,2)``: inputs with the ``derivative`` attribute, the polynomial of their input
over a step (FMI 3 has no ``fmi3SetRealInputDerivatives``); its binaries are in
``binaries/x86_64-linux``.

Examples
--------
A mass pushed by a force input against a damper (``m·v̇ = F − b·v``), exported and
simulated by FMPy (which imports nothing of this package):

>>> import tempfile, pathlib
>>> from bondgraph import BondGraph, MSe, One, I, R, Input, build
>>> bg = BondGraph("push")
>>> _ = bg.add(MSe("F", Input("F")), One("v"), I("m", 2.0), R("b", 4.0))
>>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
...     _ = bg.connect(a, b)
>>> fmu = export_standalone_fmu(build(bg), pathlib.Path(tempfile.mkdtemp()) / "push.fmu",
...                             inputs_start={"F": 8.0}, co_simulation=False)
>>> from fmpy import simulate_fmu
>>> res = simulate_fmu(str(fmu), stop_time=1.0, relative_tolerance=1e-10, output=["push/m.f"])
>>> v_end = float(res["push/m.f"][-1])        # v(t) = (F/b)(1 − e^{−bt/m})
>>> import math; abs(v_end - 2.0 * (1 - math.exp(-2.0))) < 1e-6
True

The same model as an FMI 3.0 FMU, simulated by FMPy in the same way:

>>> fmu3 = export_standalone_fmu(build(bg), pathlib.Path(tempfile.mkdtemp()) / "push.fmu",
...                              inputs_start={"F": 8.0}, co_simulation=False, fmi_version=3)
>>> from fmpy import read_model_description
>>> read_model_description(str(fmu3)).fmiVersion
'3.0'
>>> res = simulate_fmu(str(fmu3), stop_time=1.0, relative_tolerance=1e-10, output=["push/m.f"])
>>> abs(float(res["push/m.f"][-1]) - v_end) < 1e-8
True
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import uuid
import zipfile
from pathlib import Path
from typing import Mapping, Sequence
from xml.sax.saxutils import quoteattr

import numpy as np

from ..codegen import UNIT_MARK, find_compiler
from ..errors import EquationError, ParameterError

__all__ = ["export_standalone_fmu", "fmi_headers"]

_RUNTIME = Path(__file__).with_name("fmu_runtime.c")
#: the SUNDIALS libraries the co-simulation solver links, in load order
_SUNDIALS = ("sundials_core", "sundials_nvecserial", "sundials_sunmatrixdense",
             "sundials_sunlinsoldense", "sundials_cvode")


def fmi_headers() -> Path:
    """The directory of the standard FMI 2.0 and 3.0 headers (those FMPy ships in ``fmpy/c-code``).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ParameterError
        FMPy is not installed (it is a dev dependency of this package).

    Examples
    --------
    >>> (fmi_headers() / "fmi2Functions.h").is_file()
    True
    """
    import importlib.util

    spec = importlib.util.find_spec("fmpy")
    if spec is None or not spec.submodule_search_locations:
        raise ParameterError("FMU export: the FMI headers are taken from FMPy, which is not "
                             "installed (`pip install fmpy`)")
    path = Path(list(spec.submodule_search_locations)[0]) / "c-code"
    missing = [h for h in ("fmi2Functions.h", "fmi3Functions.h") if not (path / h).is_file()]
    if missing:
        raise ParameterError(f"FMU export: {path} has no {', '.join(missing)} (FMPy installation incomplete)")
    return path


def _identifier(name: str) -> str:
    out = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name)
    return out if out and not out[0].isdigit() else "m_" + out


def _c_array(name: str, values: Sequence[float], ctype: str = "double") -> str:
    vals = ", ".join(repr(float(v)) if ctype == "double" else str(int(v)) for v in values) or "0"
    return f"static const {ctype} {name}[] = {{ {vals} }};\n"


def _vector(what: str, given, names: list[str], default: np.ndarray, problems: list[str]) -> np.ndarray:
    out = np.array(default, dtype=float)
    if given is None:
        return out
    if isinstance(given, Mapping):
        unknown = [k for k in given if k not in names]
        if unknown:
            problems.append(f"{what}: unknown name(s) {', '.join(map(str, unknown))}; expected among "
                            f"{', '.join(names) or '(none)'}")
        for k, v in given.items():
            if k in names:
                out[names.index(k)] = float(v)
    else:
        arr = np.asarray(given, dtype=float).ravel()
        if arr.size != len(names):
            problems.append(f"{what}: {arr.size} values, expected {len(names)} ({', '.join(names)})")
        else:
            out[:] = arr
    bad = [names[i] for i in range(len(names)) if not np.isfinite(out[i])]
    if bad:
        problems.append(f"{what}: non-finite value(s) for {', '.join(bad)}")
    return out


def export_standalone_fmu(model, path: str | os.PathLike, *, start: Mapping[str, float] | Sequence[float] | None = None,
                          outputs: Sequence[str] | Mapping[str, str] | None = None,
                          inputs_start: Mapping[str, float] | None = None,
                          nominal: Mapping[str, float] | None = None, units: Mapping[str, str] | None = None,
                          rtol: float = 1e-6, atol: float = 1e-8, co_simulation: bool = True,
                          stop_time: float | None = None, model_name: str | None = None,
                          description: str = "",
                          crossings: Sequence[tuple[str, float, int]] = (), fmi_version: int = 2) -> Path:
    """Write a standalone FMI 2.0 or 3.0 FMU (model exchange, and co-simulation with CVODE) of ``model``.

    Parameters
    ----------
    model : bondgraph.Model
        A built model (:func:`bondgraph.build`); its current parameter values are the
        FMU's parameter start values.
    path : path-like
        The ``.fmu`` file to write (its directory must exist).
    start : dict or sequence, optional
        State start values by state name (or all, in state order); default the model's
        initial state.
    outputs : sequence or dict, optional
        Which compiled outputs (:attr:`CompiledSystem.output_names
        <bondgraph.codegen.CompiledSystem>`: bond variables, energies, observers) become FMU
        outputs; a dict maps the FMU's name to the compiled one. Default: the model's
        observers, or every compiled output when it has none.
    inputs_start : dict, optional
        Input start values by name (default 0).
    nominal : dict, optional
        Nominal value of a state by name (default 1): ``fmi2GetNominalsOfContinuousStates``,
        and the co-simulation solver's absolute tolerance ``atol·nominal``.
    units : dict, optional
        Unit of an FMU variable by its name (``"m"``, ``"Pa"``): written to the model description.
    rtol, atol : float
        Co-simulation tolerances (``rtol`` is replaced by the importer's tolerance when it
        sets one), and the default experiment's tolerance.
    co_simulation : bool
        Also offer co-simulation (links the bundled SUNDIALS libraries).
    stop_time : float, optional
        The default experiment's stop time.
    model_name : str, optional
        Default: the model's name.
    description : str
        The model description's ``description``.
    crossings : sequence of (str, float, int)
        State crossings as event indicators ``sign·(x − threshold)`` (state name,
        threshold, sign ±1): an importer (and the co-simulation solver) locates them and
        restarts its integrator there — the stroke ends of a machine.
    fmi_version : {2, 3}
        The FMI version: 2 (``fmiVersion="2.0"``, ``binaries/linux64``) or 3
        (``fmiVersion="3.0"``, ``Float64`` variables, ``binaries/x86_64-linux``).

    Returns
    -------
    pathlib.Path
        The FMU written.

    Raises
    ------
    ParameterError
        A bad argument (all problems listed; an FMI version other than 2 or 3), a model with
        input derivatives, FMPy missing
        (its FMI headers are used), no SUNDIALS libraries for co-simulation.
    EquationError
        No C compiler (``$CC`` or ``cc``/``gcc``), or the compilation failed.

    Examples
    --------
    See the module.
    """
    eqs, system = model.equations, model.system
    problems: list[str] = []
    states = list(model.state_names)
    inputs = list(eqs.inputs)
    pnames = list(eqs.params)
    name = model_name or model.name
    ident = _identifier(name)
    if len(eqs.input_derivatives):
        problems.append(f"model {name!r}: its laws read input derivatives "
                        f"({', '.join(map(str, eqs.input_derivatives))}), which an FMU's inputs do not provide")
    if not states:
        problems.append(f"model {name!r}: no states; an FMU of a purely algebraic model is not exported")
    try:
        x0_default = np.asarray(model.initial_state(), dtype=float)
    except Exception:  # noqa: BLE001 - a model without an initial state: zeros, unless given
        x0_default = np.zeros(len(states))
    x0 = _vector("start", start, states, x0_default, problems)
    u0 = _vector("inputs_start", inputs_start, inputs, np.zeros(len(inputs)), problems)
    nom = _vector("nominal", nominal, states, np.ones(len(states)), problems)
    if np.any(nom <= 0):
        problems.append("nominal: expected values > 0")
    compiled = list(system.output_names)
    if outputs is None:
        observed = list(getattr(eqs, "observed", {}) or {})
        outputs = observed or compiled
    out_map = dict(outputs) if isinstance(outputs, Mapping) else {n: n for n in outputs}
    bad_x = [str(c[0]) for c in crossings if len(c) != 3 or c[0] not in states or c[2] not in (1, -1)]
    if bad_x:
        problems.append(f"crossings: {', '.join(bad_x)}: expected (state name, threshold, ±1)")
        crossings = ()
    missing = [c for c in out_map.values() if c not in compiled]
    if missing:
        problems.append(f"outputs: not compiled outputs of {name!r}: {', '.join(missing)}")
    if isinstance(fmi_version, bool) or fmi_version not in (2, 3):
        problems.append(f"fmi_version = {fmi_version!r}: expected 2 (FMI 2.0) or 3 (FMI 3.0)")
        fmi_version = 2
    for what, v, ok in (("rtol", rtol, 0 < rtol < 1), ("atol", atol, atol > 0)):
        if not ok:
            problems.append(f"{what} = {v!r}: expected {'0 < rtol < 1' if what == 'rtol' else 'atol > 0'}")
    taken = set(states) | {f"der({s})" for s in states} | set(inputs)
    ev_names = [_crossing_name(c) for c in crossings]
    extra = (["time", *ev_names] + ([f"der({u})" for u in inputs] + [f"der({u},2)" for u in inputs]
                                    if co_simulation else [])) if fmi_version == 3 else []
    clash = [n for n in out_map if n in taken] + [p for p in pnames if p in taken or p in out_map]
    clash += [n for n in extra if n in taken or n in out_map or n in pnames]
    if clash:
        problems.append(f"variable names used twice: {', '.join(clash)}")
    path = Path(path)
    if not path.parent.is_dir():
        problems.append(f"path {path}: its directory does not exist")
    libs = _sundials_libs(problems) if co_simulation else {}
    if problems:
        raise ParameterError(problems, subject=f"FMU export of {name!r}")
    cc = find_compiler()
    if cc is None:
        raise EquationError(f"FMU export of {name!r}: no C compiler found (set $CC or install gcc); the "
                            "FMU's library is compiled at export time")

    out_idx = [compiled.index(c) for c in out_map.values()]
    params = np.asarray(system.params, dtype=float)
    sizes = _sizes(system)
    guid = "{" + str(uuid.UUID(hashlib.sha256((system.source + repr((states, inputs, list(out_map),
                   x0.tolist(), params.tolist(), u0.tolist()))).encode()).hexdigest()[:32])) + "}"
    header = (f"#define BGF_GUID \"{guid}\"\n#define BGF_NX {len(states)}\n#define BGF_NIN {len(inputs)}\n"
              f"#define BGF_NP {len(pnames)}\n#define BGF_NUNK {sizes[1]}\n#define BGF_NOUT {len(compiled)}\n"
              f"#define BGF_NY {len(out_map)}\n#define BGF_WORK {sizes[6]}\n#define BGF_CS {int(co_simulation)}\n"
              f"#define BGF_RTOL {float(rtol)!r}\n#define BGF_ATOL {float(atol)!r}\n"
              + _c_array("bgf_x0", x0) + _c_array("bgf_p0", params) + _c_array("bgf_u0", u0)
              + _c_array("bgf_nominal", nom) + _c_array("bgf_yidx", out_idx, "int")
              + f"#define BGF_NEV {len(crossings)}\n#define BGF_FMI {fmi_version}\n"
              + _c_array("bgf_ev_idx", [states.index(c[0]) for c in crossings], "int")
              + _c_array("bgf_ev_thr", [c[1] for c in crossings])
              + _c_array("bgf_ev_sign", [c[2] for c in crossings]))
    write = _model_description if fmi_version == 2 else _model_description3
    xml = write(name, ident, guid, description, states, inputs, list(out_map), pnames, x0, u0,
                params, units or {}, co_simulation, rtol, stop_time, ev_names)
    with tempfile.TemporaryDirectory(prefix="bgfmu") as tmp:
        tmp = Path(tmp)
        src = tmp / "sources"
        src.mkdir()
        units_c = system.source.split(UNIT_MARK)
        files = []
        for k, text in enumerate(units_c):
            files.append(src / f"model{k}.c")
            files[-1].write_text(text)
        (src / "bgf_model.h").write_text(header)
        shutil.copy(_RUNTIME, src / "fmu_runtime.c")
        platform = "linux64" if fmi_version == 2 else "x86_64-linux"
        binaries = tmp / "binaries" / platform
        binaries.mkdir(parents=True)
        lib = binaries / f"{ident}.so"
        _compile(cc, files, src / "fmu_runtime.c", lib, libs, what=f"the FMU of {name!r}")
        for p in libs.values():
            shutil.copy(p, binaries / p.name)
        (tmp / "modelDescription.xml").write_text(xml)
        partial = path.with_name(path.name + f".{os.getpid()}.tmp")
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as z:
            z.write(tmp / "modelDescription.xml", "modelDescription.xml")
            for f in sorted(binaries.iterdir()):
                z.write(f, f"binaries/{platform}/{f.name}")
            for f in sorted(src.iterdir()):
                if f.suffix != ".o":
                    z.write(f, f"sources/{f.name}")
        os.replace(partial, path)
    return path


def _sizes(system) -> list[int]:
    import ctypes

    s = (ctypes.c_int * 8)()
    system._lib.bg_sizes(s)
    return [int(v) for v in s]


def _sundials_libs(problems: list[str]) -> dict[str, Path]:
    from ..native.sundials import sundials_info

    info = sundials_info()
    if not info.ok:
        problems.append(f"co-simulation needs the SUNDIALS 7 libraries: {info.reason} "
                        "(or pass co_simulation=False for model exchange only)")
        return {}
    return {n: info.paths[n] for n in _SUNDIALS}


def _compile(cc: str, units: list[Path], runtime: Path, out: Path, libs: Mapping[str, Path], what: str) -> None:
    from ..codegen import _run_cc

    inc = str(fmi_headers())
    src = runtime.parent
    objs, cmds = [], []
    for f in units:   # the generated model: the flags of bondgraph.codegen
        objs.append(str(f.with_suffix(".o")))
        cmds.append([cc, "-O1", "-std=c99", "-fPIC", "-fno-math-errno", "-fvisibility=hidden",
                     "-c", str(f), "-o", objs[-1]])
    objs.append(str(runtime.with_suffix(".o")))
    cmds.append([cc, "-O2", "-std=c99", "-fPIC", "-fvisibility=hidden", f"-I{inc}", f"-I{src}",
                 "-c", str(runtime), "-o", objs[-1]])
    _run_cc(cmds, what)
    link = [cc, "-shared", *objs, "-o", str(out)]
    if libs:
        link += [f"-L{next(iter(libs.values())).parent}"] + [f"-l:{p.name}" for p in libs.values()]
        link += ["-Wl,-rpath,$ORIGIN", "-Wl,--disable-new-dtags"]
    link += ["-lm"]
    _run_cc([link], what)


def _crossing_name(crossing) -> str:
    """An event indicator's variable name (FMI 3): ``crossing(<state> > <threshold>)``."""
    state, thr, sign = crossing
    return f"crossing({state} {'>' if sign > 0 else '<'} {float(thr)!r})"


def _model_description(name, ident, guid, description, states, inputs, outputs, pnames, x0, u0, params,
                       units, cs, rtol, stop_time, ev_names) -> str:
    """The ``modelDescription.xml`` (FMI 2.0, flat names, value references as in the module)."""
    a = quoteattr
    used_units = sorted({units[v] for v in units if units[v]})

    def unit(v: str) -> str:
        return f" unit={a(units[v])}" if units.get(v) else ""

    rows, idx = [], {}

    def var(nm: str, vr: int, attrs: str, real: str, doc: str = "") -> None:
        idx[nm] = len(rows) + 1
        d = f" description={a(doc)}" if doc else ""
        rows.append(f'    <ScalarVariable name={a(nm)} valueReference="{vr}"{d} {attrs}>\n'
                    f"      <Real{real}/>\n    </ScalarVariable>")

    nx, nin, ny = len(states), len(inputs), len(outputs)
    for i, s in enumerate(states):
        var(s, i, 'causality="local" variability="continuous" initial="exact"',
            f' start="{float(x0[i])!r}"{unit(s)}', "state")
    for i, s in enumerate(states):
        var(f"der({s})", nx + i, 'causality="local" variability="continuous" initial="calculated"',
            f' derivative="{idx[s]}"')
    for j, u in enumerate(inputs):
        var(u, 2 * nx + j, 'causality="input" variability="continuous"', f' start="{float(u0[j])!r}"{unit(u)}')
    for k, o in enumerate(outputs):
        var(o, 2 * nx + nin + k, 'causality="output" variability="continuous" initial="calculated"', unit(o))
    for k, p in enumerate(pnames):
        var(p, 2 * nx + nin + ny + k, 'causality="parameter" variability="fixed" initial="exact"',
            f' start="{float(params[k])!r}"{unit(p)}')
    nev = len(ev_names)
    flags = 'canGetAndSetFMUstate="true" canSerializeFMUstate="true" canNotUseMemoryManagementFunctions="false"'
    parts = ['<?xml version="1.0" encoding="UTF-8"?>',
             f'<fmiModelDescription fmiVersion="2.0" modelName={a(name)} guid={a(guid)} '
             f'description={a(description or "bond-graph model " + name)} '
             f'generationTool="hydrobond bondgraph.export.fmu" variableNamingConvention="flat" '
             f'numberOfEventIndicators="{nev}">',
             f'  <ModelExchange modelIdentifier={a(ident)} {flags}/>']
    if cs:
        parts.append(f'  <CoSimulation modelIdentifier={a(ident)} canHandleVariableCommunicationStepSize="true" '
                     f'canInterpolateInputs="true" maxOutputDerivativeOrder="0" {flags}/>')
    if used_units:
        parts.append("  <UnitDefinitions>")
        parts += [f"    <Unit name={a(u)}/>" for u in used_units]
        parts.append("  </UnitDefinitions>")
    stop = f' stopTime="{float(stop_time)!r}"' if stop_time is not None else ""
    parts.append(f'  <DefaultExperiment startTime="0.0"{stop} tolerance="{float(rtol)!r}"/>')
    parts.append("  <ModelVariables>")
    parts += rows
    parts.append("  </ModelVariables>")
    parts.append("  <ModelStructure>")
    if outputs:
        parts.append("    <Outputs>")
        parts += [f'      <Unknown index="{idx[o]}"/>' for o in outputs]
        parts.append("    </Outputs>")
    parts.append("    <Derivatives>")
    parts += [f'      <Unknown index="{idx["der(" + s + ")"]}"/>' for s in states]
    parts.append("    </Derivatives>")
    parts.append("    <InitialUnknowns>")
    parts += [f'      <Unknown index="{idx[o]}"/>' for o in outputs]
    parts += [f'      <Unknown index="{idx["der(" + s + ")"]}"/>' for s in states]
    parts.append("    </InitialUnknowns>")
    parts.append("  </ModelStructure>")
    parts.append("</fmiModelDescription>")
    return "\n".join(parts) + "\n"


def _model_description3(name, ident, token, description, states, inputs, outputs, pnames, x0, u0, params,
                        units, cs, rtol, stop_time, ev_names) -> str:
    """The ``modelDescription.xml`` of FMI 3.0: ``Float64`` variables with the value
    references of the FMI 2.0 layout, then ``time``, the event indicators and (with
    co-simulation) the input derivatives; the model structure by value reference."""
    a = quoteattr
    used_units = sorted({units[v] for v in units if units[v]})
    nx, nin, ny, npar = len(states), len(inputs), len(outputs), len(pnames)
    vr_out, vr_par = 2 * nx + nin, 2 * nx + nin + ny
    vr_time = vr_par + npar
    vr_ev, vr_din = vr_time + 1, vr_time + 1 + len(ev_names)

    def unit(v: str) -> str:
        return f" unit={a(units[v])}" if units.get(v) else ""

    rows = [f'    <Float64 name="time" valueReference="{vr_time}" causality="independent" '
            'variability="continuous" description="time"/>']

    def var(nm: str, vr: int, attrs: str, doc: str = "") -> None:
        d = f" description={a(doc)}" if doc else ""
        rows.append(f"    <Float64 name={a(nm)} valueReference=\"{vr}\"{d} {attrs}/>")

    for i, s in enumerate(states):
        var(s, i, f'causality="local" variability="continuous" initial="exact" start="{float(x0[i])!r}"{unit(s)}',
            "state")
    for i, s in enumerate(states):
        var(f"der({s})", nx + i, f'causality="local" variability="continuous" initial="calculated" derivative="{i}"')
    for j, u in enumerate(inputs):
        var(u, 2 * nx + j, f'causality="input" variability="continuous" start="{float(u0[j])!r}"{unit(u)}')
    if cs:
        for j, u in enumerate(inputs):
            var(f"der({u})", vr_din + j, f'causality="input" variability="continuous" start="0.0" '
                f'derivative="{2 * nx + j}"', "the input's rate at a co-simulation step's start (0: held)")
        for j, u in enumerate(inputs):
            var(f"der({u},2)", vr_din + nin + j, f'causality="input" variability="continuous" start="0.0" '
                f'derivative="{vr_din + j}"', "the input's second derivative over a co-simulation step")
    for k, o in enumerate(outputs):
        var(o, vr_out + k, f'causality="output" variability="continuous" initial="calculated"{unit(o)}')
    for k, p in enumerate(pnames):
        var(p, vr_par + k, f'causality="parameter" variability="fixed" initial="exact" start="{float(params[k])!r}"'
            f"{unit(p)}")
    for k, e in enumerate(ev_names):
        var(e, vr_ev + k, 'causality="local" variability="continuous" initial="calculated"',
            "event indicator: the state crosses the threshold where it changes sign")
    flags = 'canGetAndSetFMUState="true" canSerializeFMUState="true"'
    parts = ['<?xml version="1.0" encoding="UTF-8"?>',
             f'<fmiModelDescription fmiVersion="3.0" modelName={a(name)} instantiationToken={a(token)} '
             f'description={a(description or "bond-graph model " + name)} '
             f'generationTool="hydrobond bondgraph.export.fmu" variableNamingConvention="flat">',
             f'  <ModelExchange modelIdentifier={a(ident)} {flags}/>']
    if cs:
        parts.append(f'  <CoSimulation modelIdentifier={a(ident)} canHandleVariableCommunicationStepSize="true" '
                     f'{flags}/>')
    if used_units:
        parts.append("  <UnitDefinitions>")
        parts += [f"    <Unit name={a(u)}/>" for u in used_units]
        parts.append("  </UnitDefinitions>")
    stop = f' stopTime="{float(stop_time)!r}"' if stop_time is not None else ""
    parts.append(f'  <DefaultExperiment startTime="0.0"{stop} tolerance="{float(rtol)!r}"/>')
    parts.append("  <ModelVariables>")
    parts += rows
    parts.append("  </ModelVariables>")
    parts.append("  <ModelStructure>")
    parts += [f'    <Output valueReference="{vr_out + k}"/>' for k in range(ny)]
    parts += [f'    <ContinuousStateDerivative valueReference="{nx + i}"/>' for i in range(nx)]
    parts += [f'    <InitialUnknown valueReference="{vr}"/>' for vr in [*range(nx, 2 * nx), *range(vr_out, vr_par)]]
    parts += [f'    <EventIndicator valueReference="{vr_ev + k}"/>' for k in range(len(ev_names))]
    parts.append("  </ModelStructure>")
    parts.append("</fmiModelDescription>")
    return "\n".join(parts) + "\n"
