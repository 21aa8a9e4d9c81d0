"""Driver for BondGraphTools 0.4.6 (run in its own venv): derive the N-mass chain.

Prints ``N seconds`` for the derivation (``constitutive_relations``) only.
"""
import sys
import time

import BondGraphTools as bgt


def chain(n):
    model = bgt.new(name="chain")
    wall = bgt.new("Sf", name="wall", value=0.0)
    force = bgt.new("Se", name="F", value=1.0)
    bgt.add(model, wall, force)
    prev = wall
    for i in range(n):
        s, v = bgt.new("0", name=f"s{i}"), bgt.new("1", name=f"v{i}")
        k = bgt.new("C", name=f"k{i}", value=1.0 / (100.0 + i))
        m = bgt.new("I", name=f"m{i}", value=1.0 + 0.01 * i)
        c = bgt.new("R", name=f"c{i}", value=0.5)
        bgt.add(model, s, v, k, m, c)
        for a, b in [(prev, s), (s, k), (s, v), (v, m), (v, c)]:
            bgt.connect(a, b)
        prev = v
    bgt.connect(force, prev)
    return model


if __name__ == "__main__":
    for n in map(int, sys.argv[1:]):
        model = chain(n)
        t0 = time.perf_counter()
        rel = model.constitutive_relations
        print(n, time.perf_counter() - t0, len(rel), flush=True)
