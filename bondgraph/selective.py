"""Output-selective code: a compiled function that computes only the outputs asked for.

A model's ``bg_out`` (:mod:`bondgraph.codegen`) computes every bond effort and flow,
energy and power — hundreds of values — though a batched analysis over 10⁵ poses may
read five. :func:`selected_outputs` makes, compiles and loads a function that computes
only the requested outputs: the statements of the model's own compiled source (the
library that is loaded: its common subexpressions, its order of operations), from which
:func:`select_source` drops every statement the outputs do not depend on (dead-code
elimination by a backward liveness pass over ``bg_out``'s statements: a temporary, an
intermediate, a block solving some unknowns is kept when a kept statement reads what it
writes). What is left is ``bg_out``'s own arithmetic: the numbers are equal to the bit.

A block that the selection does not need is not solved, so its failure (a singular
linkage) does not show in the selected outputs: a caller that needs the model's
status at a row asks for an output that depends on every block (a holding force does).

The selective library is cached on disk by its source, as every compiled model (the
dead-code pass over the model's source takes milliseconds): the first call for a new
selection compiles (under a second), later processes load it.
:func:`bondgraph.batch.evaluate_many` uses it with ``outputs=``.

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
>>> sel.names, sel.blocks                                 # b·v reads the state: no block solved
(['e[d/b3]'], frozenset())
"""

from __future__ import annotations

import ctypes
import difflib
import re
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from .codegen import _ARGS, _MAIN, UNIT_MARK, CompiledSystem, _lapack, _public, _Source, build_library
from .errors import EquationError, UnknownNameError

__all__ = ["select_source", "SelectedOutputs", "selected_outputs"]

#: layout of a cached selective source; a change makes every older entry a miss
_FORMAT = 2
#: flags of the selective code: optimised further than a whole model's (:data:`bondgraph.codegen.CFLAGS`,
#: ``-O1`` for compile time: a selection is a fraction of it, evaluated at 10⁵ rows); strict IEEE
#: arithmetic (no fast-math, no contraction into fused multiply-adds): the same results as ``bg_out``
SELECTIVE_CFLAGS = ("-O2", "-std=c99", "-ffp-contract=off", "-fPIC", "-shared", "-fno-math-errno")


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


def _model_name(eqs) -> str:
    return getattr(getattr(eqs, "report", None), "model", None) or "the model"


_CHUNK = re.compile(r"^BG_HIDDEN __attribute__\(\(noinline\)\) int (bg_c\d+)\([^\n]*\{\n[^\n]*\(void\)mode;\n"
                    r"(.*?)\n    return 0;\n\}\n", re.M | re.S)
_TOKEN = re.compile(r"\b(x\d+|m\d+)\b|\bUs\[(\d+)\]")
_ASSIGN = re.compile(r"^ {4}(x\d+|m\d+|out\[(\d+)\]) = ")
_BLOCK = re.compile(r"^ {4}/\* block (\d+): ")
_SOLVED = re.compile(r"\bUs\[(\d+)\] \+= B\d+\[")
_INNER = re.compile(r"^\s+(m\d+) = ")


def _reads(text: str) -> set[str]:
    return {a or f"Us[{b}]" for a, b in _TOKEN.findall(text)}


def _statements(source: str) -> tuple[str, list[tuple[str, list[str], set[str], set[str]]]]:
    """The head (header and work-array layout) of a model's source, and ``bg_out``'s
    statements in order: ``(kind, lines, writes, reads)``, kind ``"assign"`` (a temporary,
    an intermediate, an output) or ``"block"`` (one block's solve, whole)."""
    units = source.split(UNIT_MARK)
    main = units[0]
    at = main.find(_MAIN.strip().splitlines()[0])
    out_at = main.find("\nint bg_out(")
    if at < 0 or out_at < 0:
        raise EquationError("selected outputs: the model's source has no bg_out of the expected form "
                            "(generated by another version of bondgraph.codegen?)")
    head = main[:at]
    body = main[out_at:main.index("\n}\n", out_at)]
    chunks = {m.group(1): m.group(2) for u in units for m in _CHUNK.finditer(u)}
    lines: list[str] = []
    for name in re.findall(r"\b(bg_c\d+)\b", body):    # called one by one, or from a table in order
        if name not in chunks:
            raise EquationError(f"selected outputs: chunk {name} of bg_out not found in the model's source")
        lines += chunks[name].split("\n")
    stmts = []
    i = 0
    while i < len(lines):
        ln = lines[i]
        blk = _BLOCK.match(ln)
        if blk:
            j, newton = i + 1, lines[i + 1].startswith("    { int it;") if i + 1 < len(lines) else False
            while j < len(lines):
                if not newton and lines[j].startswith("    { double nrm = 0.0;"):
                    break
                if newton and lines[j] == "    }" and "if (it == " in lines[j - 1]:
                    break
                j += 1
            if j == len(lines):
                raise EquationError(f"selected outputs: block {blk.group(1)} of bg_out has no end")
            part = lines[i:j + 1]
            text = "\n".join(part)
            writes = {f"Us[{k}]" for k in _SOLVED.findall(text)}
            inner = {m.group(1) for m in map(_INNER.match, part) if m}
            stmts.append(("block", part, writes | inner, _reads(text) - writes - inner))
            i = j + 1
            continue
        a = _ASSIGN.match(ln)
        j = i
        while a and j < len(lines) and not lines[j].endswith(";"):   # a piecewise value spans lines
            j += 1
        if not a or j == len(lines):
            raise EquationError(f"selected outputs: statement {ln.strip()[:80]!r} of bg_out not understood")
        part = lines[i:j + 1]
        stmts.append(("assign", part, {a.group(1)}, _reads("\n".join(part)[a.end():])))
        i = j + 1
    return head, stmts


