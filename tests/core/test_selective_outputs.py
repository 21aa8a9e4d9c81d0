"""Output-selective batched evaluation (``evaluate_many(..., outputs=...)``,
:mod:`bondgraph.selective`) against the full evaluation's columns, on random states,
inputs and times: a model with a coupled block (LU), one with a nonlinear algebraic loop
(Newton), a crank whose block divides by a modulus that vanishes at its dead centre, and
the excavator's statics model (11 blocks, 624 outputs) and its valve-driven model (27
states, 915 outputs, loaded from the compile cache). The full evaluation runs the model's
own ``bg_out``; the selective one a function made from its source with the statements the
outputs do not read dropped: the same arithmetic, so the same bits.

Also: the slice is what the outputs read (a point's velocity on the excavator needs no
block, its holding forces every one), a block the outputs do not read is not solved (its
singularity does not reach them), unknown names are refused by name, all at once."""

import math

import numpy as np
import pytest
import sympy as sp

import bondgraph as bg
from bondgraph.batch import evaluate_many
from bondgraph.errors import BondGraphError, ParameterError, UnknownNameError
from bondgraph.selective import select_source, selected_outputs


def coupled():
    """Two masses driving a third through v_M = cos(t)·v1 + v2 (m1 massless): a coupled
    2 × 2 block (the model of tests/core/test_singular.py)."""
    G = bg.BondGraph("cpl")
    G.add(bg.Se("F1", 0.0), bg.One("v1"), bg.I("m1", 0.0, prefer="state"), bg.Se("F2", 1.0),
          bg.One("v2"), bg.I("m2", 1.0, prefer="state"), bg.MTF("t1", sp.cos(bg.t)),
          bg.MTF("t2", 1.0 + 0 * bg.t), bg.Zero("z"), bg.One("vm"), bg.I("M", 2.0, prefer="dependent"))
    for a, b in [("F1", "v1"), ("v1", "m1"), ("F2", "v2"), ("v2", "m2"), ("v1", "t1/1"),
                 ("t1/2", "z"), ("v2", "t2/1"), ("t2/2", "z"), ("z", "vm"), ("vm", "M")]:
        G.connect(a, b)
    return bg.build(G)


def loop():
    """A source behind a resistor feeding a sinh resistor in parallel with a branch of a
    mass and a spring: the sinh law closes a nonlinear algebraic loop (a Newton block);
    the source's effort is an input."""
    G = bg.BondGraph("loop")
    G.add(bg.MSe("E", bg.Input("E")), bg.One("a"), bg.R("r0", 1.5), bg.Zero("p"),
          bg.R("r1", effort=lambda f: 0.5 * sp.sinh(f)), bg.One("b"), bg.R("r2", 0.7), bg.I("m", 0.4),
          bg.C("c", 0.3))
    for a, b in [("E", "a"), ("a", "r0"), ("a", "p"), ("p", "r1"), ("p", "b"), ("b", "r2"), ("b", "m"),
                 ("b", "c")]:
        G.connect(a, b)
    return bg.build(G)


def crank():
    """A crank driven through n(θ) = r·d·sin θ / L(θ) with the rod mass as the state: the
    crank's speed is v/n, a block that divides by n, singular at θ = 0."""
    G = bg.BondGraph("crank")
    w = bg.One("w", displacement="theta", initial=0.5)
    th = w.displacement
    n = 0.3 * sp.sin(th) / sp.sqrt(0.3**2 + 1 - 2 * 0.3 * sp.cos(th))
    G.add(bg.I("m", 2.0, initial=1.0, prefer="state"), bg.One("v"), w, bg.I("J", 0.5), bg.Se("F", 100.0),
          bg.MTF("rod", n))
    for a, b in [("w", "J"), ("w", "rod/1"), ("rod/2", "v"), ("v", "m"), ("F", "v")]:
        G.connect(a, b)
    return bg.build(G)


@pytest.fixture(scope="module")
def excavator_statics():
    from mechanisms.analysis import Study
    from mechanisms.machine import DATA

    return Study(DATA / "excavator.toml").statics


