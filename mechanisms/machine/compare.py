"""One machine on different circuits: tool-point paths, pump work and the energy split side by side.

:func:`compare_circuits` runs the same cycle (the same spool commands) on circuit
variants of one machine file — ``{"fixed": {}, "load sensing": {"circuit.type":
"load-sensing"}}``, each a set of overrides — and :func:`compare_runs` compares
runs already made. A :class:`CircuitComparison` prints the energy split of every
run side by side (kJ and share of the pump work), the largest gap between the paths
of the first output point (the excavator's tip, the loader's edge, the crane's hook), the
pump pressure against the highest load, and explains the difference in words
computed from the runs (:meth:`CircuitComparison.explain`); it draws the tip
paths, pressures, displacement, pump power and the energy per cycle as stacked
bars (:meth:`CircuitComparison.plot`), and turns pump work into diesel
(:func:`fuel_rate`).

From the command line the same comparison reads two run folders: ``hydrobond run``
writes ``energy.csv`` next to ``results.csv`` (:func:`write_energy_csv`) and
``hydrobond compare A B`` prints the comparison when both folders have one::

    hydrobond run excavator --out out/fixed
    hydrobond run excavator --set circuit.type=load-sensing --out out/ls
    hydrobond compare out/fixed out/ls

Examples
--------
>>> from mechanisms.machine import DATA
>>> cmp = compare_circuits(DATA / "excavator.toml", {"fixed": {}, "LS": {"circuit.type": "load-sensing"}},
...                        t_end=1.0)
>>> sorted(cmp.labels), cmp["LS"].circuit
(['LS', 'fixed'], 'load-sensing')
>>> cmp["fixed"].energy.terms["relief"] > 100 * cmp["LS"].energy.terms["relief"]
True
>>> round(fuel_rate(36e6, 3600.0, efficiency=1.0, energy_density=36e6), 6)   # 1 L per hour
1.0
"""

from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from bondgraph.errors import ParameterError, UnknownNameError

from .energy import EnergySplit

__all__ = ["RunSummary", "CircuitComparison", "compare_runs", "compare_circuits", "fuel_rate",
           "write_energy_csv", "read_energy_csv", "tracking_text", "DIESEL_ENERGY_DENSITY", "ENGINE_EFFICIENCY"]

#: Diesel, lower heating value per litre (J/L): 43.0 MJ/kg (IPCC 2006 Guidelines for National
#: Greenhouse Gas Inventories, vol. 2, ch. 1, table 1.2: gas/diesel oil, net calorific value
#: 43.0 TJ/Gg) × 0.835 kg/L (EN 590 diesel: 0.820–0.845 kg/L at 15 °C) = 35.9 MJ/L.
DIESEL_ENERGY_DENSITY = 43.0e6 * 0.835
#: Brake efficiency of the engine driving the pump, shaft work over fuel energy (estimate: a
#: 20 t excavator's diesel near its working points; best points of such engines reach ~0.42).
ENGINE_EFFICIENCY = 0.35

#: how the energy split's labels are stacked in the bars (dissipation first, then storage)
_ORDER = ("relief", "centre bypass", "negative-control orifice", "throttling (valves)", "make-up valves", "leakage", "friction",
          "end stops and cushions", "LS signal lines", "spool model", "other losses",
          "oil compression", "kinetic energy", "potential energy")


def fuel_rate(energy: float, duration: float, *, efficiency: float = ENGINE_EFFICIENCY,
              energy_density: float = DIESEL_ENERGY_DENSITY) -> float:
    """Litres of diesel per hour that deliver ``energy`` (J, at the pump shaft) every
    ``duration`` seconds, at an engine ``efficiency`` (shaft work / fuel energy)."""
    for name, v in (("duration", duration), ("efficiency", efficiency), ("energy_density", energy_density)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not v > 0:
            raise ParameterError(f"fuel_rate: {name} = {v!r}, expected a finite number > 0")
    if efficiency > 1:
        raise ParameterError(f"fuel_rate: efficiency = {efficiency!r}, expected at most 1")
    return energy / duration * 3600.0 / (efficiency * energy_density)


# --------------------------------------------------------------------------- energy files
def write_energy_csv(run, path) -> Path:
    """The run's energy split as CSV (``term, kind, energy [J]``; kind supplied, dissipated,
    stored or actuator), written atomically."""
    from .files import atomic_write

    split = run.energy_split()
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["term", "kind", "energy [J]"])
    for kind, keys in (("supplied", split.supplied), ("dissipated", split.dissipated),
                       ("stored", split.stored), ("transferred", split.transferred)):
        for k in keys:
            w.writerow([k, kind, f"{split.terms[k]:.10g}"])
    w.writerow(["actuator work on the linkage", "actuator", f"{split.actuator:.10g}"])
    return atomic_write(path, buf.getvalue())


