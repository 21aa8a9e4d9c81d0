"""A built model: global graph, causal report, equations and compiled code.

:func:`build` runs the whole flow — assemble, assign causality, derive,
compile — and times each stage (``Model.build_times``).

Examples
--------
>>> from bondgraph import BondGraph, Se, One, I, C, R, build
>>> bg = BondGraph("msd")
>>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 1.0), C.spring("k", 4.0), R("b", 0.2))
>>> for a, b in [("F", "v"), ("v", "m"), ("v", "k"), ("v", "b")]:
...     _ = bg.connect(a, b)
>>> model = build(bg)
>>> model.state_names
['msd/m.f', 'msd/k.e']
>>> model.set_params({"msd/m.m": 2.0}); model.params["msd/m.m"]
2.0
"""

from __future__ import annotations

import time
from typing import Any, Mapping

import networkx as nx
import numpy as np

from .causality import CausalReport, assign_causality
from .codegen import CompiledSystem, compile_equations
from .checks import FINITE, number
from .equations import Equations, collect, derive, expression_problem
from .errors import ModelStructureError, ParameterError
from .graph import BondGraph, assemble
from .keyed import load_keyed, save_keyed
from .observers import observer_key, resolve_observers

__all__ = ["Model", "build"]


class Model:
    """Everything needed to simulate: made by :func:`build`.

    Parameters
    ----------
    graph : networkx.MultiDiGraph
        The global graph, with causality.
    report : CausalReport
    equations : Equations
    system : CompiledSystem
    build_times : dict
        Seconds per stage (see :func:`build`).

    Attributes
    ----------
    name : str
        The model's name (first segment of every path).
    graph, report, equations, system, build_times
        As given.

    Examples
    --------
    >>> from bondgraph import BondGraph, Se, One, I, R, MSe, Input, build
    >>> bg = BondGraph("cart")
    >>> _ = bg.add(MSe("F", Input("force")), One("v"), I("m", 3.0), R("b", 0.5))
    >>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
    ...     _ = bg.connect(a, b)
    >>> model = build(bg)
    >>> model
    Model('cart': 1 states, 2 parameters, inputs=['force'])
    >>> model.state_names, model.params
    (['cart/m.f'], {'cart/m.m': 3.0, 'cart/b.r': 0.5})
    >>> print(model.report.summary())
    causality of 'cart': sound; 1 independent states, 0 displacement states, 0 dependent storage elements, 0 algebraic loops, 0 conflicts
    """

    def __init__(self, graph: nx.MultiDiGraph, report: CausalReport, equations: Equations,
                 system: CompiledSystem, build_times: dict[str, float]):
        self.graph = graph
        self.report = report
        self.equations = equations
        self.system = system
        self.build_times = build_times
        self.name = equations.model

    @property
    def state_names(self) -> list[str]:
        """Names of the states, in the order of the state vector."""
        return [s.name for s in self.equations.states]

    @property
    def input_names(self) -> list[str]:
        """Names of the external inputs (:func:`~bondgraph.Input`) the model reads."""
        return list(self.equations.inputs)

    @property
    def bond_ends(self) -> tuple[tuple[str, str, str], ...]:
        """Every bond as ``(tail, head, name)``, in the graph's order.

        Read from the graph once (a built model's graph does not change): looking bonds
        up by name or by their ends (:meth:`Results.effort <bondgraph.Results.effort>`, a
        machine's read-outs) scans this tuple instead of networkx's edge view.

        Examples
        --------
        >>> from bondgraph import BondGraph, Se, One, I, build
        >>> bg = BondGraph("push")
        >>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 1.0))
        >>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
        >>> build(bg).bond_ends
        (('push/F', 'push/v', 'push/b1'), ('push/v', 'push/m', 'push/b2'))
        """
        kept = self.__dict__.get("_bond_ends")
        if kept is None or kept[0] is not self.graph:      # read for this very graph
            kept = (self.graph, tuple((u, v, k) for u, v, k in self.graph.edges(keys=True)))
            self.__dict__["_bond_ends"] = kept
        return kept[1]

    @property
    def params(self) -> dict[str, float]:
        """Current parameter values by name (a copy)."""
        return dict(zip(self.equations.params, self.system.params.tolist()))

    def set_params(self, values: Mapping[str, float]) -> None:
        """Change parameter values without recompiling.

        Every value is checked by the rule its element declared for it (a mass ≥ 0, a
        resistance > 0, a transformer modulus ≠ 0, and finite for all), with the same
        message as at construction; parameter expressions (``r = 2·k``) are checked
        again with the new values. Nothing is changed unless every value is valid.

        Parameters
        ----------
        values : mapping
            Parameter name (a key of :attr:`params`) → number.

        Raises
        ------
        ParameterError
            Unknown names, non-numbers, NaN/inf and broken rules, all listed at once.

        Examples
        --------
        >>> from bondgraph import BondGraph, Se, One, I, build
        >>> bg = BondGraph("push")
        >>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 2.0))
        >>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
        >>> build(bg).set_params({"push/m.m": -1.0, "push/F.e": float("nan")})
        Traceback (most recent call last):
        ...
        bondgraph.errors.ParameterError: model 'push': 2 problems
          - parameter 'push/m.m': found -1.0, expected a finite number ≥ 0 (mass or inertia)
          - parameter 'push/F.e': found nan, expected a finite number (effort)
        """
        names = list(self.equations.params)
        index = {k: i for i, k in enumerate(names)}
        checks = self.equations.param_checks
        problems, new = [], {}
        for k, v in values.items():
            if k not in index:
                problems.append(f"parameter {k!r}: not in model {self.name!r}" + _near(k, names))
                continue
            x = number(v)
            if x is None:
                problems.append(f"parameter {k!r}: found {v!r}, expected "
                                f"{checks.get(k, FINITE).expected}")
                continue
            msg = checks.get(k, FINITE).problem(f"parameter {k!r}", v)
            if msg:
                problems.append(msg)
            new[k] = x
        if not problems and new:
            current = dict(zip(names, self.system.params.tolist()), **new)
            for chk in self.equations.expr_checks:
                if any(s.name in new for s in chk[1].free_symbols):
                    msg = expression_problem(chk, current)
                    if msg:
                        problems.append(msg)
        if problems:
            raise ParameterError(problems, subject=f"model {self.name!r}")
        for k, x in new.items():
            self.system.params[index[k]] = x

    def state_index(self, name: str) -> int:
        """Position of a state in the state vector.

        Parameters
        ----------
        name : str
            A state name (see :attr:`state_names`).

        Returns
        -------
        int

        Raises
        ------
        ParameterError
            No such state (close names are suggested).

        Examples
        --------
        >>> from bondgraph import BondGraph, One, I, C, build
        >>> bg = BondGraph("osc")
        >>> _ = bg.add(One("v"), I("m", 1.0), C.spring("k", 4.0))
        >>> _ = bg.connect("v", "m"); _ = bg.connect("v", "k")
        >>> model = build(bg)
        >>> model.state_index("osc/k.e")
        1
        >>> model.state_index("osc/k.f")
        Traceback (most recent call last):
        ...
        bondgraph.errors.ParameterError: state 'osc/k.f': not in model 'osc'; did you mean 'osc/m.f', 'osc/k.e'?
        """
        try:
            return self.state_names.index(name)
        except ValueError:
            raise ParameterError(f"state {name!r}: not in model {self.name!r}"
                                 + _near(name, self.state_names)) from None

    def initial_state(self, overrides: Mapping[str, float] | np.ndarray | None = None) -> np.ndarray:
        """Initial state vector: element initial values, with named overrides.

        Parameters
        ----------
        overrides : dict or array, optional
            State name → value, or a whole vector of the right length.

        Returns
        -------
        numpy.ndarray

        Raises
        ------
        ParameterError
            Unknown state names (all listed) or a vector of the wrong shape.

        Examples
        --------
        >>> from bondgraph import BondGraph, One, I, C, build
        >>> bg = BondGraph("osc")
        >>> _ = bg.add(One("v"), I("m", 1.0, initial=2.0), C.spring("k", 4.0))
        >>> _ = bg.connect("v", "m"); _ = bg.connect("v", "k")
        >>> model = build(bg)
        >>> model.initial_state(), model.initial_state({"osc/k.e": 3.0})
        (array([2., 0.]), array([2., 3.]))
        """
        x0 = np.array([s.initial for s in self.equations.states], dtype=float)
        if overrides is None:
            return x0
        if isinstance(overrides, np.ndarray) or isinstance(overrides, (list, tuple)):
            arr = np.asarray(overrides, dtype=float)
            if arr.shape != x0.shape:
                raise ParameterError(f"x0: shape {arr.shape}, expected {x0.shape} "
                                     f"(states: {', '.join(self.state_names)})")
            return arr.copy()
        problems = []
        for k, v in overrides.items():
            if k not in self.state_names:
                problems.append(f"initial value for {k!r}: no such state" + _near(k, self.state_names))
            else:
                x0[self.state_names.index(k)] = float(v)
        if problems:
            raise ParameterError(problems, subject=f"model {self.name!r}")
        return x0

    def __repr__(self) -> str:
        return (f"Model({self.name!r}: {len(self.state_names)} states, "
                f"{len(self.equations.params)} parameters, inputs={self.input_names})")

    def _repr_markdown_(self) -> str:
        return f"**{self.name}** — {self.report.summary()}\n\n{self.equations}"


