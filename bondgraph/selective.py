"""Output-selective code: a compiled function that computes only the outputs asked for.

A model's ``bg_out`` (:mod:`bondgraph.codegen`) computes every bond effort and flow,
energy and power — hundreds of values — though a batched analysis over 10⁵ poses may
read five. :func:`selected_outputs` generates, compiles and loads a function that
computes only the requested outputs: the model's own statements, common subexpressions
found over all of them as for ``bg_out``, then every statement the outputs do not depend
on dropped (dead-code elimination; :func:`slice_for` finds the intermediates they read
and the blocks whose unknowns those read, closed under dependence). What is left is the
same arithmetic as ``bg_out``'s: the numbers are equal to the bit.

A block that the selection does not need is not solved, so its failure (a singular
linkage) does not show in the selected outputs: a caller that needs the model's
status at a row asks for an output that depends on every block (a holding force does).

The generated source is cached on disk keyed by the model's source, the selection and
the generator (the library itself by its source, as every compiled model): a later
process loads it without generating anything; the first call for a new selection
compiles (about a second). :func:`bondgraph.batch.evaluate_many` uses it with
``outputs=``.

Examples
--------
>>> import numpy as np
>>> from bondgraph import BondGraph, Se, One, I, R, build
>>> bg = BondGraph("d")
>>> _ = bg.add(Se("F", 2.0), One("v"), I("m", 1.0), R("b", 0.5))
>>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
...     _ = bg.connect(a, b)
>>> model = build(bg)
>>> sel = selected_outputs(model.system, ["e[d/b3]"])     # the damper's force only
>>> sel.names, len(sel.intermediates) <= len(model.equations.intermediates)
(['e[d/b3]'], True)
"""

from __future__ import annotations

import ctypes
import difflib
import hashlib
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from .codegen import (_HEADER, _MAIN, _ARGS, CompiledSystem, _emit_primal, _lapack, _Layout, _Program,
                      _public, _rn, _Source, _Writer, build_library, UNIT_MARK)
from .equations import Equations
from .errors import UnknownNameError
from .files import cache_dir

__all__ = ["slice_for", "generate_selected_c", "SelectedOutputs", "selected_outputs"]

#: layout of a cached selective source; a change makes every older entry a miss
_FORMAT = 1
#: flags of the selective code: optimised further than a whole model's (:data:`bondgraph.codegen.CFLAGS`,
#: ``-O1`` for compile time: a selection is a fraction of it, evaluated at 10⁵ rows); strict IEEE
#: arithmetic (no fast-math, no contraction into fused multiply-adds): the same results as ``bg_out``
SELECTIVE_CFLAGS = ("-O2", "-std=c99", "-ffp-contract=off", "-fPIC", "-shared", "-fno-math-errno")


def _output_exprs(eqs: Equations) -> dict[str, object]:
    """Name → expression of every output, as :func:`bondgraph.codegen.generate_c` orders them
    (symbols not yet renamed)."""
    out: dict[str, object] = dict(eqs.bond_exprs)
    out.update((f"energy[{nm}]", ex) for nm, ex in eqs.energy.items())
    out.update((f"source_power[{nm}]", ex) for nm, ex in eqs.source_power.items())
    out.update((f"dissipation[{nm}]", ex) for nm, ex in eqs.dissipation.items())
    out.update((f"parametric[{nm}]", ex) for nm, ex in eqs.parametric.items())
    out.update(getattr(eqs, "observed", {}))
    return out


def _check_names(names: Sequence[str], known: Sequence[str], model: str) -> list[str]:
    """The names as a list; every unknown (or repeated, or non-text) one refused at once
    (``known``: the outputs in order, the nearest named)."""
    problems = []
    known_set = set(known)
    for nm in names:
        if not isinstance(nm, str):
            problems.append(f"output {nm!r}: expected an output name (text), such as "
                            f"{next(iter(known), 'e[...]')!r}")
        elif nm not in known_set:
            close = difflib.get_close_matches(nm, list(known), n=1)
            problems.append(f"output {nm!r}: not an output of {model!r}"
                            + (f"; did you mean {close[0]!r}?" if close else ""))
    seen: set[str] = set()
    for nm in names:
        if isinstance(nm, str):
            if nm in seen:
                problems.append(f"output {nm!r}: asked for twice")
            seen.add(nm)
    if not names:
        problems.append("no outputs asked for: give at least one output name")
    if problems:
        raise UnknownNameError(problems, subject="selected outputs")
    return list(names)


