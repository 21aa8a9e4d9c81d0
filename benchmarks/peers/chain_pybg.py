"""Driver for PyPI bondgraph 0.2.0 (run in its own venv): derive the N-mass chain.

Prints ``N seconds`` for causality + state equations.
"""
import sys
import time

from sympy import Symbol

from bondgraph.core import Bond, BondGraph
from bondgraph.elements import Element_C, Element_I, Element_R, Source_effort, Source_flow
from bondgraph.junctions import JunctionEqualEffort, JunctionEqualFlow


def chain(n):
    g = BondGraph()
    wall = Source_flow("wall", Symbol("v_wall"))
    force = Source_effort("F", Symbol("F"))
    prev = wall
    for i in range(n):
        s, v = JunctionEqualEffort(f"s{i}"), JunctionEqualFlow(f"v{i}")
        k = Element_C(f"k{i}", Symbol(f"C{i}"), Symbol(f"q{i}"))
        m = Element_I(f"m{i}", Symbol(f"M{i}"), Symbol(f"p{i}"))
        c = Element_R(f"c{i}", Symbol(f"R{i}"))
        for a, b in [(prev, s), (s, k), (s, v), (v, m), (v, c)]:
            g.add(Bond(a, b))
        prev = v
    g.add(Bond(force, prev))
    return g


if __name__ == "__main__":
    for n in map(int, sys.argv[1:]):
        g = chain(n)
        t0 = time.perf_counter()
        eqs = g.get_state_equations()
        print(n, time.perf_counter() - t0, len(eqs), flush=True)
