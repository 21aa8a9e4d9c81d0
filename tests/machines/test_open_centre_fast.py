"""The open-centre law's fast paths against the straightforward ones.

:class:`~mechanisms.machine.open_centre_law.OpenCentreLaw` solves the gallery in closed form
and by Newton, and starts each balance's bracket at the previous solve's pump pressure. Here
each is checked against a plain bracketed root (scipy's ``brentq``, to machine precision)
written from the laws themselves: the negative-control orifice ``Q² = c2·p_n`` with its
relief's linear opening between crack and full, the bypasses' ``signed_sqrt`` law, and a
cold-started balance.
"""

from __future__ import annotations

import math
import random

import pytest
from scipy.optimize import brentq

from mechanisms.machine import DATA, Machine
from mechanisms.machine.open_centre_law import OpenCentreLaw


@pytest.fixture(scope="module")
def law():
    m = Machine.from_file(DATA / "excavator.toml", {"circuit.type": "open-centre"}, mode="valves")
    return OpenCentreLaw(m.circuit)


def _orifice_flow(law, pn):
    """The orifice and its relief, straight from their laws (not the law's helpers)."""
    q = math.sqrt(law._c2 * pn)
    pc, pf, qr = law._relief
    return q + qr * min(max((pn - pc) / (pf - pc), 0.0), 1.0) * math.sqrt(pn / pf)


def _signed_sqrt(dp, p_tr):
    """:func:`components.hydraulics.orifice.signed_sqrt` at a number ``dp ≥ 0``."""
    if dp >= p_tr:
        return math.sqrt(dp)
    u = dp / p_tr
    return math.sqrt(p_tr) * (5 * u - u ** 3) / 4


def test_negacon_pressure_closed_form(law):
    """Below crack, in the relief's cubic and above full: the bracketed root of the flow law."""
    assert law._relief is not None, "the excavator's negative control has a relief: the cubic is exercised"
    pc, pf, qr = law._relief
    q_full = _orifice_flow(law, pf)
    worst = 0.0
    for i in range(1, 400):
        q = 1.3 * q_full * i / 400
        ref = brentq(lambda p: _orifice_flow(law, p) - q, 0.0, 2.0 * pf + q * q / law._c2, xtol=1e-12, rtol=1e-15)
        worst = max(worst, abs(law._negacon_pressure(q) - ref) / ref)
    assert worst <= 1e-9


def test_gallery_end_against_bracketed_root(law):
    """``(p_n, Q)`` of the gallery: the flow whose drops (orifice and bypasses in series) add up to p_s."""
    rnd = random.Random(7)
    p_tr, checked = law._p_tr, 0
    for _ in range(300):
        ps = rnd.choice([rnd.uniform(0.1e5, 2e5), rnd.uniform(2e5, 350e5)])   # laminar bypasses too
        x = {f: rnd.uniform(-0.45, 0.45) for f in law.functions}
        pn, q = law.gallery_end(ps, x)
        g = [law._bypass[f][0] * law.bypass_opening(f, x[f]) / math.sqrt(law._bypass[f][1]) for f in law.functions]

        def drop_sum(pn_):
            qq = _orifice_flow(law, pn_)
            return pn_ + sum(brentq(lambda d: _signed_sqrt(d, p_tr) - qq / gi, 0.0, (qq / gi) ** 2 + p_tr,
                                    xtol=1e-12, rtol=1e-15) for gi in g) - ps

        ref_pn = brentq(drop_sum, 0.0, ps, xtol=1e-12, rtol=1e-15)
        ref_q = _orifice_flow(law, ref_pn)
        assert abs(pn - ref_pn) <= 1e-9 * ref_pn + 1e-6, (ps, x)
        assert abs(q - ref_q) <= 1e-9 * ref_q, (ps, x)
        checked += 1
    assert checked == 300


def test_openings_warm_equals_cold(law):
    """Solves started at the previous solve's pump pressure give the cold-started roots."""
    a_cap = {f: law.areas[f][0] for f in law.functions}
    rnd = random.Random(3)
    tight = OpenCentreLaw.__new__(OpenCentreLaw)
    tight.__dict__.update(law.__dict__)
    tight.tol = 1e-7          # Pa: both roots (and the openings, steep in p_s near a load) to well under 1e-9
    prev_o = prev_s = None
    warm_used = 0
    for _ in range(60):
        rates = {f: rnd.uniform(-0.08, 0.12) for f in law.functions}
        forces = {f: rnd.uniform(0, 120e5) * a_cap[f] for f in law.functions}
        c = tight.openings(rates, forces)
        w = tight.openings(rates, forces, start=prev_o)
        warm_used += prev_o is not None and 0.0 < prev_o < tight.relief_pressure
        prev_o = w.pump_pressure
        assert abs(w.pump_pressure - c.pump_pressure) <= 1e-9 * c.pump_pressure
        for f in law.functions:
            assert abs(w.openings[f] - c.openings[f]) <= 1e-9 * max(abs(c.openings[f]), 1e-3)
        xs = {f: rnd.uniform(-0.6, 0.6) for f in law.functions}
        c = tight.steady(xs, forces)
        w = tight.steady(xs, forces, start=prev_s)
        prev_s = w.pump_pressure
        assert abs(w.pump_pressure - c.pump_pressure) <= 1e-9 * c.pump_pressure
    assert warm_used > 30


def test_openings_without_the_gallery_end_are_the_same_openings(law):
    """``gallery=False`` (what a tracking operator asks every sample) leaves out the gallery's end
    only: the pump pressure, openings, rates, flows and saturated functions are those of the full
    solve, at random rates, loads, held sections and largest openings."""
    rng = random.Random(7)
    for _ in range(200):
        rates = {f: rng.uniform(-0.3, 0.3) for f in law.functions}
        forces = {f: rng.uniform(-1e5, 3e5) for f in law.functions}
        held = {law.functions[0]: rng.uniform(-1, 1)} if rng.random() < 0.3 else None
        kw = dict(speed_ratio=rng.uniform(0.6, 1.1), max_opening=rng.choice([0.9, 1.0]), held=held,
                  start=rng.choice([None, rng.uniform(0, 300e5)]))
        full = law.openings(rates, forces, **kw)
        light = law.openings(rates, forces, gallery=False, **kw)
        assert (light.pump_pressure, light.openings, light.rates, light.flows, light.saturated) == \
            (full.pump_pressure, full.openings, full.rates, full.flows, full.saturated)
        assert math.isnan(light.pump_flow) and math.isnan(light.bypass_flow) and math.isnan(light.negacon_pressure)
        assert (full.negacon_pressure, full.bypass_flow) == law.gallery_end(full.pump_pressure, full.openings)