def _model_name(eqs: Equations) -> str:
    return getattr(getattr(eqs, "report", None), "model", None) or "the model"


def slice_for(eqs: Equations, names: Sequence[str]) -> tuple[frozenset[int], frozenset[int]]:
    """The intermediates and blocks that the outputs ``names`` depend on.

    Closed under dependence: an intermediate's symbols, a block's rows and the
    intermediates inside it bring in what they read; a block is needed as soon as one of
    its unknowns is read.

    Parameters
    ----------
    eqs : Equations
    names : sequence of str
        Output names (``CompiledSystem.output_names``).

    Returns
    -------
    (frozenset of int, frozenset of int)
        Indices into ``eqs.intermediates`` and into ``eqs.blocks``.

    Raises
    ------
    UnknownNameError
        A name that is not an output of the model (every one named).

    Examples
    --------
    A mass pushed through a damper: its velocity is a state; the damper's force reads
    it and no block; the mass's effort reads the force balance's block:

    >>> from bondgraph import BondGraph, Se, One, I, R, build
    >>> bg = BondGraph("d")
    >>> _ = bg.add(Se("F", 2.0), One("v"), I("m", 1.0), R("b", 0.5))
    >>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
    ...     _ = bg.connect(a, b)
    >>> eqs = build(bg).equations
    >>> len(slice_for(eqs, ["e[d/b3]"])[1]) <= len(slice_for(eqs, ["e[d/b2]"])[1])
    True
    """
    exprs = _output_exprs(eqs)
    names = _check_names(names, list(exprs), _model_name(eqs))
    index = {v: k for k, (v, _) in enumerate(eqs.intermediates)}
    uidx = {u: i for i, u in enumerate(eqs.unknowns)}
    block_of = {i: bi for bi, b in enumerate(eqs.blocks) for i in b.unknowns}
    inter: set[int] = set()
    blocks: set[int] = set()
    stack = [s.name for nm in names for s in exprs[nm].free_symbols]
    while stack:
        nm = stack.pop()
        k = index.get(nm)
        if k is not None:
            if k not in inter:
                inter.add(k)
                stack += [s.name for s in eqs.intermediates[k][1].free_symbols]
            continue
        i = uidx.get(nm)
        if i is None:
            continue             # a state, input, parameter or t: always there
        bi = block_of[i]
        if bi in blocks:
            continue
        blocks.add(bi)
        for j in eqs.blocks[bi].unknowns:
            stack += [s.name for s in eqs.residuals[j].free_symbols]
    return frozenset(inter), frozenset(blocks)


def _matched(full: list, part: list) -> set[int]:
    """Indices in ``full`` of the statements of ``part``, a subsequence of it (the primal of
    a slice: the same statements, in the same order, fewer). Each block of statements
    begins with its own comment and intermediates are named once, so the leftmost match
    of each statement is its own place."""
    out: set[int] = set()
    i = 0
    for st in part:
        while i < len(full) and not _same(full[i], st):
            i += 1
        if i == len(full):
            raise AssertionError("the slice's statements are not those of the model")  # a generator bug
        out.add(i)
        i += 1
    return out


def _same(a, b) -> bool:
    if a[0] != b[0]:
        return False
    if a[0] == "raw":
        return a[1] == b[1]
    return a[1][0] == b[1][0] and a[1][1] == b[1][1]