def read_energy_csv(path) -> EnergySplit:
    """An ``energy.csv`` back as an :class:`~.energy.EnergySplit`.

    Raises
    ------
    ParameterError
        Not such a file: the header, a kind or a number that is not one.
    """
    from .tomlfile import read_text_file

    text = read_text_file(path, "energy file")
    rows = [r for r in csv.reader(io.StringIO(text)) if r]
    if not rows or [c.strip() for c in rows[0]] != ["term", "kind", "energy [J]"]:
        raise ParameterError(f"energy file {path}: expected the header 'term,kind,energy [J]' "
                             f"(found {rows[0] if rows else 'nothing'})")
    split = EnergySplit({})
    problems = []
    for i, r in enumerate(rows[1:], start=2):
        if len(r) != 3:
            problems.append(f"line {i}: {len(r)} fields, expected 3")
            continue
        term, kind, val = (c.strip() for c in r)
        try:
            v = float(val)
        except ValueError:
            problems.append(f"line {i}: energy {val!r} is not a number")
            continue
        if kind == "actuator":
            split.actuator = v
            continue
        lists = {"supplied": split.supplied, "dissipated": split.dissipated, "stored": split.stored,
                 "transferred": split.transferred}
        if kind not in lists:
            problems.append(f"line {i}: kind {kind!r}, expected supplied, dissipated, stored or actuator")
            continue
        split.terms[term] = v
        lists[kind].append(term)
    if problems:
        raise ParameterError(problems, subject=f"energy file {path}")
    return split


# --------------------------------------------------------------------------- summaries
@dataclass
class RunSummary:
    """What a comparison needs of a run: its named series (SI) and energy split.

    Attributes
    ----------
    label : str
    columns : dict
        ``time``, ``tip_x``..., ``pump_pressure``... (a run's table or a results.csv).
    energy : EnergySplit or None
    circuit : str
        ``"load-sensing"`` when the run has the LS read-outs, ``"open-centre"`` when it has the
        negacon pressure, ``"fixed"`` when it has a pump and neither, ``"none"`` otherwise.
    tracking : tuple or None
        ``(median, 95th percentile)`` of the tool point's distance to the reference path (m)
        when a tracking operator drove the run (:class:`~.operator.TrackingOperator`); ``None``
        for a run of prescribed commands.
    """

    label: str
    columns: dict[str, np.ndarray]
    energy: EnergySplit | None
    circuit: str
    compensation: str | None = None
    tracking: tuple[float, float] | None = None

    @classmethod
    def from_run(cls, run, label: str) -> "RunSummary":
        from bondgraph.errors import BondGraphError

        tab = run.table()
        energy = None
        if run.machine.formulation != "cartesian":
            try:  # sampled from the bonds: also for runs without the energy accounting
                energy = run.energy_split()
            except BondGraphError:
                energy = None
        tr = getattr(run, "tracking", None)     # set by the tracking operator that drove it
        return cls(label, dict(tab), energy, _circuit_of(tab), getattr(run.machine.circuit, "kind", None),
                   None if tr is None else (tr.median, tr.p95))

    @classmethod
    def from_folder(cls, path, label: str | None = None) -> "RunSummary":
        """From a ``hydrobond run`` output folder (or its results.csv): results.csv and,
        when present, energy.csv."""
        from .table import read_csv

        p = Path(path)
        folder = p if p.is_dir() else p.parent
        results = p / "results.csv" if p.is_dir() else p
        cols, _units = read_csv(results)
        e = folder / "energy.csv"
        energy = read_energy_csv(e) if e.is_file() else None
        comp = tracking = None
        report = folder / "report.txt"
        if report.is_file():      # the report names the compensation of a load-sensing run
            text = report.read_text(encoding="utf-8", errors="replace")
            comp = "pre" if "pre-compensated" in text else ("post" if "post-compensated" in text else None)
            found = _TRACKING_LINE.search(text)   # and the tracking of a run the operator drove
            if found:
                tracking = (float(found[1]) / 1e3, float(found[2]) / 1e3)
        return cls(label or str(path), cols, energy, _circuit_of(cols), comp, tracking)

    @property
    def duration(self) -> float:
        t = self.columns["time"]
        return float(t[-1] - t[0])

    @property
    def pump_work(self) -> float | None:
        return None if self.energy is None else self.energy.terms.get("pump work")

    def points(self) -> list[str]:
        """Output points with both coordinates (``tip``, ``hook_tip``), hinge points left out,
        in the file's order (:func:`~.table.output_point_names`)."""
        from .table import output_point_names

        return output_point_names(self.columns)

    def tool_point(self) -> str | None:
        """The run's first output point (``tip`` of the excavator, ``edge`` of the wheel loader,
        ``hook`` of the crane; :func:`~.table.output_point_names`), None without one."""
        from .table import output_point_names

        return next(iter(output_point_names(self.columns)), None)


