"""Compile generated equations into one fused C function per task.

The derivation (:mod:`bondgraph.equations`) gives residual rows in block
lower-triangular order. This module emits C for:

* ``bg_rhs`` — solve every block in order (a division for an explicit row, a
  LAPACK ``dgesv`` for a coupled block, Newton for a nonlinear algebraic loop)
  and return ``ẋ``;
* ``bg_jac`` — the analytic Jacobian ``∂ẋ/∂x`` by implicit differentiation
  through the same blocks, ``dU_b/dx = −E_b⁻¹(∂r_b/∂x + Σ ∂r_b/∂U_j·dU_j/dx)``,
  with symengine derivatives;
* ``bg_out`` — every bond effort and flow, stored energies and powers.

Common subexpressions are eliminated once per function with symengine, and a
temporary is emitted as soon as the unknowns it reads are solved. LAPACK is
scipy's own (its ``cython_lapack`` capsule), so nothing is linked by hand. The
shared library is cached under ``$BONDGRAPH_CACHE`` (default
``~/.cache/bondgraph``) keyed by a hash of its source: parameters are an
argument, so changing a value never recompiles.

Examples
--------
>>> from bondgraph import BondGraph, Se, One, I, R, assemble, derive
>>> from bondgraph.codegen import compile_equations
>>> bg = BondGraph("d")
>>> _ = bg.add(Se("F", 2.0), One("v"), I("m", 4.0), R("b", 1.0))
>>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
...     _ = bg.connect(a, b)
>>> sys = compile_equations(derive(assemble(bg)))
>>> import numpy as np
>>> sys.rhs(0.0, np.array([1.0]))  # m·v̇ = F − b·v = 2 − 1
array([0.25])
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import symengine as se

from .equations import Equations
from .errors import EquationError

__all__ = ["CompiledSystem", "compile_equations", "cache_dir", "find_compiler"]

_PRELUDE = r"""
#include <math.h>
#include <string.h>
typedef void (*dgesv_t)(int*, int*, double*, int*, int*, double*, int*, int*);
static dgesv_t dgesv_p = 0;
void bg_set_lapack(void* p) { dgesv_p = (dgesv_t)p; }
static double Heaviside(double x, double h0) { return x > 0 ? 1.0 : (x < 0 ? 0.0 : h0); }
/* A: n x n column-major, B: n x nrhs column-major; solution in B. */
static int bg_solve(int n, double* A, double* B, int nrhs) {
    int ipiv[n]; int info = 0; int lda = n, ldb = n;
    dgesv_p(&n, &nrhs, A, &lda, ipiv, B, &ldb, &info);
    return info;
}
"""


def cache_dir() -> Path:
    """Directory of compiled models (``$BONDGRAPH_CACHE`` or ``~/.cache/bondgraph``)."""
    root = os.environ.get("BONDGRAPH_CACHE")
    p = Path(root) if root else Path.home() / ".cache" / "bondgraph"
    p.mkdir(parents=True, exist_ok=True)
    return p


def find_compiler() -> str | None:
    """The C compiler used (``$CC``, else ``cc``/``gcc``/``clang`` on PATH)."""
    for cand in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if cand and shutil.which(cand):
            return cand
    return None


def _lapack_dgesv() -> int:
    from scipy.linalg import cython_lapack

    cap = cython_lapack.__pyx_capi__["dgesv"]
    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype = ctypes.c_char_p
    api.PyCapsule_GetName.argtypes = [ctypes.py_object]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return api.PyCapsule_GetPointer(cap, api.PyCapsule_GetName(cap))


# ----------------------------------------------------------------------------- plan
@dataclass
class _BlockPlan:
    members: tuple[int, ...]
    affine: bool
    E: dict[tuple[int, int], se.Basic]  # local (row, col) -> ∂r/∂U
    f: list[se.Basic]  # −r with the block unknowns at 0 (affine) or r (Newton)
    Rx: list[dict[int, se.Basic]]  # per row: state index -> ∂r/∂x
    Ru: list[dict[int, se.Basic]]  # per row: unknown (outside block) -> ∂r/∂U


class _Plan:
    def __init__(self, eqs: Equations):
        self.eqs = eqs
        syms = eqs.symbols()
        rename = {}
        self.nx, self.nU = len(syms["x"]), len(syms["U"])
        self.nu, self.ndu, self.np = len(syms["u"]), len(syms["du"]), len(syms["p"])
        self.X = [se.Symbol(f"xs[{i}]") for i in range(self.nx)]
        self.U = [se.Symbol(f"Us[{i}]") for i in range(self.nU)]
        for role, arr in (("x", "xs"), ("U", "Us"), ("u", "us"), ("du", "dus"), ("p", "ps")):
            for i, s in enumerate(syms[role]):
                rename[s] = se.Symbol(f"{arr}[{i}]")
        self.rename = rename
        res = [r.subs(rename) for r in eqs.residuals]
        self.block_of = {}
        for bi, b in enumerate(eqs.blocks):
            for i in b.unknowns:
                self.block_of[i] = bi
        self.blocks: list[_BlockPlan] = []
        for b in eqs.blocks:
            mem = b.members if hasattr(b, "members") else b.unknowns
            E, f, Rx, Ru = {}, [], [], []
            zero = {self.U[j]: 0 for j in mem}
            for li, i in enumerate(mem):
                r = res[i]
                for lj, j in enumerate(mem):
                    d = se.diff(r, self.U[j])
                    if d != 0:
                        E[(li, lj)] = d
                f.append(-r.subs(zero) if b.affine else r)
                rx, ru = {}, {}
                for sym in r.free_symbols:
                    nm = sym.name
                    if nm.startswith("xs["):
                        d = se.diff(r, sym)
                        if d != 0:
                            rx[int(nm[3:-1])] = d
                    elif nm.startswith("Us["):
                        j = int(nm[3:-1])
                        if j in mem:
                            continue
                        d = se.diff(r, sym)
                        if d != 0:
                            ru[j] = d
                rx = dict(sorted(rx.items()))
                ru = dict(sorted(ru.items()))
                Rx.append(rx)
                Ru.append(ru)
            self.blocks.append(_BlockPlan(tuple(mem), b.affine, E, f, Rx, Ru))
        self.outputs = []  # (name, expr)
        for nm, ex in eqs.bond_exprs.items():
            self.outputs.append((nm, ex.subs(rename)))
        for nm, ex in eqs.energy.items():
            self.outputs.append((f"energy[{nm}]", ex.subs(rename)))
        for nm, ex in eqs.source_power.items():
            self.outputs.append((f"source_power[{nm}]", ex.subs(rename)))
        for nm, ex in eqs.dissipation.items():
            self.outputs.append((f"dissipation[{nm}]", ex.subs(rename)))

    def stage_of(self, expr, tmp_stage) -> int:
        st = 0
        for s in expr.free_symbols:
            nm = s.name
            if nm.startswith("Us["):
                st = max(st, self.block_of[int(nm[3:-1])] + 1)
            elif s in tmp_stage:
                st = max(st, tmp_stage[s])
        return st


def _c(expr) -> str:
    return se.ccode(expr)


class _Emitter:
    """Emit one C function: blocks solved in order, temporaries staged."""

    def __init__(self, plan: _Plan, extra: list[se.Basic]):
        self.plan = plan
        exprs: list[se.Basic] = []
        self.slots: list[tuple] = []
        for bi, b in enumerate(plan.blocks):
            if b.affine:
                for key, ex in b.E.items():
                    self.slots.append(("E", bi, key))
                    exprs.append(ex)
                for li, ex in enumerate(b.f):
                    self.slots.append(("f", bi, li))
                    exprs.append(ex)
        for i, ex in enumerate(extra):
            self.slots.append(("extra", i))
            exprs.append(ex)
        repl, reduced = se.cse(exprs) if exprs else ([], [])
        self.repl = repl
        self.reduced = dict(zip(self.slots, reduced))
        self.tmp_stage: dict = {}
        for s, ex in repl:
            self.tmp_stage[s] = plan.stage_of(ex, self.tmp_stage)
        order = sorted(range(len(repl)), key=lambda i: (self.tmp_stage[repl[i][0]], i))
        self._queue = order
        self._pos = 0
        self.lines: list[str] = []

    def tmps_upto(self, stage: int) -> None:
        """Emit the temporaries whose inputs are known before block ``stage``."""
        while self._pos < len(self._queue):
            s, ex = self.repl[self._queue[self._pos]]
            if self.tmp_stage[s] > stage:
                break
            self.lines.append(f"    const double {s} = {_c(ex)};")
            self._pos += 1

    def blocks(self) -> None:
        plan = self.plan
        for bi, b in enumerate(plan.blocks):
            self.tmps_upto(bi)
            n = len(b.members)
            if b.affine:
                if n == 1:
                    i = b.members[0]
                    e = self.reduced.get(("E", bi, (0, 0)))
                    if e is None:
                        raise EquationError(f"unknown {plan.eqs.unknowns[i]} does not appear "
                                            "in its own equation (structurally singular)")
                    self.lines.append(f"    {{ const double d = {_c(e)};")
                    self.lines.append(f"      if (d == 0.0 || !isfinite(d)) return {bi + 1};")
                    self.lines.append(f"      Us[{i}] = ({_c(self.reduced[('f', bi, 0)])}) / d; }}")
                else:
                    self.lines.append(f"    {{ double A[{n * n}] = {{0}}; double B[{n}];")
                    for (li, lj), _ in b.E.items():
                        self.lines.append(f"      A[{lj * n + li}] = {_c(self.reduced[('E', bi, (li, lj))])};")
                    for li in range(n):
                        self.lines.append(f"      B[{li}] = {_c(self.reduced[('f', bi, li)])};")
                    self.lines.append(f"      if (bg_solve({n}, A, B, 1) != 0) return {bi + 1};")
                    for li, i in enumerate(b.members):
                        self.lines.append(f"      Us[{i}] = B[{li}];")
                    self.lines.append("    }")
            else:
                self._newton(bi, b)
        self.tmps_upto(len(plan.blocks) + 1)

    def _newton(self, bi: int, b: _BlockPlan) -> None:
        n = len(b.members)
        exprs = list(b.f) + [b.E[k] for k in sorted(b.E)]
        repl, red = se.cse(exprs)
        L = self.lines
        L.append(f"    {{ int it; double A[{n * n}]; double B[{n}]; double nrm = 0.0;")
        L.append("      for (it = 0; it < 60; ++it) {")
        for s, ex in repl:
            L.append(f"        const double {s} = {_c(ex)};")
        L.append(f"        memset(A, 0, sizeof(A));")
        for li in range(n):
            L.append(f"        B[{li}] = -({_c(red[li])});")
        for m, (li, lj) in enumerate(sorted(b.E)):
            L.append(f"        A[{lj * n + li}] = {_c(red[n + m])};")
        L.append(f"        if (bg_solve({n}, A, B, 1) != 0) return -{bi + 1};")
        L.append("        nrm = 0.0;")
        for li, i in enumerate(b.members):
            L.append(f"        Us[{i}] += B[{li}]; nrm += fabs(B[{li}]) / (1e-12 + fabs(Us[{i}]));")
        L.append("        if (!isfinite(nrm)) return -" + str(bi + 1) + ";")
        L.append("        if (nrm < 1e-13 * " + str(n) + ") break;")
        L.append("      }")
        L.append(f"      if (it == 60) return -{bi + 1};")
        L.append("    }")


def _function(name: str, body: list[str]) -> str:
    sig = (f"int {name}(double t, const double* xs, const double* us, const double* dus, "
           "const double* ps, double* Us, double* out, double* work)")
    return sig + " {\n    (void)t; (void)xs; (void)us; (void)dus; (void)ps; (void)work;\n" + \
        "\n".join(body) + "\n    return 0;\n}\n"


def generate_c(eqs: Equations) -> tuple[str, list[str]]:
    """C source of the three functions, and the names of the ``bg_out`` values."""
    plan = _Plan(eqs)
    # rhs
    em = _Emitter(plan, [])
    em.blocks()
    body = em.lines + [f"    out[{k}] = Us[{i}];" for k, i in enumerate(eqs.xdot)]
    src = [_PRELUDE, f"int bg_sizes(int* s) {{ s[0]={plan.nx}; s[1]={plan.nU}; s[2]={plan.nu}; "
                     f"s[3]={plan.ndu}; s[4]={plan.np}; s[5]={len(plan.outputs)}; return 0; }}\n",
           _function("bg_rhs", body)]
    # outputs
    em = _Emitter(plan, [ex for _, ex in plan.outputs])
    em.blocks()
    body = em.lines + [f"    out[{k}] = {_c(em.reduced[('extra', k)])};" for k in range(len(plan.outputs))]
    src.append(_function("bg_out", body))
    # jacobian
    extra: list[se.Basic] = []
    index: dict[tuple, int] = {}
    for bi, b in enumerate(plan.blocks):
        for li in range(len(b.members)):
            for k, ex in b.Rx[li].items():
                index[("Rx", bi, li, k)] = len(extra)
                extra.append(ex)
            for j, ex in b.Ru[li].items():
                index[("Ru", bi, li, j)] = len(extra)
                extra.append(ex)
        if not b.affine:
            for key, ex in b.E.items():
                index[("E", bi, key)] = len(extra)
                extra.append(ex)
    em = _Emitter(plan, extra)
    em.blocks()
    L = em.lines
    nx = plan.nx
    L.append(f"    double* dU = work;  /* {plan.nU} x {nx}, row-major */")
    L.append("    int k; (void)k;")
    L.append(f"    memset(dU, 0, sizeof(double) * {plan.nU * nx});")
    for bi, b in enumerate(plan.blocks):
        n = len(b.members)
        if n == 1:
            key = ("E", bi, (0, 0))
            e = em.reduced[key] if b.affine else em.reduced[("extra", index[key])]
            i = b.members[0]
            L.append(f"    {{ const double d = {_c(e)};  /* block {bi} */")
            if not b.Ru[0]:
                for k in b.Rx[0]:
                    L.append(f"      dU[{i * nx + k}] = -({_c(em.reduced[('extra', index[('Rx', bi, 0, k)])])}) / d;")
            else:
                L.append(f"      double T[{max(nx, 1)}]; memset(T, 0, sizeof(T));")
                for k in b.Rx[0]:
                    L.append(f"      T[{k}] = {_c(em.reduced[('extra', index[('Rx', bi, 0, k)])])};")
                for j in b.Ru[0]:
                    coef = _c(em.reduced[("extra", index[("Ru", bi, 0, j)])])
                    L.append(f"      {{ const double c = {coef}; for (k = 0; k < {nx}; ++k) "
                             f"T[k] += c * dU[{j} * {nx} + k]; }}")
                L.append(f"      for (k = 0; k < {nx}; ++k) dU[{i} * {nx} + k] = -T[k] / d;")
            L.append("    }")
            continue
        L.append(f"    {{ double T[{max(n * nx, 1)}]; memset(T, 0, sizeof(T));  /* block {bi}: column-major {n} x {nx} */")
        for li in range(n):
            for k, _ in b.Rx[li].items():
                L.append(f"      T[{k * n + li}] = {_c(em.reduced[('extra', index[('Rx', bi, li, k)])])};")
            for j, _ in b.Ru[li].items():
                coef = _c(em.reduced[("extra", index[("Ru", bi, li, j)])])
                L.append(f"      {{ const double c = {coef}; for (k = 0; k < {nx}; ++k) "
                         f"T[k * {n} + {li}] += c * dU[{j} * {nx} + k]; }}")
        L.append(f"      {{ double A[{n * n}] = {{0}};")
        for key in b.E:
            li, lj = key
            e = em.reduced[("E", bi, key)] if b.affine else em.reduced[("extra", index[("E", bi, key)])]
            L.append(f"        A[{lj * n + li}] = {_c(e)};")
        L.append(f"        if ({nx} > 0 && bg_solve({n}, A, T, {nx}) != 0) return {bi + 1}; }}")
        for li, i in enumerate(b.members):
            L.append(f"      for (k = 0; k < {nx}; ++k) dU[{i} * {nx} + k] = -T[k * {n} + {li}];")
        L.append("    }")
    for r, i in enumerate(eqs.xdot):
        L.append(f"    for (k = 0; k < {nx}; ++k) out[{r} * {nx} + k] = dU[{i} * {nx} + k];")
    src.append(_function("bg_jac", L))
    # power sums, given the unknowns solved by the preceding bg_rhs call
    psrc = sum(eqs.source_power.values(), se.Integer(0)).subs(plan.rename)
    pdis = sum(eqs.dissipation.values(), se.Integer(0)).subs(plan.rename)
    repl, red = se.cse([psrc, pdis])
    body = [f"    const double {s} = {_c(ex)};" for s, ex in repl]
    body += [f"    out[0] = {_c(red[0])};", f"    out[1] = {_c(red[1])};"]
    src.append(_function("bg_power", body))
    return "\n".join(src), [nm for nm, _ in plan.outputs]


def _build(source: str) -> Path:
    digest = hashlib.sha256(source.encode()).hexdigest()[:20]
    lib = cache_dir() / f"bg_{digest}.so"
    if lib.exists():
        return lib
    cc = find_compiler()
    if cc is None:
        raise EquationError("no C compiler found (set $CC or install gcc); the generated "
                            "model is compiled to C for speed")
    opt = "-O2" if len(source) < 60_000 else ("-O1" if len(source) < 250_000 else "-O0")
    with tempfile.TemporaryDirectory() as tmp:
        c_file = Path(tmp) / "model.c"
        c_file.write_text(source)
        out = Path(tmp) / "model.so"
        cmd = [cc, opt, "-std=c99", "-fPIC", "-shared", "-fno-math-errno", str(c_file), "-o", str(out), "-lm"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise EquationError(f"C compilation of the generated model failed ({' '.join(cmd)}):\n"
                                + proc.stderr[-3000:])
        partial = lib.with_suffix(f".{os.getpid()}.tmp")
        shutil.copy(out, partial)
        os.replace(partial, lib)
    return lib


class CompiledSystem:
    """The compiled model: ``rhs``, ``jac`` and ``outputs`` over numpy arrays.

    Parameters are a vector (``params``, order of ``Equations.params``);
    inputs ``u`` and their derivatives ``du`` are given per call.
    """

    def __init__(self, eqs: Equations, source: str, out_names: list[str], path: Path):
        self.equations = eqs
        self.source = source
        self.output_names = out_names
        self.path = path
        self._lib = ctypes.CDLL(str(path))
        self._lib.bg_set_lapack(ctypes.c_void_p(_lapack_dgesv()))
        argt = [ctypes.c_double] + [ctypes.c_void_p] * 7
        for fn in ("bg_rhs", "bg_jac", "bg_out", "bg_power"):
            f = getattr(self._lib, fn)
            f.argtypes = argt
            f.restype = ctypes.c_int
        self.nx = len(eqs.states)
        self.nU = len(eqs.unknowns)
        self.params = np.array(list(eqs.params.values()), dtype=float)
        self._U = np.zeros(max(self.nU, 1))
        self._work = np.zeros(max(self.nU * self.nx, 1))
        self._u = np.zeros(max(len(eqs.inputs), 1))
        self._du = np.zeros(max(len(eqs.input_derivatives), 1))
        self._xdot = np.zeros(max(self.nx, 1))
        self._J = np.zeros((max(self.nx, 1), max(self.nx, 1)))
        self._y = np.zeros(max(len(out_names), 1))
        self._pw = np.zeros(2)
        self._ptr = {k: getattr(self, k).ctypes.data
                     for k in ("_U", "_work", "_u", "_du", "_xdot", "_J", "_y", "_pw")}
        self._pp = self.params.ctypes.data
        self.last_status = 0

    def set_params(self, values: np.ndarray) -> None:
        """Replace the parameter vector (same order as ``Equations.params``)."""
        self.params[:] = values

    def set_inputs(self, u: np.ndarray, du: np.ndarray | None = None) -> None:
        """Set the input values (and derivatives) for the next calls."""
        self._u[: len(u)] = u
        if du is not None:
            self._du[: len(du)] = du

    def _x(self, x) -> int:
        x = np.ascontiguousarray(x, dtype=float)
        self._xbuf = x
        return x.ctypes.data

    def rhs(self, t: float, x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """``ẋ`` at ``(t, x)``; raises :class:`FloatingPointError` on a singular block."""
        p = self._ptr
        st = self._lib.bg_rhs(t, self._x(x), p["_u"], p["_du"], self._pp, p["_U"], p["_xdot"], p["_work"])
        self.last_status = st
        if st != 0:
            raise FloatingPointError(self.describe_status(st))
        res = self._xdot[: self.nx]
        if out is not None:
            out[:] = res
            return out
        return res.copy()

    def jac(self, t: float, x: np.ndarray) -> np.ndarray:
        """``∂ẋ/∂x`` at ``(t, x)`` (dense ``nx × nx``)."""
        p = self._ptr
        st = self._lib.bg_jac(t, self._x(x), p["_u"], p["_du"], self._pp, p["_U"], p["_J"], p["_work"])
        self.last_status = st
        if st != 0:
            raise FloatingPointError(self.describe_status(st))
        return self._J[: self.nx, : self.nx].copy()

    def outputs(self, t: float, x: np.ndarray) -> np.ndarray:
        """Every value named in :attr:`output_names` at ``(t, x)``."""
        p = self._ptr
        st = self._lib.bg_out(t, self._x(x), p["_u"], p["_du"], self._pp, p["_U"], p["_y"], p["_work"])
        self.last_status = st
        if st != 0:
            raise FloatingPointError(self.describe_status(st))
        return self._y[: len(self.output_names)].copy()

    def power(self, t: float, x: np.ndarray) -> np.ndarray:
        """``[Σ source power, Σ dissipated power]``; call right after :meth:`rhs` at the same point."""
        p = self._ptr
        self._lib.bg_power(t, self._x(x), p["_u"], p["_du"], self._pp, p["_U"], p["_pw"], p["_work"])
        return self._pw

    def unknowns(self) -> dict[str, float]:
        """Values of the unknowns ``U`` from the last call."""
        return dict(zip(self.equations.unknowns, self._U[: self.nU]))

    def describe_status(self, st: int) -> str:
        eqs = self.equations
        bi = abs(st) - 1
        if 0 <= bi < len(eqs.blocks):
            names = ", ".join(eqs.unknowns[i] for i in eqs.blocks[bi].unknowns)
        else:
            names = "?"
        if st > 0:
            return (f"singular block {bi} (unknowns {names}): the coupled storage or loop "
                    "equations have no unique solution here (a kinematic singularity, a "
                    "massless part with nothing to move it, or a zero modulus)")
        return f"Newton did not converge in algebraic loop block {bi} (unknowns {names})"


def compile_equations(eqs: Equations) -> CompiledSystem:
    """Generate, compile (or reuse from cache) and load the model's C code.

    Raises
    ------
    EquationError
        If no C compiler is available or compilation fails.
    """
    source, names = generate_c(eqs)
    path = _build(source)
    return CompiledSystem(eqs, source, names, path)
