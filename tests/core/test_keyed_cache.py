"""The keyed model cache (:mod:`bondgraph.keyed`): a hit skips the laws, and is only
taken when it is the same model; run-time values given are applied, and checked.

The reference is always a build of the same graph without a key (the ordinary path),
and a hand solution of the model where a run is compared.
"""

from __future__ import annotations

import math
import uuid

import numpy as np
import pytest
import sympy as sp

from bondgraph import C, I, One, R, Se, build, simulate
from bondgraph.errors import ParameterError
from bondgraph.keyed import keyed_file


def oscillator(extra_damper: bool = False):
    """m·v' = F − k·x − b·v with the mass a run-time parameter (symbol ``mass``)."""
    from bondgraph import BondGraph

    bg = BondGraph("kosc")
    bg.add(Se("F", 2.0), One("v"), I("m", sp.Symbol("mass", positive=True)), C.spring("k", 50.0),
           R("b", 1.0))
    pairs = [("F", "v"), ("v", "m"), ("v", "k"), ("v", "b")]
    if extra_damper:
        bg.add(R("b2", 3.0))
        pairs.append(("v", "b2"))
    for a, b in pairs:
        bg.connect(a, b)
    return bg


@pytest.fixture
def key():
    return f"test keyed cache {uuid.uuid4()}"      # never stored before


def test_a_second_build_under_a_key_skips_the_laws_and_gives_the_same_model(key):
    first = build(oscillator(), {"mass": 2.0}, cache_key=key)
    assert first.build_times["keyed"] == 0.0 and keyed_file(key).exists()
    again = build(oscillator(), {"mass": 2.0}, cache_key=key)
    plain = build(oscillator(), {"mass": 2.0})
    assert again.build_times["keyed"] == 1.0 and again.build_times["collect"] == 0.0
    assert again.state_names == plain.state_names and again.params == plain.params
    assert again.system.output_names == plain.system.output_names
    x = np.array([0.3, 0.01])
    np.testing.assert_array_equal(again.system.rhs(0.0, x), plain.system.rhs(0.0, x))


def test_a_run_time_value_given_with_a_key_is_applied(key):
    build(oscillator(), {"mass": 2.0}, cache_key=key)
    heavy = build(oscillator(), {"mass": 8.0}, cache_key=key)
    assert heavy.build_times["keyed"] == 1.0 and heavy.params["kosc/b.r"] == 1.0
    assert heavy.params["mass"] == 8.0
    # free oscillation from rest: x(t) → F/k, damped natural frequency from m = 8 (hand solution)
    res = simulate(heavy, (0.0, 2.0), t_eval=np.linspace(0.0, 2.0, 201), rtol=1e-10, atol=1e-12,
                   progress=False)
    m, k, b, F = 8.0, 50.0, 1.0, 2.0
    zeta, wn = b / (2 * math.sqrt(k * m)), math.sqrt(k / m)
    wd = wn * math.sqrt(1 - zeta ** 2)
    t = res.t
    x = F / k * (1 - np.exp(-zeta * wn * t) * (np.cos(wd * t) + zeta / math.sqrt(1 - zeta ** 2) * np.sin(wd * t)))
    np.testing.assert_allclose(res["kosc/k.e"] / k, x, atol=1e-8)   # the spring's effort is k·x


def test_a_bad_value_given_with_a_key_is_refused_as_without_one(key):
    build(oscillator(), {"mass": 2.0}, cache_key=key)
    with pytest.raises(ParameterError) as keyed_err:
        build(oscillator(), {"mass": -1.0}, cache_key=key)
    with pytest.raises(ParameterError) as plain_err:
        build(oscillator(), {"mass": -1.0})
    assert str(keyed_err.value) == str(plain_err.value)


def test_another_graph_under_the_same_key_is_a_miss(key):
    build(oscillator(), {"mass": 2.0}, cache_key=key)
    other = build(oscillator(extra_damper=True), {"mass": 2.0}, cache_key=key)
    assert other.build_times["keyed"] == 0.0
    assert other.params["kosc/b2.r"] == 3.0          # the second damper is in the model


def test_observers_are_part_of_the_key(key):
    build(oscillator(), {"mass": 2.0}, cache_key=key)
    obs = build(oscillator(), {"mass": 2.0}, cache_key=key,
                observe={"spring_energy": sp.Symbol("kosc/k.e") ** 2 / 100})
    assert obs.build_times["keyed"] == 0.0 and "spring_energy" in obs.system.output_names


def test_a_damaged_entry_is_a_miss_not_an_error(key):
    build(oscillator(), {"mass": 2.0}, cache_key=key)
    keyed_file(key).write_bytes(b"not a pickle")
    again = build(oscillator(), {"mass": 2.0}, cache_key=key)
    assert again.build_times["keyed"] == 0.0 and again.state_names == ["kosc/m.f", "kosc/k.e"]
    assert build(oscillator(), {"mass": 2.0}, cache_key=key).build_times["keyed"] == 1.0  # rewritten


def test_an_entry_refers_to_the_fingerprints_code_and_is_a_miss_without_it(key):
    import pickle

    from bondgraph.model import _cache_file

    build(oscillator(), {"mass": 2.0}, cache_key=key)
    small = pickle.loads(keyed_file(key).read_bytes())
    assert keyed_file(key).stat().st_size < 20_000 and "source" not in small
    fp = _cache_file(small["fingerprint"])
    saved = fp.read_bytes()
    fp.unlink()
    try:
        assert build(oscillator(), {"mass": 2.0}, cache_key=key).build_times["keyed"] == 0.0
    finally:
        if not fp.exists():
            fp.write_bytes(saved)


def test_the_native_solver_choice_is_kept_with_the_entry(key):
    from bondgraph import BondGraph, Sf, Zero
    from bondgraph.native.cvode import band_of

    def chain():   # 20 masses between springs: banded, so native CVODE takes the band solver
        bg = BondGraph("kchain")
        bg.add(Sf("wall", 0.0))
        prev = "wall"
        for i in range(20):
            bg.add(Zero(f"s{i}"), C.spring(f"k{i}", 10.0), One(f"v{i}"), I(f"m{i}", 1.0), R(f"c{i}", 0.1))
            for a, b in [(prev, f"s{i}"), (f"s{i}", f"k{i}"), (f"s{i}", f"v{i}"), (f"v{i}", f"m{i}"),
                         (f"v{i}", f"c{i}")]:
                bg.connect(a, b)
            prev = f"v{i}"
        return bg

    build(chain(), cache_key=key)
    hit = build(chain(), cache_key=key)
    assert hit.build_times["keyed"] == 1.0
    found = build(chain())                         # no key: found from the equations
    assert hit._native_band == band_of(found) and hit._native_band is not None