#: the operator's line in a run folder's report.txt (``hydrobond run --operator track``)
_TRACKING_LINE = re.compile(r"within (\d+(?:\.\d+)?) mm of the reference path \(median\), "
                            r"(\d+(?:\.\d+)?) mm at the 95th percentile")


def tracking_text(summary: "RunSummary") -> str:
    """How closely a run's tool point traced the reference path, or that nothing tracked it.

    Examples
    --------
    >>> import numpy as np
    >>> s = RunSummary("LS", {"time": np.zeros(2)}, None, "load-sensing", tracking=(0.016, 0.094))
    >>> tracking_text(s)
    'tracked the reference path: 16 mm median, 94 mm at the 95th percentile'
    >>> tracking_text(RunSummary("fixed", {"time": np.zeros(2)}, None, "fixed"))
    'not tracked: prescribed spool commands, its path is its own'
    """
    if summary.tracking is None:
        return "not tracked: prescribed spool commands, its path is its own"
    med, p95 = summary.tracking
    return f"tracked the reference path: {med * 1e3:.0f} mm median, {p95 * 1e3:.0f} mm at the 95th percentile"


def _circuit_of(cols: Mapping[str, Any]) -> str:
    if "ls_pressure" in cols:
        return "load-sensing"
    if "negacon_pressure" in cols:
        return "open-centre"
    return "fixed" if "pump_pressure" in cols else "none"