def _near(name: str, names: list[str]) -> str:
    import difflib

    close = difflib.get_close_matches(name, names, n=3)
    return f"; did you mean {', '.join(map(repr, close))}?" if close else ""


def build(model: BondGraph | nx.MultiDiGraph, params: Mapping[str, Any] | None = None, *,
          observe: Mapping[str, Any] | None = None, cache_key: str | None = None) -> Model:
    """Assemble, assign causality, derive and compile a model.

    The generated equations and C library are cached under the fingerprint of
    the elements' relations (``$BONDGRAPH_CACHE``): building an identical model
    again — in another run, or with other parameter values — skips derivation and
    compilation (``build_times["cached"] == 1``).

    With ``cache_key`` the caller names the model completely — its structure *and*
    every value in it (a machine file's text, its mode and the package's source, see
    ``mechanisms.machine.buildkey.machine_key``): a model built before under the
    same key is loaded without collecting the elements' laws at all (the slow part of
    a cached build, ``build_times["keyed"] == 1``). The graph and its causality are
    still assembled (they are the model's ``Model.graph`` and report), and
    ``params`` still set the run-time values. A key that does not name everything a
    model depends on would load the wrong model: leave it ``None`` unless it does.

    ``Model.build_times`` has the seconds of each stage: ``assemble``,
    ``causality``, ``collect`` (element laws and the fingerprint; 0 from a keyed
    entry), ``derive``, ``generate`` (C source), ``compile`` (the C compiler alone;
    0 from the cache) and ``load``; ``cached`` and ``keyed`` are 1 when the code
    came from the cache (by fingerprint, by key).

    Parameters
    ----------
    model : BondGraph or networkx.MultiDiGraph
        A model, or an already assembled global graph.
    params : dict, optional
        Values of free symbols used in laws (see :func:`~bondgraph.equations.derive`).
    observe : dict, optional
        Observers: name → sympy expression of states, inputs, parameters, bond variables
        and ``t``, compiled with the outputs (:mod:`bondgraph.observers`): columns of the
        results, and quantities a hybrid guard reads in C.
    cache_key : str, optional
        Text that determines the model entirely (structure, parameter values, initial
        states, observers): see above. ``None`` (default): the fingerprint cache only.

    Returns
    -------
    Model

    Raises
    ------
    ModelStructureError
        A malformed graph (every problem listed), or an empty model.
    CausalityConflict
        No causality exists (every conflict named, with a fix).
    ParameterError
        ``params`` not a dict, a parameter breaking its rule, a symbol with no value.
    EquationError
        A law that cannot be written in its causality, no C compiler.

    Examples
    --------
    A damped oscillator; building it again with other values reuses the code:

    >>> from bondgraph import BondGraph, Se, One, I, C, R
    >>> def msd(m):
    ...     bg = BondGraph("msd")
    ...     _ = bg.add(Se("F", 1.0), One("v"), I("m", m), C.spring("k", 4.0), R("b", 0.2))
    ...     for a, b in [("F", "v"), ("v", "m"), ("v", "k"), ("v", "b")]:
    ...         _ = bg.connect(a, b)
    ...     return bg
    >>> first = build(msd(1.0))
    >>> again = build(msd(2.0))
    >>> again.build_times["cached"], again.params["msd/m.m"]
    (1.0, 2.0)

    An observer is compiled with the outputs and becomes a column of the results:

    >>> import sympy as sp
    >>> model = build(msd(1.0), observe={"spring_energy": sp.Symbol("msd/k.e")**2 / 8})
    >>> "spring_energy" in model.system.output_names
    True

    A key naming the model (here its only varying value) skips collecting its laws the
    second time; the run-time value is still the one given:

    >>> a = build(msd(3.0), cache_key="msd doc example, m = 3.0")
    >>> b = build(msd(3.0), cache_key="msd doc example, m = 3.0")
    >>> b.build_times["keyed"], b.build_times["collect"], b.params == a.params
    (1.0, 0.0, True)
    """
    times: dict[str, float] = {}
    if params is not None and not isinstance(params, Mapping):
        raise ParameterError(f"build({getattr(model, 'name', type(model).__name__)!r}): params "
                             f"{params!r}: found {type(params).__name__}, expected a dict "
                             "parameter name → value")
    t0 = time.perf_counter()
    g = assemble(model) if isinstance(model, BondGraph) else model
    if g.number_of_nodes() == 0:
        raise ModelStructureError(f"model {g.graph.get('name', getattr(model, 'name', '?'))!r}: "
                                  "has no elements; expected at least one storage element "
                                  "or source (add elements and bonds before build)")
    times["assemble"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    report = assign_causality(g)
    g.graph["report"] = report
    times["causality"] = time.perf_counter() - t0
    times["keyed"] = 0.0
    if cache_key is not None:
        t0 = time.perf_counter()
        cache_key = observer_key(cache_key, observe)
        hit = load_keyed(cache_key, g, report, params)
        if hit is not None:
            eqs, system, band = hit
            times.update(collect=0.0, derive=0.0, generate=0.0, compile=system.build_times["compile"],
                         cached=1.0, keyed=1.0)
            times["load"] = time.perf_counter() - t0 - times["compile"]
            built = Model(g, report, eqs, system, times)
            built._native_band = band       # the linear solver native CVODE takes (band_of)
            return built
    t0 = time.perf_counter()
    col = collect(g, params)
    key = observer_key(col.fingerprint(), observe)
    times["collect"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    cached = _load_cached(key, col, report)
    if cached is not None:
        eqs, system = cached
        times["derive"] = 0.0
        times["generate"] = 0.0
        times["compile"] = system.build_times["compile"]  # 0 unless the library was evicted
        times["load"] = time.perf_counter() - t0 - times["compile"]
        times["cached"] = 1.0
        built = Model(g, report, eqs, system, times)
        if cache_key is not None:
            save_keyed(cache_key, g, built, key)
        return built
    eqs = derive(g, params, col)
    if observe:
        eqs.observed = resolve_observers(eqs, observe, _output_names(eqs))
    times["derive"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    system = compile_equations(eqs)
    times["generate"] = system.build_times["generate"]
    times["compile"] = system.build_times["compile"]
    times["load"] = time.perf_counter() - t0 - times["generate"] - times["compile"]
    _save_cached(key, eqs, system)
    built = Model(g, report, eqs, system, times)
    if cache_key is not None:
        save_keyed(cache_key, g, built, key)
    return built


def _output_names(eqs: Equations) -> list[str]:
    """The names of the compiled outputs other than observers (as codegen orders them)."""
    return (list(eqs.bond_exprs) + [f"energy[{n}]" for n in eqs.energy]
            + [f"source_power[{n}]" for n in eqs.source_power]
            + [f"dissipation[{n}]" for n in eqs.dissipation]
            + [f"parametric[{n}]" for n in eqs.parametric])


def _cache_file(key: str):
    from .files import cache_dir

    return cache_dir() / f"eq_{key}.pkl"


def _load_cached(key: str, col, report):
    """Equations and code of an identical model built before (``None`` if not cached)."""
    import pickle

    from .codegen import CompiledSystem, build_library

    path = _cache_file(key)
    if not path.exists():
        return None
    try:
        data = pickle.loads(path.read_bytes())
        fields = data["fields"]
        fields["params"] = {k: col.d.params[k] for k in fields["params"]}  # current values
        fields["param_checks"] = dict(col.d.param_checks)  # current rules (not in the key)
        fields["expr_checks"] = list(col.d.expr_checks)
        fields["states"] = [type(s)(s.name, s.element, s.kind, col.d.state_initial.get(s.name, s.initial))
                            for s in fields["states"]]
        eqs = Equations(report=report, **fields)
        lib, t_cc = build_library(data["source"])
        system = CompiledSystem(eqs, data["source"], data["outputs"], lib)
        system.build_times["compile"] = t_cc
        return eqs, system
    except Exception:  # noqa: BLE001 - a stale or foreign cache entry: rebuild
        return None


def _save_cached(key: str, eqs: Equations, system) -> None:
    import os
    import pickle

    fields = {k: getattr(eqs, k) for k in eqs.__dataclass_fields__ if k != "report"}
    path = _cache_file(key)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    try:
        tmp.write_bytes(pickle.dumps({"fields": fields, "source": system.source,
                                      "outputs": system.output_names}))
        os.replace(tmp, path)
    except OSError:  # a read-only cache only costs speed
        pass
