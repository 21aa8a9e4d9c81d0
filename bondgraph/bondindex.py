"""The bonds of a built model as a plain tuple, kept on the model.

Looking a bond up by name, suffix or end points (:meth:`Results.effort
<bondgraph.results.Results.effort>`, a circuit's read-outs) walked the model's graph once
per lookup — networkx makes a tuple per edge on every walk, ~700 for the excavator, and a
run's table makes a dozen lookups. :func:`bond_edges` walks it once per model (a built
model's graph does not change) and keeps the ``(tail, head, name)`` triples; the lookups
then scan a tuple.

Examples
--------
>>> from bondgraph import BondGraph, Se, One, I, build
>>> bg = BondGraph("push")
>>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 1.0))
>>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
>>> model = build(bg)
>>> bond_edges(model)
(('push/F', 'push/v', 'push/b1'), ('push/v', 'push/m', 'push/b2'))
>>> bond_edges(model) is bond_edges(model)
True
"""

from __future__ import annotations

from typing import Any

__all__ = ["bond_edges"]


def bond_edges(model: Any) -> tuple[tuple[str, str, str], ...]:
    """Every bond of ``model.graph`` as ``(tail, head, name)``, in the graph's order.

    Parameters
    ----------
    model : Model
        A built model (:func:`~bondgraph.build`): anything with a ``graph``.

    Returns
    -------
    tuple of (str, str, str)
    """
    g = model.graph
    kept = getattr(model, "_bond_edges", None)
    if kept is None or kept[0] is not g:          # kept for this very graph
        kept = (g, tuple((u, v, k) for u, v, k in g.edges(keys=True)))
        model._bond_edges = kept
    return kept[1]
