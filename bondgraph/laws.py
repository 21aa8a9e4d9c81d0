"""Constitutive laws and their inverses: inverted correctly or refused, never silently.

A one-port law is written in one causal form — an orifice gives its flow from its
pressure drop, a spring its force from its displacement. When the graph gives the
element the other causality the law must be inverted. It is, in one of two ways:

* **declared**: :class:`Law` carries the exact inverse (``Law(forward, inverse)``;
  for a resistor also ``R(name, flow=f, effort=g)``). The pair is checked numerically
  (both round trips on sample points of both signs over 17 decades) and then used
  as given: no solver runs. The hydraulic library's laws all declare theirs.
* **found**: without a declared inverse, sympy looks for one *within a time limit*
  (:func:`time_limit`, default :data:`DEFAULT_TIME_LIMIT` seconds, in a child
  process that is killed when the limit is reached: a law sympy cannot invert never
  hangs the build). Odd laws (``f(−x) = −f(x)``, like ``sign(Δp)·√|Δp|``) are
  inverted on the positive branch and extended by symmetry. A candidate is accepted
  only if ``f(g(y))`` simplifies to ``y`` for ``y > 0`` *and* for ``y < 0``, and both
  round trips hold numerically on both branches with ``g`` monotonic.

A law that declares it has no inverse (``Law(f, not_invertible="why")``), or whose
inversion fails or times out, makes the element raise
:class:`~bondgraph.errors.EquationError` naming the element, its causality, why,
and how to fix it (declare the inverse, or change the causality).

:func:`dissipation_problem` checks that a resistor's law is passive
(``e·f ≥ 0``) on the same sample points.

Examples
--------
>>> import sympy as sp
>>> x, y = sp.symbols("x y", real=True)
>>> orifice = lambda dp: 2 * sp.sign(dp) * sp.sqrt(sp.Abs(dp))
>>> invert(orifice, orifice(x), x, y, where="R 'or'")
y**2*sign(y)/4
>>> invert(Law(lambda q: q**2), x**2, x, y, where="R 'sq'")
Traceback (most recent call last):
...
bondgraph.errors.EquationError: R 'sq': its law cannot be inverted: no inverse of y = x**2 holds on both branches (y > 0 and y < 0) (2 candidates from sympy failed the check); declare the inverse (Law(forward, inverse)) or change the causality
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import threading
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import sympy as sp

from .errors import EquationError, ParameterError

__all__ = ["Law", "invert", "verify_pair", "dissipation_problem", "branchwise", "time_limit",
           "get_time_limit", "bounded", "DEFAULT_TIME_LIMIT", "SAMPLES"]

#: Seconds sympy may spend inverting (or integrating) one law before the element refuses.
DEFAULT_TIME_LIMIT = 5.0
_LIMIT = [DEFAULT_TIME_LIMIT]

#: Sample arguments of the numerical checks: ±10⁻⁸ … ±10⁸, one per decade.
SAMPLES = tuple(sorted(s * 10.0**k for s in (-1.0, 1.0) for k in range(-8, 9)))
_EXTRA_VALUES = (0.6, 1.0, 1.7)  # values tried for the other symbols of a law (inputs, positions)
_RTOL = 1e-9
_DPS = 40


@dataclass(frozen=True)
class Law:
    """A constitutive law ``y = forward(x)``, with its exact inverse if known.

    Usable wherever a law callable is accepted (``R(..., flow=Law(...))``,
    ``C(..., law=Law(...))``): calling it calls ``forward``.

    Parameters
    ----------
    forward : callable
        ``x -> y`` as a sympy expression of ``x``.
    inverse : callable, optional
        ``y -> x``, the exact inverse on both branches (checked numerically when used).
    not_invertible : str, optional
        Why the law has no inverse (a check valve passes no flow below its cracking
        pressure, so its pressure drop is not a function of its flow); an element
        that would need the inverse raises with this reason instead of searching.

    Raises
    ------
    ParameterError
        ``forward`` or ``inverse`` not callable, both ``inverse`` and
        ``not_invertible``, or a reason that is not text.

    Examples
    --------
    >>> import sympy as sp
    >>> cube = Law(lambda x: x**3, inverse=lambda y: sp.sign(y) * sp.Abs(y)**sp.Rational(1, 3))
    >>> cube(2)
    8

    A quadratic damper ``e = f·|f|`` given its effort by a source needs its inverse,
    which it declares: 4 N drive it at ``f = 2 m/s``.

    >>> from bondgraph import BondGraph, Se, Zero, R, build, simulate
    >>> quad = Law(lambda f: f * sp.Abs(f), inverse=lambda e: sp.sign(e) * sp.sqrt(sp.Abs(e)))
    >>> m = BondGraph("quad")
    >>> _ = m.add(Se("F", 4.0), Zero("p"), R("d", effort=quad))
    >>> _ = m.connect("F", "p"); _ = m.connect("p", "d")
    >>> res = simulate(build(m), (0.0, 1.0), progress=False)
    >>> float(res["f[quad/b2]"][-1])
    2.0
    """

    forward: Callable[[Any], Any]
    inverse: Callable[[Any], Any] | None = None
    not_invertible: str | None = None

    def __post_init__(self):
        if not callable(self.forward):
            raise ParameterError(f"Law: forward = {self.forward!r}, expected a callable x -> y")
        if self.inverse is not None and not callable(self.inverse):
            raise ParameterError(f"Law: inverse = {self.inverse!r}, expected a callable y -> x")
        if self.inverse is not None and self.not_invertible is not None:
            raise ParameterError("Law: give inverse=... or not_invertible=..., not both")
        if self.not_invertible is not None and not isinstance(self.not_invertible, str):
            raise ParameterError(f"Law: not_invertible = {self.not_invertible!r}, expected the "
                                 "reason as text")

    def __call__(self, x: Any) -> Any:
        return self.forward(x)


# --------------------------------------------------------------------------- time limit
def get_time_limit() -> float:
    """Current limit (s) on one symbolic inversion or integration.

    Returns
    -------
    float
        :data:`DEFAULT_TIME_LIMIT` unless changed by :func:`time_limit`.

    Examples
    --------
    >>> get_time_limit() == DEFAULT_TIME_LIMIT
    True
    """
    return _LIMIT[0]


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Bound symbolic inversion and integration of laws to ``seconds`` within the block.

    Parameters
    ----------
    seconds : float
        Finite, > 0.

    Raises
    ------
    ParameterError
        ``seconds`` is not a finite positive number.

    Examples
    --------
    >>> with time_limit(0.5):
    ...     get_time_limit()
    0.5
    """
    if not (isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds > 0):
        raise ParameterError(f"time_limit: found {seconds!r}, expected a finite number of seconds > 0")
    old = _LIMIT[0]
    _LIMIT[0] = float(seconds)
    try:
        yield
    finally:
        _LIMIT[0] = old