def generate_selected_c(eqs: Equations, names: Sequence[str]) -> str:
    """C source of ``bg_sel``: the outputs ``names`` and nothing else.

    Same signature as the model's ``bg_out``, and each output written at its place in
    ``bg_out``'s output array (the others are left untouched); ``bg_sel_work()`` is the
    size of the work array it needs. The statements are the model's own, common
    subexpressions found over all of them as :func:`bondgraph.codegen.generate_c` does,
    then those the outputs do not read dropped (dead code): every value is computed by
    the same arithmetic as in ``bg_out``, to the bit.

    Parameters
    ----------
    eqs : Equations
    names : sequence of str
        Output names.

    Returns
    -------
    str
        C source (translation units separated by :data:`bondgraph.codegen.UNIT_MARK`).

    Raises
    ------
    UnknownNameError
        A name that is not an output of the model.

    Examples
    --------
    >>> from bondgraph import BondGraph, Se, One, I, build
    >>> bg = BondGraph("p")
    >>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 2.0))
    >>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
    >>> src = generate_selected_c(build(bg).equations, ["e[p/b1]"])
    >>> "int bg_sel(" in src, "int bg_out(" in src
    (True, False)
    """
    keep = slice_for(eqs, names)
    wanted = set(names)
    prog = _Program(eqs)
    divisors = list(getattr(eqs, "divisors", []))
    scaled = frozenset(d.block for d in divisors
                       if d.kind == "block" and len(prog.blocks[d.block].unknowns) > 1)
    lay = _Layout(prog, scaled)
    src = _Source()

    def section(w: _Writer, only: set[int]) -> list[str]:
        hoisted, body = w.render(only)
        lay.need_temps(w.ntemps)
        return src.section(hoisted) + src.section(body)

    full = _Writer()                 # the model's primal, as generate_c writes it
    _emit_primal(prog, full, scaled)
    part = _Writer()                 # the slice the outputs read
    _emit_primal(prog, part, scaled, keep=keep)
    body = section(full, _matched(full.stmts, part.stmts))
    w = _Writer()
    only = set()
    for k, (nm, ex) in enumerate(_output_exprs(eqs).items()):
        w.expr(f"    out[{k}] = {{}};", _rn(ex, prog.rename))
        if nm in wanted:
            only.add(k)
    body += section(w, only)
    head = _HEADER + lay.defines()
    units = src.units()
    protos = "".join(f"BG_HIDDEN int bg_c{k}({_ARGS});\n" for k in range(src.n))
    main = [head, _MAIN, protos, f"int bg_sel_work(void) {{ return {lay.size}; }}\n"]
    main.append(f"/* outputs: {', '.join(names)} */\n")
    if len(units) == 1:
        main.append(units.pop())
    main.append(_public("bg_sel", body))
    return UNIT_MARK.join(["\n".join(main)] + [head + u for u in units])


@dataclass
class SelectedOutputs:
    """A loaded output-selective function of one compiled model (:func:`selected_outputs`).

    Attributes
    ----------
    names : list of str
        The outputs it computes.
    index : numpy.ndarray of int32
        Their places in the model's output array (``system.output_names``), where
        ``function`` writes them.
    intermediates, blocks : frozenset of int
        The slice of the model it evaluates (indices into the equations').
    path : pathlib.Path
        The compiled library.
    compile_time : float
        Seconds spent compiling in this process (0: from the cache).
    function : ctypes function
        ``bg_sel``, the signature of the model's ``bg_out``.
    work : numpy.ndarray
        Its work array (slot 0 is the model's native input tables, copied at each call).

    Examples
    --------
    >>> from bondgraph import BondGraph, Se, One, I, build
    >>> bg = BondGraph("p")
    >>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 2.0))
    >>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
    >>> sel = selected_outputs(build(bg).system, ["e[p/b1]", "f[p/b2]"])
    >>> sel.names, sel.work.size > 0
    (['e[p/b1]', 'f[p/b2]'], True)
    """

    names: list[str]
    index: np.ndarray
    intermediates: frozenset[int]
    blocks: frozenset[int]
    path: Path
    compile_time: float = 0.0
    function: object = field(default=None, repr=False)
    work: np.ndarray = field(default=None, repr=False)
    _lib: object = field(default=None, repr=False)


