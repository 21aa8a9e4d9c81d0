"""Compile generated equations into one fused C function per task.

The derivation (:mod:`bondgraph.equations`) gives residual rows in block
lower-triangular order. This module emits C for:

* ``bg_rhs`` — solve every block in order (a division for an explicit row, a
  LAPACK ``dgesv`` for a coupled block, Newton for a nonlinear algebraic loop)
  and return ``ẋ``;
* ``bg_jac`` — the analytic Jacobian ``∂ẋ/∂x`` by implicit differentiation
  through the same blocks, ``dU_b/dx = −E_b⁻¹(∂r_b/∂x + Σ ∂r_b/∂U_j·dU_j/dx)``,
  with symengine derivatives;
* ``bg_out`` — every bond effort and flow, stored energies and powers;
* ``bg_mon`` — the divisors of :attr:`Equations.divisors <bondgraph.equations.Equations>`
  (``bg_nmon()`` of them), same signature, ``out[k]`` the k-th divisor: moduli first
  (expressions of states, inputs, ``t``), then the primal with each monitored block's
  coefficient (one unknown) or normalised determinant ``det(E)/Π‖E_i‖`` (``bg_detnorm``:
  LU with partial pivoting, the row norms taken before factorising) written before the
  block's singularity test, so a singular block reports 0 and returns its status.
  :mod:`bondgraph.stepping` evaluates it after every accepted step.

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
typedef void (*dgetrf_t)(int*, int*, double*, int*, int*, int*);
typedef void (*dgetrs_t)(char*, int*, int*, double*, int*, int*, double*, int*, int*);
static dgetrf_t dgetrf_p = 0;
static dgetrs_t dgetrs_p = 0;
void bg_set_lapack(void* f, void* s) { dgetrf_p = (dgetrf_t)f; dgetrs_p = (dgetrs_t)s; }
static double Heaviside(double x, double h0) { return x > 0 ? 1.0 : (x < 0 ? 0.0 : h0); }
/* Inputs as piecewise polynomials (scipy PPoly layout), evaluated here when enabled:
   per input [n, k, linear, x0..xn, c(k+1, n) row-major]; dslot[j] >= 0 also writes the derivative. */
static const double* bg_tab = 0; static const long* bg_off = 0; static const int* bg_dslot = 0;
static int bg_nin = 0;
void bg_set_native_inputs(const double* tab, const long* off, const int* dslot, int nin) {
    bg_tab = tab; bg_off = off; bg_dslot = dslot; bg_nin = nin; }
static void bg_ppval(const double* p, double t, double* v, double* d) {
    int n = (int)p[0], k = (int)p[1], lin = (int)p[2];
    const double* x = p + 3; const double* c = x + n + 1;
    double tc = t, extra = 0.0; int edge = 0;
    if (t < x[0]) { tc = x[0]; edge = -1; } else if (t > x[n]) { tc = x[n]; edge = 1; }
    if (tc >= x[n]) tc = x[n];
    int lo = 0, hi = n - 1;
    while (lo < hi) { int mid = (lo + hi + 1) / 2; if (x[mid] <= tc) lo = mid; else hi = mid - 1; }
    double s = tc - x[lo], val = 0.0, der = 0.0; int m;
    for (m = 0; m <= k; ++m) { der = der * s + val; val = val * s + c[m * n + lo]; }
    if (edge != 0) { if (lin) { extra = der * (t - tc); } else { der = 0.0; } }
    *v = val + extra; *d = der;
}
static void bg_eval_inputs(double t, double* us, double* dus) {
    int j; double v, d;
    for (j = 0; j < bg_nin; ++j) {
        bg_ppval(bg_tab + bg_off[j], t, &v, &d);
        us[j] = v;
        if (bg_dslot[j] >= 0) dus[bg_dslot[j]] = d;
    }
}
/* LU-factorise the n x n column-major A in place. */
static int bg_lu(int n, double* A, int* piv) { int info = 0; dgetrf_p(&n, &n, A, &n, piv, &info); return info; }
/* Factorise like bg_lu and return det(A)/prod(row norms of A), in [-1, 1]: 0 when singular. */
static double bg_detnorm(int n, double* A, int* piv) {
    double scale = 1.0, det = 1.0; int i, j;
    for (i = 0; i < n; ++i) { double s = 0.0; for (j = 0; j < n; ++j) s += A[j * n + i] * A[j * n + i];
        scale *= sqrt(s); }
    if (bg_lu(n, A, piv) != 0 || scale == 0.0) return 0.0;
    for (i = 0; i < n; ++i) { det *= A[i * n + i]; if (piv[i] != i + 1) det = -det; }
    return det / scale;
}
/* Solve with a factorisation; B is n x nrhs column-major. */
static void bg_lus(int n, double* A, int* piv, double* B, int nrhs) {
    char tr = 'N'; int info = 0; dgetrs_p(&tr, &n, &nrhs, A, &n, piv, B, &n, &info);
}
"""

_MAXIT = 60


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


def _lapack(name: str) -> int:
    from scipy.linalg import cython_lapack

    cap = cython_lapack.__pyx_capi__[name]
    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype = ctypes.c_char_p
    api.PyCapsule_GetName.argtypes = [ctypes.py_object]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return api.PyCapsule_GetPointer(cap, api.PyCapsule_GetName(cap))


def _c(expr) -> str:
    return se.ccode(expr)


def _rn(expr, rename: dict):
    """Rename the symbols of one expression (a small dict: fast for big models)."""
    local = {q: rename[q] for q in expr.free_symbols if q in rename}
    return expr.subs(local) if local else expr


class _Program:
    """The equations renamed to C symbols, with stages, block influence sets and partials."""

    def __init__(self, eqs: Equations):
        self.eqs = eqs
        rename: dict[se.Symbol, se.Symbol] = {}
        self.nx, self.nU = len(eqs.states), len(eqs.unknowns)
        self.nu, self.ndu, self.np = len(eqs.inputs), len(eqs.input_derivatives), len(eqs.params)
        for i, st in enumerate(eqs.states):
            rename[se.Symbol(st.name)] = se.Symbol(f"xs[{i}]")
        for i, u in enumerate(eqs.unknowns):
            rename[se.Symbol(u)] = se.Symbol(f"Us[{i}]")
        for i, u in enumerate(eqs.inputs):
            rename[se.Symbol(u)] = se.Symbol(f"us[{i}]")
        for i, u in enumerate(eqs.input_derivatives):
            rename[se.Symbol(f"der({u})")] = se.Symbol(f"dus[{i}]")
        for i, pn in enumerate(eqs.params):
            rename[se.Symbol(pn)] = se.Symbol(f"ps[{i}]")
        self.mname = {}
        for i, (v, _) in enumerate(eqs.intermediates):
            rename[se.Symbol(v)] = se.Symbol(f"m{i}")
            self.mname[v] = f"m{i}"
        self.rename = rename
        self.inter = [(f"m{i}", _rn(ex, rename)) for i, (_, ex) in enumerate(eqs.intermediates)]
        self.index = {nm: i for i, (nm, _) in enumerate(self.inter)}
        self.rows = [_rn(r, rename) for r in eqs.residuals]
        self.blocks = eqs.blocks
        self.block_pos = {}
        for bi, b in enumerate(eqs.blocks):
            for i in b.unknowns:
                self.block_pos[i] = bi
        self.stage = []
        for v, _ in eqs.intermediates:
            d = eqs.deps[v]
            self.stage.append(0 if not d else 1 + max(self.block_pos[i] for i in d))
        # influence set of each block: intermediates depending on its unknowns that its rows read
        self.internal: list[list[int]] = []
        for bi, b in enumerate(eqs.blocks):
            mset = set(b.unknowns)
            need: set[int] = set()
            stack = [s.name for i in b.unknowns for s in self.rows[i].free_symbols]
            while stack:
                nm = stack.pop()
                k = self.index.get(nm)
                if k is None or k in need:
                    continue
                if not (eqs.deps[eqs.intermediates[k][0]] & mset):
                    continue
                need.add(k)
                stack += [s.name for s in self.inter[k][1].free_symbols]
            self.internal.append(sorted(need))
        self._partials: dict[int, list[tuple[se.Symbol, se.Basic]]] = {}

    def partials(self, expr) -> list[tuple[se.Symbol, se.Basic]]:
        """(symbol, ∂expr/∂symbol) for every symbol a tangent can move."""
        out = []
        for s in sorted(expr.free_symbols, key=lambda q: q.name):
            nm = s.name
            if nm.startswith(("xs[", "Us[")) or nm in self.index:
                d = se.diff(expr, s)
                if d != 0:
                    out.append((s, d))
        return out

    def inter_partials(self, k: int):
        if k not in self._partials:
            self._partials[k] = self.partials(self.inter[k][1])
        return self._partials[k]


class _Writer:
    """Collects C statements; hoists common subexpressions of base symbols."""

    def __init__(self):
        self.stmts: list[tuple[str, object]] = []  # ("raw", text) or ("expr", (template, expr))

    def raw(self, text: str) -> None:
        self.stmts.append(("raw", text))

    def expr(self, template: str, expr) -> None:
        """``template`` has one ``{}`` for the expression."""
        self.stmts.append(("expr", (template, expr)))

    def render(self) -> list[str]:
        exprs = [v[1] for k, v in self.stmts if k == "expr"]
        repl, red = se.cse(exprs) if exprs else ([], [])
        base_ok: dict = {}
        keep: list[tuple] = []
        back: dict = {}

        def is_base(sym) -> bool:
            nm = sym.name
            return nm.startswith(("xs[", "ps[", "us[", "dus[")) or nm == "t" or sym in base_ok

        def unback(ex):
            local = {q: back[q] for q in ex.free_symbols if q in back}
            return ex.subs(local) if local else ex

        for sym, ex in repl:
            ex2 = unback(ex)
            if all(is_base(q) for q in ex2.free_symbols):
                base_ok[sym] = True
                keep.append((sym, ex2))
            else:
                back[sym] = ex2
        lines = [f"    const double {sym} = {_c(ex)};" for sym, ex in keep]
        it = iter(red)
        for kind, val in self.stmts:
            if kind == "raw":
                lines.append(val)
            else:
                e = unback(next(it))
                lines.append(val[0].format(_c(e)))
        return lines


def _tangent_expr(partials, tan: dict) -> se.Basic:
    """Σ ∂e/∂a · d(a) with d given by ``tan`` (symbol → tangent symbol or number)."""
    acc = se.Integer(0)
    for s, d in partials:
        t_ = tan.get(s.name)
        if t_ is None or t_ == 0:
            continue
        acc += d * t_
    return acc


def _emit_primal(prog: _Program, w: _Writer, store_lu: bool, mon: dict[int, int] | None = None) -> None:
    """All intermediates and blocks in order; ``store_lu`` keeps factors for the Jacobian.

    ``mon`` (block index → slot of ``out``): also write each listed block's measure, its
    coefficient (one unknown) or its normalised determinant ``det(E)/Π‖E_i‖`` (coupled),
    before the singularity check, so a singular block still reports 0.
    """
    mon = mon or {}
    by_stage: dict[int, list[int]] = {}
    for k, st in enumerate(prog.stage):
        by_stage.setdefault(st, []).append(k)
    for k in by_stage.get(0, []):
        nm, ex = prog.inter[k]
        w.expr(f"    {nm} = {{}};", ex)
    for bi, b in enumerate(prog.blocks):
        n = len(b.unknowns)
        mem = b.unknowns
        w.raw(f"    {{ /* block {bi}: {', '.join(prog.eqs.unknowns[i] for i in mem)} */")
        if b.affine:
            for i in mem:
                w.raw(f"      Us[{i}] = 0.0;")
        w.raw(f"      int it; for (it = 0; it < {1 if b.affine else _MAXIT}; ++it) {{")
        for k in prog.internal[bi]:
            nm, ex = prog.inter[k]
            w.expr(f"        {nm} = {{}};", ex)
        # tangents wrt each block unknown (seed sU), one column of E per pass
        w.raw(f"        {{ double sU[{n}]; int jj; for (jj = 0; jj < {n}; ++jj) {{")
        w.raw(f"          memset(sU, 0, sizeof(sU)); sU[jj] = 1.0;")
        tan = {f"Us[{u}]": se.Symbol(f"sU[{li}]") for li, u in enumerate(mem)}
        for k in prog.internal[bi]:
            nm = prog.inter[k][0]
            te = _tangent_expr(prog.inter_partials(k), tan)
            if te == 0:
                tan[nm] = se.Integer(0)
                continue
            tn = f"tE{bi}_{k}"
            w.expr(f"          const double {tn} = {{}};", te)
            tan[nm] = se.Symbol(tn)
        for li, i in enumerate(mem):
            te = _tangent_expr(prog.partials(prog.rows[i]), tan)
            w.expr(f"          LU{bi}[jj * {n} + {li}] = {{}};", te)
        w.raw("        } }")
        for li, i in enumerate(mem):
            w.expr(f"        B{bi}[{li}] = -({{}});", prog.rows[i])
        if n == 1:
            if bi in mon:
                w.raw(f"        out[{mon[bi]}] = LU{bi}[0];")
            w.raw(f"        if (LU{bi}[0] == 0.0 || !isfinite(LU{bi}[0])) return {bi + 1};")
            w.raw(f"        B{bi}[0] /= LU{bi}[0];")
        elif bi in mon:
            w.raw(f"        out[{mon[bi]}] = bg_detnorm({n}, LU{bi}, P{bi});")
            w.raw(f"        if (out[{mon[bi]}] == 0.0 || !isfinite(out[{mon[bi]}])) return {bi + 1};")
            w.raw(f"        bg_lus({n}, LU{bi}, P{bi}, B{bi}, 1);")
        else:
            w.raw(f"        if (bg_lu({n}, LU{bi}, P{bi}) != 0) return {bi + 1};")
            w.raw(f"        bg_lus({n}, LU{bi}, P{bi}, B{bi}, 1);")
        w.raw("        double nrm = 0.0;")
        for li, i in enumerate(mem):
            w.raw(f"        Us[{i}] += B{bi}[{li}]; nrm += fabs(B{bi}[{li}]) / (1e-10 + fabs(Us[{i}]));")
        w.raw(f"        if (!isfinite(nrm)) return {-(bi + 1)};")
        if not b.affine:
            w.raw(f"        if (nrm < {1e-12 * n}) break;")
        w.raw("      }")
        if not b.affine:
            w.raw(f"      if (it == {_MAXIT}) return {-(bi + 1)};")
        w.raw("    }")
        for k in by_stage.get(bi + 1, []):
            nm, ex = prog.inter[k]
            w.expr(f"    {nm} = {{}};", ex)


def _decls(prog: _Program) -> list[str]:
    lines = []
    if prog.inter:
        names = [nm for nm, _ in prog.inter]
        for i in range(0, len(names), 20):
            lines.append("    double " + ", ".join(names[i:i + 20]) + ";")
    for bi, b in enumerate(prog.blocks):
        n = len(b.unknowns)
        lines.append(f"    double LU{bi}[{n * n}], B{bi}[{n}]; int P{bi}[{n}];"
                     f" (void)P{bi};")
    return lines


def _function(name: str, body: list[str]) -> str:
    sig = (f"int {name}(double t, const double* xs, const double* us, const double* dus, "
           "const double* ps, double* Us, double* out, double* work, int mode)")
    return (sig + " {\n    (void)t; (void)xs; (void)us; (void)dus; (void)ps; (void)work; (void)mode;\n"
            + "    if (bg_nin > 0) bg_eval_inputs(t, (double*)us, (double*)dus);\n"
            + "\n".join(body) + "\n    return 0;\n}\n")


def generate_c(eqs: Equations) -> tuple[str, list[str]]:
    """C source of ``bg_rhs``, ``bg_out``, ``bg_jac``; and the names of the outputs."""
    prog = _Program(eqs)
    nx = prog.nx
    src = [_PRELUDE]
    rn = prog.rename
    outputs = [(nm, _rn(ex, rn)) for nm, ex in eqs.bond_exprs.items()]
    outputs += [(f"energy[{nm}]", _rn(ex, rn)) for nm, ex in eqs.energy.items()]
    outputs += [(f"source_power[{nm}]", _rn(ex, rn)) for nm, ex in eqs.source_power.items()]
    outputs += [(f"dissipation[{nm}]", _rn(ex, rn)) for nm, ex in eqs.dissipation.items()]
    outputs += [(f"parametric[{nm}]", _rn(ex, rn)) for nm, ex in eqs.parametric.items()]
    src.append(f"int bg_sizes(int* s) {{ s[0]={nx}; s[1]={prog.nU}; s[2]={prog.nu}; "
               f"s[3]={prog.ndu}; s[4]={prog.np}; s[5]={len(outputs)}; return 0; }}\n")

    # rhs (+ power sums when mode & 1)
    w = _Writer()
    _emit_primal(prog, w, False)
    for r, i in enumerate(eqs.xdot):
        w.raw(f"    out[{r}] = Us[{i}];")
    w.raw(f"    {{ int k_; for (k_ = 0; k_ < {nx}; ++k_) if (!isfinite(out[k_])) return -1000 - k_; }}")
    psrc = _rn(sum(eqs.source_power.values(), se.Integer(0)), prog.rename)
    pdis = _rn(sum(eqs.dissipation.values(), se.Integer(0)), prog.rename)
    ppar = _rn(sum(eqs.parametric.values(), se.Integer(0)), prog.rename)
    w.raw("    if (mode & 1) {")
    w.expr(f"      out[{nx}] = {{}};", psrc)
    w.expr(f"      out[{nx + 1}] = {{}};", pdis)
    w.expr(f"      out[{nx + 2}] = {{}};", ppar)
    w.raw("    }")
    src.append(_function("bg_rhs", _decls(prog) + w.render()))

    # outputs
    w = _Writer()
    _emit_primal(prog, w, False)
    for k, (_, ex) in enumerate(outputs):
        w.expr(f"    out[{k}] = {{}};", ex)
    src.append(_function("bg_out", _decls(prog) + w.render()))

    # monitor: every divisor (moduli first, so a singular block still leaves them), then
    # the primal with each monitored block's measure
    w = _Writer()
    slots = {d.block: k for k, d in enumerate(eqs.divisors) if d.kind == "block"}
    for k, d in enumerate(eqs.divisors):
        if d.kind != "block":
            w.expr(f"    out[{k}] = {{}};", _rn(d.expr, rn))
    _emit_primal(prog, w, False, slots)
    src.append(f"int bg_nmon(void) {{ return {len(eqs.divisors)}; }}\n")
    src.append(_function("bg_mon", _decls(prog) + w.render()))

    # jacobian: primal, then one forward tangent per state column
    w = _Writer()
    _emit_primal(prog, w, True)
    nU = prog.nU
    w.raw(f"    double dxs[{max(nx, 1)}], dUs[{max(nU, 1)}]; int col;")
    w.raw(f"    for (col = 0; col < {nx}; ++col) {{")
    w.raw(f"      memset(dxs, 0, sizeof(dxs)); memset(dUs, 0, sizeof(dUs)); dxs[col] = 1.0;")
    tan: dict[str, se.Basic] = {f"xs[{i}]": se.Symbol(f"dxs[{i}]") for i in range(nx)}
    for i in range(nU):
        tan[f"Us[{i}]"] = se.Symbol(f"dUs[{i}]")
    by_stage: dict[int, list[int]] = {}
    for k, st in enumerate(prog.stage):
        by_stage.setdefault(st, []).append(k)

    def tangent_of(k: int, indent: str) -> None:
        nm = prog.inter[k][0]
        te = _tangent_expr(prog.inter_partials(k), tan)
        if te == 0:
            tan[nm] = se.Integer(0)
            return
        w.expr(f"{indent}d{nm} = {{}};", te)
        tan[nm] = se.Symbol(f"d{nm}")

    for k in by_stage.get(0, []):
        tangent_of(k, "      ")
    for bi, b in enumerate(prog.blocks):
        n = len(b.unknowns)
        saved = {}
        for k in prog.internal[bi]:
            tangent_of(k, "      ")
        for li, i in enumerate(b.unknowns):
            # the row's tangent with this block's dU = 0 (they are still zero here)
            te = _tangent_expr(prog.partials(prog.rows[i]), tan)
            w.expr(f"      B{bi}[{li}] = -({{}});", te)
        if n == 1:
            w.raw(f"      dUs[{b.unknowns[0]}] = B{bi}[0] / LU{bi}[0];")
        else:
            w.raw(f"      bg_lus({n}, LU{bi}, P{bi}, B{bi}, 1);")
            for li, i in enumerate(b.unknowns):
                w.raw(f"      dUs[{i}] = B{bi}[{li}];")
        del saved
        for k in by_stage.get(bi + 1, []):
            tangent_of(k, "      ")
    for r, i in enumerate(eqs.xdot):
        w.raw(f"      out[{r} * {nx} + col] = dUs[{i}];")
    w.raw("    }")
    decl = _decls(prog)
    if prog.inter:
        names = [f"d{nm}" for nm, _ in prog.inter]
        for i in range(0, len(names), 20):
            decl.append("    double " + ", ".join(names[i:i + 20]) + ";")
    src.append(_function("bg_jac", decl + w.render()))
    return "\n".join(src), [nm for nm, _ in outputs]


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
    inputs ``u`` and their derivatives ``du`` are set with :meth:`set_inputs`.
    """

    def __init__(self, eqs: Equations, source: str, out_names: list[str], path: Path):
        self.equations = eqs
        self.source = source
        self.output_names = out_names
        self.path = path
        self._lib = ctypes.CDLL(str(path))
        self._lib.bg_set_lapack(ctypes.c_void_p(_lapack("dgetrf")), ctypes.c_void_p(_lapack("dgetrs")))
        argt = [ctypes.c_double] + [ctypes.c_void_p] * 7 + [ctypes.c_int]
        for fn in ("bg_rhs", "bg_jac", "bg_out"):
            f = getattr(self._lib, fn)
            f.argtypes = argt
            f.restype = ctypes.c_int
        self._rhs, self._jac, self._out = self._lib.bg_rhs, self._lib.bg_jac, self._lib.bg_out
        self.divisors = list(getattr(eqs, "divisors", []))
        try:  # a library generated before monitors existed has none
            self._mon = self._lib.bg_mon
            self._mon.argtypes = argt
            self._mon.restype = ctypes.c_int
        except AttributeError:
            self._mon = None
            self.divisors = []
        self._m = np.zeros(max(len(self.divisors), 1))
        self._mp = self._m.ctypes.data
        self.nx = len(eqs.states)
        self.nU = len(eqs.unknowns)
        self.params = np.array(list(eqs.params.values()), dtype=float)
        self._U = np.zeros(max(self.nU, 1))
        self._work = np.zeros(1)
        self._u = np.zeros(max(len(eqs.inputs), 1))
        self._du = np.zeros(max(len(eqs.input_derivatives), 1))
        self._xdot = np.zeros(self.nx + 3)
        self._J = np.zeros((max(self.nx, 1), max(self.nx, 1)))
        self._y = np.zeros(max(len(out_names), 1))
        self._ptr = {k: getattr(self, k).ctypes.data for k in ("_U", "_work", "_u", "_du", "_xdot", "_J", "_y")}
        self._pp = self.params.ctypes.data
        self._xbuf = np.zeros(max(self.nx, 1))
        self._xp = self._xbuf.ctypes.data
        self.last_status = 0

    def set_params(self, values: np.ndarray) -> None:
        """Replace the parameter vector (same order as ``Equations.params``)."""
        self.params[:] = values

    def set_native_inputs(self, tables: list[np.ndarray] | None, dslot: list[int] | None = None) -> None:
        """Let the compiled code evaluate the inputs itself (piecewise polynomials), or stop."""
        fn = self._lib.bg_set_native_inputs
        fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
        if not tables:
            fn(None, None, None, 0)
            self._native = None
            return
        off = np.cumsum([0] + [len(t) for t in tables[:-1]]).astype(np.int64)
        tab = np.ascontiguousarray(np.concatenate(tables), dtype=float)
        slots = np.asarray(dslot if dslot is not None else [-1] * len(tables), dtype=np.int32)
        self._native = (tab, off, slots)  # keep alive while the C side points at them
        fn(tab.ctypes.data, off.ctypes.data, slots.ctypes.data, len(tables))

    def set_inputs(self, u: np.ndarray, du: np.ndarray | None = None) -> None:
        """Set the input values (and derivatives) for the next calls."""
        self._u[: len(u)] = u
        if du is not None:
            self._du[: len(du)] = du

    def _call(self, fn, t: float, x, out_ptr: int, mode: int = 0) -> None:
        self._xbuf[: self.nx] = x
        p = self._ptr
        st = fn(t, self._xp, p["_u"], p["_du"], self._pp, p["_U"], out_ptr, p["_work"], mode)
        self.last_status = st
        if st != 0:
            raise FloatingPointError(self.describe_status(st))

    def rhs(self, t: float, x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """``ẋ`` at ``(t, x)``; raises :class:`FloatingPointError` on a singular block."""
        self._call(self._rhs, t, x, self._ptr["_xdot"])
        res = self._xdot[: self.nx]
        if out is not None:
            out[:] = res
            return out
        return res.copy()

    def rhs_power(self, t: float, x: np.ndarray) -> np.ndarray:
        """``[ẋ, Σ source power, Σ dissipated power, Σ parametric power]`` in one call."""
        self._call(self._rhs, t, x, self._ptr["_xdot"], 1)
        return self._xdot

    def jac(self, t: float, x: np.ndarray) -> np.ndarray:
        """``∂ẋ/∂x`` at ``(t, x)`` (dense ``nx × nx``), by forward tangents."""
        self._call(self._jac, t, x, self._ptr["_J"])
        return self._J[: self.nx, : self.nx].copy()

    def outputs(self, t: float, x: np.ndarray) -> np.ndarray:
        """Every value named in :attr:`output_names` at ``(t, x)``."""
        self._call(self._out, t, x, self._ptr["_y"])
        return self._y[: len(self.output_names)].copy()

    @property
    def monitor_names(self) -> list[str]:
        """How each monitored divisor is named (see :attr:`Equations.divisors`)."""
        return [d.label for d in self.divisors]

    def monitors(self, t: float, x: np.ndarray) -> tuple[np.ndarray, int]:
        """Every divisor's value at ``(t, x)`` and the status of the call.

        Never raises: a singular block reports 0 for its own measure and NaN for the
        blocks after it (status as :meth:`describe_status`).
        """
        n = len(self.divisors)
        if not n:
            return np.zeros(0), 0
        self._xbuf[: self.nx] = x
        p = self._ptr
        st = self._mon(t, self._xp, p["_u"], p["_du"], self._pp, p["_U"], self._mp,
                       p["_work"], 0)
        out = self._m[:n].copy()
        if st != 0:  # the blocks after the failing one were not reached
            bi = abs(st) - 1 if st > -1000 else len(self.equations.blocks)
            for k, d in enumerate(self.divisors):
                if d.kind == "block" and d.block > bi:
                    out[k] = np.nan
        return out, int(st)

    def unknowns(self) -> dict[str, float]:
        """Values of the unknowns ``U`` from the last call."""
        return dict(zip(self.equations.unknowns, self._U[: self.nU]))

    def rhs_into(self, t: float, xptr: int, outptr: int, mode: int = 0) -> int:
        """Fast path: ``ẋ`` of the state at ``xptr`` written to ``outptr`` (raw pointers).

        Returns the status code (0: fine; see :meth:`describe_status`).
        """
        p = self._ptr
        return self._rhs(t, xptr, p["_u"], p["_du"], self._pp, p["_U"], outptr, p["_work"], mode)

    def describe_status(self, st: int) -> str:
        """What a non-zero status of a compiled call means, naming unknowns and elements."""
        eqs = self.equations
        if st <= -1000:
            return f"non-finite derivative of {eqs.states[-1000 - st].name}"
        bi = abs(st) - 1
        if 0 <= bi < len(eqs.blocks):
            names = ", ".join(eqs.unknowns[i] for i in eqs.blocks[bi].unknowns)
            els = _block_elements(eqs, bi)
            names += f" (elements {', '.join(els)}; block {bi})" if els else f" (block {bi})"
        else:
            names = f"block {bi}"
        if st > 0:
            return (f"singular equations for {names}: the storage or loop equations have no "
                    "unique solution here (a kinematic singularity, a massless part with "
                    "nothing to move it, or a zero modulus)")
        return f"non-finite values or no convergence in the equations for {names}"


def _block_elements(eqs: Equations, bi: int) -> list[str]:
    """The elements whose relations make up block ``bi`` (from its divisor record, else its
    storage states)."""
    for d in getattr(eqs, "divisors", []):
        if d.kind == "block" and d.block == bi:
            return list(d.elements)
    n = len(eqs.states)
    return sorted({eqs.states[i].element for i in eqs.blocks[bi].unknowns if i < n})


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
