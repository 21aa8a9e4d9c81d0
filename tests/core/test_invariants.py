"""Causality invariants and energy balance on hypothesis-generated bond graphs."""

import numpy as np
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st

import bondgraph as bg
from bondgraph.elements import Role


@st.composite
def graphs(draw, conservative=False):
    n = draw(st.integers(1, 5))
    M = bg.BondGraph("rnd")
    kinds = [draw(st.sampled_from(["0", "1"])) for _ in range(n)]
    for i, k in enumerate(kinds):
        M.add((bg.Zero if k == "0" else bg.One)(f"j{i}"))
    for i in range(1, n):
        parent = draw(st.integers(0, i - 1))
        link = draw(st.sampled_from(["bond", "TF", "GY"]))
        val = draw(st.floats(0.3, 3.0))
        if link == "bond":
            M.connect(f"j{parent}", f"j{i}")
        else:
            M.add((bg.TF if link == "TF" else bg.GY)(f"x{i}", val))
            M.connect(f"j{parent}", f"x{i}/1")
            M.connect(f"x{i}/2", f"j{i}")
    pool = ["I", "C"] if conservative else ["I", "C", "Se", "Sf", "R"]
    count = 0
    if conservative:  # one driving source keeps most graphs conflict-free
        M.add(bg.Se("drive", draw(st.floats(0.5, 2.0))))
        M.connect("drive", "j0")
    for i in range(n):
        for kind in draw(st.lists(st.sampled_from(pool), min_size=1, max_size=3)):
            val = draw(st.floats(0.5, 2.0))
            nm = f"{kind}{count}"
            count += 1
            el = {"I": lambda: bg.I(nm, val, initial=0.3), "C": lambda: bg.C(nm, val, initial=0.2),
                  "R": lambda: bg.R(nm, val), "Se": lambda: bg.Se(nm, val),
                  "Sf": lambda: bg.Sf(nm, 0.1 * val)}[kind]()
            M.add(el)
            if kind in ("Se", "Sf"):
                M.connect(nm, f"j{i}")
            else:
                M.connect(f"j{i}", nm)
    return M


def check_invariants(g):
    for u, v, k, d in g.edges(keys=True, data="effort_to"):
        assert d in (u, v), f"bond {k}: one stroke, at one of its ends"
    for n, el in g.nodes(data="element"):
        ks = [(k, d) for *_, k, d in g.in_edges(n, keys=True, data="effort_to")] + \
             [(k, d) for *_, k, d in g.out_edges(n, keys=True, data="effort_to")]
        recv = [d == n for _, d in ks]
        if el.role is Role.ZERO:
            assert sum(recv) == 1, f"{n}: exactly one effort-in bond"
        elif el.role is Role.ONE:
            assert len(recv) - sum(recv) == 1, f"{n}: exactly one flow-in bond"
        elif el.role is Role.TRANSFORMER:
            assert recv[0] != recv[1]
        elif el.role is Role.GYRATOR:
            assert recv[0] == recv[1]
        elif el.role is Role.EFFORT_SOURCE:
            assert recv == [False]
        elif el.role is Role.FLOW_SOURCE:
            assert recv == [True]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs())
def test_causality_invariants_or_named_conflict(M):
    g = bg.assemble(M)
    try:
        rep = bg.assign_causality(g)
    except bg.CausalityConflict as exc:
        assert exc.conflicts and all(c.element for c in exc.conflicts)
        assert "Fix:" in str(exc)
        return
    check_invariants(g)
    integral = {s.rsplit(".", 1)[0] for s in rep.states}
    dependent = {d.element for d in rep.derivative}
    storage = {n for n, el in g.nodes(data="element") if el.role in (Role.C_STORAGE, Role.I_STORAGE)}
    assert integral | dependent == storage and not integral & dependent


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs(conservative=True))
def test_energy_balance_on_conservative_graphs(M):
    try:
        model = bg.build(M)
    except (bg.CausalityConflict, bg.EquationError) as exc:
        event(f"not simulated: {type(exc).__name__}")
        return
    if not model.state_names:
        event("no states")
        return
    try:
        res = bg.simulate(model, (0, 1.0), rtol=1e-11, atol=1e-13, energy=True, progress=False)
    except bg.SimulationError as exc:  # a singular random structure
        event("singular")
        note(str(exc))
        return
    pb = bg.power_balance(res)
    note(str(pb))
    scale = max(abs(pb.source_work), abs(pb.stored_change))
    if scale < 1e-9:
        event("no power exchanged")
        return
    event("balance checked")
    assert pb.relative < 1e-8
    assert abs(pb.dissipated) < 1e-12
