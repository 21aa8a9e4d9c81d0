"""The C driver of CVODE: compiled at first use into the model cache, loaded by ctypes.

:func:`load_driver` compiles ``driver.c`` (next to this file) with the system C
compiler into ``$BONDGRAPH_CACHE`` — keyed by its source, the flags, the compiler
and the SUNDIALS libraries found — after those libraries are loaded globally
(:mod:`bondgraph.native.sundials`), then checks the library's index width on a
live matrix. :class:`Session` is one CVODE integrator on one compiled model: the
model's ``bg_rhs``/``bg_jac``/``bg_out``/``bg_mon`` are passed by pointer and the
steps are taken and checked in C; :func:`bondgraph.stepping.run_segment` drives it
(``native=``) and finishes in Python only the steps where a root must be located.

Examples
--------
>>> drv = load_driver()
>>> drv.ok or bool(drv.reason)
True
"""

from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..codegen import build_library, find_compiler
from ..errors import EquationError
from .sundials import _LIBS as _LINK_ORDER, sundials_info

__all__ = ["Driver", "load_driver", "Session", "RUN_CODES", "GUARD_KIND"]

#: return codes of ``bgn_run``
RUN_CODES = {0: "end", 1: "look", 2: "yield", 3: "fails", 4: "calls", 5: "tiny", 6: "solver",
             7: "nonfinite", 8: "steps", 9: "timeout", 10: "init"}
#: what a guard reads
GUARD_KIND = {"state": 0, "output": 1, "input": 2, "const": 3, "none": -1}

_SOURCE = Path(__file__).with_name("driver.c")
_FLAGS = ("-O2", "-std=c99", "-D_POSIX_C_SOURCE=200112L", "-fPIC", "-shared", "-fno-math-errno")

_D = ctypes.c_double
_I = ctypes.c_int
_L = ctypes.c_long
_P = ctypes.c_void_p
_DP = ctypes.POINTER(_D)


@dataclass
class Driver:
    """The loaded driver library, or why there is none (``ok``, ``reason``).

    Attributes
    ----------
    ok : bool
    reason : str
        Why it is not available (empty when it is).
    lib : ctypes.CDLL or None
    path : pathlib.Path or None
        The compiled library in the cache.
    compile_time : float
        Seconds spent compiling it in this process (0 from the cache).

    Examples
    --------
    >>> drv = load_driver()
    >>> drv.ok == (drv.reason == "") and (drv.path is not None) == drv.ok
    True
    """

    ok: bool
    reason: str = ""
    lib: object = field(default=None, repr=False)
    path: Path | None = None
    compile_time: float = 0.0


_DRIVER: list[Driver] = []


def load_driver() -> Driver:
    """Compile (once per cache) and load the driver; never raises (see ``reason``).

    Returns
    -------
    Driver
        The same object for the whole process.

    Examples
    --------
    >>> load_driver() is load_driver()
    True
    """
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
        libs = [str(info.paths[name]) for name in _LINK_ORDER]
        dirs = sorted({str(info.paths[name].parent) for name in _LINK_ORDER})
        path, t_cc = build_library(source, _FLAGS, (*libs, *(f"-Wl,-rpath,{d}" for d in dirs), "-lm"),
                                   prefix="bgn", what="the native CVODE driver")
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


class _Watch(ctypes.Structure):
    """``bgn_watch`` of driver.c: the counters of :class:`bondgraph.stepping.Watch`."""

    _fields_ = [(n, _L) for n in ("nfev", "njev", "steps", "calls", "fails", "tiny", "max_steps",
                                  "fail_limit", "stall_calls", "stall_steps")]
    _fields_ += [(n, _D) for n in ("tiny_ulps", "block_eps", "deadline")]
    _fields_ += [(n, _I) for n in ("ff_has", "ff_status", "ff_jac", "abort")]
    _fields_ += [(n, _D) for n in ("ff_t", "t_good", "t_old", "t", "h")]


