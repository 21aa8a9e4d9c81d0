"""The C driver of CVODE: compiled at first use into the model cache, loaded by ctypes.

:func:`load_driver` compiles ``driver.c`` (next to this file) with the system C
compiler into ``$BONDGRAPH_CACHE`` — keyed by its source, the flags, the compiler
and the SUNDIALS libraries found — after those libraries are loaded globally
(:mod:`bondgraph.native.sundials`), then checks the library's index width on a
live matrix. :class:`Session` is one CVODE integrator on one compiled model: the
model's ``bg_rhs``/``bg_jac``/``bg_out`` are passed by pointer, so no Python runs
per step.

Examples
--------
>>> drv = load_driver()
>>> drv.ok or bool(drv.reason)
True
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..codegen import build_library, find_compiler
from ..errors import EquationError
from .sundials import sundials_info

__all__ = ["Driver", "load_driver", "Session", "ADVANCE", "GUARD_KIND"]

#: return codes of ``bgn_advance``
ADVANCE = {0: "tstop", 1: "root", 2: "full", 3: "model", 4: "stall", 5: "cvode", 6: "max_steps"}
#: what a guard reads
GUARD_KIND = {"state": 0, "output": 1, "input": 2}

_SOURCE = Path(__file__).with_name("driver.c")
_FLAGS = ("-O2", "-std=c99", "-fPIC", "-shared", "-fno-math-errno")

_D = ctypes.c_double
_I = ctypes.c_int
_L = ctypes.c_long
_P = ctypes.c_void_p


@dataclass
class Driver:
    """The loaded driver library, or why there is none (``ok``, ``reason``)."""

    ok: bool
    reason: str = ""
    lib: object = field(default=None, repr=False)
    path: Path | None = None
    compile_time: float = 0.0


_DRIVER: list[Driver] = []


def load_driver() -> Driver:
    """Compile (once per cache) and load the driver; never raises (see ``reason``)."""
    if _DRIVER:
        return _DRIVER[0]
    _DRIVER.append(_load())
    return _DRIVER[0]


def _load() -> Driver:
    if find_compiler() is None:
        return Driver(False, "no C compiler found (set $CC or install gcc)")
    info = sundials_info()
    if not info.ok:
        return Driver(False, info.reason)
    try:
        source = _SOURCE.read_text()
    except OSError as exc:
        return Driver(False, f"the driver source {_SOURCE} cannot be read: {exc}")
    source += f"\n/* SUNDIALS libraries: {info.key()} */\n"
    try:
        path, t_cc = build_library(source, _FLAGS, ("-lm",), prefix="bgn",
                                   what="the native CVODE driver")
    except EquationError as exc:
        return Driver(False, str(exc))
    try:
        lib = ctypes.CDLL(str(path))
    except OSError as exc:
        return Driver(False, f"the native CVODE driver {path} cannot be loaded: {exc}")
    _declare(lib)
    abi = lib.bgn_abi_check()
    if abi != 0:
        why = {1: "the libraries use a 64-bit sunindextype; the driver declares 32-bit int"}
        return Driver(False, f"SUNDIALS {info.version} ABI mismatch: "
                             + why.get(abi, f"check failed with code {abi}"))
    return Driver(True, lib=lib, path=path, compile_time=t_cc)


def _declare(lib) -> None:
    sig = {
        "bgn_abi_check": ([], _I),
        "bgn_new": ([_P, _P, _P, _P, _I], _P),
        "bgn_free": ([_P], None),
        "bgn_us": ([_P], ctypes.POINTER(_D)),
        "bgn_dus": ([_P], ctypes.POINTER(_D)),
        "bgn_set_params": ([_P, _P], None),
        "bgn_set_input_tables": ([_P, _P], None),
        "bgn_set_monitor": ([_P, _P, _I], None),
        "bgn_set_failure_return": ([_P, _I], None),
        "bgn_set_stall_limit": ([_P, _L], None),
        "bgn_set_guards": ([_P, _I, _P, _P, _P, _P, _P, _P], _I),
        "bgn_init": ([_P, _D, _P, _D, _P, _I, _D, _D, _L, _I], _I),
        "bgn_advance": ([_P, _D, _D, _P, _I, _P, _I, _L, _P, _P, _I, _P, _P, _P], _I),
        "bgn_root_info": ([_P, _P], _I),
        "bgn_failure": ([_P, _P, _P], _I),
        "bgn_has_failure": ([_P], _I),
        "bgn_message": ([_P], ctypes.c_char_p),
        "bgn_flag": ([_P], _I),
        "bgn_stats": ([_P, _P], None),
    }
    for name, (args, res) in sig.items():
        f = getattr(lib, name)
        f.argtypes = args
        f.restype = res


def _ptr(a: np.ndarray) -> int:
    return a.ctypes.data


class Session:
    """One CVODE integrator on one compiled model (:class:`~bondgraph.codegen.CompiledSystem`).

    Parameters
    ----------
    system : CompiledSystem
    energy : bool
        Integrate the three power sums as extra states (``bg_rhs`` mode 1).
    monitor : (pointer, count), optional
        A compiled function whose values' zero crossings are events.
    """

    def __init__(self, driver: Driver, system, energy: bool = False, monitor: tuple[int, int] | None = None):
        self.lib = driver.lib
        self.system = system
        lib = system._lib
        sizes = np.zeros(8, dtype=np.int32)
        lib.bg_sizes(sizes.ctypes.data_as(ctypes.POINTER(ctypes.c_int)))
        self.sizes = sizes
        addr = [ctypes.cast(getattr(lib, n), ctypes.c_void_p).value for n in ("bg_rhs", "bg_jac", "bg_out")]
        self.n = int(sizes[0]) + (3 if energy else 0)
        self.nx = int(sizes[0])
        self.h = self.lib.bgn_new(addr[0], addr[1], addr[2], _ptr(sizes), 1 if energy else 0)
        if not self.h:
            raise MemoryError("the native CVODE driver could not allocate its session")
        self.params = system.params  # the caller's vector: mode switches show at once
        self.lib.bgn_set_params(self.h, _ptr(self.params))
        nu, ndu = int(sizes[2]), int(sizes[3])
        self.us = np.ctypeslib.as_array(self.lib.bgn_us(self.h), shape=(max(nu, 1),))
        self.dus = np.ctypeslib.as_array(self.lib.bgn_dus(self.h), shape=(max(ndu, 1),))
        self.nmon = 0
        if monitor is not None:
            self.lib.bgn_set_monitor(self.h, monitor[0], monitor[1])
            self.nmon = int(monitor[1])
        self.ng = 0
        self._keep: list = []
        self.set_guards([])
        self._stats = np.zeros(10, dtype=np.int64)
        self._ft = np.zeros(1)
        self._fy = np.zeros(self.n)
        self._tend = np.zeros(1)
        self._yend = np.zeros(self.n)
        self._nrec = np.zeros(1, dtype=np.int32)
        self._iout = np.zeros(1, dtype=np.int32)
        self.total = {"nfev": 0, "njev": 0, "steps": 0, "error_test_failures": 0,
                      "convergence_failures": 0, "nonlinear_iterations": 0, "linear_setups": 0,
                      "root_evaluations": 0, "restarts": 0}

    def __del__(self):
        h = getattr(self, "h", None)
        if h:
            self.lib.bgn_free(h)
            self.h = None

    def set_inputs(self, u: np.ndarray, du: np.ndarray | None = None) -> None:
        """Constant input values (tables, when set on the model, overwrite them per call)."""
        self.us[: len(u)] = u
        if du is not None and len(du):
            self.dus[: len(du)] = du

    def set_failure_return(self, ret: int) -> None:
        """What a failed model call tells CVODE: 1 retry with a smaller step, -1 stop."""
        self.lib.bgn_set_failure_return(self.h, int(ret))

    def set_stall_limit(self, limit: int) -> None:
        self.lib.bgn_set_stall_limit(self.h, int(limit))

    def set_guards(self, guards: list[tuple[str, int, float, float, float]], directions=None) -> None:
        """Guards ``(kind, index, sign, threshold, tolerance)``: root functions
        ``sign·(q − threshold) − tolerance`` (then the monitor's values); ``directions``
        one per root function (default: upwards for guards, both ways for the monitor)."""
        ng = len(guards)
        kind = np.array([GUARD_KIND[g[0]] for g in guards] or [0], dtype=np.int32)
        idx = np.array([g[1] for g in guards] or [0], dtype=np.int32)
        sign = np.array([g[2] for g in guards] or [0.0])
        thr = np.array([g[3] for g in guards] or [0.0])
        tol = np.array([g[4] for g in guards] or [0.0])
        if directions is None:
            directions = [1] * ng + [0] * self.nmon
        dirs = np.array(list(directions) or [0], dtype=np.int32)
        st = self.lib.bgn_set_guards(self.h, ng, _ptr(kind), _ptr(idx), _ptr(sign), _ptr(thr),
                                     _ptr(tol), _ptr(dirs))
        if st != 0:
            raise MemoryError("the native CVODE driver could not allocate its guards")
        self.ng = ng

    def init(self, t0: float, y0: np.ndarray, rtol: float, atol, first_step: float = 0.0,
             max_step: float = 0.0, max_steps: int = 500, jacobian: bool = True) -> int:
        """(Re)start at ``(t0, y0)`` with the model's input tables as they are now; returns
        the CVODE flag (0: fine)."""
        self._accumulate()
        self.lib.bgn_set_input_tables(self.h, self.system.native_inputs_address or None)
        y = np.ascontiguousarray(y0, dtype=float)
        a = np.ascontiguousarray(np.atleast_1d(np.asarray(atol, dtype=float)))
        self._keep = [y, a]
        self.total["restarts"] += 1
        return self.lib.bgn_init(self.h, float(t0), _ptr(y), float(rtol), _ptr(a), int(a.size),
                                 float(first_step), float(max_step), int(max_steps), 1 if jacobian else 0)

    def advance(self, tstop: float, first_tout: float, tout: np.ndarray, every_step: bool,
                max_steps: int, capacity: int = 4096):
        """Integrate towards ``tstop``. Returns ``(code, t, y, t_end, y_end)``: the output
        rows (requested times, or every step) and where the solver stopped; the code is
        one of :data:`ADVANCE`'s names. A full buffer is grown here and integration goes on."""
        tout = np.ascontiguousarray(tout, dtype=float)
        self._iout[0] = 0
        ts, ys = [], []
        cap = max(1, capacity if every_step else min(capacity, tout.size + 1))
        while True:
            tb = np.empty(cap)
            yb = np.empty((cap, self.n))
            self._nrec[0] = 0
            code = self.lib.bgn_advance(self.h, float(tstop), float(first_tout), _ptr(tout), int(tout.size),
                                        _ptr(self._iout), 1 if every_step else 0, int(max_steps),
                                        _ptr(tb), _ptr(yb), cap, _ptr(self._nrec), _ptr(self._tend),
                                        _ptr(self._yend))
            k = int(self._nrec[0])
            ts.append(tb[:k])
            ys.append(yb[:k])
            name = ADVANCE[code]
            if name != "full":
                break
            first_tout = tstop
            cap = min(cap * 2, 1 << 20)
        t = np.concatenate(ts) if len(ts) > 1 else ts[0]
        y = np.vstack(ys) if len(ys) > 1 else ys[0]
        return name, t, y, float(self._tend[0]), self._yend.copy()

    def root_info(self) -> np.ndarray:
        info = np.zeros(max(self.ng + self.nmon, 1), dtype=np.int32)
        self.lib.bgn_root_info(self.h, _ptr(info))
        return info[: self.ng + self.nmon]

    def failure(self) -> tuple[int, float, np.ndarray] | None:
        """The latest failed model call: ``(status, t, y)`` (status 0: a stall), or None."""
        if not self.lib.bgn_has_failure(self.h):
            return None
        st = self.lib.bgn_failure(self.h, _ptr(self._ft), _ptr(self._fy))
        return int(st), float(self._ft[0]), self._fy.copy()

    def message(self) -> str:
        return (self.lib.bgn_message(self.h) or b"").decode(errors="replace")

    def stats(self) -> dict[str, int]:
        """Counts since the session was made (every restart included)."""
        cur = self._current()
        out = dict(self.total)
        for k, v in cur.items():
            out[k] += v
        return out

    def _current(self) -> dict[str, int]:
        self.lib.bgn_stats(self.h, _ptr(self._stats))
        s = self._stats
        return {"steps": int(s[0]), "nfev": int(s[1]), "njev": int(s[2]),
                "error_test_failures": int(s[3]), "convergence_failures": int(s[4]),
                "nonlinear_iterations": int(s[5]), "linear_setups": int(s[6]),
                "root_evaluations": int(s[7])}

    def _accumulate(self) -> None:
        """Fold the counts of the run since the last (re)start into the totals."""
        if self.total["restarts"]:
            for k, v in self._current().items():
                self.total[k] += v
