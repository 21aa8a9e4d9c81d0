"""Where the pump's work goes over a valves cycle: actuator work, potential and kinetic
energy, relief, throttling, friction and the rest.

The cycle is run through the hydraulic circuit (mode ``valves``) with the energy
accounting on, and the run's own energy split
(:meth:`MachineRun.energy_split <mechanisms.machine.MachineRun.energy_split>`, every
term from the bond graph's variables) is grouped by destination of the pump work::

    pump work = relief loss + throttling loss + friction + other + ΔPE + ΔKE (+ residual)

where *other* gathers the make-up valves, leakage, end stops and cushions, the
change of the oil's compression energy and the small modelling terms (the chamber
law's parametric work, the spool model's net) and what the sampled terms miss of the
solver's integrated totals (``between the output samples``). The **actuator work** —
the cylinder forces' work on the linkage — is reported beside it: it equals ΔPE + ΔKE
(the linkage itself has no losses) and is what the hydraulics delivered. The residual
is the solver's energy balance (the run integrates its energy accounting); the output
step (``dt``) sets how much of the total the named terms resolve.

Examples
--------
>>> from mechanisms.machine import DATA
>>> ce = cycle_energy(DATA / "excavator.toml", t_end=2.0)
>>> s = ce.summary()
>>> parts = ["relief_loss", "throttling_loss", "friction", "other", "potential_energy", "kinetic_energy"]
>>> abs(sum(s[k] for k in parts) - s["pump_work"]) < 1e-4 * s["pump_work"]
True
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from bondgraph.errors import ParameterError

from ..machine.energy import GAP, SPOOL
from .result import AnalysisResult, save_figure
from .study import Study
from .threads import one_blas_thread

__all__ = ["cycle_energy", "CycleEnergy", "GROUPS", "group"]

#: destination → labels of the energy split that go there
GROUPS = {
    "relief_loss": ("relief",),
    "throttling_loss": ("throttling (valves)",),
    "friction": ("friction",),
    "potential_energy": ("potential energy",),
    "kinetic_energy": ("kinetic energy",),
}
_TITLES = {"pump_work": "pump work", "relief_loss": "relief loss", "throttling_loss": "throttling loss",
           "friction": "cylinder friction", "other": "other (make-up, leakage, stops, oil, model)",
           "potential_energy": "potential energy gained", "kinetic_energy": "kinetic energy gained",
           "actuator_work": "actuator work on the linkage", "residual": "residual (solver's balance)"}


class CycleEnergy(AnalysisResult):
    """The pump work of a cycle and where it went (see :func:`cycle_energy`).

    Attributes
    ----------
    run : MachineRun
    split : EnergySplit
        The run's own split (every label).
    terms : dict
        The destinations (J): ``pump_work``, ``relief_loss``, ``throttling_loss``,
        ``friction``, ``other``, ``potential_energy``, ``kinetic_energy``,
        ``actuator_work``, ``residual``.
    other : dict
        What *other* is made of (label → J, as a destination of the pump work).

    Examples
    --------
    The linkage has no losses: the cylinders' work on it is the potential and kinetic
    energy it gained (each term integrated separately from the bond graph):

    >>> from mechanisms.machine import DATA
    >>> ce = cycle_energy(DATA / "excavator.toml", t_end=1.0)
    >>> t = ce.terms
    >>> bool(abs(t["actuator_work"] - t["potential_energy"] - t["kinetic_energy"]) < 1e-6 * t["pump_work"])
    True
    >>> ce.table().attrs["units"]
    {'energy': 'J', 'share_of_pump_work': '%'}
    """

    name = "cycle-energy"
    summary_units = {k: "J" for k in _TITLES}

    def __init__(self, run, split, terms, other):
        self.run = run
        self.split = split
        self.terms = terms
        self.other = other

    def summary(self) -> dict[str, float]:
        """The destinations (J), as :attr:`terms`.

        Returns
        -------
        dict
        """
        return dict(self.terms)

    def table(self):
        """One row per destination (and per part of *other*): energy and share of the pump
        work (%)."""
        import pandas as pd

        pump = self.terms["pump_work"]
        rows = []
        for k in ("pump_work", "relief_loss", "throttling_loss", "friction", "other", "potential_energy",
                  "kinetic_energy", "residual", "actuator_work"):
            rows.append({"term": k, "title": _TITLES[k], "energy": self.terms[k],
                         "share_of_pump_work": 100 * self.terms[k] / pump if pump else np.nan})
        for label, v in self.other.items():
            rows.append({"term": f"other: {label}", "title": label, "energy": v,
                         "share_of_pump_work": 100 * v / pump if pump else np.nan})
        df = pd.DataFrame(rows)
        df.attrs["units"] = {"energy": "J", "share_of_pump_work": "%"}
        return df

    def plot(self, path: str | Path | None = None, ax: Any = None):
        """Stacked bars: the pump work; where it went; the actuator work (ΔPE + ΔKE).

        Parameters
        ----------
        path : str or Path, optional
            A file name.
        ax : object, optional
        """
        import matplotlib.pyplot as plt

        if ax is None:
            fig, ax = plt.subplots(figsize=(11, 6))
        else:
            fig = ax.figure
        t = {k: v / 1e3 for k, v in self.terms.items()}
        colours = {"relief_loss": "tab:red", "throttling_loss": "tab:orange", "friction": "tab:brown",
                   "other": "tab:gray", "potential_energy": "tab:green", "kinetic_energy": "tab:cyan"}
        ax.bar(0, t["pump_work"], color="tab:blue", width=0.6)
        ax.text(0, t["pump_work"], f"{t['pump_work']:.1f} kJ", ha="center", va="bottom", fontsize=9)
        up = down = 0.0       # gains stack up from zero, releases (a load lowered) down from it
        for k, c in colours.items():
            v = t[k]
            base = up if v >= 0 else down
            ax.bar(1, v, bottom=base, color=c, width=0.6, label=f"{_TITLES[k]}: {v:.1f} kJ "
                   f"({100 * self.terms[k] / self.terms['pump_work']:.1f} %)")
            if abs(v) > 0.03 * abs(t["pump_work"]):
                ax.text(1, base + v / 2, f"{100 * self.terms[k] / self.terms['pump_work']:.0f} %",
                        ha="center", va="center", fontsize=8, color="w")
            if v >= 0:
                up += v
            else:
                down += v
        bottom = up
        pe_up = pe_down = 0.0
        for k in ("potential_energy", "kinetic_energy"):
            v = t[k]
            ax.bar(2, v, bottom=pe_up if v >= 0 else pe_down, color=colours[k], width=0.6)
            if v >= 0:
                pe_up += v
            else:
                pe_down += v
        a = t["actuator_work"]
        bottom_pe = pe_up
        ax.plot([1.65, 2.35], [a, a], color="k", lw=1.2)
        ax.text(2, max(a, bottom_pe), f"{a:.1f} kJ", ha="center", va="bottom", fontsize=9)
        ax.set_xticks([0, 1, 2], ["pump work", "where it went", "actuator work\n(= ΔPE + ΔKE)"])
        ax.set_ylabel("energy over the cycle [kJ]")
        ax.axhline(0, color="k", lw=0.8)
        ax.set_ylim(1.1 * min(0.0, down, pe_down, a), 1.1 * max(t["pump_work"], bottom, a))
        ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize="small")
        desc = self.run.machine.description
        ax.set_title(f"{desc.name}: energy of the cycle {self.run.cycle.source} "
                     f"({self.run.t[0]:.1f}–{self.run.t[-1]:.1f} s)\nbalance residual "
                     f"{abs(self.terms['residual']) / max(self.terms['pump_work'], 1e-300):.1e} of the pump work",
                     fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
        fig.tight_layout()
        return save_figure(fig, path)


def group(split) -> tuple[dict[str, float], dict[str, float]]:
    """An :class:`~mechanisms.machine.energy.EnergySplit` grouped by destination of the
    pump work: ``(terms, other)``.

    Parameters
    ----------
    split : EnergySplit
        A run's :meth:`~mechanisms.machine.MachineRun.energy_split`.

    Returns
    -------
    (dict, dict)
        As :attr:`CycleEnergy.terms` and :attr:`CycleEnergy.other`.

    Raises
    ------
    ParameterError
        The run supplied no work.

    Examples
    --------
    >>> from mechanisms.machine import DATA
    >>> ce = cycle_energy(DATA / "excavator.toml", t_end=1.0)
    >>> terms, other = group(ce.split)
    >>> terms == ce.terms, bool(abs(terms["other"] - sum(other.values())) < 1e-9)
    (True, True)
    """
    T = split.terms
    supplied = set(split.supplied)
    spool = {k for k in split.terms if k.startswith(SPOOL)}
    pump_labels = [k for k in split.supplied if k in ("pump work",)] or \
        [k for k in split.supplied if k not in spool and k != "chamber law (parametric)" and not k.startswith(GAP)]
    if not pump_labels:
        raise ParameterError("cycle energy: the run has no supplied work (no pump or supply in the circuit)")
    pump = sum(T[k] for k in pump_labels)
    terms = {k: sum(T.get(label, 0.0) for label in labels) for k, labels in GROUPS.items()}
    used = {label for labels in GROUPS.values() for label in labels} | set(pump_labels)
    other: dict[str, float] = {}
    for k in split.dissipated:
        if k not in used and k not in spool:
            other[k] = other.get(k, 0.0) + T[k]
    for k in split.stored:
        if k not in used and k not in spool:
            other[f"{k} (change)"] = other.get(f"{k} (change)", 0.0) + T[k]
    for k in supplied - used - spool:
        other[k if k.startswith(GAP) else f"{k} (supplied)"] = -T[k]
    # the spool model is a signal filter in bond-graph form: its own source, damping and store
    net = sum(_label_sum(split, k) for k in spool)
    if net:
        other["spool model (net)"] = net
    terms["other"] = sum(other.values())
    terms["pump_work"] = pump
    terms["residual"] = pump - sum(terms[k] for k in ("relief_loss", "throttling_loss", "friction", "other",
                                                      "potential_energy", "kinetic_energy"))
    terms["actuator_work"] = split.actuator
    return terms, other


def _label_sum(split, label: str) -> float:
    """Dissipated + stored − supplied of one label that appears in several roles."""
    out = 0.0
    for role, sign in ((split.dissipated, 1.0), (split.stored, 1.0), (split.supplied, -1.0)):
        if label in role:
            out += sign * split.terms[label]
    return out


@one_blas_thread
def cycle_energy(machine: Any, cycle: Any = None, *, t_end: float | None = None, dt: float = 0.001,
                 **run_options: Any) -> CycleEnergy:
    """Run a valves cycle with the energy accounting on and split its pump work.

    Parameters
    ----------
    machine : path, MachineDescription, Machine or Study
        Needs a ``[circuit]``.
    cycle : str or Cycle, optional
        A named cycle of the file (default its default cycle) or a valves
        :class:`~mechanisms.machine.Cycle`.
    t_end : float, optional
        Stop time (default: the cycle's end).
    dt : float
        Output step (s): the energy terms are integrated over it (trapezoids). The
        default 1 ms keeps the sampling residual near 1e-6 of the pump work on the
        excavator's cycle (5 ms: 3e-5, the valves and the relief switch within ms).
    **run_options
        Passed to :meth:`Machine.run <mechanisms.machine.Machine.run>` (``rtol``...;
        ``progress`` is off unless given).

    Returns
    -------
    CycleEnergy

    Raises
    ------
    ParameterError
        No ``[circuit]`` in the file, an unknown cycle, a cycle of another mode.
    SimulationError
        The run fails (with its time, state and physical cause).

    Examples
    --------
    See the module and :class:`CycleEnergy`.
    """
    study = Study.of(machine)
    desc = study.description
    if desc.circuit is None:
        raise ParameterError(f"{desc.file.name}: the cycle energy needs the hydraulic circuit: the file has "
                             "no [circuit] (mode 'valves' runs the cycle through it)")
    m = study.machine("valves")
    cyc = m.cycle(cycle) if (cycle is None or isinstance(cycle, str)) else cycle
    run = m.run(cyc, t_end, dt=dt, **{"progress": False, **run_options})
    split = run.energy_split()
    terms, other = group(split)
    return CycleEnergy(run, split, terms, other)