def _declare(lib) -> None:
    sig = {
        "bgn_abi_check": ([], _I),
        "bgn_new": ([_P, _P, _P, _P, _I, _P, _I, _P, _I, _I], _P),
        "bgn_free": ([_P], None),
        "bgn_set_params": ([_P, _P], None),
        "bgn_set_monw": ([_P, _P], None),
        "bgn_set_input_tables": ([_P, _P], None),
        "bgn_set_checks": ([_P, _P, _I, _P, _P], None),
        "bgn_set_yield": ([_P, _D], None),
        "bgn_set_guards": ([_P, _I, _P, _P, _P, _P, _P, _P, _P, _P, _P, _P], _I),
        "bgn_begin": ([_P, _D, _D, _P, _D, _P, _I, _D, _D, _I, _P, _I, _I], _I),
        "bgn_run": ([_P, _I], _I),
        "bgn_dky": ([_P, _D, _P], _I),
        "bgn_taylor": ([_P, _P, _P], _I),
        "bgn_guards": ([_P, _D, _P, _P], _I),
        "bgn_monitor": ([_P, _D, _P, _P], _I),
        "bgn_rows": ([_P, ctypes.POINTER(_DP), ctypes.POINTER(_DP)], _I),
        "bgn_drain": ([_P], None),
        "bgn_ie": ([_P], _I),
        "bgn_set_ie": ([_P, _I], None),
        "bgn_dg_valid": ([_P], _I),
        "bgn_set_dg_valid": ([_P, _I], None),
        "bgn_message": ([_P], ctypes.c_char_p),
        "bgn_flag": ([_P], _I),
    }
    for name in ("bgn_us", "bgn_dus", "bgn_ff_y", "bgn_y_good", "bgn_m_old",
                 "bgn_g_old", "bgn_dg_old", "bgn_y"):
        sig[name] = ([_P], _DP)
    for name, (args, res) in sig.items():
        f = getattr(lib, name)
        f.argtypes = args
        f.restype = res


def _ptr(a: np.ndarray | None) -> int | None:
    return None if a is None else a.ctypes.data


def _view(p, n: int) -> np.ndarray:
    """The ``n`` doubles at ``p`` as an array sharing their memory (empty when none)."""
    if n == 0 or not p:
        return np.zeros(0)
    return np.ctypeslib.as_array(p, shape=(n,))


