"""A model derived again is the same model, bit for bit, whatever the process's hash seed.

Python randomises the hash of strings per process (``PYTHONHASHSEED``), and so the
iteration order of a set of names or of sympy symbols. The derivation must not follow
it: the same graph, derived in two fresh processes with other hash seeds and empty
compile caches, gives the same generated C source character for character (the order
of the intermediates, of the loop unknowns, of the parameters and of the monitored
divisors are all written into it), and the same Modelica export (its law parameters).

The model has what each of those orders came from: a chain of masses (many
intermediates), a resistive ladder between neighbours (an algebraic loop each: several
torn unknowns), an inertia moved by two masses' relative velocity (dependent: the masses'
accelerations form one coupled block), and a resistance modulated in time by three
divisors whose coefficients are values passed to ``build`` (parameters no element owns).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import sympy as sp

import bondgraph as bg

ROOT = Path(__file__).resolve().parents[2]
SEEDS = (0, 12345)
PARAMS = {"ra": 0.5, "rb": 0.25, "rc": 0.125}


def coupled_ladder_chain(n: int = 6) -> bg.BondGraph:
    """Masses in a chain; between neighbours a spring, a resistive ladder and a dependent
    inertia on their relative velocity; on the first mass a time-modulated damper."""
    M = bg.BondGraph("lc")
    ra, rb, rc = sp.symbols("ra rb rc", positive=True)
    M.add(bg.Se("F", 1.0),
          bg.R("rm", ra / (2 + sp.sin(bg.t)) + rb / (3 + sp.cos(bg.t)) + rc / (4 + sp.sin(2 * bg.t))))
    for i in range(n):
        M.add(bg.One(f"v{i}"), bg.I(f"m{i}", 1.0 + 0.1 * i))
        M.connect(f"v{i}", f"m{i}")
        if i == 0:
            M.connect("F", "v0")
            M.connect("v0", "rm")
            continue
        M.add(bg.Zero(f"s{i}"), bg.C.spring(f"k{i}", 50.0 + i, state="energy"),
              bg.One(f"a{i}"), bg.R(f"R1_{i}", 1.0 + i), bg.Zero(f"b{i}"), bg.R(f"R2_{i}", 2.0 + i),
              bg.One(f"c{i}"), bg.R(f"R3_{i}", 3.0), bg.R(f"R4_{i}", 4.0),
              bg.Zero(f"q{i}"), bg.One(f"d{i}"), bg.I(f"j{i}", 0.2 + 0.01 * i), bg.R(f"r{i}", 0.3))
        for a, b in [(f"v{i - 1}", f"s{i}"), (f"s{i}", f"k{i}"), (f"s{i}", f"v{i}"), (f"s{i}", f"a{i}"),
                     (f"a{i}", f"R1_{i}"), (f"a{i}", f"b{i}"), (f"b{i}", f"R2_{i}"), (f"b{i}", f"c{i}"),
                     (f"c{i}", f"R3_{i}"), (f"c{i}", f"R4_{i}"),
                     (f"v{i - 1}", f"q{i}"), (f"q{i}", f"v{i}"), (f"q{i}", f"d{i}"), (f"d{i}", f"j{i}"),
                     (f"d{i}", f"r{i}")]:
            M.connect(a, b)
    return M


#: run in a fresh process: build the model above, write its C source and its Modelica export
CHILD = """
import sys
sys.path.insert(0, sys.argv[2])
import bondgraph as bg
from bondgraph.export.modelica import to_modelica
from test_hash_seed import PARAMS, coupled_ladder_chain
m = bg.build(coupled_ladder_chain(), PARAMS)
assert m.build_times.get("cached", 0.0) == 0.0, "the cache was not empty"
open(sys.argv[1] + ".c", "w").write(m.system.source)
open(sys.argv[1] + ".mo", "w").write(to_modelica(m).text)
"""


def derived_in(seed: int, tmp_path: Path) -> tuple[str, str]:
    """The model's C source and Modelica export as a fresh process with hash seed ``seed``
    derives them."""
    cache, out = tmp_path / f"cache{seed}", tmp_path / f"model{seed}"
    env = dict(os.environ, PYTHONHASHSEED=str(seed), BONDGRAPH_CACHE=str(cache),
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-c", CHILD, str(out), str(Path(__file__).parent)], cwd=ROOT,
                          env=env, capture_output=True, text=True)
    assert proc.returncode == 0, f"the derivation under hash seed {seed} failed:\n{proc.stderr[-3000:]}"
    return Path(f"{out}.c").read_text(), Path(f"{out}.mo").read_text()


def first_difference(a: str, b: str) -> str:
    for i, (x, y) in enumerate(zip(a.splitlines(), b.splitlines())):
        if x != y:
            return f"line {i + 1}: {x.strip()!r} against {y.strip()!r}"
    return f"lengths {len(a)} and {len(b)}"


def test_the_model_has_what_the_orders_came_from():
    """Not vacuous: loops, a coupled block, three divisors of one element, parameters no
    element owns."""
    m = bg.build(coupled_ladder_chain(), PARAMS)
    eqs = m.equations
    assert len(m.report.loops) == 5 and sum(k == "z" for k in eqs.unknown_kind) == 5
    assert max(len(b.unknowns) for b in eqs.blocks) == 6
    assert [d.elements for d in eqs.divisors if d.kind == "modulus"] == [("lc/rm",)] * 3
    assert {"ra", "rb", "rc"} <= set(eqs.params) and len(eqs.intermediates) > 20


def test_two_hash_seeds_derive_the_same_c_source_and_modelica_model(tmp_path):
    (c_a, mo_a), (c_b, mo_b) = (derived_in(s, tmp_path) for s in SEEDS)
    assert c_a == c_b, f"seeds {SEEDS} derive other C sources, first at {first_difference(c_a, c_b)}"
    assert mo_a == mo_b, f"seeds {SEEDS} export other Modelica, first at {first_difference(mo_a, mo_b)}"