#: per compiled model (weakly held): selection → loaded function
_LOADED: "weakref.WeakKeyDictionary[CompiledSystem, dict[tuple[str, ...], SelectedOutputs]]" = \
    weakref.WeakKeyDictionary()
_HASH: list[str] = []


def _generator_hash() -> str:
    """Hash of what generates a selective source (this module and the code generator)."""
    if not _HASH:
        h = hashlib.sha256()
        here = Path(__file__).parent
        for f in ("selective.py", "codegen.py"):
            h.update((here / f).read_bytes())
        _HASH.append(h.hexdigest()[:16])
    return _HASH[0]


def _source_file(system: CompiledSystem, names: list[str]) -> Path:
    key = "\n".join([f"{_FORMAT}|{_generator_hash()}", system.source, "\x00".join(names)])
    return cache_dir() / f"sel_{hashlib.sha256(key.encode()).hexdigest()[:32]}.c"


def selected_outputs(system: CompiledSystem, names: Sequence[str]) -> SelectedOutputs:
    """The compiled function computing only the outputs ``names`` of ``system``.

    Generated, compiled and loaded at the first request of a selection (the source and the
    library cached on disk, keyed by the model's source and the selection); later requests
    in the process return the same object.

    Parameters
    ----------
    system : CompiledSystem
        ``model.system``.
    names : sequence of str
        Output names (``system.output_names``), in the order wanted; each at most once.

    Returns
    -------
    SelectedOutputs

    Raises
    ------
    UnknownNameError
        A name that is not an output of the model (every one named, with the nearest
        output name), a repeated name, an empty selection.
    EquationError
        No C compiler, or the compilation failed.

    Examples
    --------
    >>> from bondgraph import BondGraph, Se, One, I, build
    >>> bg = BondGraph("p")
    >>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 2.0))
    >>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
    >>> system = build(bg).system
    >>> selected_outputs(system, ["e[p/b1]"]) is selected_outputs(system, ["e[p/b1]"])
    True
    >>> selected_outputs(system, ["e[p/b9]", "f[p/b1]"])
    Traceback (most recent call last):
    ...
    bondgraph.errors.UnknownNameError: selected outputs: 1 problem
      - output 'e[p/b9]': not an output of 'p'; did you mean 'e[p/b2]'?
    """
    key = tuple(names) if isinstance(names, (list, tuple)) else tuple(list(names))
    per = _LOADED.setdefault(system, {})
    hit = per.get(key)
    if hit is not None:
        return hit
    names = _check_names(list(key), system.output_names, _model_name(system.equations))
    eqs = system.equations
    inter, blocks = slice_for(eqs, names)
    cfile = _source_file(system, names)
    try:
        source = cfile.read_text()
    except OSError:
        source = generate_selected_c(eqs, names)
        _write(cfile, source)
    path, t_cc = build_library(source, SELECTIVE_CFLAGS, prefix="bgsel",
                               what=f"the outputs selected of {_model_name(eqs)!r}")
    lib = ctypes.CDLL(str(path))
    lib.bg_set_lapack(ctypes.c_void_p(_lapack("dgetrf")), ctypes.c_void_p(_lapack("dgetrs")))
    fn = lib.bg_sel
    fn.argtypes = [ctypes.c_double] + [ctypes.c_void_p] * 7 + [ctypes.c_int]
    fn.restype = ctypes.c_int
    lib.bg_sel_work.restype = ctypes.c_int
    work = np.zeros(max(int(lib.bg_sel_work()), 1))
    where = {nm: i for i, nm in enumerate(system.output_names)}
    index = np.array([where[nm] for nm in names], dtype=np.int32)
    sel = SelectedOutputs(names, index, inter, blocks, path, t_cc, fn, work, lib)
    per[key] = sel
    return sel


def _write(path: Path, text: str) -> None:
    """Write atomically; a read-only cache only costs speed."""
    import os

    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass
