"""The short text report of an excavator run.

Examples
--------
>>> from mechanisms.excavator import Excavator, Cycle
>>> run = Excavator(mode="extensions").run(Cycle.default("extensions"), t_end=0.2, progress=False)
>>> "loop closure" in text_report(run)
True
"""

from __future__ import annotations

import numpy as np

__all__ = ["text_report"]


def text_report(run) -> str:
    """Causal summary, peaks, cycle energy, loop-closure and energy-balance residuals."""
    exc = run.excavator
    tab = run.table()
    res = run.results
    form = getattr(exc, "formulation", "causal")
    if form == "cartesian":
        mb = exc.model.multibody
        structure = (f"Cartesian DAE (index 1, Baumgarte stabilised): {mb.n_coordinates} coordinates, "
                     f"{len(mb.constraints)} constraint rows with Lagrange multipliers (no bond graph, "
                     "no causality analysis)")
    else:
        structure = exc.report.summary()
    lines = [f"excavator run, mode {exc.mode}, formulation {form}, cycle {run.cycle.source}, "
             f"{run.t[0]:.2f} … {run.t[-1]:.2f} s",
             structure, str(exc.model.model.equations),
             f"build {exc.build_time:.2f} s; run {run.wall_time:.3f} s wall "
             f"({res.stats.get('nfev', '?')} RHS, {res.stats.get('njev', '?')} Jacobian evaluations, "
             f"{len(res.events[0])} events); {run.t[-1] / max(run.wall_time, 1e-9):.0f}× real time"]
    for f in ("boom", "arm", "bucket"):
        F = tab[f"{f}_force"]
        lines.append(f"{f:>6}: length {tab[f'{f}_length'].min():.3f} … {tab[f'{f}_length'].max():.3f} m, "
                     f"force {F.min() / 1e3:.1f} … {F.max() / 1e3:.1f} kN")
    for k in [k for k in tab if "pressure" in k]:
        lines.append(f"peak {k.replace('_', ' ')}: {np.max(tab[k]) / 1e5:.1f} bar")
    if exc.hydraulic is not None:
        lines += exc.hydraulic.report_lines(exc, run)
    if "source_work" in tab:
        pb = run.energy_balance()
        lines.append(f"energy: {pb}")
    else:
        lines.append("energy: no balance for this formulation (it has no bond graph to account power on)")
    lines.append(f"loop closure: largest gap {run.loop_closure():.2e} m over the run")
    lines.append(f"bucket tip: x {tab['tip_x'].min():.2f} … {tab['tip_x'].max():.2f} m, "
                 f"y {tab['tip_y'].min():.2f} … {tab['tip_y'].max():.2f} m")
    return "\n".join(lines)