def _random_rows(model, rng, n):
    X = rng.uniform(-2.0, 2.0, (n, model.system.nx))
    U = rng.uniform(-2.0, 2.0, (n, len(model.equations.inputs)))
    T = rng.uniform(0.0, 3.0, n)
    return X, U, T


def _compare(system, names, X, U, T):
    full, st_full = evaluate_many(system, X, U, select=names, t=T, status=True)
    sel, st_sel = evaluate_many(system, X, U, outputs=names, t=T, status=True)
    assert full.shape == sel.shape == (len(X), len(names))
    ok = st_full == 0          # where the whole model evaluates, so do the outputs
    assert np.all(st_sel[ok] == 0)
    assert np.array_equal(np.isnan(full[ok]), np.isnan(sel[ok]))
    a, b = full[ok], sel[ok]
    fin = np.isfinite(a)
    scale = np.maximum(np.abs(a[fin]), 1.0)
    assert np.all(np.abs(a[fin] - b[fin]) <= 1e-12 * scale)
    # the same statements, the same common subexpressions: the same bits
    assert np.array_equal(a, b, equal_nan=True)
    return full, sel, st_full, st_sel


@pytest.mark.parametrize("make", [coupled, loop, crank], ids=["coupled-block", "newton-loop", "crank"])
def test_selected_outputs_equal_the_full_columns(make):
    model = make()
    names = model.system.output_names
    rng = np.random.default_rng(7)
    X, U, T = _random_rows(model, rng, 400)
    picks = [[names[0]], [names[-1]], list(rng.choice(names, size=min(5, len(names)), replace=False)),
             list(reversed(names))]
    for pick in picks:
        _compare(model.system, pick, X, U, T)


def test_the_excavators_statics_outputs_equal_the_full_columns(excavator_statics):
    st = excavator_statics
    system = st.model.system
    rng = np.random.default_rng(11)
    # poses near the start pose (every block solvable), random rates
    x0 = st.model.initial_state(st.machine.start_pose.states())
    X = x0 + rng.normal(0.0, 0.05, (2000, system.nx))
    U = rng.uniform(-1.0, 1.0, (2000, len(st.model.input_names)))
    holding = list(st.drive.values()) + [p[3] for p in st.pins]
    velocity = list(st.point_outputs("bucket", "Q"))
    for names in (holding, velocity, list(rng.choice(system.output_names, size=40, replace=False))):
        _compare(system, names, X, U, 0.0)
    # the slice: the point's velocity per unit rate reads no block; the holding forces
    # read every one (they are what marks a pose the linkage cannot take)
    eqs = system.equations
    v_sel = selected_outputs(system, velocity)
    assert v_sel.blocks == frozenset()
    assert selected_outputs(system, holding).blocks == frozenset(range(len(eqs.blocks)))
    assert len(v_sel.intermediates) < len(eqs.intermediates) / 4


def test_a_model_loaded_from_the_cache_selects_its_own_arithmetic():
    """The valves model of the excavator (its C source from the compile cache): outputs
    of the hydraulics, the front and the energy balance, bit for bit."""
    from mechanisms.analysis import Study
    from mechanisms.machine import DATA

    model = Study(DATA / "excavator.toml").machine("valves").model.model
    system = model.system
    rng = np.random.default_rng(5)
    X = model.initial_state() * (1.0 + rng.normal(0.0, 1e-3, (300, system.nx)))
    U = rng.uniform(-1.0, 1.0, (300, len(model.input_names)))
    names = system.output_names
    for pick in ([n for n in names if n.startswith("energy[")], list(rng.choice(names, 25, replace=False))):
        _compare(system, pick, X, U, 0.0)