# --------------------------------------------------------------------------- comparison
class CircuitComparison:
    """Runs of one machine side by side (the first is the reference of the ratios)."""

    def __init__(self, summaries: list[RunSummary]):
        if len(summaries) < 2:
            raise ParameterError(f"a comparison needs at least two runs, found {len(summaries)}")
        labels = [s.label for s in summaries]
        if len(set(labels)) != len(labels):
            raise ParameterError(f"comparison: labels {labels}: expected distinct labels")
        funcs = {s.label: sorted(k[: -len("_length")] for k in s.columns if k.endswith("_length"))
                 for s in summaries}
        ref = summaries[0].label
        other = [f"{lab!r} has functions {', '.join(fs) or 'none'}" for lab, fs in funcs.items() if fs != funcs[ref]]
        if other:
            raise ParameterError(f"comparison: the runs are not of one machine: {'; '.join(other)}, expected "
                                 f"those of the reference {ref!r} ({', '.join(funcs[ref]) or 'none'})")
        self.summaries = summaries

    @property
    def labels(self) -> list[str]:
        return [s.label for s in self.summaries]

    def __getitem__(self, label: str) -> RunSummary:
        for s in self.summaries:
            if s.label == label:
                return s
        raise UnknownNameError(f"run {label!r}: not in the comparison (runs {', '.join(map(repr, self.labels))})")

    # ------------------------------------------------------------------ numbers
    @property
    def point(self) -> str | None:
        """The output point whose paths are compared: the first run's first output point
        (:meth:`RunSummary.tool_point`)."""
        return self.summaries[0].tool_point()

    def tip_gap(self, point: str | None = None) -> dict[str, tuple[float, float]]:
        """Per run after the first: largest distance of ``point`` (default :attr:`point`) to the
        first run's path at the same time (m) and when (s), over the common time span."""
        point = point or self.point
        ref = self.summaries[0].columns
        out = {}
        for s in self.summaries[1:]:
            c = s.columns
            if f"{point}_x" not in c or f"{point}_x" not in ref:
                continue
            t0, t1 = max(ref["time"][0], c["time"][0]), min(ref["time"][-1], c["time"][-1])
            sel = (ref["time"] >= t0 - 1e-12) & (ref["time"] <= t1 + 1e-12)
            t = ref["time"][sel]
            d = np.hypot(np.interp(t, c["time"], c[f"{point}_x"]) - ref[f"{point}_x"][sel],
                         np.interp(t, c["time"], c[f"{point}_y"]) - ref[f"{point}_y"][sel])
            i = int(np.argmax(d))
            out[s.label] = (float(d[i]), float(t[i]))
        return out

    def fuel(self, **kw: Any) -> dict[str, float]:
        """Litres of diesel per hour for each run repeated back to back (:func:`fuel_rate` of
        its pump work over its duration)."""
        out = {}
        for s in self.summaries:
            if s.duration > 0 and s.energy is not None and "fuel" in s.energy.terms:
                # an engine in the run: its own fuel (the Willans line of [circuit.engine])
                out[s.label] = fuel_rate(s.energy.terms["fuel"], s.duration, efficiency=1.0)
            elif s.pump_work is not None and s.duration > 0:
                out[s.label] = fuel_rate(s.pump_work, s.duration, **kw)
        return out

    # ------------------------------------------------------------------ text
    def table(self) -> str:
        """The energy splits side by side: kJ and share of each run's pump work."""
        runs = [s for s in self.summaries if s.energy is not None]
        if not runs:
            return "energy: no run has an energy split (runs without energy accounting)"
        keys: list[tuple[str, str]] = []
        for kind in ("supplied", "dissipated", "stored"):
            seen = []
            for s in runs:
                for k in getattr(s.energy, kind):
                    if k not in seen:
                        seen.append(k)
            keys += [(kind, k) for k in seen]
        w = max(12, *(len(s.label) for s in runs))
        head = f"{'energy over the run [kJ] (share of pump work)':<46}" + "".join(
            f"{s.label:>{w + 9}}" for s in runs)
        lines = [head]
        last = None
        for kind, k in keys:
            if kind != last:
                lines.append(f"{kind}:" if kind != "stored" else "stored (change):")
                last = kind
            row = f"  {k:<44}"
            for s in runs:
                v = s.energy.terms.get(k)
                pw = s.pump_work
                if v is None:
                    row += f"{'–':>{w + 9}}"
                else:
                    share = f"({100 * v / pw:5.1f}%)" if pw else ""
                    row += f"{v / 1e3:>{w}.2f}{share:>9}"
            lines.append(row)
        row = f"  {'actuator work on the linkage':<44}"
        for s in runs:
            row += f"{s.energy.actuator / 1e3:>{w}.2f}{'':>9}"
        lines.append(row)
        return "\n".join(lines)

    def explain(self) -> list[str]:
        """The difference between the first run and each other one, in sentences with numbers."""
        a = self.summaries[0]
        out = []
        gaps = self.tip_gap()
        for b in self.summaries[1:]:
            out += _explain_pair(a, b, gaps.get(b.label), self.point)
        return out

    def text(self, *, table: bool = True) -> str:
        """The runs' pump figures, the energy split side by side (``table``), diesel per hour
        and why they differ, in words with numbers."""
        lines = [f"runs: " + "; ".join(f"{s.label} ({s.circuit} circuit, {s.duration:g} s)"
                                       for s in self.summaries)]
        # the motion each run made: a comparison of energy is one of the same motion only if tracked
        lines += [f"  {s.label}: {tracking_text(s)}" for s in self.summaries]
        for s in self.summaries:
            c = s.columns
            if "pump_pressure" in c:
                p = c["pump_pressure"]
                row = (f"  {s.label}: pump pressure median {np.median(p) / 1e5:.1f} bar, peak "
                       f"{p.max() / 1e5:.1f} bar")
                if "pump_power" in c:
                    row += f"; pump power mean {np.mean(c['pump_power']) / 1e3:.1f} kW, peak " \
                           f"{c['pump_power'].max() / 1e3:.1f} kW"
                if "pump_displacement" in c:
                    row += f"; displacement peak {100 * c['pump_displacement'].max():.0f} %"
                if "negacon_pressure" in c:
                    row += f"; negacon pressure median {np.median(c['negacon_pressure']) / 1e5:.1f} bar"
                lines.append(row)
        if table:
            lines.append("")
            lines.append(self.table())
        fuel = self.fuel()
        if fuel:
            lines.append("")
            lines.append(f"diesel for the pump work, the run repeated back to back (engine efficiency "
                         f"{ENGINE_EFFICIENCY:.0%}, {DIESEL_ENERGY_DENSITY / 1e6:.1f} MJ/L): "
                         + ", ".join(f"{k} {v:.1f} L/h" for k, v in fuel.items()))
        lines.append("")
        lines.append("why they differ:")
        lines += [f"  - {x}" for x in self.explain()]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()

    # ------------------------------------------------------------------ plots
    def plot(self, path: str | Path | None = None, *, point: str | None = None):
        """Paths of ``point`` (default :attr:`point`, the first output point), pump, LS and
        negacon pressures, displacement or pump flow, pump power, and the energy per run as
        stacked bars (dissipation by kind above zero; stored energy that was given back below)."""
        import matplotlib.pyplot as plt

        point = point or self.point

        fig = plt.figure(figsize=(13, 9))
        gs = fig.add_gridspec(3, 2)
        ax_tip = fig.add_subplot(gs[0:2, 0])
        ax_p = fig.add_subplot(gs[0, 1])
        ax_a = fig.add_subplot(gs[1, 1], sharex=ax_p)
        ax_w = fig.add_subplot(gs[2, 1], sharex=ax_p)
        ax_e = fig.add_subplot(gs[2, 0])
        for s, ls in zip(self.summaries, ("-", "--", ":", "-.")):
            c = s.columns
            t = c["time"]
            if f"{point}_x" in c:
                ax_tip.plot(c[f"{point}_x"], c[f"{point}_y"], ls, label=s.label)
                ax_tip.plot(c[f"{point}_x"][0], c[f"{point}_y"][0], "ko", ms=4)
            if "pump_pressure" in c:
                ax_p.plot(t, c["pump_pressure"] / 1e5, ls, label=f"{s.label}: pump")
            if "ls_pressure" in c:
                ax_p.plot(t, c["ls_pressure"] / 1e5, ls, lw=0.8, label=f"{s.label}: LS (highest load)")
            if "negacon_pressure" in c:
                ax_p.plot(t, c["negacon_pressure"] / 1e5, ls, lw=0.8, label=f"{s.label}: negacon p_n")
            if "pump_displacement" in c:
                ax_a.plot(t, 100 * c["pump_displacement"], ls, label=f"{s.label}: displacement")
            if "relief_flow" in c and np.any(np.abs(c["relief_flow"]) > 0) and "pump_flow" in c:
                ax_a.plot(t, 100 * c["relief_flow"] / np.maximum(np.max(c["pump_flow"]), 1e-12), ls, lw=0.8,
                          label=f"{s.label}: relief flow (% of pump flow)")
            if "pump_power" in c:
                ax_w.plot(t, c["pump_power"] / 1e3, ls, label=s.label)
        ax_tip.set_aspect("equal")
        ax_tip.set(xlabel="x [m]", ylabel="y [m]", title=f"{point} paths (dots: start)")
        ax_p.set(ylabel="pressure [bar]")
        ax_a.set(ylabel="[%]")
        ax_w.set(xlabel="time [s]", ylabel="pump power [kW]")
        for ax in (ax_tip, ax_p, ax_a, ax_w):
            ax.grid(True, alpha=0.3)
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize="x-small")
        self.plot_energy(ax_e)
        fig.tight_layout()
        if path is not None:
            from .files import atomic_path

            with atomic_path(path) as tmp:
                fig.savefig(tmp, dpi=110, format=Path(path).suffix.lstrip(".") or "png")
        return fig

    def plot_energy(self, ax=None, *, per: str = "run"):
        """Stacked bars of where each run's pump work went (kJ): ``per="run"``, or
        ``per="hour"`` in kWh per hour of the run repeated back to back. Terms below 0.1 % of
        the largest pump work are left out."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4))
        runs = [s for s in self.summaries if s.energy is not None]
        small = 1e-3 * max([abs(s.pump_work or 0.0) for s in runs] + [1e-300])   # left out of the bars
        keys = [k for k in _ORDER if any(abs(s.energy.terms.get(k, 0.0)) > small for s in runs)]
        keys += sorted({k for s in runs for k in s.energy.dissipated + s.energy.stored
                        if abs(s.energy.terms[k]) > small} - set(keys))
        colors = plt.get_cmap("tab20")(np.linspace(0, 1, max(len(keys), 2)))
        x = np.arange(len(runs))
        scale = [1e3 if per == "run" else 3.6e6 * s.duration / 3600.0 for s in runs]
        up, down = np.zeros(len(runs)), np.zeros(len(runs))
        for k, col in zip(keys, colors):
            v = np.array([s.energy.terms.get(k, 0.0) for s in runs]) / scale
            pos, neg = np.maximum(v, 0), np.minimum(v, 0)
            if np.any(pos):
                ax.bar(x, pos, bottom=up, color=col, label=k)
                up += pos
            if np.any(neg):
                ax.bar(x, neg, bottom=down, color=col, hatch="//", label=k if not np.any(pos) else None)
                down += neg
        pw = np.array([s.pump_work or 0.0 for s in runs]) / scale
        ax.plot(x, pw, "k_", ms=30, mew=2, label="pump work")
        ax.axhline(0, color="k", lw=0.6)
        ax.set_xticks(x, [s.label for s in runs])
        ax.set_ylabel("energy per run [kJ]" if per == "run" else "energy per hour [kWh/h]")
        ax.set_title("where the pump work went (hatched: stored energy given back)")
        ax.legend(fontsize="x-small", ncol=2)
        ax.grid(True, axis="y", alpha=0.3)
        return ax


def _explain_pair(a: RunSummary, b: RunSummary, gap, point: str | None = "tip") -> list[str]:
    out = []
    ea, eb = a.energy, b.energy
    if ea is not None and eb is not None and a.pump_work and b.pump_work:
        out.append(f"pump work: {a.label} {a.pump_work / 1e3:.1f} kJ, {b.label} {b.pump_work / 1e3:.1f} kJ "
                   f"({100 * b.pump_work / a.pump_work:.0f} % of {a.label}'s)")
        ra, rb = ea.terms.get("relief", 0.0), eb.terms.get("relief", 0.0)
        if max(ra, rb) > 1e-3 * max(a.pump_work, b.pump_work):
            hi, lo = (a, b) if ra >= rb else (b, a)
            r_hi, r_lo = max(ra, rb), min(ra, rb)
            why = ""
            if lo.circuit == "load-sensing":
                why = (f": the load-sensing pump delivers only the flow its valves take (its "
                       f"displacement peaked at {100 * lo.columns['pump_displacement'].max():.0f} %), so "
                       "nothing is left over for the relief valve")
            elif lo.circuit == "open-centre":
                why = (f": the negative-control pump strokes back to its stand-by whenever the spools "
                       f"are near centre (displacement {100 * lo.columns['pump_displacement'].min():.0f} … "
                       f"{100 * lo.columns['pump_displacement'].max():.0f} %), and the centre gallery, not "
                       "the relief, takes what the valves do not")
            if hi.circuit == "fixed" and "relief_flow" in hi.columns and "pump_flow" in hi.columns:
                share = float(np.mean(hi.columns["relief_flow"] > 0.5 * np.max(hi.columns["pump_flow"])))
                why += (f"; in {hi.label} the fixed pump delivers its full flow all the time, and whatever the "
                        f"valves do not take goes over the relief at its setting (more than half the pump "
                        f"flow did for {100 * share:.0f} % of the run, the valves near centre)")
            out.append(f"relief loss: {hi.label} {r_hi / 1e3:.1f} kJ ({100 * r_hi / hi.pump_work:.0f} % of its "
                       f"pump work), {lo.label} {r_lo / 1e3:.2f} kJ{why}")
        ta, tb = ea.terms.get("throttling (valves)"), eb.terms.get("throttling (valves)")
        if ta is not None and tb is not None:
            row = f"throttling in the valves: {a.label} {ta / 1e3:.1f} kJ, {b.label} {tb / 1e3:.1f} kJ"
            ls = b if b.circuit == "load-sensing" else (a if a.circuit == "load-sensing" else None)
            fx = a if ls is b else b
            if ls is not None and "pump_pressure" in fx.columns:
                m = np.median(ls.columns["pump_pressure"] - ls.columns["ls_pressure"])
                comp = ""
                if "compensator_power" in ls.columns:
                    t, w = ls.columns["time"], ls.columns["compensator_power"]
                    comp = f" ({float(np.sum(0.5 * (w[1:] + w[:-1]) * np.diff(t))) / 1e3:.1f} kJ in {ls.label})"
                from .circuits_ls import COMPENSATION_WHY

                does = COMPENSATION_WHY.get(ls.compensation or "", "each section throttled to its metering drop")
                row += (f": the load-sensing pump holds its outlet {m / 1e5:.1f} bar (median) above the "
                        f"highest load, so the metering edges drop little and the compensators throttle "
                        f"({does}){comp}; in {fx.label} the pump "
                        f"sits at whatever pushes its whole flow through the valves or the relief (median "
                        f"{np.median(fx.columns['pump_pressure']) / 1e5:.0f} bar), and every metering edge "
                        "burns that surplus")
            out.append(row)
        for oc in (s for s in (a, b) if s.circuit == "open-centre"):
            out.append(_bypass_row(oc))
        wa, wb = ea.actuator, eb.actuator
        if abs(wa - wb) > 0.05 * max(abs(wa), abs(wb), 1.0):
            out.append(f"work done on the linkage: {a.label} {wa / 1e3:.1f} kJ, {b.label} {wb / 1e3:.1f} kJ: "
                       "the machines did not move alike, so weigh their energy per cycle with that in "
                       "mind (the same motion on both needs commands of its own for each circuit)")
    if gap is not None:
        d, t = gap
        row = f"{point} paths: up to {d:.2f} m apart (at t = {t:.2f} s)"
        if a.tracking is not None and b.tracking is not None:
            row += (f" at the same run time; both followed the reference path, {a.label} within "
                    f"{a.tracking[0] * 1e3:.0f} mm, {b.label} within {b.tracking[0] * 1e3:.0f} mm (median), "
                    "each at its own pace")
        if d > 0.05 and {a.circuit, b.circuit} == {"fixed", "load-sensing"} and _same_commands(a, b):
            row += (": with the same spool commands a fixed-pump valve meters more flow the higher its "
                    "supply stands above the load (Q ∝ x·√Δp), a pressure-compensated valve meters the "
                    "command times its nominal flow whatever the load, so the functions move at "
                    "other speeds")
        elif d > 0.05 and "open-centre" in {a.circuit, b.circuit} and _same_commands(a, b):
            row += (": an open-centre section sends its flow to the work port only once its centre "
                    "bypass is nearly closed (the pump pressure is what the bypasses let through at the "
                    "pump's flow), so spool commands made for closed-centre valves move it less "
                    "— or not at all against a heavy load")
        out.append(row)
    return out


def _bypass_row(oc: RunSummary) -> str:
    """What the open-centre run lost through its centre gallery, and why."""
    e = oc.energy.terms
    bypass, orifice = e.get("centre bypass", 0.0), e.get("negative-control orifice", 0.0)
    row = (f"centre gallery ({oc.label}): {(bypass + orifice) / 1e3:.1f} kJ "
           f"({100 * (bypass + orifice) / oc.pump_work:.0f} % of its pump work; {orifice / 1e3:.1f} kJ in the "
           f"negative-control orifice, {bypass / 1e3:.1f} kJ in the bypasses)")
    c = oc.columns
    if {"bypass_flow", "pump_flow", "negacon_pressure"} <= set(c):
        t = c["time"]
        v_b, v_p = float(np.trapezoid(c["bypass_flow"], t)), float(np.trapezoid(c["pump_flow"], t))
        if v_p > 0:
            row += (f": the stand-by flow returns through the gallery at the negacon pressure (median "
                    f"{np.median(c['negacon_pressure']) / 1e5:.1f} bar) whenever the spools are near "
                    f"centre — {100 * v_b / v_p:.0f} % of the pumped oil came back unused")
    return row


def _same_commands(a: RunSummary, b: RunSummary) -> bool:
    """Both runs had the same spool commands (at the first run's times)."""
    keys = [k for k in a.columns if k.endswith("_command") and k in b.columns]
    ta, tb = a.columns["time"], b.columns["time"]
    return bool(keys) and all(np.allclose(np.interp(ta, tb, b.columns[k]), a.columns[k], atol=1e-9)
                              for k in keys)


# --------------------------------------------------------------------------- entry points
def compare_runs(runs: Mapping[str, Any]) -> CircuitComparison:
    """Compare runs: label → :class:`~.run.MachineRun`, :class:`RunSummary` or a run folder."""
    from .run import MachineRun

    out = []
    for label, r in runs.items():
        if isinstance(r, RunSummary):
            out.append(RunSummary(label, r.columns, r.energy, r.circuit, r.compensation, r.tracking))
        elif isinstance(r, MachineRun):
            out.append(RunSummary.from_run(r, label))
        elif isinstance(r, (str, Path)):
            out.append(RunSummary.from_folder(r, label))
        else:
            raise ParameterError(f"compare_runs: {label!r} is {type(r).__name__}, expected a MachineRun, "
                                 "a RunSummary or a run folder")
    return CircuitComparison(out)


def compare_circuits(path, circuits: Mapping[str, Mapping[str, Any]], *, cycle=None,
                     overrides: Mapping[str, Any] | None = None, operator: str = "table",
                     **run_kw: Any) -> CircuitComparison:
    """Run the same cycle (mode valves: the same spool commands) on circuit variants of one
    machine file and compare them; or, with ``operator="track"``, the same motion: each
    variant driven along the cycle's lengths by a :class:`~.operator.TrackingOperator`, its
    tracking error stated beside the comparison.

    Parameters
    ----------
    path : str or Path
        The machine file.
    circuits : mapping
        Label → overrides selecting the circuit (``{}``: the file's own).
    cycle : Cycle or str, optional
        Default the file's default cycle.
    overrides : mapping, optional
        Applied to every variant.
    operator : {"table", "track"}
        ``"table"``: the cycle's spool commands; ``"track"``: the tracking operator on its
        lengths (each run ends when the operator reaches the reference's end).
    **run_kw
        Passed to :meth:`~.machine.Machine.run` (``t_end``, ``rtol``...); ``progress`` off by default.

    The runs are on :attr:`CircuitComparison.runs` (label → :class:`~.run.MachineRun`).
    """
    from .machine import Machine

    if not isinstance(circuits, Mapping) or len(circuits) < 2:
        raise ParameterError(f"compare_circuits: circuits = {circuits!r}, expected a mapping of at least "
                             "two labels to overrides")
    if operator not in ("table", "track"):
        raise ParameterError(f"compare_circuits: operator = {operator!r}, expected 'table' (the cycle's "
                             "spool commands) or 'track' (the tracking operator on its lengths)")
    run_kw.setdefault("progress", False)
    runs = {}
    for label, over in circuits.items():
        m = Machine.from_file(path, {**dict(overrides or {}), **dict(over)}, mode="valves")
        if operator == "track":
            from .cycle import Cycle
            from .operator import TrackingOperator

            ref = cycle if isinstance(cycle, Cycle) else m.cycle(cycle, mode="extensions")
            t_max = run_kw.pop("t_end", None)
            runs[label] = TrackingOperator(m, ref).drive(t_max, **run_kw)
            if t_max is not None:
                run_kw["t_end"] = t_max
        else:
            runs[label] = m.run(cycle, **run_kw)
    cmp = compare_runs(runs)
    cmp.runs = runs
    return cmp
