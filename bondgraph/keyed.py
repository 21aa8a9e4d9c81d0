"""Built models cached under a key their caller gives: a warm build writes no law.

The compiled-model cache of :func:`~bondgraph.build` is keyed by the model's
fingerprint, the hash of every element law — and writing those laws (sympy) is most of
what a cached build costs. A caller that can name the model completely without
writing its laws (a machine file's text, the mode it is built for and the source of
the packages that read it: ``mechanisms.machine.buildkey.machine_key``) passes that
name as ``build(..., cache_key=...)``; what the fingerprint's cache entry does not fix
(the parameter values and rules, the initial states) is stored under it here with the
fingerprint, and the next build under the same key loads that entry's equations and
code directly instead of collecting the laws to find it.

An entry is used only if it was written for exactly this key (the whole key is stored
and compared, not only its hash), for a graph of the same elements, and if every
run-time value given (``params``) is a parameter of the entry that passes its rule;
otherwise the build takes the ordinary path (and writes the entry again). An
unreadable or foreign entry is a miss, never an error; a read-only cache only costs
speed.

Examples
--------
>>> from bondgraph import BondGraph, Se, One, I, R, build
>>> bg = BondGraph("cart")
>>> _ = bg.add(Se("F", 2.0), One("v"), I("m", 1.0), R("b", 0.5))
>>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
...     _ = bg.connect(a, b)
>>> first = build(bg, cache_key="keyed doc: cart m 1 b 0.5 F 2")
>>> keyed_file("keyed doc: cart m 1 b 0.5 F 2").exists()
True
>>> again = build(bg, cache_key="keyed doc: cart m 1 b 0.5 F 2")
>>> again.build_times["keyed"], again.state_names, again.params == first.params
(1.0, ['cart/m.f'], True)
"""

from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path
from typing import Any, Mapping

import networkx as nx

from .checks import FINITE, number

__all__ = ["keyed_file", "load_keyed", "save_keyed"]

#: layout of an entry; a change makes every older entry a miss
_FORMAT = 1


def keyed_file(key: str) -> Path:
    """The cache file of the model built under ``key`` (it may not exist).

    The name hashes the key with the entry layout and the generator's own source
    (:mod:`bondgraph.equations`, :mod:`bondgraph.codegen`, :mod:`bondgraph.elements`).

    Parameters
    ----------
    key : str

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> keyed_file("a").name == keyed_file("a").name != keyed_file("b").name
    True
    """
    from .equations import _generator_hash
    from .files import cache_dir

    digest = hashlib.sha256(f"{_FORMAT}|{_generator_hash()}|{key}".encode()).hexdigest()[:32]
    return cache_dir() / f"model_{digest}.pkl"


def save_keyed(key: str, g: nx.MultiDiGraph, model: Any, fingerprint: str) -> None:
    """Store under ``key`` what a build by ``fingerprint`` does not fix: the parameter
    values and rules, the initial states (the equations, C source and output names stay
    in the fingerprint's entry, written by :func:`~bondgraph.build`; an entry here is a
    few kilobytes), and the linear solver native CVODE takes for it (found from the
    equations' structure, ``bondgraph.native.cvode.band_of``).

    Parameters
    ----------
    key : str
    g : networkx.MultiDiGraph
        Its global graph (the element names are stored to check a later load).
    model : Model
        The model just built.
    fingerprint : str
        The cache key of its equations and code (fingerprint and observers).

    Examples
    --------
    >>> from bondgraph import BondGraph, Se, One, I, build
    >>> bg = BondGraph("push")
    >>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 2.0))
    >>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
    >>> model = build(bg, cache_key="keyed doc: push m 2")   # saves it
    >>> keyed_file("keyed doc: push m 2").stat().st_size < 20_000
    True
    """
    from .native.cvode import band_of

    eqs = model.equations
    path = keyed_file(key)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    try:
        tmp.write_bytes(pickle.dumps({
            "key": key, "nodes": sorted(g.nodes), "fingerprint": fingerprint, "params": dict(eqs.params),
            "param_checks": dict(eqs.param_checks), "expr_checks": list(eqs.expr_checks),
            "initial": {st.name: st.initial for st in eqs.states}, "band": band_of(model)}))
        os.replace(tmp, path)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):  # only costs speed
        try:
            tmp.unlink()
        except OSError:
            pass


def load_keyed(key: str, g: nx.MultiDiGraph, report: Any,
               params: Mapping[str, Any] | None) -> tuple[Any, Any] | None:
    """The equations and compiled system stored under ``key``, with ``params`` applied;
    ``None`` when there is no usable entry (see the module).

    Parameters
    ----------
    key : str
    g : networkx.MultiDiGraph
        The model's global graph, causality assigned.
    report : CausalReport
    params : mapping or None
        Run-time values (parameter name → number) to set over the stored ones.

    Returns
    -------
    (Equations, CompiledSystem, band) or None
        ``band``: ``(mu, ml)`` of native CVODE's band solver, or ``None`` for the dense one.

    Examples
    --------
    >>> import networkx as nx
    >>> load_keyed("keyed doc: never stored", nx.MultiDiGraph(), None, None) is None
    True
    """
    from .codegen import CompiledSystem, build_library
    from .equations import Equations
    from .model import _cache_file

    try:
        small = pickle.loads(keyed_file(key).read_bytes())
        if small["key"] != key or small["nodes"] != sorted(g.nodes):
            return None
        data = pickle.loads(_cache_file(small["fingerprint"]).read_bytes())
        fields = data["fields"]
        values = dict(small["params"])
        checks = small["param_checks"]
        if list(values) != list(fields["params"]):
            return None
        for k, v in (params or {}).items():
            x = number(v)
            if k not in values or x is None or checks.get(k, FINITE).problem(k, x):
                return None     # the ordinary path names the problem
            values[k] = x
        if values != small["params"]:     # other values than stored: their expressions again
            from .equations import expression_problem

            if any(expression_problem(chk, values) for chk in small["expr_checks"]):
                return None
        initial = small["initial"]
        fields.update(params=values, param_checks=checks, expr_checks=small["expr_checks"],
                      states=[type(st)(st.name, st.element, st.kind, initial[st.name]) for st in fields["states"]])
        eqs = Equations(report=report, **fields)
        lib, t_cc = build_library(data["source"])
        system = CompiledSystem(eqs, data["source"], data["outputs"], lib)
        system.build_times["compile"] = t_cc
        band = small["band"]
        return eqs, system, (None if band is None else (int(band[0]), int(band[1])))
    except Exception:  # noqa: BLE001 - no entry, or a stale or foreign one: build it
        return None
