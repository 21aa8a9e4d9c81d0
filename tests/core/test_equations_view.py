"""The equations users see (sympy, LaTeX) are the hand-derived ones."""

import sympy as sp

import bondgraph as bg


def test_sympy_view_of_mass_spring_damper_is_the_hand_derivation():
    M = bg.BondGraph("msd")
    M.add(bg.Se("F", 1.0), bg.One("v"), bg.I("m", 2.0), bg.C.spring("k", 50.0), bg.R("b", 0.3))
    for a, b in [("F", "v"), ("v", "m"), ("v", "k"), ("v", "b")]:
        M.connect(a, b)
    eqs = bg.build(M).equations
    assign = {}
    rows = {}
    for eq in eqs.sympy():
        name = str(eq.lhs)
        if name.startswith("der("):
            rows[name] = eq.rhs
        else:
            assign[eq.lhs] = eq.rhs
    for _ in range(len(assign)):
        rows = {k: v.xreplace(assign) for k, v in rows.items()}
    S = sp.Symbol
    F, m, c, r = S("msd/F.e"), S("msd/m.m"), S("msd/k.c"), S("msd/b.r")
    v, e = S("msd/m.f"), S("msd/k.e")
    assert sp.simplify(rows["der(msd/m.f)"] - (F - e - r * v) / m) == 0   # m v̇ = F − spring force − r v
    assert sp.simplify(rows["der(msd/k.e)"] - v / c) == 0                  # c ė = v
    tex = eqs.latex()
    assert tex.startswith("\\begin{aligned}") and "\\dot{\\mathtt{msd/m.f}}" in tex


def test_coupled_block_is_shown_as_a_matrix_equation():
    from mechanisms.examples import body_chain

    eqs = bg.build(body_chain(2, "force").bond_graph()).equations
    mats = [eq for eq in eqs.sympy() if isinstance(eq.rhs, sp.MatrixBase)]
    assert len(mats) == 1 and mats[0].rhs.shape == (2, 1)
