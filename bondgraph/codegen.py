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
  (expressions of states, inputs, ``t``), then the shared primal, then each monitored
  block's coefficient (one unknown) or normalised determinant ``det(E)/Π‖E_i‖``
  (``bg_detlu``: from the LU factors the primal left in the work array, the row norms
  kept before factorising); a singular block reports 0 and the call its status, the
  blocks after it NaN. :mod:`bondgraph.stepping` evaluates it after every accepted step;
* ``bg_monw`` — the same divisors without the primal: the moduli, and the blocks'
  measures from the factors the last call of the primal with ``mode & 2`` left in the
  work array (the native driver's cheap reading after a step, :mod:`bondgraph.native`).

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
import re
import shutil
import subprocess
import tempfile
import time
import typing
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import symengine as se

from .equations import Equations
from .errors import EquationError
from .files import cache_dir

__all__ = ["CompiledSystem", "compile_equations", "generate_c", "build_library", "cache_dir",
           "find_compiler", "UNIT_MARK"]

#: what every translation unit of a model starts with
_HEADER = r"""
#include <math.h>
#include <string.h>
#define BG_HIDDEN __attribute__((visibility("hidden")))
typedef void (*dgetrf_t)(int*, int*, double*, int*, int*, int*);
typedef void (*dgetrs_t)(char*, int*, int*, double*, int*, int*, double*, int*, int*);
extern BG_HIDDEN dgetrf_t bg_dgetrf_p;
extern BG_HIDDEN dgetrs_t bg_dgetrs_p;
static inline double Heaviside(double x, double h0) { return x > 0 ? 1.0 : (x < 0 ? 0.0 : h0); }
/* LU-factorise the n x n column-major A in place. */
static inline int bg_lu(int n, double* A, int* piv) { int info = 0; bg_dgetrf_p(&n, &n, A, &n, piv, &info); return info; }
/* Solve with a factorisation; B is n x nrhs column-major. */
static inline void bg_lus(int n, double* A, int* piv, double* B, int nrhs) {
    char tr = 'N'; int info = 0; bg_dgetrs_p(&tr, &n, &nrhs, A, &n, piv, B, &n, &info);
}
/* The product of the row norms of the n x n column-major A (before factorising it). */
static inline double bg_rowscale(int n, const double* A) {
    double scale = 1.0; int i, j;
    for (i = 0; i < n; ++i) { double s = 0.0; for (j = 0; j < n; ++j) s += A[j * n + i] * A[j * n + i];
        scale *= sqrt(s); }
    return scale;
}
/* det(A)/scale from bg_lu's factors: the normalised determinant, in [-1, 1] (0: singular,
   or a factorisation that failed: scale 0). */
static inline double bg_detlu(int n, const double* LU, const int* piv, double scale) {
    double det = 1.0; int i;
    if (scale == 0.0) return 0.0;
    for (i = 0; i < n; ++i) { det *= LU[i * n + i]; if (piv[i] != i + 1) det = -det; }
    return det / scale;
}
"""

#: what only the main translation unit has: LAPACK pointers, native input tables
_MAIN = r"""
BG_HIDDEN dgetrf_t bg_dgetrf_p = 0;
BG_HIDDEN dgetrs_t bg_dgetrs_p = 0;
void bg_set_lapack(void* f, void* s) { bg_dgetrf_p = (dgetrf_t)f; bg_dgetrs_p = (dgetrs_t)s; }
/* Inputs as piecewise polynomials (scipy PPoly layout), evaluated here when enabled:
   per input [n, k, linear, x0..xn, c(k+1, n) row-major]; dslot[j] >= 0 also writes the
   derivative. The tables of a run are found through the first slot of the caller's work
   array (a pointer to bg_inputs_t, or NULL), so each caller has its own: two models
   loaded from one cached library never share them. */
typedef struct { const double* tab; const long* off; const int* dslot; long nin; } bg_inputs_t;
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
static void bg_eval_inputs(const bg_inputs_t* in, double t, double* us, double* dus) {
    int j; double v, d;
    for (j = 0; j < in->nin; ++j) {
        bg_ppval(in->tab + in->off[j], t, &v, &d);
        us[j] = v;
        if (in->dslot[j] >= 0) dus[in->dslot[j]] = d;
    }
}
"""

#: separates the translation units of one generated source (compiled in parallel)
UNIT_MARK = "/* ==== bondgraph: next translation unit ==== */\n"

_MAXIT = 60


def find_compiler() -> str | None:
    """The C compiler used (``$CC``, else ``cc``/``gcc``/``clang`` on PATH).

    Returns
    -------
    str or None
        Its command, or None when there is none (building then raises
        :class:`~bondgraph.errors.EquationError`).

    Examples
    --------
    >>> import shutil
    >>> cc = find_compiler()
    >>> cc is None or shutil.which(cc) is not None
    True
    """
    for cand in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if cand and shutil.which(cand):
            return cand
    return None


def _cython_lapack():
    """scipy's ``cython_lapack`` extension, without running ``scipy.linalg``'s package
    initialisation (0.13–0.18 s of a warm build, most of it array-API wrappers the LU
    pointers never use).

    The extension is loaded from scipy's ``linalg`` folder by its full name and taken out
    of ``sys.modules`` again, so that a later ``import scipy.linalg`` runs as usual (it
    finds the same extension already loaded). If anything about that differs (another
    scipy layout), the ordinary import is used.
    """
    import sys

    mod = sys.modules.get("scipy.linalg.cython_lapack")
    if mod is not None:
        return mod
    if "scipy.linalg" not in sys.modules:
        try:
            import importlib.machinery
            import importlib.util

            import scipy

            folder = Path(scipy.__file__).parent / "linalg"
            for suffix in importlib.machinery.EXTENSION_SUFFIXES:
                path = folder / f"cython_lapack{suffix}"
                if path.is_file():
                    spec = importlib.util.spec_from_file_location("scipy.linalg.cython_lapack", path)
                    mod = importlib.util.module_from_spec(spec)
                    spec.loader.exec_module(mod)
                    sys.modules.pop("scipy.linalg.cython_lapack", None)
                    return mod
        except Exception:   # noqa: BLE001 - any surprise: the ordinary import below
            pass
    from scipy.linalg import cython_lapack

    return cython_lapack


def _lapack(name: str) -> int:
    cap = _cython_lapack().__pyx_capi__[name]
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


#: statements per common-subexpression search: symengine's ``cse`` grows faster than
#: linearly with the number of expressions, so a section of more statements than this is
#: searched in slices (a section of at most this many is searched whole, as before)
CSE_SLICE = 2000
#: statements per slice of a sliced search (at most :data:`CSE_SLICE`): the search's time
#: per statement still grows with the slice, so small slices keep a large model's
#: generation fast (the N = 1000 chain's searches: 1.1 s in slices of 2000, 0.36 s in 500s)
CSE_PIECE = 500


def _cse(exprs: list) -> tuple[list, list]:
    """``symengine.cse`` of ``exprs``; above :data:`CSE_SLICE` statements, slice by slice
    (:data:`CSE_PIECE` statements each: linear time).

    Each slice's temporaries are renumbered after the previous slices' (``x<j>`` stays
    unique); a subexpression shared by two slices is computed in each.
    """
    if len(exprs) <= CSE_SLICE:
        return se.cse(exprs)
    piece = max(1, min(CSE_PIECE, CSE_SLICE))
    repl: list = []
    red: list = []
    for a in range(0, len(exprs), piece):
        r, e = se.cse(exprs[a:a + piece])
        off = len(repl)
        new = {sym: se.Symbol(f"x{int(str(sym)[1:]) + off}") for sym, _ in r}
        # cse numbers its temporaries 0, 1, …: shifting by the count so far keeps them unique
        repl += [(new[sym], _rn(ex, new)) for sym, ex in r]
        red += [_rn(ex, new) for ex in e]
    return repl, red


class _Writer:
    """Collects C statements; hoists common subexpressions of base symbols."""

    def __init__(self):
        self.stmts: list[tuple[str, object]] = []  # ("raw", text) or ("expr", (template, expr))

    def raw(self, text: str) -> None:
        self.stmts.append(("raw", text))

    def expr(self, template: str, expr) -> None:
        """``template`` has one ``{}`` for the expression."""
        self.stmts.append(("expr", (template, expr)))

    def render(self) -> tuple[list[str], list[str]]:
        """``(hoisted, body)``: assignments of the common subexpressions of base symbols
        (``x0``, ``x1``… — states, parameters, inputs, time), then the statements."""
        exprs = [v[1] for k, v in self.stmts if k == "expr"]
        repl, red = _cse(exprs) if exprs else ([], [])
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
        hoisted = [f"    {sym} = {_c(ex)};" for sym, ex in keep]
        # the temporaries' numbers (x<j>) are not contiguous: the work array needs the largest
        self.ntemps = 1 + max((int(str(sym)[1:]) for sym, _ in keep), default=-1)
        lines = []
        it = iter(red)
        for kind, val in self.stmts:
            if kind == "raw":
                lines.append(val)
            else:
                e = unback(next(it))
                lines.append(val[0].format(_c(e)))
        return hoisted, lines


def _tangent_expr(partials, tan: dict) -> se.Basic:
    """Σ ∂e/∂a · d(a) with d given by ``tan`` (symbol → tangent symbol or number)."""
    acc = se.Integer(0)
    for s, d in partials:
        t_ = tan.get(s.name)
        if t_ is None or t_ == 0:
            continue
        acc += d * t_
    return acc


def _emit_primal(prog: _Program, w: _Writer, scaled: frozenset[int] = frozenset()) -> None:
    """All intermediates and blocks in order; the factors of every block stay in the work
    array for the Jacobian (and the divisor monitor). Affine blocks are emitted as
    straight-line statements (so the chunker may cut between them); a Newton block is one
    unit. For the coupled blocks in ``scaled`` the product of the matrix's row norms is
    kept (``MS<b>``, 0 when the factorisation fails) when ``mode & 2`` (the monitor)."""
    by_stage: dict[int, list[int]] = {}
    for k, st in enumerate(prog.stage):
        by_stage.setdefault(st, []).append(k)
    for k in by_stage.get(0, []):
        nm, ex = prog.inter[k]
        w.expr(f"    {nm} = {{}};", ex)
    for bi, b in enumerate(prog.blocks):
        n = len(b.unknowns)
        mem = b.unknowns
        w.raw(f"    /* block {bi}: {', '.join(prog.eqs.unknowns[i] for i in mem)} */")
        ind = "    " if b.affine else "        "
        if b.affine:
            for i in mem:
                w.raw(f"    Us[{i}] = 0.0;")
        else:
            w.raw(f"    {{ int it; for (it = 0; it < {_MAXIT}; ++it) {{")
        for k in prog.internal[bi]:
            nm, ex = prog.inter[k]
            w.expr(f"{ind}{nm} = {{}};", ex)
        # tangents wrt each block unknown (seed sU), one column of E per pass (a block of
        # one unknown: its one pass without the loop, lighter for the compiler)
        if n == 1:
            w.raw(f"{ind}{{ const double sU[1] = {{1.0}}; const int jj = 0; {{")
        else:
            w.raw(f"{ind}{{ double sU[{n}]; int jj; for (jj = 0; jj < {n}; ++jj) {{")
            w.raw(f"{ind}  memset(sU, 0, sizeof(sU)); sU[jj] = 1.0;")
        tan = {f"Us[{u}]": se.Symbol(f"sU[{li}]") for li, u in enumerate(mem)}
        for k in prog.internal[bi]:
            nm = prog.inter[k][0]
            te = _tangent_expr(prog.inter_partials(k), tan)
            if te == 0:
                tan[nm] = se.Integer(0)
                continue
            tn = f"tE{bi}_{k}"
            w.expr(f"{ind}  const double {tn} = {{}};", te)
            tan[nm] = se.Symbol(tn)
        for li, i in enumerate(mem):
            te = _tangent_expr(prog.partials(prog.rows[i]), tan)
            w.expr(f"{ind}  LU{bi}[jj * {n} + {li}] = {{}};", te)
        w.raw(f"{ind}}} }}")
        for li, i in enumerate(mem):
            w.expr(f"{ind}B{bi}[{li}] = -({{}});", prog.rows[i])
        if n == 1:
            w.raw(f"{ind}if (LU{bi}[0] == 0.0 || !isfinite(LU{bi}[0])) return {bi + 1};")
            w.raw(f"{ind}B{bi}[0] /= LU{bi}[0];")
        elif bi in scaled:
            w.raw(f"{ind}if (mode & 2) MS{bi} = bg_rowscale({n}, LU{bi});")
            w.raw(f"{ind}if (bg_lu({n}, LU{bi}, P{bi}) != 0) {{ if (mode & 2) MS{bi} = 0.0; return {bi + 1}; }}")
            w.raw(f"{ind}bg_lus({n}, LU{bi}, P{bi}, B{bi}, 1);")
        else:
            w.raw(f"{ind}if (bg_lu({n}, LU{bi}, P{bi}) != 0) return {bi + 1};")
            w.raw(f"{ind}bg_lus({n}, LU{bi}, P{bi}, B{bi}, 1);")
        upd = " ".join(f"Us[{i}] += B{bi}[{li}]; nrm += fabs(B{bi}[{li}]) / (1e-10 + fabs(Us[{i}]));"
                       for li, i in enumerate(mem))
        if b.affine:
            w.raw(f"    {{ double nrm = 0.0; {upd} if (!isfinite(nrm)) return {-(bi + 1)}; }}")
        else:
            w.raw(f"        double nrm = 0.0; {upd}")
            w.raw(f"        if (!isfinite(nrm)) return {-(bi + 1)};")
            w.raw(f"        if (nrm < {1e-12 * n}) break;")
            w.raw("      }")
            w.raw(f"      if (it == {_MAXIT}) return {-(bi + 1)};")
            w.raw("    }")
        for k in by_stage.get(bi + 1, []):
            nm, ex = prog.inter[k]
            w.expr(f"    {nm} = {{}};", ex)


#: C arguments of every generated function and of its chunks
_ARGS = ("double t, const double* restrict xs, const double* restrict us, "
         "const double* restrict dus, const double* restrict ps, double* restrict Us, "
         "double* restrict out, double* restrict W, int mode")
_CALL = "t, xs, us, dus, ps, Us, out, W, mode"
#: characters of C per chunk function: small functions keep gcc's -O2 fast on any model
CHUNK_CHARS = 6000
#: characters of chunk code per translation unit (units compile in parallel), at most MAX_UNITS
UNIT_CHARS = 60_000
MAX_UNITS = 4


class _Layout:
    """Where every named value lives in the work array ``W`` (one ``#define`` each).

    Intermediates ``m<k>``, their tangents ``dm<k>``, the hoisted common
    subexpressions ``x<j>`` (shared by the functions: each uses them only while it
    runs), the block factors ``LU<b>``/``B<b>``/``P<b>`` and the Jacobian's seeds.
    Keeping them out of local variables lets one large function be cut into many
    small ones, which is what keeps optimised compilation fast.
    """

    def __init__(self, prog: _Program, scaled: frozenset[int] = frozenset()):
        self.prog = prog
        self.lines: list[str] = []
        off = 1  # W[0]: the pointer to the run's input tables (bg_inputs_t*, or NULL)
        for nm, _ in prog.inter:
            self.lines.append(f"#define {nm} W[{off}]")
            self.lines.append(f"#define d{nm} W[{off + 1}]")
            off += 2
        for bi, b in enumerate(prog.blocks):
            n = len(b.unknowns)
            self.lines.append(f"#define LU{bi} (W + {off})")
            self.lines.append(f"#define B{bi} (W + {off + n * n})")
            self.lines.append(f"#define P{bi} ((int*)(W + {off + n * n + n}))")
            off += n * n + n + (n + 1) // 2
            if bi in scaled:  # the row-norm product of a monitored coupled block
                self.lines.append(f"#define MS{bi} W[{off}]")
                off += 1
        self.lines.append(f"#define dxs (W + {off})")
        off += max(prog.nx, 1)
        self.lines.append(f"#define dUs (W + {off})")
        off += max(prog.nU, 1)
        self.temps = off
        self.ntemps = 0

    def need_temps(self, n: int) -> None:
        self.ntemps = max(self.ntemps, n)

    def defines(self) -> str:
        temps = [f"#define x{j} W[{self.temps + j}]" for j in range(self.ntemps)]
        return "\n".join(self.lines + temps) + "\n"

    @property
    def size(self) -> int:
        return self.temps + self.ntemps


def _units(lines: list[str]) -> list[str]:
    """Group statements into units that are whole at brace depth 0 (a loop, a block)."""
    units, cur, depth = [], [], 0
    for ln in lines:
        cur.append(ln)
        depth += ln.count("{") - ln.count("}")
        if depth == 0:
            units.append("\n".join(cur))
            cur = []
    if cur:
        units.append("\n".join(cur))
    return units


class _Source:
    """The C file being written: chunk functions first, public functions calling them."""

    def __init__(self):
        self.chunks: list[str] = []
        self.n = 0

    def section(self, lines: list[str], indent: str = "    ") -> list[str]:
        """Cut ``lines`` into chunk functions; the calls that run them in order."""
        calls: list[str] = []
        cur: list[str] = []
        size = 0

        def flush() -> None:
            nonlocal cur, size
            if not cur:
                return
            name = f"bg_c{self.n}"
            self.n += 1
            self.chunks.append(f"BG_HIDDEN __attribute__((noinline)) int {name}({_ARGS}) {{\n"
                               "    (void)t; (void)xs; (void)us; (void)dus; (void)ps; (void)Us; "
                               "(void)out; (void)W; (void)mode;\n"
                               + "\n".join(cur) + "\n    return 0;\n}\n")
            calls.append(f"{indent}if ((st = {name}({_CALL})) != 0) return st;")
            cur, size = [], 0

        for u in _units(lines):
            if size and size + len(u) > CHUNK_CHARS:
                flush()
            cur.append(u)
            size += len(u)
        flush()
        return calls

    def units(self) -> list[str]:
        """The chunks in groups of about :data:`UNIT_CHARS` characters (one file each)."""
        total = sum(len(c) for c in self.chunks)
        n = max(1, min(MAX_UNITS, round(total / UNIT_CHARS)))
        out: list[list[str]] = [[] for _ in range(n)]
        acc, target = 0, total / n
        for c in self.chunks:
            out[min(n - 1, int(acc / target))].append(c)
            acc += len(c)
        return ["".join(u) for u in out]


_CALL_LINE = re.compile(r"^( *)if \(\(st = (bg_c\d+)\(" + re.escape(_CALL) + r"\)\) != 0\) (return st|goto \w+);$")


def _tables(body: list[str]) -> list[str]:
    """``body`` with each run of chunk calls (same indent, same exit) made one loop over a
    table of the chunks: the same calls in the same order, far less code to compile than
    hundreds of call sites."""
    out: list[str] = []
    i = 0
    while i < len(body):
        m = _CALL_LINE.match(body[i])
        j = i + 1
        while m and j < len(body):
            m2 = _CALL_LINE.match(body[j])
            if not m2 or (m2.group(1), m2.group(3)) != (m.group(1), m.group(3)):
                break
            j += 1
        if not m or j - i < 3:
            out += body[i:j]
            i = j
            continue
        names = [_CALL_LINE.match(ln).group(2) for ln in body[i:j]]
        ind = m.group(1)
        out.append(f"{ind}{{ static int (*const tab_[])({_ARGS}) = {{{', '.join(names)}}};")
        out.append(f"{ind}  int c_; for (c_ = 0; c_ < {len(names)}; ++c_) "
                   f"if ((st = tab_[c_]({_CALL})) != 0) {m.group(3)}; }}")
        i = j
    return out


def _copy_loop(ind: str, dest: str, src: str, index: list[int]) -> list[str]:
    """``dest`` (an expression of ``r_``) ``= src[index[r_]]`` for every ``r_``: a loop
    over a table of the indices (one statement per copy is slow to compile for a large
    model)."""
    if len(index) < 8:
        return [f"{ind}{dest.replace('r_', str(r))} = {src}[{i}];" for r, i in enumerate(index)]
    return [f"{ind}{{ static const int ix_[] = {{{', '.join(map(str, index))}}}; int r_;",
            f"{ind}  for (r_ = 0; r_ < {len(index)}; ++r_) {dest} = {src}[ix_[r_]]; }}"]


def _public(name: str, body: list[str]) -> str:
    body = _tables(body)
    return (f"int {name}(double t, const double* xs, const double* us, const double* dus, "
            "const double* ps, double* Us, double* out, double* work, int mode) {\n"
            "    int st = 0; double* W = work; const bg_inputs_t* bin; (void)st; (void)W;\n"
            "    memcpy(&bin, work, sizeof bin);\n"
            "    if (bin && bin->nin > 0) bg_eval_inputs(bin, t, (double*)us, (double*)dus);\n"
            + "\n".join(body) + "\n    return 0;\n}\n")


def generate_c(eqs: Equations) -> tuple[str, list[str]]:
    """C source of ``bg_rhs``, ``bg_out``, ``bg_jac``; and the names of the outputs.

    The primal computation (every intermediate and block, in order) is written once
    and shared by the three; every function is cut into chunks of about
    :data:`CHUNK_CHARS` characters whose values live in a work array of
    ``bg_sizes()[6]`` doubles.

    Parameters
    ----------
    eqs : Equations
        From :func:`~bondgraph.derive`.

    Returns
    -------
    source : str
        C source (translation units separated by :data:`UNIT_MARK`).
    outputs : list of str
        Names of the values ``bg_out`` writes, in order (bond variables ``e[...]`` and
        ``f[...]``, energies, powers, observers).

    Examples
    --------
    >>> from bondgraph import BondGraph, Se, One, I, assemble, derive
    >>> bg = BondGraph("p")
    >>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 2.0))
    >>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
    >>> source, outputs = generate_c(derive(assemble(bg)))
    >>> "int bg_rhs(" in source, outputs[:2]
    (True, ['e[p/b1]', 'f[p/b1]'])
    """
    prog = _Program(eqs)
    divisors = list(getattr(eqs, "divisors", []))
    scaled = frozenset(d.block for d in divisors
                       if d.kind == "block" and len(prog.blocks[d.block].unknowns) > 1)
    lay = _Layout(prog, scaled)
    out_src = _Source()
    nx = prog.nx
    rn = prog.rename
    outputs = [(nm, _rn(ex, rn)) for nm, ex in eqs.bond_exprs.items()]
    outputs += [(f"energy[{nm}]", _rn(ex, rn)) for nm, ex in eqs.energy.items()]
    outputs += [(f"source_power[{nm}]", _rn(ex, rn)) for nm, ex in eqs.source_power.items()]
    outputs += [(f"dissipation[{nm}]", _rn(ex, rn)) for nm, ex in eqs.dissipation.items()]
    outputs += [(f"parametric[{nm}]", _rn(ex, rn)) for nm, ex in eqs.parametric.items()]
    outputs += [(nm, _rn(ex, rn)) for nm, ex in getattr(eqs, "observed", {}).items()]

    def section(w: _Writer) -> tuple[list[str], list[str]]:
        hoisted, body = w.render()
        lay.need_temps(w.ntemps)
        return out_src.section(hoisted), out_src.section(body)

    # the primal, shared
    w = _Writer()
    _emit_primal(prog, w, scaled)
    primal = sum(section(w), [])

    # rhs (+ power sums when mode & 1)
    w = _Writer()
    for line in _copy_loop("    ", "out[r_]", "Us", list(eqs.xdot)):
        w.raw(line)
    w.raw(f"    {{ int k_; for (k_ = 0; k_ < {nx}; ++k_) if (!isfinite(out[k_])) return -1000 - k_; }}")
    psrc = _rn(sum(eqs.source_power.values(), se.Integer(0)), prog.rename)
    pdis = _rn(sum(eqs.dissipation.values(), se.Integer(0)), prog.rename)
    ppar = _rn(sum(eqs.parametric.values(), se.Integer(0)), prog.rename)
    w.raw("    if (mode & 1) {")
    w.expr(f"      out[{nx}] = {{}};", psrc)
    w.expr(f"      out[{nx + 1}] = {{}};", pdis)
    w.expr(f"      out[{nx + 2}] = {{}};", ppar)
    w.raw("    }")
    rhs_tail = sum(section(w), [])

    # outputs
    w = _Writer()
    for k, (_, ex) in enumerate(outputs):
        w.expr(f"    out[{k}] = {{}};", ex)
    out_tail = sum(section(w), [])

    # jacobian: primal, then one forward tangent per state column
    w = _Writer()
    nU = prog.nU
    tan: dict[str, se.Basic] = {f"xs[{i}]": se.Symbol(f"dxs[{i}]") for i in range(nx)}
    for i in range(nU):
        tan[f"Us[{i}]"] = se.Symbol(f"dUs[{i}]")
    by_stage: dict[int, list[int]] = {}
    for k, st in enumerate(prog.stage):
        by_stage.setdefault(st, []).append(k)

    def tangent_of(k: int) -> None:
        nm = prog.inter[k][0]
        te = _tangent_expr(prog.inter_partials(k), tan)
        if te == 0:
            tan[nm] = se.Integer(0)
            return
        w.expr(f"    d{nm} = {{}};", te)
        tan[nm] = se.Symbol(f"d{nm}")

    for k in by_stage.get(0, []):
        tangent_of(k)
    for bi, b in enumerate(prog.blocks):
        n = len(b.unknowns)
        for k in prog.internal[bi]:
            tangent_of(k)
        for li, i in enumerate(b.unknowns):
            # the row's tangent with this block's dU = 0 (they are still zero here)
            te = _tangent_expr(prog.partials(prog.rows[i]), tan)
            w.expr(f"    B{bi}[{li}] = -({{}});", te)
        if n == 1:
            w.raw(f"    dUs[{b.unknowns[0]}] = B{bi}[0] / LU{bi}[0];")
        else:
            w.raw(f"    bg_lus({n}, LU{bi}, P{bi}, B{bi}, 1);")
            for li, i in enumerate(b.unknowns):
                w.raw(f"    dUs[{i}] = B{bi}[{li}];")
        for k in by_stage.get(bi + 1, []):
            tangent_of(k)
    jac_pre, jac_body = section(w)

    # monitor: the moduli first (expressions: a singular block still leaves them), then
    # the shared primal (mode & 2 keeps the row norms of monitored coupled blocks), then
    # each monitored block's measure from the factors the primal left in the work array:
    # a singular block reports its own (0), the blocks after it were not reached (NaN)
    w = _Writer()
    for k, d in enumerate(divisors):
        if d.kind != "block":
            w.expr(f"    out[{k}] = {{}};", _rn(d.expr, rn))
    mon_body = ["    mode |= 2;"] + sum(section(w), [])
    mon_body += [c.replace(") != 0) return st;", ") != 0) goto measures;") for c in primal]
    mon_body.append("  measures:")
    mon_body.append("    { int failed = st == 0 ? 0x7fffffff : (st < 0 ? -st : st) - 1; (void)failed;")
    for k, d in enumerate(divisors):
        if d.kind != "block":
            continue
        bi, n = d.block, len(prog.blocks[d.block].unknowns)
        measure = f"LU{bi}[0]" if n == 1 else f"bg_detlu({n}, LU{bi}, P{bi}, MS{bi})"
        mon_body.append(f"      out[{k}] = {bi} > failed ? NAN : {measure};")
    mon_body.append("      return st; }")
    # the monitor without the primal: the moduli at (t, x), each block's measure from the
    # factors the last successful call of the primal with mode & 2 left in the work array
    # (the native driver reads it after the last right-hand side of a step: the measures
    # are those of the last Newton iterate, used only well away from any threshold)
    w = _Writer()
    for k, d in enumerate(divisors):
        if d.kind != "block":
            w.expr(f"    out[{k}] = {{}};", _rn(d.expr, rn))
    monw_body = sum(section(w), [])
    for k, d in enumerate(divisors):
        if d.kind == "block":
            bi, n = d.block, len(prog.blocks[d.block].unknowns)
            measure = f"LU{bi}[0]" if n == 1 else f"bg_detlu({n}, LU{bi}, P{bi}, MS{bi})"
            monw_body.append(f"    out[{k}] = {measure};")
    jac_loop = ([f"    int col; for (col = 0; col < {nx}; ++col) {{",
                 f"      memset(dxs, 0, {max(nx, 1)} * sizeof(double)); "
                 f"memset(dUs, 0, {max(nU, 1)} * sizeof(double)); dxs[col] = 1.0;"]
                + ["  " + c for c in jac_body]
                + _copy_loop("      ", f"out[r_ * {nx} + col]", "dUs", list(eqs.xdot))
                + ["    }"])

    head = _HEADER + lay.defines()
    units = out_src.units()
    protos = "".join(f"BG_HIDDEN int bg_c{k}({_ARGS});\n" for k in range(out_src.n))
    main = [head, _MAIN, protos]
    main.append(f"int bg_sizes(int* s) {{ s[0]={nx}; s[1]={prog.nU}; s[2]={prog.nu}; "
                f"s[3]={prog.ndu}; s[4]={prog.np}; s[5]={len(outputs)}; s[6]={lay.size}; return 0; }}\n")
    if len(units) == 1:
        main.append(units.pop())
    main.append(_public("bg_rhs", primal + rhs_tail))
    main.append(_public("bg_out", primal + out_tail))
    main.append(_public("bg_jac", primal + jac_pre + jac_loop))
    main.append(f"int bg_nmon(void) {{ return {len(divisors)}; }}\n")
    main.append(_public("bg_mon", mon_body))
    main.append(_public("bg_monw", monw_body))
    source = UNIT_MARK.join(["\n".join(main)] + [head + u for u in units])
    return source, [nm for nm, _ in outputs]


#: optimisation and floating-point flags of generated code (part of the cache key)
CFLAGS = ("-O1", "-std=c99", "-fPIC", "-shared", "-fno-math-errno")
#: added to :data:`CFLAGS` when the compiler is GCC: no dead-store passes and no
#: interprocedural mod/ref analysis. The generated functions store only values read later
#: (in the work array, by other functions), so those passes find nothing, and on large
#: straight-line code they take about a quarter of the compiler's time
#: (``benchmarks/cold_build.py``); the run time is unchanged (``benchmarks/native.py``)
GCC_CFLAGS = ("-fno-tree-dse", "-fno-dse", "-fno-ipa-modref")


def _is_gcc(cc: str) -> bool:
    """Whether ``cc`` is GCC (its ``-v`` says ``gcc version``), cached per process."""
    if cc not in _IS_GCC:
        try:
            proc = subprocess.run([cc, "-v"], capture_output=True, text=True, timeout=30)
            _IS_GCC[cc] = "gcc version" in proc.stderr + proc.stdout
        except (OSError, subprocess.SubprocessError):
            _IS_GCC[cc] = False
    return _IS_GCC[cc]


_IS_GCC: dict[str, bool] = {}


def _compiler_id(cc: str) -> str:
    """The compiler's version line (part of the cache key), cached per process."""
    if cc not in _CC_ID:
        try:
            proc = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=30)
            _CC_ID[cc] = proc.stdout.splitlines()[0] if proc.stdout else cc
        except (OSError, subprocess.SubprocessError):
            _CC_ID[cc] = cc
    return _CC_ID[cc]