def select_source(source: str, index: Sequence[int]) -> tuple[str, frozenset[int], frozenset[str]]:
    """C source of ``bg_sel``: the outputs at positions ``index`` of a model's ``bg_out``
    (its source ``source``, :attr:`CompiledSystem.source <bondgraph.CompiledSystem.source>`)
    and nothing else.

    ``bg_out``'s statements are taken in order; walking back from the outputs wanted, a
    statement is kept when it writes something a kept statement after it reads (a block's
    solve whole, with everything its rows read). The kept statements are written as they
    are, each output at its own place in the output array; ``bg_sel`` has ``bg_out``'s
    signature and work array.

    Parameters
    ----------
    source : str
        A model's C source (:func:`bondgraph.codegen.generate_c`).
    index : sequence of int
        Positions in ``bg_out``'s output array.

    Returns
    -------
    source : str
    blocks : frozenset of int
        The blocks it solves.
    intermediates : frozenset of str
        The intermediates it computes (``m<k>``).

    Raises
    ------
    EquationError
        A source not of the form :mod:`bondgraph.codegen` writes.

    Examples
    --------
    >>> from bondgraph import BondGraph, Se, One, I, R, build
    >>> bg = BondGraph("d")
    >>> _ = bg.add(Se("F", 2.0), One("v"), I("m", 1.0), R("b", 0.5))
    >>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
    ...     _ = bg.connect(a, b)
    >>> system = build(bg).system
    >>> names = system.output_names
    >>> src, blocks, inter = select_source(system.source, [names.index("e[d/b3]")])  # the damper's force
    >>> "int bg_sel(" in src, "int bg_out(" in src, sorted(blocks), len(src) < len(system.source)
    (True, False, [], True)
    """
    head, stmts = _statements(source)
    wanted = {int(k) for k in index}
    live: set[str] = set()
    keep = [False] * len(stmts)
    for i in range(len(stmts) - 1, -1, -1):
        kind, lines, writes, reads = stmts[i]
        out = _ASSIGN.match(lines[0]) if kind == "assign" else None
        if out is not None and out.group(2) is not None:
            needed = int(out.group(2)) in wanted
        else:
            needed = bool(writes & live)
        if needed:
            keep[i] = True
            live -= writes
            live |= reads
    blocks = frozenset(int(_BLOCK.match(st[1][0]).group(1)) for st, k in zip(stmts, keep) if k and st[0] == "block")
    inter = frozenset(w for st, k in zip(stmts, keep) if k for w in st[2] if w.startswith("m"))
    src = _Source()
    calls = src.section(["\n".join(st[1]) for st, k in zip(stmts, keep) if k])   # a statement never cut
    protos = "".join(f"BG_HIDDEN int bg_c{k}({_ARGS});\n" for k in range(src.n))
    sizes = re.search(r"s\[6\]=(\d+);", source)
    if sizes is None:
        raise EquationError("selected outputs: the model's source gives no work-array size (bg_sizes)")
    units = src.units()              # a large selection: several units compiled in parallel, as a model
    main = [head, _MAIN, protos, f"int bg_sel_work(void) {{ return {sizes.group(1)}; }}\n",
            f"/* outputs: {', '.join(map(str, sorted(wanted)))} */\n"]
    if len(units) == 1:
        main.append(units.pop())
    main.append(_public("bg_sel", calls))
    return UNIT_MARK.join(["\n".join(main)] + [head + u for u in units]), blocks, inter


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
    intermediates : frozenset of str
        The intermediates it computes (``m<k>``: ``Equations.intermediates[k]``).
    blocks : frozenset of int
        The blocks it solves (indices into ``Equations.blocks``).
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
    intermediates: frozenset[str]
    blocks: frozenset[int]
    path: Path
    compile_time: float = 0.0
    function: object = field(default=None, repr=False)
    work: np.ndarray = field(default=None, repr=False)
    _lib: object = field(default=None, repr=False)


#: per compiled model (weakly held): selection → loaded function
_LOADED: "weakref.WeakKeyDictionary[CompiledSystem, dict[tuple[str, ...], SelectedOutputs]]" = \
    weakref.WeakKeyDictionary()


def selected_outputs(system: CompiledSystem, names: Sequence[str]) -> SelectedOutputs:
    """The compiled function computing only the outputs ``names`` of ``system``.

    Made from the model's source (:func:`select_source`), compiled and loaded at the first
    request of a selection in a process (the library cached on disk by its source, as every
    compiled model); later requests return the same object.

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
    where = {nm: i for i, nm in enumerate(system.output_names)}
    index = np.array([where[nm] for nm in names], dtype=np.int32)
    source, blocks, inter = select_source(system.source, index)
    path, t_cc = build_library(source, SELECTIVE_CFLAGS, prefix="bgsel",
                               what=f"the outputs selected of {_model_name(system.equations)!r}")
    lib = ctypes.CDLL(str(path))
    lib.bg_set_lapack(ctypes.c_void_p(_lapack("dgetrf")), ctypes.c_void_p(_lapack("dgetrs")))
    fn = lib.bg_sel
    fn.argtypes = [ctypes.c_double] + [ctypes.c_void_p] * 7 + [ctypes.c_int]
    fn.restype = ctypes.c_int
    lib.bg_sel_work.restype = ctypes.c_int
    work = np.zeros(max(int(lib.bg_sel_work()), 1))
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
