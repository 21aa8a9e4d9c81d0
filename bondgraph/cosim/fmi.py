"""Adapter for an FMU (FMI 2.0 or 3.0 co-simulation) through FMPy.

Inputs and outputs are the FMU's real variables (``Real`` in FMI 2, ``Float64`` in
FMI 3) of causality ``input`` and ``output``; units come from the model description
(``"1"`` where it has none, unless overridden with ``units=``).

Capabilities are read from the model description:

* **input derivatives**: FMI 2 ``canInterpolateInputs`` (the glue's derivatives go in
  through ``fmi2SetRealInputDerivatives``, orders 1 and 2); FMI 3, which has no input
  derivatives, ``providesIntermediateUpdate`` with inputs marked ``intermediateUpdate``
  (the FMU calls back at its internal steps and the adapter sets the inputs to the glue
  polynomial at that instant); or *derivative companions*: inputs named ``der(u)`` and
  ``der(u,2)`` next to an input ``u``, which this toolkit's exporter
  (:func:`bondgraph.cosim.export_fmu`) writes because pythonfmu cannot forward
  ``fmi2SetRealInputDerivatives``. An FMU with none of these holds its inputs over a
  step: the master warns and records the held values;
* **output derivatives**: ``maxOutputDerivativeOrder`` (``fmi2GetRealOutputDerivatives``
  / ``fmi3GetOutputDerivatives``) or companions ``der(y)``, ``der(y,2)``;
* **direct feedthrough**: an output whose ``dependencies`` in ``ModelStructure`` name
  an input, or that has no ``dependencies`` attribute (FMI: "depends on all");
  override with ``direct_feedthrough=``;
* **rollback**: ``canGetAndSetFMUstate``;
* **internal step**: FMI 3 ``fixedInternalStepSize`` (checked by the time manager);
* **own time**: FMI 3 ``doStep``'s ``lastSuccessfulTime``; FMI 2
  ``fmi2GetRealStatus(fmi2LastSuccessfulTime)`` where the FMU answers it correctly
  after its first step. The master compares it with the communication point, so a
  stuck FMU is a ``time_mismatch``.

The FMU is instantiated with logging on, and its log messages are kept (the last 100).
A status worse than warning raises :class:`~bondgraph.errors.CosimulationError`
naming the FMU, the FMI function and the status, with the FMU's own messages (e.g. the
Python exception text of a pythonfmu slave); the master files it as ``fmu_status``. A step that returns early (FMI 2 ``fmi2Discard``,
FMI 3 ``earlyReturn``) reports the time reached, which the master flags as a time-stamp
mismatch.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections import deque
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from ..errors import CosimulationError, ParameterError
from .subsystem import Subsystem

__all__ = ["FmuSubsystem", "fmu_ports"]

_DER = re.compile(r"^der\((?P<name>[^,()]+)(?:,\s*(?P<order>\d+))?\)$")
_REAL = {"2.0": ("Real",), "3.0": ("Float64",)}


def _import_fmpy():
    try:
        import fmpy  # noqa: F401
    except ImportError as exc:  # pragma: no cover - fmpy is a declared dependency
        raise ParameterError("FMU subsystems need the 'fmpy' package (pip install fmpy)") from exc
    import fmpy
    return fmpy


def fmu_ports(path: str | Path) -> dict[str, list[tuple[str, str]]]:
    """Real inputs and outputs of an FMU with their units (companions excluded).

    Parameters
    ----------
    path : str or pathlib.Path
        The ``.fmu`` file.

    Returns
    -------
    dict
        ``{"inputs": [(name, unit), ...], "outputs": [...]}``.

    Raises
    ------
    ParameterError
        FMPy is missing.

    Examples
    --------
    See :func:`~bondgraph.cosim.export_fmu`.
    """
    fmpy = _import_fmpy()
    md = fmpy.read_model_description(str(path))
    real = _REAL.get(md.fmiVersion, ())
    out: dict[str, list[tuple[str, str]]] = {"inputs": [], "outputs": []}
    for v in md.modelVariables:
        if v.type in real and v.causality in ("input", "output") and not _DER.match(v.name):
            out[v.causality + "s"].append((v.name, _unit(v)))
    return out


def _unit(v) -> str:
    unit = getattr(v, "unit", None)
    if not unit and getattr(v, "declaredType", None) is not None:
        unit = getattr(v.declaredType, "unit", None)
    return unit or "1"


class FmuSubsystem(Subsystem):
    """An FMU stepped through FMPy.

    Parameters
    ----------
    path : str or Path
        The ``.fmu`` file.
    name : str, optional
        Subsystem name (default: the FMU's model name made an identifier).
    inputs, outputs : sequence of str, optional
        Which real inputs / outputs to expose (default: all, companions excluded).
    parameters : mapping, optional
        Start values to set before initialisation, by variable name.
    units : mapping, optional
        Units to use for variables that the FMU gives none or a different spelling.
    direct_feedthrough : bool, optional
        Override what the model structure says.
    tolerance : float, optional
        Passed to the FMU's experiment setup.

    Raises
    ------
    ParameterError
        If the file is not a co-simulation FMU of FMI 2 or 3, or a named variable,
        parameter or unit override does not exist (every problem listed).

    Examples
    --------
    B1 with its spring-damper as an FMU (exported by
    :func:`~bondgraph.cosim.export_fmu`) follows the analytic solution:

    >>> import tempfile
    >>> import numpy as np
    >>> from bondgraph.cosim import cosimulate, examples, export_fmu
    >>> fmu = export_fmu("bondgraph.cosim.examples:b1_spring", tempfile.mkdtemp(),
    ...                  model_name="spring")
    >>> spring = FmuSubsystem(fmu, "spring")
    >>> spring.direct_feedthrough, spring.input_derivative_order
    (True, 2)
    >>> res = cosimulate([examples.b1_mass(), spring], examples.B1_RELATIONS, step=1e-4,
    ...                  end=0.02)
    >>> bool(np.abs(res["mass.x"] - examples.b1_reference(res.time)).max() < 1e-6)
    True
    """

    failure_kind = "fmu_status"

    def __init__(self, path: str | Path, name: str | None = None, *,
                 inputs: list[str] | None = None, outputs: list[str] | None = None,
                 parameters: Mapping[str, Any] | None = None,
                 units: Mapping[str, str] | None = None,
                 direct_feedthrough: bool | None = None, tolerance: float | None = None):
        fmpy = _import_fmpy()
        if not isinstance(path, (str, Path)):
            raise ParameterError(f"FMU file {path!r}: expected a path to a .fmu file")
        self.path = Path(path)
        problems = []
        if self.path.is_dir():
            raise ParameterError(f"FMU file {str(self.path)!r}: is a directory, expected a "
                                 ".fmu file")
        if not self.path.is_file():
            raise ParameterError(f"FMU file {str(self.path)!r}: not found")
        try:
            md = fmpy.read_model_description(str(self.path))
        except Exception as exc:  # noqa: BLE001 - fmpy raises plain exceptions
            raise ParameterError(f"FMU file {str(self.path)!r}: cannot read its model "
                                 f"description ({type(exc).__name__}: {exc}); expected an "
                                 "FMU (a zip archive with modelDescription.xml)") from exc
        label = f"FMU {self.path.name!r}"
        if md.fmiVersion not in _REAL:
            raise ParameterError(f"{label}: found FMI {md.fmiVersion}, expected FMI 2.0 or 3.0")
        if md.coSimulation is None:
            raise ParameterError(f"{label}: has no co-simulation interface (model exchange "
                                 "only); expected a co-simulation FMU")
        self.md = md
        self.version = md.fmiVersion
        real = _REAL[md.fmiVersion]
        by_name = {v.name: v for v in md.modelVariables}
        units = dict(units or {})
        for n in units:
            if n not in by_name:
                problems.append(f"units: the FMU has no variable {n!r}")
        ins = [v for v in md.modelVariables if v.type in real and v.causality == "input"]
        outs = [v for v in md.modelVariables if v.type in real and v.causality == "output"]
        companions_in = {(_DER.match(v.name)["name"], int(_DER.match(v.name)["order"] or 1)): v
                         for v in ins if _DER.match(v.name)}
        companions_out = {(_DER.match(v.name)["name"], int(_DER.match(v.name)["order"] or 1)): v
                          for v in outs if _DER.match(v.name)}
        ins = [v for v in ins if not _DER.match(v.name)]
        outs = [v for v in outs if not _DER.match(v.name)]
        for chosen, pool, what in ((inputs, ins, "input"), (outputs, outs, "output")):
            names = [v.name for v in pool]
            for n in chosen or ():
                if n not in names:
                    problems.append(f"{what} {n!r}: not a real {what} of the FMU (found: "
                                    f"{', '.join(names) or 'none'})")
        for n in (parameters or {}):
            if n not in by_name:
                problems.append(f"parameter {n!r}: the FMU has no such variable")
        if problems:
            raise ParameterError(problems, subject=label)
        if inputs is not None:
            ins = [by_name[n] for n in inputs]
        if outputs is not None:
            outs = [by_name[n] for n in outputs]
        self._vin = [v.valueReference for v in ins]
        self._vout = [v.valueReference for v in outs]
        cs = md.coSimulation
        # input derivatives
        self._in_der_vr: list[list[int]] = []
        self._interpolate = (self.version == "2.0"
                             and bool(getattr(cs, "canInterpolateInputs", False)))
        self._intermediate = (self.version == "3.0" and bool(ins)
                              and bool(getattr(cs, "providesIntermediateUpdate", False))
                              and all(getattr(v, "intermediateUpdate", False) for v in ins))
        if self._interpolate or self._intermediate:
            in_order = 2
        else:
            in_order = 0
            while in_order < 2 and ins and all((v.name, in_order + 1) in companions_in
                                               for v in ins):
                self._in_der_vr.append([companions_in[(v.name, in_order + 1)].valueReference
                                        for v in ins])
                in_order += 1
        # output derivatives
        self._out_der_vr: list[list[int]] = []
        max_order = int(getattr(cs, "maxOutputDerivativeOrder", 0) or 0)
        if max_order:
            out_order = min(2, max_order)
            self._native_out_der = True
        else:
            self._native_out_der = False
            out_order = 0
            while out_order < 2 and outs and all((v.name, out_order + 1) in companions_out
                                                 for v in outs):
                self._out_der_vr.append([companions_out[(v.name, out_order + 1)].valueReference
                                         for v in outs])
                out_order += 1
        self.input_derivative_order = in_order
        self.output_derivative_order = out_order
        if direct_feedthrough is None:
            in_names = {v.name for v in md.modelVariables if v.causality == "input"}
            direct_feedthrough = False
            for u in md.outputs:
                if u.variable.name not in {v.name for v in outs}:
                    continue
                deps = u.dependencies
                if deps is None or any(d.name in in_names for d in deps):
                    direct_feedthrough = True
        fixed = getattr(cs, "fixedInternalStepSize", None)
        super().__init__(name if name is not None else _identifier(md.modelName),
                         [(v.name, units.get(v.name, _unit(v)), v.description or "") for v in ins],
                         [(v.name, units.get(v.name, _unit(v)), v.description or "") for v in outs],
                         direct_feedthrough=direct_feedthrough,
                         max_step=float(fixed) if fixed else None)
        self._label = f"FMU subsystem {self.name!r} ({self.path.name})"
        self._can_state = bool(getattr(cs, "canGetAndSetFMUstate", False))
        self.parameters = dict(parameters or {})
        self.tolerance = tolerance
        self._by_name = by_name
        self._fmpy = fmpy
        self._dir: str | None = None
        self.fmu = None
        self.log: deque[str] = deque(maxlen=100)
        self._log_status: deque[int] = deque(maxlen=100)
        self._states: list[Any] = []
        self._broken = 0       # 0 fine, 1 after an error status, 2 after a fatal one
        self._time: float | None = None
        self._clock = self.version == "3.0"   # FMI 2: trusted after a first correct answer
        self._clock_tried = False
        self._poly_t = 0.0
        self._poly = np.zeros((3, len(self._vin)))

    # ------------------------------------------------------------ helpers
    @property
    def can_save_state(self) -> bool:
        """True if the FMU declares ``canGetAndSetFMUstate``."""
        return self._can_state

    def _fail(self, what: str, exc: Exception) -> CosimulationError:
        status = getattr(exc, "status", None)
        if status == 3:        # fmi2Error / fmi3Error: only freeing the instance is allowed
            self._broken = max(self._broken, 1)
        elif status == 4:      # fatal: no further call of any kind is allowed
            self._broken = 2
        msg = f"{what}: {exc}"
        serious = [m for m, st in zip(self.log, self._log_status) if st >= 1]
        shown = serious[-5:] or list(self.log)[-3:]
        if shown:
            msg += "; the FMU says: " + " | ".join(shown)
        else:
            msg += "; the FMU logged no message"
        return CosimulationError(msg, subject=self._label)

    def _logger(self, *args) -> None:
        # FMI 2: (environment, instance, status, category, message);
        # FMI 3: (environment, status, category, message)
        status, message = (args[2] if len(args) == 5 else args[1]), args[-1]
        text = message.decode("utf-8", "replace") if isinstance(message, bytes) else str(message)
        labels = ["OK", "WARNING", "DISCARD", "ERROR", "FATAL", "PENDING"]
        self.log.append(f"[{labels[status] if 0 <= status < 6 else status}] {text.strip()}")
        self._log_status.append(int(status))

    def _intermediate_update(self, _env, time, set_requested, _get_allowed, _finished,
                             _can_return, early_requested, early_time) -> None:
        # FMI 3 intermediate update: set the inputs to the glue polynomial at ``time``.
        try:
            if early_requested:
                early_requested[0] = False
            if set_requested and self._vin:
                tau = time - self._poly_t
                u = self._poly
                self._set(self._vin, (u[0] + tau * (u[1] + 0.5 * tau * u[2])).tolist())
        except Exception as exc:  # noqa: BLE001 - never raise through the FMU's C code
            self.log.append(f"[IMPORTER] setting inputs at t={time:.9g} s in an intermediate "
                            f"update failed: {type(exc).__name__}: {exc}")
            self._log_status.append(3)

    def _set_param(self, name: str, value: Any) -> None:
        v = self._by_name[name]
        f = self.fmu
        fmi2 = self.version == "2.0"
        vr = [v.valueReference]
        if v.type in ("Real", "Float64"):
            (f.setReal if fmi2 else f.setFloat64)(vr, [float(value)])
        elif v.type in ("Integer", "Int32", "Int64", "Enumeration"):
            (f.setInteger if fmi2 else f.setInt32)(vr, [int(value)])
        elif v.type == "Boolean":
            f.setBoolean([v.valueReference], [bool(value)])
        else:
            f.setString([v.valueReference], [str(value)])

    # ------------------------------------------------------------ hooks
    def setup(self, t0: float, t_end: float, step: float) -> None:
        """Extract, instantiate, set parameters and initialise the FMU at ``t0``.

        Parameters
        ----------
        t0 : float
            Start time (s).
        t_end : float
            End time (s).
        step : float
            Communication step (s).
        """
        self.terminate()
        self._broken = 0
        fmpy = self._fmpy
        self._dir = tempfile.mkdtemp(prefix="cosim_fmu_")
        try:
            fmpy.extract(str(self.path), self._dir)
        except Exception as exc:  # noqa: BLE001 - a damaged archive
            raise CosimulationError(f"cannot extract {str(self.path)!r}: "
                                    f"{type(exc).__name__}: {exc}", subject=self._label) from exc
        self.log.clear()
        self._log_status.clear()
        self._time = None
        self._clock = self.version == "3.0"
        self._clock_tried = False
        extra = {}
        if self._intermediate:
            extra = dict(intermediate_update=self._intermediate_update,
                         required_intermediate_variables=list(self._vin))
        try:
            # logging on: an FMU tells why it failed only through its logger
            self.fmu = fmpy.instantiate_fmu(self._dir, self.md, fmi_type="CoSimulation",
                                            logger=self._logger, debug_logging=True, **extra)
            if self.version == "2.0":
                self.fmu.setupExperiment(tolerance=self.tolerance, startTime=t0, stopTime=t_end)
                self.fmu.enterInitializationMode()
            else:
                self.fmu.enterInitializationMode(tolerance=self.tolerance, startTime=t0,
                                                 stopTime=t_end)
            for n, value in self.parameters.items():
                self._set_param(n, value)
            self.fmu.exitInitializationMode()
        except Exception as exc:
            raise self._fail("initialisation failed", exc) from exc
        if self.version == "2.0":
            self._get, self._set = self.fmu.getReal, self.fmu.setReal
        else:
            self._get, self._set = self.fmu.getFloat64, self.fmu.setFloat64

    def set_inputs(self, t: float, values: np.ndarray, derivatives: np.ndarray) -> None:
        """Write the inputs (and their derivatives, if the FMU takes them).

        Parameters
        ----------
        t : float
            Time (s).
        values : ndarray
            Input values at ``t``.
        derivatives : ndarray
            Input derivatives at ``t`` (row k: order k + 1).
        """
        try:
            self._set(self._vin, values.tolist())
            k = derivatives.shape[0]
            if self._intermediate:
                self._poly_t = t
                self._poly[0] = values
                self._poly[1:1 + k] = derivatives
                self._poly[1 + k:] = 0.0
            if self._interpolate and k:
                vr = self._vin * k
                order = [d + 1 for d in range(k) for _ in self._vin]
                self.fmu.setRealInputDerivatives(vr, order, derivatives.ravel().tolist())
            for d, vrs in enumerate(self._in_der_vr):
                self._set(vrs, derivatives[d].tolist() if d < k else [0.0] * len(vrs))
        except Exception as exc:
            raise self._fail(f"setting inputs at t={t:.9g} s failed", exc) from exc

    def get_outputs(self) -> np.ndarray:
        """Read the outputs.

        Returns
        -------
        ndarray
        """
        try:
            return np.array(self._get(self._vout), dtype=float)
        except Exception as exc:
            raise self._fail("reading outputs failed", exc) from exc

    def get_output_derivatives(self, order: int) -> np.ndarray:
        """Output derivatives from the FMU (native or companions).

        Parameters
        ----------
        order : int
            Number of derivative orders.

        Returns
        -------
        ndarray
        """
        try:
            if self._native_out_der:
                vr = self._vout * order
                orders = [d + 1 for d in range(order) for _ in self._vout]
                get = (self.fmu.getRealOutputDerivatives if self.version == "2.0"
                       else self.fmu.getOutputDerivatives)
                return np.array(get(vr, orders), dtype=float).reshape(order, len(self._vout))
            return np.array([self._get(vrs) for vrs in self._out_der_vr[:order]], dtype=float)
        except Exception as exc:
            raise self._fail("reading output derivatives failed", exc) from exc

    def do_step(self, t: float, h: float) -> float | None:
        """``doStep``; returns the last successful time if the FMU stopped early.

        Parameters
        ----------
        t : float
            Time (s).
        h : float
            Step (s).

        Returns
        -------
        float, optional
        """
        f = self.fmu
        if self.version == "2.0":
            try:
                f.doStep(t, h)
            except Exception as exc:
                if getattr(exc, "status", None) == 2:  # fmi2Discard
                    try:
                        return float(f.getRealStatus(2))  # fmi2LastSuccessfulTime
                    except Exception:  # noqa: BLE001 - the status query is optional in FMI 2
                        return t
                raise self._fail(f"doStep from t={t:.9g} s over {h:g} s failed", exc) from exc
            self._time = self._fmi2_time(t + h)
            return None
        try:
            _event, terminate, early, last = f.doStep(t, h)
        except Exception as exc:
            raise self._fail(f"doStep from t={t:.9g} s over {h:g} s failed", exc) from exc
        if terminate:
            raise CosimulationError(f"the FMU asked to terminate the simulation at "
                                    f"t={last:.9g} s", subject=self._label)
        self._time = float(last)
        return float(last) if early else None

    def _fmi2_time(self, expected: float) -> float | None:
        """``fmi2LastSuccessfulTime`` if the FMU answers it (FMI 2 promises it only after
        a discard): trusted once its first answer matched the step it took."""
        if not self._clock and self._clock_tried:
            return None
        try:
            value = float(self.fmu.getRealStatus(2))
        except Exception:  # noqa: BLE001 - not supported by this FMU
            self._clock_tried = True
            return None
        if not self._clock:
            self._clock_tried = True
            self._clock = abs(value - expected) <= 1e-9 * max(1.0, abs(expected))
            if not self._clock:
                return None
        return value

    def get_time(self) -> float | None:
        """The FMU's own time after its last step (None before the first step, or if the
        FMU cannot tell).

        Returns
        -------
        float, optional
        """
        return self._time if self._clock else None

    def save_state(self) -> Any:
        """``getFMUstate`` (FMI 2) / ``getFMUState`` (FMI 3).

        Returns
        -------
        object
        """
        if not self._can_state:
            return super().save_state()
        state = self.fmu.getFMUstate() if self.version == "2.0" else self.fmu.getFMUState()
        self._states.append(state)
        return state

    def restore_state(self, state: Any) -> None:
        """``setFMUstate`` (FMI 2) / ``setFMUState`` (FMI 3).

        Parameters
        ----------
        state : object
            A state from :meth:`save_state`.
        """
        if not self._can_state:
            return super().restore_state(state)
        if self.version == "2.0":
            self.fmu.setFMUstate(state)
        else:
            self.fmu.setFMUState(state)

    def terminate(self) -> None:
        """Terminate and free the instance, remove the extracted files.

        After an error status only the instance is freed; after a fatal status the FMU
        is left alone (FMI forbids any further call).
        """
        f, self.fmu = self.fmu, None
        if f is not None and self._broken == 1:
            try:
                f.freeInstance()
            except Exception:  # noqa: BLE001 - best effort while shutting down
                pass
        elif f is not None and self._broken == 0:
            for s in self._states:
                try:
                    (f.freeFMUstate if self.version == "2.0" else f.freeFMUState)(s)
                except Exception:  # noqa: BLE001 - best effort while shutting down
                    pass
            self._states = []
            for call in (f.terminate, f.freeInstance):
                try:
                    call()
                except Exception:  # noqa: BLE001 - best effort while shutting down
                    pass
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


def _identifier(text: str) -> str:
    ident = re.sub(r"\W", "_", text or "fmu")
    return ident if not ident[0].isdigit() else "_" + ident