_CC_ID: dict[str, str] = {}


def build_library(source: str, flags: tuple[str, ...] | None = None, libs: tuple[str, ...] = ("-lm",),
                  prefix: str = "bg", what: str = "the generated model") -> tuple[Path, float]:
    """Compile ``source`` to a shared library in the cache (keyed by source, flags and
    compiler); ``(path, seconds spent compiling)`` — 0 when it was cached.

    A source of several translation units (separated by :data:`UNIT_MARK`) is
    compiled unit by unit in parallel (as many at once as there are cores, the largest
    first), then linked.

    Parameters
    ----------
    source : str
        C source.
    flags, libs : tuple of str
        Compiler flags (default ``CFLAGS`` of this module, read when called, and
        ``GCC_CFLAGS`` when the compiler is GCC) and libraries.
    prefix : str
        File name prefix in :func:`cache_dir`.
    what : str
        What is compiled, for messages.

    Returns
    -------
    path : pathlib.Path
        The shared library.
    seconds : float
        Time spent compiling (0 when cached).

    Examples
    --------
    >>> import ctypes
    >>> path, _ = build_library("double twice(double x) { return 2 * x; }", prefix="doc")
    >>> lib = ctypes.CDLL(str(path))
    >>> lib.twice.restype, lib.twice.argtypes = ctypes.c_double, [ctypes.c_double]
    >>> lib.twice(21.0)
    42.0
    >>> build_library("double twice(double x) { return 2 * x; }", prefix="doc")[1]  # cached
    0.0

    Raises
    ------
    EquationError
        No C compiler, or the compilation failed (the compiler's message is shown).
    """
    cc = find_compiler()
    if flags is None:
        flags = CFLAGS + (GCC_CFLAGS if cc is not None and _is_gcc(cc) else ())
    key = "\n".join([source, " ".join(flags), " ".join(libs), _compiler_id(cc) if cc else ""])
    digest = hashlib.sha256(key.encode()).hexdigest()[:20]
    lib = cache_dir() / f"{prefix}_{digest}.so"
    if lib.exists():
        return lib, 0.0
    if cc is None:
        raise EquationError(f"no C compiler found (set $CC or install gcc); {what} is compiled "
                            "to C for speed")
    t0 = time.perf_counter()
    units = source.split(UNIT_MARK)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "model.so"
        if len(units) == 1:
            c_file = Path(tmp) / "model.c"
            c_file.write_text(source)
            _run_cc([[cc, *flags, str(c_file), "-o", str(out), *libs]], what)
        else:
            objs, cmds = [], []
            cflags = [f for f in flags if f != "-shared"]
            for k, text in enumerate(units):
                c_file = Path(tmp) / f"unit{k}.c"
                c_file.write_text(text)
                objs.append(str(c_file.with_suffix(".o")))
                cmds.append([cc, *cflags, "-c", str(c_file), "-o", objs[-1]])
            # the largest units first: the cores finish together (longest-first scheduling)
            _run_cc([cmds[k] for k in sorted(range(len(cmds)), key=lambda k: -len(units[k]))], what)
            _run_cc([[cc, "-shared", *objs, "-o", str(out), *libs]], what)
        partial = lib.with_suffix(f".{os.getpid()}.tmp")
        shutil.copy(out, partial)
        os.replace(partial, lib)
    return lib, time.perf_counter() - t0


def _run_cc(cmds: list[list[str]], what: str) -> None:
    """Run compiler commands, as many at once as there are cores (a core is given the next
    command as soon as any command finishes); raise on the first error."""
    jobs = max(1, min(len(cmds), os.cpu_count() or 1))
    pending = list(cmds)
    running: dict[int, tuple[list[str], subprocess.Popen, typing.IO[bytes]]] = {}
    failure = None
    while pending or running:
        while pending and len(running) < jobs and failure is None:
            cmd = pending.pop(0)
            err = tempfile.TemporaryFile()  # a file, not a pipe: a long message cannot block it
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
            running[proc.pid] = (cmd, proc, err)
        done = [pid for pid, (_, proc, _) in running.items() if proc.poll() is not None]
        if not done:
            time.sleep(0.002)
            continue
        for pid in done:
            cmd, proc, err = running.pop(pid)
            if proc.returncode != 0 and failure is None:
                err.seek(0)
                failure = (cmd, err.read().decode(errors="replace"))
                pending.clear()
            err.close()
    if failure is not None:
        cmd, err = failure
        raise EquationError(f"C compilation of {what} failed ({' '.join(cmd)}):\n" + err[-3000:])


def _build(source: str) -> Path:
    return build_library(source)[0]


class _InputTables(ctypes.Structure):
    """``bg_inputs_t`` of the generated C: a run's native input tables."""

    _fields_ = [("tab", ctypes.c_void_p), ("off", ctypes.c_void_p), ("dslot", ctypes.c_void_p),
                ("nin", ctypes.c_long)]