class _TimedOut(Exception):
    pass


def bounded(fn: Callable[[], Any], seconds: float | None = None) -> Any:
    """Run ``fn()`` (symbolic work) for at most ``seconds``; raise ``TimeoutError`` after.

    The work runs in a forked child process that is killed at the limit (sympy cannot be
    interrupted otherwise); its result comes back pickled. Where no child process can
    be made (no ``fork``, inside a daemonic pool worker) a daemon thread is used and
    abandoned at the limit.

    Parameters
    ----------
    fn : callable
        No arguments; its result must be picklable.
    seconds : float, optional
        The limit (default :func:`get_time_limit`).

    Returns
    -------
    object
        What ``fn()`` returned.

    Raises
    ------
    TimeoutError
        No answer within the limit.
    RuntimeError
        ``fn`` raised (the message names the exception).

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> bounded(lambda: sp.integrate(x**2, (x, 0, 3)), seconds=20.0)
    9
    >>> bounded(lambda: 1 / 0, seconds=20.0)
    Traceback (most recent call last):
    ...
    RuntimeError: ZeroDivisionError: division by zero
    """
    limit = get_time_limit() if seconds is None else seconds
    try:
        ctx = multiprocessing.get_context("fork")
    except ValueError:  # pragma: no cover - no fork on this platform
        return _bounded_thread(fn, limit)
    if multiprocessing.current_process().daemon:  # pragma: no cover - a pool worker: no children
        return _bounded_thread(fn, limit)
    recv, send = ctx.Pipe(duplex=False)

    def child():
        try:
            out = ("ok", fn())
        except BaseException as exc:  # noqa: BLE001 - reported to the parent
            out = ("error", f"{type(exc).__name__}: {exc}")
        try:
            send.send(out)
        except Exception as exc:  # noqa: BLE001 - unpicklable result
            send.send(("error", f"result could not be returned ({exc})"))

    proc = ctx.Process(target=child, daemon=True)
    try:
        proc.start()
    except OSError:  # pragma: no cover - no process to spare
        recv.close()
        send.close()
        return _bounded_thread(fn, limit)
    send.close()
    try:
        if not recv.poll(limit):
            raise TimeoutError(f"no answer within {limit:g} s")
        try:
            status, payload = recv.recv()
        except EOFError:
            raise RuntimeError("the symbolic work ended without an answer") from None
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        recv.close()
    if status == "error":
        raise RuntimeError(payload)
    return payload


