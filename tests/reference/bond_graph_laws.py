"""Random small bond graphs as plain data, every causal assignment by enumeration, and the
state derivatives by a numerical solve of the element and junction laws.

Nothing here uses ``bondgraph``: a graph is a :class:`GraphSpec` of named elements and
bonds; the causal rules and the laws are written out below from their textbook
definitions, so the property test can hold the toolkit's causality and derived
equations against them.

Laws (``s = +1`` for a bond pointing into a junction, ``-1`` out of it):

* 0-junction: one effort on every bond, ``Σ s·f = 0``; 1-junction: one flow,
  ``Σ s·e = 0``; a 1-junction with a displacement state ``x`` has ``ẋ = f``;
* ``Se``: ``e = a``; ``MSe``: ``e = a·sin t + b·u`` (``u`` its input); ``Sf``/``MSf`` alike for ``f``;
* ``I``: ``m·ḟ = e`` (state ``f`` when independent); ``C``: ``c·ė = f`` (state ``e``);
  ``Cnl``: ``e = q + κ·q³``, ``q̇ = f`` (state ``q``);
* ``R``: ``e = r·f``; ``Rf``: ``f = k·sinh e``; ``Re``: ``e = k·sinh f``;
* ``TF``: ``e1 = n·e2``, ``f2 = n·f1``; ``MTF``: the same with ``n = a + b·cos θ`` (``θ``
  the displacement of junction ``coord``) or ``n = a + b·sin t``; ``GY``: ``e1 = r·f2``,
  ``e2 = r·f1``. Port 1 is bonded in, port 2 out.

The derivatives come from one Gauss–Newton solve with every bond's ``e, f, ė, ḟ`` and the
state derivatives as unknowns: the algebraic laws, the state equations and, when some
storage is dependent (``e = m·ḟ`` / ``f = c·ė``), the time derivatives of every other law.
The system is underdetermined only in second-derivative directions; the state derivatives
are unique when the model is well posed, which :func:`solve_laws` checks (a residual is
small relative to the terms of its row: the backward error).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Protocol, Sequence

import numpy as np
import scipy.linalg

__all__ = ["Elem", "BondSpec", "GraphSpec", "Picker", "random_spec", "assignments",
           "solve_laws", "LawSolution", "ONE_PORTS", "SOURCES", "STORAGE"]

SOURCES = ("Se", "Sf", "MSe", "MSf")
STORAGE = ("I", "C", "Cnl")
RESISTORS = ("R", "Rf", "Re")
ONE_PORTS = SOURCES + STORAGE + RESISTORS
TWO_PORTS = ("TF", "MTF", "GY")
_KEY = {"I": "f", "C": "e", "Cnl": "q"}  # state of an independent storage element
_ONE_PORT_DRAW = SOURCES + ("I", "I", "C", "C", "Cnl") + RESISTORS  # linear storage twice as often
VALUES = (0.5, 0.8, 1.3, 2.0)


@dataclass(frozen=True)
class Elem:
    name: str
    kind: str  # "0", "1", one of ONE_PORTS or TWO_PORTS
    value: float = 1.0  # m, c, r, k, modulus a, source amplitude a
    extra: float = 0.0  # MTF b, Cnl κ, MSe/MSf input gain b
    coord: str | None = None  # MTF: junction whose displacement modulates it
    displacement: bool = False  # 1-junction with a displacement state "x"


@dataclass(frozen=True)
class BondSpec:
    name: str
    tail: str
    head: str
    tail_port: str | None = None  # "2" when the tail is a two-port
    head_port: str | None = None  # "1" when the head is a two-port


@dataclass(frozen=True)
class GraphSpec:
    elements: tuple[Elem, ...]
    bonds: tuple[BondSpec, ...]

    def element(self, name: str) -> Elem:
        return next(e for e in self.elements if e.name == name)

    def __str__(self) -> str:
        els = ", ".join(f"{e.name}:{e.kind}" + ("(x)" if e.displacement else "")
                        + (f"[{e.coord or 't'}]" if e.kind == "MTF" else "") for e in self.elements)
        bds = ", ".join(f"{b.tail}{'/' + b.tail_port if b.tail_port else ''}→"
                        f"{b.head}{'/' + b.head_port if b.head_port else ''}" for b in self.bonds)
        return f"{els} | {bds}"


class Picker(Protocol):
    def int(self, lo: int, hi: int) -> int: ...

    def choice(self, seq: Sequence): ...


def random_spec(pick: Picker, max_bonds: int = 13) -> GraphSpec:
    """A random graph: 1–4 junctions, junction–junction bonds and two-ports (loops and
    parallel paths), one-ports of every kind on the junctions."""
    els: list[Elem] = []
    bonds: list[BondSpec] = []
    nj = pick.int(1, 4)
    junctions = []
    for i in range(nj):
        kind = pick.choice("01")
        disp = kind == "1" and pick.choice((False, True))
        els.append(Elem(f"j{i}", kind, displacement=disp))
        junctions.append(f"j{i}")
    coords = [e.name for e in els if e.displacement]

    def bond(tail, head, tp=None, hp=None):
        bonds.append(BondSpec(f"b{len(bonds)}", tail, head, tp, hp))

    if nj >= 2:
        for _ in range(pick.int(0, 3)):
            i, j = pick.int(0, nj - 1), pick.int(0, nj - 1)
            if i != j:
                bond(junctions[i], junctions[j])
    for m in range(pick.int(0, 2)):
        kind = pick.choice(TWO_PORTS)
        i, j = pick.int(0, nj - 1), pick.int(0, nj - 1)
        if kind == "MTF":
            coord = pick.choice(coords + [None]) if coords else None
            el = Elem(f"tp{m}", kind, pick.choice((1.3, 2.0)), pick.choice((0.3, 0.5)), coord)
        else:
            el = Elem(f"tp{m}", kind, pick.choice(VALUES))
        els.append(el)
        bond(junctions[i], el.name, hp="1")
        bond(el.name, junctions[j], tp="2")
    targets = list(range(nj)) + [pick.int(0, nj - 1) for _ in range(pick.int(0, 3))]
    for count, i in enumerate(targets):
        if len(bonds) >= max_bonds and count >= nj:
            break
        kind = pick.choice(_ONE_PORT_DRAW)
        extra = pick.choice((0.5, 1.0)) if kind in ("MSe", "MSf", "Cnl") else 0.0
        el = Elem(f"{kind}{count}", kind, pick.choice(VALUES), extra)
        els.append(el)
        if kind in SOURCES:
            bond(el.name, junctions[i])
        else:
            bond(junctions[i], el.name)
    return GraphSpec(tuple(els), tuple(bonds))


# ------------------------------------------------------------------------------ causality
def assignments(spec: GraphSpec) -> np.ndarray:
    """Every valid causal assignment, by enumeration of all ``2**bonds`` candidates.

    Row ``r``, column ``b``: True if bond ``b`` gives its effort to its head. A candidate
    is valid when every source, junction, transformer and gyrator rule holds.
    """
    nb = len(spec.bonds)
    bits = ((np.arange(2**nb)[:, None] >> np.arange(nb)) & 1).astype(bool)
    ok = np.ones(len(bits), dtype=bool)
    inc: dict[str, list[tuple[int, bool]]] = {e.name: [] for e in spec.elements}
    for i, b in enumerate(spec.bonds):
        inc[b.tail].append((i, False))
        inc[b.head].append((i, True))
    for e in spec.elements:
        recv = [bits[:, i] if is_head else ~bits[:, i] for i, is_head in inc[e.name]]
        if e.kind in ("Se", "MSe"):
            ok &= ~recv[0]
        elif e.kind in ("Sf", "MSf"):
            ok &= recv[0]
        elif e.kind == "0":
            ok &= np.sum(recv, axis=0) == 1
        elif e.kind == "1":
            ok &= np.sum(recv, axis=0) == len(recv) - 1
        elif e.kind in ("TF", "MTF"):
            ok &= recv[0] != recv[1]
        elif e.kind == "GY":
            ok &= recv[0] == recv[1]
    return bits[ok]


# ------------------------------------------------------------------------------ laws
class _Rows:
    """Residual rows ``Σ coef·z + const`` plus a few nonlinear ones ``fn(z) → (value, grad)``."""

    def __init__(self, with_rates: bool):
        self.lin: list[tuple[dict[int, float], float]] = []
        self.nonlin: list[Callable[[np.ndarray], tuple[float, dict[int, float]]]] = []
        self.with_rates = with_rates  # keep the time-derivative rows (dependent storage)

    def add(self, terms: dict[int, float], const: float = 0.0, rate: bool = False) -> None:
        if self.with_rates or not rate:
            self.lin.append((terms, const))

    def add_nl(self, fn, rate: bool = False) -> None:
        if self.with_rates or not rate:
            self.nonlin.append(fn)

    def matrices(self, n: int):
        A = np.zeros((len(self.lin), n))
        c = np.zeros(len(self.lin))
        for r, (terms, const) in enumerate(self.lin):
            for j, v in terms.items():
                A[r, j] += v
            c[r] = const
        return A, c


def _gauss_newton(rows: _Rows, n: int, iters: int = 60):
    A, c = rows.matrices(n)
    z = np.zeros(n)
    nl = rows.nonlin

    def eval_(z):
        r = A @ z + c
        J = A
        if nl:
            extra = np.zeros(len(nl))
            Jn = np.zeros((len(nl), n))
            for i, fn in enumerate(nl):
                val, grad = fn(z)
                extra[i] = val
                for j, d in grad.items():
                    Jn[i, j] += d
            r = np.concatenate([r, extra])
            J = np.vstack([A, Jn])
        return r, J

    def backward_error(z, r, J):
        """Largest residual relative to the size of the terms of its row."""
        scale = np.abs(J) @ np.abs(z) + np.abs(r) + 1.0
        return np.max(np.abs(r) / scale, initial=0.0)

    r, J = eval_(z)
    for _ in range(iters):
        if backward_error(z, r, J) < 1e-14:
            break
        step = np.linalg.lstsq(J, -r, rcond=None)[0]
        norm0, lam = np.linalg.norm(r), 1.0
        while True:  # full Newton steps, damped only against blow-up
            with np.errstate(over="ignore", invalid="ignore"):
                r1, J1 = eval_(z + lam * step)
            if (np.all(np.isfinite(r1)) and np.linalg.norm(r1) < 1e3 * norm0) or lam < 1e-6:
                break
            lam /= 2
        z, r, J = z + lam * step, r1, J1
    return z, backward_error(z, r, J), J


@dataclass(frozen=True)
class LawSolution:
    """What :func:`solve_laws` found.

    ``rates``: state name → derivative, or None when the laws have no solution
    (``converged`` False) or do not determine the state derivatives; ``redundant``:
    some bond efforts or flows are not determined (a junction structure with a
    circulating flow or effort, e.g. two bonds in parallel between 0-junctions).
    """

    rates: dict[str, float] | None
    converged: bool
    redundant: bool


def solve_laws(spec: GraphSpec, states: dict[str, float], inputs: dict[str, float],
               dinputs: dict[str, float], t: float) -> LawSolution:
    """State derivatives of ``spec`` at ``states`` (name ``"element.key"`` → value).

    The storage elements named in ``states`` are the independent ones (keys ``f`` of an
    ``I``, ``e`` of a ``C``, ``q`` of a ``Cnl``); the others are dependent. ``inputs``
    and ``dinputs`` give each modulated source's input ``u_<name>`` and its derivative.
    """
    bonds = spec.bonds
    nb = len(bonds)
    snames = list(states)
    n = 4 * nb + len(snames)
    E = {b.name: i for i, b in enumerate(bonds)}
    F = {b.name: nb + i for i, b in enumerate(bonds)}
    DE = {b.name: 2 * nb + i for i, b in enumerate(bonds)}
    DF = {b.name: 3 * nb + i for i, b in enumerate(bonds)}
    XD = {s: 4 * nb + i for i, s in enumerate(snames)}
    inc: dict[str, list[tuple[str, int]]] = {e.name: [] for e in spec.elements}
    port: dict[tuple[str, str], str] = {}
    for b in bonds:
        inc[b.tail].append((b.name, -1))
        inc[b.head].append((b.name, +1))
        if b.tail_port:
            port[(b.tail, b.tail_port)] = b.name
        if b.head_port:
            port[(b.head, b.head_port)] = b.name
    dependent = any(e.kind in STORAGE and f"{e.name}.{_KEY[e.kind]}" not in states
                    for e in spec.elements)
    rows = _Rows(with_rates=dependent)
    for el in spec.elements:
        k = el.kind
        if k in ("0", "1"):
            same, summed = (E, F) if k == "0" else (F, E)
            dsame, dsummed = (DE, DF) if k == "0" else (DF, DE)
            (b0, _), *rest = inc[el.name]
            for b, _ in rest:
                rows.add({same[b0]: 1.0, same[b]: -1.0})
                rows.add({dsame[b0]: 1.0, dsame[b]: -1.0}, rate=True)
            rows.add({summed[b]: float(s) for b, s in inc[el.name]})
            rows.add({dsummed[b]: float(s) for b, s in inc[el.name]}, rate=True)
            if el.displacement:
                rows.add({XD[f"{el.name}.x"]: 1.0, F[b0]: -1.0})
            continue
        if k in TWO_PORTS:
            b1, b2 = port[(el.name, "1")], port[(el.name, "2")]
            if k == "GY":
                r = el.value
                rows.add({E[b1]: 1.0, F[b2]: -r})
                rows.add({E[b2]: 1.0, F[b1]: -r})
                rows.add({DE[b1]: 1.0, DF[b2]: -r}, rate=True)
                rows.add({DE[b2]: 1.0, DF[b1]: -r}, rate=True)
                continue
            if k == "TF":
                nval, ndot, theta_rate = el.value, 0.0, None
            elif el.coord is None:
                nval, ndot, theta_rate = el.value + el.extra * math.sin(t), el.extra * math.cos(t), None
            else:
                th = states[f"{el.coord}.x"]
                nval, ndot, theta_rate = el.value + el.extra * math.cos(th), 0.0, \
                    (-el.extra * math.sin(th), XD[f"{el.coord}.x"])
            rows.add({E[b1]: 1.0, E[b2]: -nval})
            rows.add({F[b2]: 1.0, F[b1]: -nval})
            if theta_rate is None:
                rows.add({DE[b1]: 1.0, DE[b2]: -nval, E[b2]: -ndot}, rate=True)
                rows.add({DF[b2]: 1.0, DF[b1]: -nval, F[b1]: -ndot}, rate=True)
            else:  # ṅ = n'(θ)·θ̇, θ̇ an unknown: bilinear rows
                dn, ix = theta_rate
                for d_out, d_in, v_in in ((DE[b1], DE[b2], E[b2]), (DF[b2], DF[b1], F[b1])):
                    def fn(z, d_out=d_out, d_in=d_in, v_in=v_in, dn=dn, ix=ix, nv=nval):
                        return (z[d_out] - nv * z[d_in] - dn * z[ix] * z[v_in],
                                {d_out: 1.0, d_in: -nv, ix: -dn * z[v_in], v_in: -dn * z[ix]})
                    rows.add_nl(fn, rate=True)
            continue
        ((b, _),) = inc[el.name]
        a = el.value
        if k in SOURCES:
            val, dval = a, 0.0
            if k in ("MSe", "MSf"):
                u = f"u_{el.name}"
                val = a * math.sin(t) + el.extra * inputs[u]
                dval = a * math.cos(t) + el.extra * dinputs[u]
            var, dvar = (E, DE) if k in ("Se", "MSe") else (F, DF)
            rows.add({var[b]: 1.0}, -val)
            rows.add({dvar[b]: 1.0}, -dval, rate=True)
        elif k == "R":
            rows.add({E[b]: 1.0, F[b]: -a})
            rows.add({DE[b]: 1.0, DF[b]: -a}, rate=True)
        elif k in ("Rf", "Re"):
            out, inn = (F, E) if k == "Rf" else (E, F)
            dout, dinn = (DF, DE) if k == "Rf" else (DE, DF)
            o, i_, do, di = out[b], inn[b], dout[b], dinn[b]
            rows.add_nl(lambda z, o=o, i_=i_, a=a: (z[o] - a * math.sinh(z[i_]),
                                                      {o: 1.0, i_: -a * math.cosh(z[i_])}))
            rows.add_nl(lambda z, do=do, di=di, i_=i_, a=a: (
                z[do] - a * math.cosh(z[i_]) * z[di],
                {do: 1.0, di: -a * math.cosh(z[i_]), i_: -a * math.sinh(z[i_]) * z[di]}), rate=True)
        elif k == "I":
            key = f"{el.name}.f"
            if key in states:
                rows.add({F[b]: 1.0}, -states[key])
                rows.add({DF[b]: 1.0, XD[key]: -1.0}, rate=True)
                rows.add({XD[key]: a, E[b]: -1.0})
            else:
                rows.add({E[b]: 1.0, DF[b]: -a})
        elif k == "C":
            key = f"{el.name}.e"
            if key in states:
                rows.add({E[b]: 1.0}, -states[key])
                rows.add({DE[b]: 1.0, XD[key]: -1.0}, rate=True)
                rows.add({XD[key]: a, F[b]: -1.0})
            else:
                rows.add({F[b]: 1.0, DE[b]: -a})
        elif k == "Cnl":
            key = f"{el.name}.q"
            kap = el.extra
            if key not in states:  # dependent: q = g(e), f = q̇ = ė / (1 + 3κq²)
                def qe(e_, kap=kap):
                    r = np.roots([kap, 0.0, 1.0, -e_])
                    return float(r[np.argmin(np.abs(r.imag))].real)

                def row(z, e_=E[b], f_=F[b], de_=DE[b], kap=kap, qe=qe):
                    q = qe(z[e_])
                    s = 1.0 + 3.0 * kap * q * q
                    return (z[f_] * s - z[de_],
                            {f_: s, de_: -1.0, e_: 6.0 * kap * q * z[f_] / s})
                rows.add_nl(row)
                continue
            q = states[key]
            rows.add({E[b]: 1.0}, -(q + kap * q**3))
            rows.add({DE[b]: 1.0, XD[key]: -(1.0 + 3.0 * kap * q**2)}, rate=True)
            rows.add({XD[key]: 1.0, F[b]: -1.0})
    z, err, J = _gauss_newton(rows, n)
    if not np.all(np.isfinite(z)) or not err < 1e-11:
        return LawSolution(None, False, False)
    # a variable is determined when no null direction of J moves it (rank-revealing QR of
    # Jᵀ: its first columns span the row space of J, the others the null space)
    J = J / np.maximum(np.max(np.abs(J), axis=1, keepdims=True), 1e-300)  # rows equilibrated
    Q, R_, _ = scipy.linalg.qr(J.T, pivoting=True)
    d = np.abs(np.diag(R_))
    rank = int(np.sum(d > 1e-9 * d[0])) if d.size else 0
    null = Q[:, rank:].T

    def moves(cols):
        return bool(null.size and cols and np.max(np.abs(null[:, cols])) > 1e-7)

    redundant = moves(list(range(2 * nb)))
    if moves([XD[s] for s in snames]):
        return LawSolution(None, True, redundant)
    return LawSolution({s: float(z[XD[s]]) for s in snames}, True, redundant)