class CompiledSystem:
    """The compiled model: ``rhs``, ``jac`` and ``outputs`` over numpy arrays.

    Parameters are a vector (``params``, order of ``Equations.params``);
    inputs ``u`` and their derivatives ``du`` are set with :meth:`set_inputs`.
    Made by :func:`compile_equations`; a :class:`~bondgraph.Model` holds one as
    ``model.system``.

    Parameters
    ----------
    eqs : Equations
    source : str
        The C source it was compiled from.
    out_names : list of str
        Names of the outputs (from :func:`generate_c`).
    path : pathlib.Path
        The shared library.

    Attributes
    ----------
    nx : int
        Number of states.
    params : numpy.ndarray
        The parameter vector the compiled functions read.
    output_names : list of str
        Names of :meth:`outputs`.

    Examples
    --------
    Mass ``m = 4`` pushed by ``F = 2`` against a damper ``b = 1``:
    ``v̇ = (F − b·v)/m`` and ``∂v̇/∂v = −b/m``:

    >>> import numpy as np
    >>> from bondgraph import BondGraph, Se, One, I, R, assemble, derive
    >>> bg = BondGraph("d")
    >>> _ = bg.add(Se("F", 2.0), One("v"), I("m", 4.0), R("b", 1.0))
    >>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
    ...     _ = bg.connect(a, b)
    >>> sys = compile_equations(derive(assemble(bg)))
    >>> x = np.array([1.0])
    >>> sys.rhs(0.0, x), sys.jac(0.0, x)
    (array([0.25]), array([[-0.25]]))
    >>> float(dict(zip(sys.output_names, sys.outputs(0.0, x)))["e[d/b3]"])   # damper force b·v
    1.0
    >>> sys.set_params(sys.params * 2)           # F = 4, m = 8, b = 2: same v̇
    >>> sys.rhs(0.0, x)
    array([0.25])
    """

    def __init__(self, eqs: Equations, source: str, out_names: list[str], path: Path):
        self.build_times: dict[str, float] = {"generate": 0.0, "compile": 0.0}
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
        sizes = (ctypes.c_int * 8)()
        self._lib.bg_sizes(sizes)
        self.work_size = int(sizes[6])
        self._work = np.zeros(max(self.work_size, 1))
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
        """Replace the parameter vector (same order as ``Equations.params``).

        Unchecked: :meth:`bondgraph.Model.set_params` checks values by name first.

        Parameters
        ----------
        values : numpy.ndarray
        """
        self.params[:] = values

    def set_native_inputs(self, tables: list[np.ndarray] | None, dslot: list[int] | None = None) -> None:
        """Let the compiled code evaluate the inputs itself (piecewise polynomials), or stop.

        The tables belong to this object (the first slot of its work array points at
        them): another model loaded from the same library is not affected.

        Parameters
        ----------
        tables : list of numpy.ndarray or None
            One packed piecewise-polynomial table per input
            (:meth:`bondgraph.signals.InputSet.native`); None or empty: stop.
        dslot : list of int, optional
            For each input, its index among the input derivatives (-1: none).
        """
        words = self._work.view(np.uint64)
        if not tables:
            words[0] = 0
            self._native = None
            return
        off = np.cumsum([0] + [len(t) for t in tables[:-1]]).astype(np.int64)
        tab = np.ascontiguousarray(np.concatenate(tables), dtype=float)
        slots = np.asarray(dslot if dslot is not None else [-1] * len(tables), dtype=np.int32)
        desc = _InputTables(tab.ctypes.data, off.ctypes.data, slots.ctypes.data, len(tables))
        self._native = (tab, off, slots, desc)  # keep alive while the C side points at them
        words[0] = ctypes.addressof(desc)

    @property
    def native_inputs_address(self) -> int:
        """Address of the input tables the compiled code evaluates (0: none)."""
        return int(self._work.view(np.uint64)[0])

    def set_inputs(self, u: np.ndarray, du: np.ndarray | None = None) -> None:
        """Set the input values (and derivatives) for the next calls.

        Parameters
        ----------
        u : numpy.ndarray
            Values, order of ``Equations.inputs``.
        du : numpy.ndarray, optional
            Derivatives, order of ``Equations.input_derivatives``.
        """
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
        """``ẋ`` at ``(t, x)``.

        Parameters
        ----------
        t : float
        x : numpy.ndarray
            State vector.
        out : numpy.ndarray, optional
            Written in place and returned.

        Returns
        -------
        numpy.ndarray

        Raises
        ------
        FloatingPointError
            A singular block or a non-finite value (message from :meth:`describe_status`).
        """
        self._call(self._rhs, t, x, self._ptr["_xdot"])
        res = self._xdot[: self.nx]
        if out is not None:
            out[:] = res
            return out
        return res.copy()

    def rhs_power(self, t: float, x: np.ndarray) -> np.ndarray:
        """``[ẋ, Σ source power, Σ dissipated power, Σ parametric power]`` in one call.

        Returns an internal buffer (overwritten by the next call).

        Parameters
        ----------
        t : float
            Time (s).
        x : ndarray
            State vector.

        Returns
        -------
        ndarray

        Raises
        ------
        FloatingPointError
            As :meth:`rhs`.
        """
        self._call(self._rhs, t, x, self._ptr["_xdot"], 1)
        return self._xdot

    def jac(self, t: float, x: np.ndarray) -> np.ndarray:
        """``∂ẋ/∂x`` at ``(t, x)`` (dense ``nx × nx``), by forward tangents.

        Parameters
        ----------
        t : float
            Time (s).
        x : ndarray
            State vector.

        Returns
        -------
        ndarray

        Raises
        ------
        FloatingPointError
            As :meth:`rhs`.
        """
        self._call(self._jac, t, x, self._ptr["_J"])
        return self._J[: self.nx, : self.nx].copy()

    def outputs(self, t: float, x: np.ndarray) -> np.ndarray:
        """Every value named in :attr:`output_names` at ``(t, x)``.

        Parameters
        ----------
        t : float
            Time (s).
        x : ndarray
            State vector.

        Returns
        -------
        ndarray

        Raises
        ------
        FloatingPointError
            As :meth:`rhs`.
        """
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

        Returns
        -------
        values : numpy.ndarray
            One per :attr:`monitor_names`.
        status : int

        Parameters
        ----------
        t : float
            Time (s).
        x : ndarray
            State vector.
        """
        n = len(self.divisors)
        if not n:
            return np.zeros(0), 0
        self._xbuf[: self.nx] = x
        p = self._ptr
        st = self._mon(t, self._xp, p["_u"], p["_du"], self._pp, p["_U"], self._mp,
                       p["_work"], 0)
        return self._m[:n].copy(), int(st)

    def unknowns(self) -> dict[str, float]:
        """Values of the unknowns ``U`` from the last call.

        Returns
        -------
        dict
            Name (``der(x)``, ``z``) → value.
        """
        return dict(zip(self.equations.unknowns, self._U[: self.nU]))

    def rhs_into(self, t: float, xptr: int, outptr: int, mode: int = 0) -> int:
        """Fast path: ``ẋ`` of the state at ``xptr`` written to ``outptr`` (raw pointers).

        Returns the status code (0: fine; see :meth:`describe_status`).

        Parameters
        ----------
        t : float
            Time (s).
        xptr : int
        outptr : int
        mode : int, optional

        Returns
        -------
        int
        """
        p = self._ptr
        return self._rhs(t, xptr, p["_u"], p["_du"], self._pp, p["_U"], outptr, p["_work"], mode)

    def describe_status(self, st: int) -> str:
        """What a non-zero status of a compiled call means, naming unknowns and elements.

        Parameters
        ----------
        st : int
            Status returned by a compiled call.

        Returns
        -------
        str
        """
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

    Parameters
    ----------
    eqs : Equations
        From :func:`~bondgraph.derive`.

    Returns
    -------
    CompiledSystem
        With ``build_times`` (``generate``, ``compile`` seconds).

    Examples
    --------
    See :class:`CompiledSystem`.

    Raises
    ------
    EquationError
        If no C compiler is available or compilation fails.
    """
    t0 = time.perf_counter()
    source, names = generate_c(eqs)
    t_gen = time.perf_counter() - t0
    path, t_cc = build_library(source)
    system = CompiledSystem(eqs, source, names, path)
    system.build_times = {"generate": t_gen, "compile": t_cc}
    return system