def _bounded_thread(fn, limit):  # pragma: no cover - platforms without fork
    box: dict[str, Any] = {}

    def run():
        try:
            box["ok"] = fn()
        except BaseException as exc:  # noqa: BLE001
            box["error"] = f"{type(exc).__name__}: {exc}"

    th = threading.Thread(target=run, daemon=True)
    th.start()
    th.join(limit)
    if th.is_alive():
        raise TimeoutError(f"no answer within {limit:g} s")
    if "error" in box:
        raise RuntimeError(box["error"])
    return box["ok"]


# --------------------------------------------------------------------------- numerics
def _numeric(expr: sp.Expr, args: list[sp.Symbol]):
    """``expr`` as a high-precision scalar function of ``args`` (None where undefined)."""
    import mpmath

    fn = sp.lambdify(args, expr, modules="mpmath")

    def call(*vals):
        with mpmath.workdps(_DPS):
            try:
                v = fn(*[mpmath.mpf(a) if isinstance(a, float) else a for a in vals])
            except (ZeroDivisionError, ValueError, TypeError, OverflowError, ArithmeticError):
                return None
            if isinstance(v, (int, float)):
                v = mpmath.mpf(v)
            if not isinstance(v, mpmath.mpf) or not mpmath.isfinite(v):
                return None
            return v
    return call


def _extras(exprs, skip) -> list[sp.Symbol]:
    out = set()
    for e in exprs:
        out |= e.free_symbols
    return sorted(out - set(skip), key=lambda s: s.name)


def _fmt(v) -> str:
    return f"{float(v):.6g}"


def _roundtrip_problem(f: sp.Expr, g: sp.Expr, x: sp.Symbol, y: sp.Symbol, *, passive: bool,
                       require_both_signs: bool) -> str | None:
    """Why ``g`` is not the inverse of ``f`` on the sample points (``None``: it is)."""
    import mpmath

    extras = _extras([f, g], (x, y))
    F = _numeric(f, [x, *extras])
    G = _numeric(g, [y, *extras])
    seen = {1: 0, -1: 0}
    assignments = [()] if not extras else [(v,) * len(extras) for v in _EXTRA_VALUES]
    tol = mpmath.mpf(_RTOL)
    for ev in assignments:
        where = "" if not ev else " with " + ", ".join(f"{s} = {v}" for s, v in zip(extras, ev))
        for a in SAMPLES:
            fa = F(a, *ev)
            back = None if fa is None else G(fa, *ev)
            if back is not None:
                if abs(back - a) > tol * abs(a):
                    return (f"inverse(law({a:g})) = {_fmt(back)}, expected {a:g}{where}")
                seen[1 if a > 0 else -1] += 1
        prev = None
        trend = 0
        for b in SAMPLES:  # increasing
            gb = G(b, *ev)
            fwd = None if gb is None else F(gb, *ev)
            if fwd is None:
                continue
            if abs(fwd - b) > tol * abs(b):
                return f"law(inverse({b:g})) = {_fmt(fwd)}, expected {b:g}{where}"
            if passive and gb * b < 0:
                return (f"the inverse gives {_fmt(gb)} for {b:g}: opposite signs, so the "
                        f"resistor would generate power{where}")
            if prev is not None:
                step = 1 if gb > prev else (-1 if gb < prev else 0)
                if step == 0 or (trend and step != trend):
                    return f"the inverse is not monotonic (at {b:g}{where})"
                trend = step
            prev = gb
    if require_both_signs:
        for sgn, word in ((1, "positive"), (-1, "negative")):
            if not seen[sgn]:
                return (f"it could not be checked for {word} arguments (the law or its "
                        "candidate inverse has no finite real value there)")
    return None


def dissipation_problem(f: sp.Expr, x: sp.Symbol, xname: str = "x") -> str | None:
    """Where a resistor law ``y = f(x)`` would generate power (``x·f(x) < 0``), if anywhere.

    Checked only for laws of their own variable alone (numbers otherwise); a law
    modulated by inputs, states or positions is not judged here.

    Parameters
    ----------
    f : sympy.Expr
        The law, in ``x``.
    x : sympy.Symbol
        Its argument.
    xname : str
        How the message names the argument (``"e"`` or ``"f"``).

    Returns
    -------
    str or None
        The first sample of :data:`SAMPLES` where ``x·f(x) < 0``, described; None if
        the law dissipates at every sample (or cannot be judged).

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x", real=True)
    >>> dissipation_problem(-3 * x, x, "e") is None
    False
    >>> dissipation_problem(x**3 + x, x, "e") is None
    True
    """
    if f.free_symbols - {x}:
        return None
    F = _numeric(f, [x])
    for a in SAMPLES:
        fa = F(a)
        if fa is not None and fa * a < 0:
            return (f"its law gives {_fmt(fa)} at {xname} = {a:g}: the dissipated power "
                    f"e·f = {_fmt(fa * a)} < 0 (a passive resistor needs e·f ≥ 0; pass "
                    "passive=False for a deliberately active element)")
    return None