def test_a_block_the_outputs_do_not_read_is_not_solved():
    """At the crank's dead centre (θ = 0, n = 0) the block giving the crank's speed v/n is
    singular: the full evaluation fails the row; an output that reads that block fails it
    too (NaN, the block's status), the source's effort does not."""
    model = crank()
    system = model.system
    names = system.output_names
    x_dead = model.initial_state().copy()
    x_dead[model.state_names.index("crank/w.theta")] = 0.0
    X = np.vstack([model.initial_state(), x_dead])
    full, st_full = evaluate_many(system, X, select=names, status=True)
    assert st_full[0] == 0 and st_full[1] != 0 and np.all(np.isnan(full[1]))
    needing = [n for n in names if select_source(system.source, [names.index(n)])[1]]
    free = [n for n in names if not select_source(system.source, [names.index(n)])[1]]
    (f_bond,) = [k for u, v, k in model.graph.out_edges("crank/F", keys=True)]
    assert f"e[{f_bond}]" in free and needing
    Y, st = evaluate_many(system, X, outputs=[f"e[{f_bond}]"], status=True)
    assert st.tolist() == [0, 0] and Y[:, 0].tolist() == [100.0, 100.0]
    Y, st = evaluate_many(system, X, outputs=needing, status=True)
    assert st[0] == 0 and st[1] == st_full[1] and np.all(np.isnan(Y[1]))
    assert np.array_equal(Y[0], full[0, [names.index(n) for n in needing]])


def test_unknown_outputs_are_refused_by_name_all_at_once():
    model = loop()
    system = model.system
    X = np.zeros((2, system.nx))
    good = system.output_names[0]
    with pytest.raises(UnknownNameError) as exc:
        evaluate_many(system, X, inputs=[1.0], outputs=[good, "e[loop/nope]", "f[loop/b99]", good])
    err = exc.value
    assert isinstance(err, BondGraphError) and isinstance(err, ParameterError)
    text = str(err)
    assert "'e[loop/nope]': not an output of 'loop'" in text
    assert "'f[loop/b99]': not an output of 'loop'" in text
    assert f"{good!r}: asked for twice" in text and len(err.problems) == 3
    with pytest.raises(UnknownNameError, match="no outputs asked for"):
        evaluate_many(system, X, inputs=[1.0], outputs=[])
    with pytest.raises(ParameterError, match="takes no select="):
        evaluate_many(system, X, inputs=[1.0], outputs=[good], select=[good])
    with pytest.raises(ParameterError, match="only what='outputs'"):
        evaluate_many(system, X, inputs=[1.0], outputs=[good], what="rhs")


def test_the_selection_is_kept_per_model_and_its_library_on_disk():
    model = coupled()
    names = model.system.output_names[:3]
    first = selected_outputs(model.system, names)
    assert selected_outputs(model.system, list(names)) is first
    assert first.path.exists()
    other = coupled()       # a model built again: its own function object, the same library
    again = selected_outputs(other.system, names)
    assert again is not first and again.path == first.path and again.compile_time == 0.0
    X = np.array([[0.3, -0.2]])
    assert np.array_equal(evaluate_many(model.system, X, outputs=names, t=0.4),
                          evaluate_many(other.system, X, outputs=names, t=0.4))
    assert math.isfinite(float(evaluate_many(model.system, X, outputs=names, t=0.4)[0, 0]))


def test_a_source_of_another_form_is_refused_by_name():
    with pytest.raises(bg.EquationError, match="no bg_out of the expected form"):
        select_source("int main(void) { return 0; }", [0])


def test_native_input_tables_reach_the_selected_outputs():
    """With the model's inputs evaluated in C from tables (as a run sets them), the selected
    outputs read the tables as bg_out does, not the inputs passed."""
    model = loop()
    system = model.system
    names = system.output_names
    (e_bond,) = [k for u, v, k in model.graph.out_edges("loop/E", keys=True)]
    pick = [f"e[{e_bond}]", names[-1]]
    X = np.random.default_rng(3).uniform(-1.0, 1.0, (50, system.nx))
    table = np.array([1, 0, 0.0, 0.0, 1.0, 7.5])     # one constant piece: E = 7.5
    system.set_native_inputs([table], [-1])
    try:
        full = evaluate_many(system, X, [1.0], select=pick)
        sel = evaluate_many(system, X, [1.0], outputs=pick)
    finally:
        system.set_native_inputs(None)
    assert np.all(full[:, 0] == 7.5) and np.array_equal(full, sel)
    assert np.all(evaluate_many(system, X, [1.0], outputs=pick)[:, 0] == 1.0)   # tables off: the input given