class Session:
    """One CVODE integrator on one compiled model (:class:`~bondgraph.codegen.CompiledSystem`),
    stepped in C by :func:`bondgraph.stepping.run_segment` (``native=session``).

    The session has its own model buffers: :meth:`monitor` and :meth:`guard_values`
    evaluate with them, so Python sees what the C loop sees.

    Parameters
    ----------
    driver : Driver
    system : CompiledSystem
        Its parameter vector is read at every call (a mode switch shows at once); its
        input tables, if set, are evaluated in C.
    energy : bool
        Integrate the three power sums as extra states (``bg_rhs`` mode 1).
    jacobian : bool
        Give CVODE the analytic Jacobian (else it differences the right-hand side).
    band : tuple of int, optional
        ``(mu, ml)``: the Jacobian's half-bandwidths, for CVODE's band solver
        (:func:`bondgraph.native.structure.choose_solver`); ``None``: the dense solver.

    Examples
    --------
    ``ẋ = −x`` stepped in C, read at two output times:

    >>> import numpy as np
    >>> from bondgraph import BondGraph, One, I, R, build
    >>> from bondgraph.native.cvode import native_session
    >>> from bondgraph.stepping import Watch, run_segment
    >>> bg = BondGraph("decay")
    >>> _ = bg.add(One("v"), I("m", 1.0, initial=1.0), R("b", 1.0))
    >>> _ = bg.connect("v", "m"); _ = bg.connect("v", "b")
    >>> model = build(bg)
    >>> session = native_session(model, "native", "CVODE", subject="decay")
    >>> watch = Watch(model, 0.0, 1.0, np.array([1.0]), method="CVODE", timeout=None,
    ...               blowup=None, singular="ignore", max_steps=10_000)
    >>> session.attach(watch)
    >>> seg = run_segment("CVODE", None, None, 0.0, 1.0, np.array([1.0]), watch, rtol=1e-10,
    ...                   atol=1e-12, max_step=np.inf, first_step=None, t_eval=[0.5, 1.0],
    ...                   native=session)
    >>> bool(np.allclose(seg.y[:, 0], np.exp(-seg.t), rtol=1e-8)), session.done
    (True, True)
    """

    def __init__(self, driver: Driver, system, energy: bool = False, jacobian: bool = True,
                 band: tuple[int, int] | None = None):
        self.lib = lib = driver.lib
        self.system = system
        self.jacobian = jacobian
        slib = system._lib
        sizes = np.zeros(8, dtype=np.int32)
        slib.bg_sizes(sizes.ctypes.data_as(ctypes.POINTER(ctypes.c_int)))
        self.sizes = sizes
        addr = {n: ctypes.cast(getattr(slib, n), ctypes.c_void_p).value
                for n in ("bg_rhs", "bg_jac", "bg_out")}
        nmon = len(system.divisors) if system._mon is not None else 0
        mon = ctypes.cast(system._mon, ctypes.c_void_p).value if nmon else None
        self.nx = int(sizes[0])
        self.n = self.nx + (3 if energy else 0)
        if self.n == 0:   # CVODE on an empty vector crashes the interpreter: checked here, not in C
            from ..errors import ParameterError

            raise ParameterError(f"native CVODE on a model with no states: nothing to integrate "
                                 "(its outputs are algebraic in time: bondgraph.simulate evaluates them)")
        self.nmon = nmon
        self.w = _Watch()
        mu, ml = band if band is not None else (-1, -1)
        if band is not None and not (0 <= mu < self.n and 0 <= ml < self.n):
            from ..errors import ParameterError

            raise ParameterError(f"band solver half-bandwidths {band}: expected 0 … {self.n - 1}")
        #: "dense" or "band(mu, ml)": CVODE's linear solver
        self.linear_solver = "dense" if band is None else f"band({mu}, {ml})"
        self.h = lib.bgn_new(addr["bg_rhs"], addr["bg_jac"], addr["bg_out"], mon, nmon,
                             _ptr(sizes), 1 if energy else 0, ctypes.addressof(self.w), mu, ml)
        if not self.h:
            raise MemoryError("the native CVODE driver could not allocate its session")
        lib.bgn_set_params(self.h, _ptr(system.params))
        monw = getattr(slib, "bg_monw", None) if nmon else None   # older libraries have none
        if monw is not None:
            lib.bgn_set_monw(self.h, ctypes.cast(monw, ctypes.c_void_p).value)
        self.us = _view(lib.bgn_us(self.h), int(sizes[2]))
        self.dus = _view(lib.bgn_dus(self.h), int(sizes[3]))
        self._ff_y = _view(lib.bgn_ff_y(self.h), self.n)
        self._y_good = _view(lib.bgn_y_good(self.h), self.n)
        self._m_old = _view(lib.bgn_m_old(self.h), nmon)
        self._y = _view(lib.bgn_y(self.h), self.n)
        self.ng = 0
        self._g_old = self._dg_old = np.zeros(0)
        self._keep: dict = {}
        self._mbuf = np.zeros(max(nmon, 1))
        self._gbuf = np.zeros(1)
        self._guard_specs: list[tuple] | None = None     # the guards last set (:meth:`set_guards`)
        self._dky = np.zeros(self.n)
        self._taylor = np.zeros(6 * self.n)     # y^(k)(tn), k = 0..q ≤ 5 (bgn_taylor)
        self._tinfo = np.zeros(3)
        self._polys: tuple = (None, {})          # (the step they are of, guard → polynomial)
        self._rt, self._ry = _DP(), _DP()
        self.b = math.inf
        self.watch = None

    def __del__(self):
        h = getattr(self, "h", None)
        if h:
            self.lib.bgn_free(h)
            self.h = None

    # ------------------------------------------------------------ set-up
    def attach(self, watch, yield_every: float = 0.0) -> None:
        """Take the run's rules from ``watch`` (:class:`bondgraph.stepping.Watch`): its
        blow-up bound, divisors, deadline, step limit; give it this session's monitor (so
        Python and C see the same values). ``yield_every``: seconds between returns for
        a progress bar (0: none).

        Parameters
        ----------
        watch
        yield_every : float, optional
        """
        from .. import stepping as st

        self.watch = watch
        w = self.w
        w.fail_limit, w.stall_calls, w.stall_steps = st.FAIL_LIMIT, st.STALL_CALLS, st.STALL_STEPS
        w.tiny_ulps, w.block_eps = float(st.TINY_ULPS), st.BLOCK_EPS
        w.deadline, w.max_steps = float(watch.deadline), int(watch.max_steps)
        bound = None if watch.bound is None else np.ascontiguousarray(watch.bound, dtype=float)
        coupled = np.ascontiguousarray(watch._coupled, dtype=np.int32)
        self._low = np.zeros(max(len(watch.divisors), 1))
        self._keep.update(bound=bound, coupled=coupled)
        mon_on = watch.monitor is not None and self.nmon > 0
        if mon_on:
            watch.monitor = self.monitor
        self.lib.bgn_set_checks(self.h, _ptr(bound), 1 if mon_on else 0, _ptr(self._low),
                                _ptr(coupled))
        self.lib.bgn_set_yield(self.h, float(yield_every))
        self.inputs_from_system()

    def inputs_from_system(self) -> None:
        """The model's input tables (evaluated in C) and its current constant inputs."""
        self.lib.bgn_set_input_tables(self.h, self.system.native_inputs_address or None)
        self.set_inputs(self.system._u, self.system._du)

    def set_guards(self, specs) -> None:
        """Guards ``(kind, index, sign, threshold, tolerance, constant, direction)``: the
        function ``sign·(q − threshold) − tolerance`` of a state, output, input or constant;
        with three more entries ``(kind2, index2, constant2)``, ``sign·(q − q2 − threshold)
        − tolerance`` (a quantity exceeding another).

        Parameters
        ----------
        specs
        """
        ng = len(specs)
        specs = [tuple(g) + (("none", 0, 0.0) if len(g) == 7 else ()) for g in specs]
        if specs == self._guard_specs:   # as set (a sampled controller's segments): nothing to copy
            return
        kind = np.array([GUARD_KIND[g[0]] for g in specs] or [0], dtype=np.int32)
        idx = np.array([g[1] for g in specs] or [0], dtype=np.int32)
        cols = [np.array([float(g[k]) for g in specs] or [0.0]) for k in (2, 3, 4, 5)]
        dirs = np.array([int(g[6]) for g in specs] or [0], dtype=np.int32)
        kind2 = np.array([GUARD_KIND[g[7]] for g in specs] or [-1], dtype=np.int32)
        idx2 = np.array([g[8] for g in specs] or [0], dtype=np.int32)
        c2 = np.array([float(g[9]) for g in specs] or [0.0])
        if self.lib.bgn_set_guards(self.h, ng, _ptr(kind), _ptr(idx), *map(_ptr, cols),
                                   _ptr(dirs), _ptr(kind2), _ptr(idx2), _ptr(c2)) != 0:
            raise MemoryError("the native CVODE driver could not allocate its guards")
        self.ng = ng
        self._guard_specs = specs
        self._g_old = _view(self.lib.bgn_g_old(self.h), ng)
        self._dg_old = _view(self.lib.bgn_dg_old(self.h), ng)
        self._gbuf = np.zeros(max(ng, 1))

    def set_inputs(self, u: np.ndarray, du: np.ndarray | None = None) -> None:
        """Constant input values (tables, when set on the model, overwrite them per call).

        Parameters
        ----------
        u : ndarray
            Input values.
        du : ndarray, optional
            Input derivatives.
        """
        self.us[:] = np.asarray(u, dtype=float)[: self.us.size]
        if du is not None:
            self.dus[:] = np.asarray(du, dtype=float)[: self.dus.size]

    # ------------------------------------------------------------ evaluations
    def monitor(self, t: float, x: np.ndarray) -> tuple[np.ndarray, int]:
        """The divisors at ``(t, x)`` with this session's buffers (as ``CompiledSystem.monitors``).

        Parameters
        ----------
        t : float
            Time (s).
        x : ndarray
            State vector.

        Returns
        -------
        tuple
        """
        y = np.ascontiguousarray(x, dtype=float)
        st = self.lib.bgn_monitor(self.h, float(t), _ptr(y), _ptr(self._mbuf))
        return self._mbuf[: self.nmon].copy(), int(st)

    def guard_values(self, t: float, y: np.ndarray) -> np.ndarray:
        """The guards at ``(t, y)``; a failed output call raises :class:`FloatingPointError`
        (as ``CompiledSystem.outputs`` does).

        Parameters
        ----------
        t : float
            Time (s).
        y : ndarray

        Returns
        -------
        ndarray
        """
        yy = np.ascontiguousarray(y, dtype=float)
        st = self.lib.bgn_guards(self.h, float(t), _ptr(yy), _ptr(self._gbuf))
        if st != 0:
            raise FloatingPointError(self.system.describe_status(st))
        return self._gbuf[: self.ng].copy()

    # ------------------------------------------------------------ a segment
    def begin(self, watch, a: float, b: float, y0: np.ndarray, *, rtol: float, atol,
              max_step: float, first_step: float | None, te: np.ndarray | None, ie: int,
              m_old: np.ndarray | None, g_old: np.ndarray | None) -> str:
        """Start ``[a, b]`` at ``y0`` (``CVodeReInit``); "" or the solver's message.

        Parameters
        ----------
        watch
        a : float
        b : float
        y0 : ndarray
        rtol : float
        atol
        max_step : float
        first_step : float, optional
        te : ndarray, optional
        ie : int
        m_old : ndarray, optional
        g_old : ndarray, optional

        Returns
        -------
        str
        """
        self.b = float(b)
        self.inputs_from_system()
        y = np.ascontiguousarray(y0, dtype=float)
        at = np.ascontiguousarray(np.atleast_1d(np.asarray(atol, dtype=float)))
        te_c = None if te is None else np.ascontiguousarray(te, dtype=float)
        self._keep.update(y0=y, atol=at, te=te_c)
        self._push(watch)
        if m_old is not None and self.nmon:
            self._m_old[:] = m_old
        if g_old is not None and self.ng:
            self._g_old[:] = g_old
        ms = float(max_step) if max_step is not None and np.isfinite(max_step) else 0.0
        code = self.lib.bgn_begin(self.h, float(a), float(b), _ptr(y), float(rtol), _ptr(at),
                                  int(at.size), float(first_step or 0.0), ms,
                                  1 if self.jacobian else 0, _ptr(te_c),
                                  0 if te_c is None else int(te_c.size), int(ie))
        return self.message() if code else ""

    def run(self, watch, resume: bool) -> str:
        """Step until the segment ends, a step needs Python, or a rule stops the run;
        ``watch`` gets the counters. Returns a :data:`RUN_CODES` name.

        Parameters
        ----------
        watch
        resume : bool

        Returns
        -------
        str
        """
        self._low[: len(watch._low)] = watch._low  # ill-conditioning levels, as Python left them
        code = self.lib.bgn_run(self.h, 1 if resume else 0)
        self._pull(watch)
        return RUN_CODES[code]

    def rows(self) -> tuple[np.ndarray, np.ndarray]:
        """The output rows written in C since the last call (copies).

        Returns
        -------
        tuple
        """
        k = self.lib.bgn_rows(self.h, ctypes.byref(self._rt), ctypes.byref(self._ry))
        if k == 0:
            return np.zeros(0), np.zeros((0, self.n))
        t = np.ctypeslib.as_array(self._rt, shape=(k,)).copy()
        y = np.ctypeslib.as_array(self._ry, shape=(k * self.n,)).reshape(k, self.n).copy()
        self.lib.bgn_drain(self.h)
        return t, y

    @property
    def ie(self) -> int:
        """Index of the next output time the C loop will write."""
        return int(self.lib.bgn_ie(self.h))

    # the driver protocol of stepping._examine: t_old, t, y, done, interpolation
    @property
    def t_old(self) -> float:
        """Start of the last step."""
        return float(self.w.t_old)

    @property
    def t(self) -> float:
        """End of the last step."""
        return float(self.w.t)

    @property
    def h_last(self) -> float:
        """Length of the last step."""
        return float(self.w.h)

    @property
    def y(self) -> np.ndarray:
        """State at :attr:`t` (a copy)."""
        return self._y.copy()

    @property
    def done(self) -> bool:
        """The segment's end is reached."""
        return self.t >= self.b

    def __call__(self, tq: float) -> np.ndarray:
        if tq == self.w.t:
            return self._y.copy()
        if self.lib.bgn_dky(self.h, float(tq), _ptr(self._dky)) != 0:
            return np.full(self.n, np.nan)
        return self._dky.copy()

    def taylor(self) -> tuple[float, float, np.ndarray] | None:
        """CVODE's interpolant on the last step as its Taylor polynomial about ``tn``.

        ``y(t) = Σₖ dₖ·(t − tn)ᵏ/k!`` for ``k = 0 … q`` (``q`` the order of the step) is what
        the session interpolates (``session(t)``) on ``[tn − hu, tn]``.

        Returns
        -------
        (tn, hu, d) or None
            CVODE's current time, its last step (s) and ``d`` of shape ``(q + 1, n)``;
            ``None`` if CVODE refuses (no step taken yet).

        Examples
        --------
        ``ẋ = −x``: the first derivative at ``tn`` is ``−x(tn)``, and the polynomial gives
        what the session interpolates inside the step:

        >>> import math
        >>> import numpy as np
        >>> from bondgraph import BondGraph, One, I, R, build
        >>> from bondgraph.native.cvode import native_session
        >>> from bondgraph.stepping import Watch, run_segment
        >>> bg = BondGraph("decay")
        >>> _ = bg.add(One("v"), I("m", 1.0, initial=1.0), R("b", 1.0))
        >>> _ = bg.connect("v", "m"); _ = bg.connect("v", "b")
        >>> model = build(bg)
        >>> session = native_session(model, "native", "CVODE", subject="decay")
        >>> watch = Watch(model, 0.0, 0.3, np.array([1.0]), method="CVODE", timeout=None,
        ...               blowup=None, singular="ignore", max_steps=10_000)
        >>> session.attach(watch)
        >>> _ = run_segment("CVODE", None, None, 0.0, 0.3, np.array([1.0]), watch, rtol=1e-8,
        ...                 atol=1e-10, max_step=np.inf, first_step=None, native=session)
        >>> tn, hu, d = session.taylor()
        >>> bool(np.isclose(d[1, 0], -d[0, 0], rtol=1e-6))
        True
        >>> tm = tn - hu / 3
        >>> y = sum(d[k, 0] * (tm - tn) ** k / math.factorial(k) for k in range(len(d)))
        >>> bool(abs(y - session(tm)[0]) < 1e-15)
        True
        """
        if self.lib.bgn_taylor(self.h, _ptr(self._taylor), _ptr(self._tinfo)) != 0:
            return None
        q = int(self._tinfo[2])
        d = self._taylor[: (q + 1) * self.n].reshape(q + 1, self.n).copy()
        return float(self._tinfo[0]), float(self._tinfo[1]), d

    def guard_polynomial(self, events, i: int):
        """Guard ``i`` on the last step as a polynomial in time
        (:class:`~bondgraph.native.steppoly.GuardPolynomial`), for rule R7's roots and
        extrema without scipy; ``None`` when ``events`` are not this session's guards, the
        guard reads an output or an input, or the step is not CVODE's last one.

        Parameters
        ----------
        events : EventSet
            The run's events (their ``values`` must be :meth:`guard_values`).
        i : int
            The guard.

        Returns
        -------
        GuardPolynomial or None

        Examples
        --------
        See :mod:`bondgraph.native.steppoly`.
        """
        if events.values != self.guard_values or self._guard_specs is None or i >= self.ng:
            return None
        from .steppoly import LINEAR_KINDS, guard_polynomial

        spec = self._guard_specs[i]
        if spec[0] not in LINEAR_KINDS[:2] or spec[7] not in LINEAR_KINDS:
            return None
        step = (self.w.steps, self.w.t_old, self.w.t)
        if self._polys[0] != step:
            tay = self.taylor()
            ok = tay is not None
            if ok:   # the step Python finishes must be CVODE's last: [t_old, t] ⊂ [tn − hu, tn]
                tn, hu, _ = tay
                fuzz = 100 * np.finfo(float).eps * (abs(tn) + hu)   # CVodeGetDky's own
                ok = self.w.t_old >= tn - hu - fuzz and self.w.t <= tn + fuzz
            self._polys = (step, {"taylor": tay if ok else None})
        cache = self._polys[1]
        if cache["taylor"] is None:
            return None
        if i not in cache:
            cache[i] = guard_polynomial(spec, *cache["taylor"])
        return cache[i]

    def old_monitor(self) -> np.ndarray | None:
        """The divisors at the start of the last step (None without monitors).

        Returns
        -------
        ndarray, optional
        """
        return self._m_old.copy() if self.watch is not None and self.watch.monitor is not None else None

    def old_events(self) -> np.ndarray | None:
        """The guard values at the start of the last step (None without guards).

        Returns
        -------
        ndarray, optional
        """
        return self._g_old.copy() if self.ng else None

    def old_slopes(self) -> np.ndarray | None:
        """The guard slopes at the start of the last step, if valid.

        Returns
        -------
        ndarray, optional
        """
        return self._dg_old.copy() if self.ng and self.lib.bgn_dg_valid(self.h) else None

    def after_look(self, watch, m, g, dg, ie: int) -> None:
        """What Python's finished step leaves for the next: compared values, output index.

        Parameters
        ----------
        watch
        m
        g
        dg
        ie : int
        """
        if m is not None and self.nmon:
            self._m_old[:] = m
        if g is not None and self.ng:
            self._g_old[:] = g
        if dg is not None and self.ng:
            self._dg_old[:] = dg
            self.lib.bgn_set_dg_valid(self.h, 1)
        self.lib.bgn_set_ie(self.h, int(ie))

    def message(self) -> str:
        """The solver's words for the last error flag (scikit-sundae's, as the Python path).

        Returns
        -------
        str
        """
        from .cvode import cvode_message

        return cvode_message(int(self.lib.bgn_flag(self.h)))

    # ------------------------------------------------------------ counters
    def _push(self, watch) -> None:
        w = self.w
        w.nfev, w.njev, w.steps = watch.nfev, watch.njev, watch.steps
        w.calls, w.fails, w.tiny = watch.calls, watch.fails, watch.tiny
        w.ff_has = 0  # none pending at a segment's start: the start or a step was accepted
        w.deadline, w.max_steps = float(watch.deadline), int(watch.max_steps)
        self._low[: len(watch._low)] = watch._low

    def _pull(self, watch) -> None:
        w = self.w
        watch.nfev, watch.njev, watch.steps = int(w.nfev), int(w.njev), int(w.steps)
        watch.calls, watch.fails, watch.tiny = int(w.calls), int(w.fails), int(w.tiny)
        if w.ff_has:
            why = self.system.describe_status(int(w.ff_status))
            if w.ff_jac:
                why += " (in the Jacobian)"
            watch.first_fail = (float(w.ff_t), self._ff_y.copy(), why)
        else:
            watch.first_fail = None
        if w.t_good != watch.t_good:
            watch.good(float(w.t_good), self._y_good.copy())