# --------------------------------------------------------------------------- inversion
def _symbolic_identity(f: sp.Expr, g: sp.Expr, x: sp.Symbol, y: sp.Symbol, *,
                       odd: bool = False) -> bool:
    """``f(g(y)) = y`` and ``g(f(x)) = x``, each simplified on both branches.

    For an odd pair (``f`` shown odd, ``g`` odd by construction) the negative branch
    follows from the positive one.
    """
    branches = [sp.Dummy("p", positive=True)] + ([] if odd else [sp.Dummy("n", negative=True)])
    for b in branches:
        if sp.simplify(f.xreplace({x: g.xreplace({y: b})}) - b) != 0:
            return False
        if sp.simplify(g.xreplace({y: f.xreplace({x: b})}) - b) != 0:
            return False
    return True


def _candidates(f: sp.Expr, x: sp.Symbol, y: sp.Symbol) -> tuple[list[sp.Expr], int]:
    """Symbolically verified inverse candidates of ``y = f(x)`` (child-process work).

    Floats are replaced by their exact rational values first, so the identities are
    checked exactly (with floats a true inverse leaves a rounding residual).
    """
    f = f.xreplace({c: sp.Rational(c) for c in f.atoms(sp.Float)})
    odd: list[sp.Expr] = []
    xp, yp = sp.Dummy("xp", positive=True), sp.Dummy("yp", positive=True)
    try:
        if sp.simplify(f.xreplace({x: -xp}) + f.xreplace({x: xp})) == 0:  # odd law
            for s in sp.solve(sp.Eq(f.xreplace({x: xp}), yp), xp):
                odd.append(sp.sign(y) * s.xreplace({yp: sp.Abs(y)}))
    except NotImplementedError:
        pass
    try:
        sols = [s for s in sp.solve(sp.Eq(f, y), x) if isinstance(s, sp.Expr)]
    except NotImplementedError:
        sols = []
    found = [g for g in odd if _symbolic_identity(f, g, x, y, odd=True)]
    found += [g for g in sols if _symbolic_identity(f, g, x, y)]
    return found, len(odd) + len(sols)


def verify_pair(f: sp.Expr, g: sp.Expr, x: sp.Symbol, y: sp.Symbol, *, where: str,
                passive: bool = False) -> None:
    """Check a declared inverse numerically; raise :class:`EquationError` if it is wrong.

    Both round trips ``f(g(y)) = y`` and ``g(f(x)) = x`` are checked at the points of
    :data:`SAMPLES` (relative tolerance 1e-9, 40 digits).

    Parameters
    ----------
    f : sympy.Expr
        ``y = f(x)``.
    g : sympy.Expr
        The declared ``x = g(y)``.
    x, y : sympy.Symbol
    where : str
        The element, for the message.
    passive : bool
        Also require ``sign(g(y)) = sign(y)``.

    Raises
    ------
    EquationError
        A round trip fails; the message gives the point.

    Examples
    --------
    >>> import sympy as sp
    >>> x, y = sp.symbols("x y", real=True)
    >>> verify_pair(x**3, sp.sign(y) * sp.Abs(y)**sp.Rational(1, 3), x, y, where="R 'c'")
    >>> verify_pair(x**3, y / 3, x, y, where="R 'c'")
    Traceback (most recent call last):
    ...
    bondgraph.errors.EquationError: R 'c': its declared inverse does not invert its law: inverse(law(-1e+08)) = -3.33333e+23, expected -1e+08; correct the inverse
    """
    why = _roundtrip_problem(f, g, x, y, passive=passive, require_both_signs=False)
    if why is not None:
        raise EquationError(f"{where}: its declared inverse does not invert its law: {why}; "
                            "correct the inverse")


def invert(law: Callable[[Any], Any], forward: sp.Expr, x: sp.Symbol, y: sp.Symbol, *,
           where: str, resolve: Callable[[Any], sp.Expr] = sp.sympify, passive: bool = False,
           fix: str = "declare the inverse (Law(forward, inverse)) or change the causality") -> sp.Expr:
    """The inverse ``x = g(y)`` of ``y = forward(x)``, declared or found and verified.

    Parameters
    ----------
    law : callable or Law
        The law as the user gave it (a :class:`Law` may carry its inverse).
    forward : sympy.Expr
        ``law(x)``, already resolved.
    x, y : sympy.Symbol
        The law's argument and result symbols.
    where : str
        The element and its causality, for messages.
    resolve : callable
        Applied to a declared inverse's expression (the element context's ``resolve``).
    passive : bool
        Also require ``sign(g(y)) = sign(y)`` (a resistor).
    fix : str
        How to fix a refusal.

    Returns
    -------
    sympy.Expr
        ``g(y)``.

    Raises
    ------
    EquationError
        The law declares no inverse exists; the declared one is wrong; no verified
        inverse was found, or sympy needed longer than :func:`get_time_limit`.

    Examples
    --------
    A declared inverse is checked and used; no solver runs:

    >>> import sympy as sp
    >>> x, y = sp.symbols("x y", real=True)
    >>> law = Law(lambda q: 2 * q, inverse=lambda e: e / 2)
    >>> invert(law, law(x), x, y, where="C 'k'")
    y/2
    >>> invert(Law(lambda q: q, not_invertible="a check valve"), x, x, y, where="R 'cv'")
    Traceback (most recent call last):
    ...
    bondgraph.errors.EquationError: R 'cv': its law cannot be inverted: a check valve; declare the inverse (Law(forward, inverse)) or change the causality
    """
    if isinstance(law, Law) and law.not_invertible:
        raise EquationError(f"{where}: its law cannot be inverted: {law.not_invertible}; {fix}")
    if isinstance(law, Law) and law.inverse is not None:
        g = resolve(law.inverse(y))
        verify_pair(forward, g, x, y, where=where, passive=passive)
        return g
    try:
        found, tried = bounded(lambda: _candidates(forward, x, y))
    except TimeoutError:
        raise EquationError(f"{where}: its law cannot be inverted: sympy found no inverse of "
                            f"{_short(forward, x)} within {get_time_limit():g} s; {fix}") from None
    except RuntimeError as exc:
        raise EquationError(f"{where}: its law cannot be inverted: sympy failed ({exc}); "
                            f"{fix}") from None
    reasons = []
    for g in found:
        why = _roundtrip_problem(forward, g, x, y, passive=passive, require_both_signs=True)
        if why is None:
            return g
        reasons.append(f"candidate {g}: {why}")
    if not found:
        detail = (f"{tried} candidate{'s' if tried != 1 else ''} from sympy failed the check"
                  if tried else "sympy found no candidate")
        raise EquationError(f"{where}: its law cannot be inverted: no inverse of "
                            f"{_short(forward, x)} holds on both branches (y > 0 and y < 0) "
                            f"({detail}); {fix}")
    raise EquationError(f"{where}: its law cannot be inverted: {'; '.join(reasons)}; {fix}")


def branchwise(make: Callable[[sp.Symbol], sp.Expr], y: sp.Symbol) -> sp.Expr:
    """``Piecewise((make(y > 0), y ≥ 0), (make(y < 0), True))`` in terms of ``y``.

    ``make(b)`` builds the expression for a branch symbol ``b`` (positive, then
    negative): every ``sign``, ``|·|`` and ``DiracDelta`` of ``b`` in an inverse, its
    derivative or an energy evaluated at it is resolved on each branch, so the
    generated code has no nested non-smooth functions.

    Parameters
    ----------
    make : callable
    y : sp.Symbol

    Returns
    -------
    sp.Expr

    Examples
    --------
    >>> import sympy as sp
    >>> y = sp.Symbol("y", real=True)
    >>> branchwise(lambda b: sp.sign(b) * sp.sqrt(sp.Abs(b)), y)
    Piecewise((sqrt(y), y >= 0), (-sqrt(-y), True))
    """
    p, n = sp.Dummy("p", positive=True), sp.Dummy("n", negative=True)
    pos = sp.sympify(make(p)).xreplace({p: y})
    neg = sp.sympify(make(n)).xreplace({n: y})
    if pos == neg:
        return pos
    return sp.Piecewise((pos, y >= 0), (neg, True))


def _short(expr: sp.Expr, x: sp.Symbol) -> str:
    text = str(expr.xreplace({x: sp.Symbol("x")}))
    return "y = " + (text if len(text) <= 120 else text[:117] + "...")
