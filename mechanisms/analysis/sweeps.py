"""Parameter sweeps of an analysis: a grid or a sample of values, local processes or Dask.

:func:`sweep` runs an analysis (``"working-range"``, ``"tool-forces"``,
``"lift-capacity"``, ``"cycle-energy"`` or your own function of a
:class:`~.study.Study`) at every point of a grid (the product of each parameter's
values) or of a Latin-hypercube sample over their ranges, and returns a
:class:`pandas.DataFrame`: one row per point, the parameters' values (SI, units in
``df.attrs["units"]``), the analysis's headline numbers, what each point rebuilt, and
the named error of a point that failed (the others go on).

Parameters are dotted keys of the machine file with values carrying units, given as

* a range ``"120..160 mm:5"`` (five values from 120 to 160 mm), a list
  ``"120, 140, 160 mm"``, a Python list of values with units (``["120 mm", "0.14 m"]``),
  or ``(numbers, "mm")``;
* a point's coordinate with ``.x``/``.y`` (``"arm.points.G.x"``): the rest of the point
  (its port class, the other coordinate) is the file's.

Each worker keeps one :class:`~.study.Study` and moves it from point to point, so a
point rebuilds only what its change reaches (a bore or a mass: parameter values of
the compiled models; a pin: the kinematics and the models, which the compile cache
makes cheap for a geometry seen before); points are ordered with the keys that
rebuild outermost. Results do not depend on that history (every point starts from
the base description and the start pose).

Within one sweep a process also keeps the tool-force evaluations it made (the maps over
the stroke grid, the optimiser's probes) under the key of every input they read
(:mod:`.reuse`): a point whose change reaches none of them — a boom bore, for the arm's
and the bucket's tool forces — replays them instead of evaluating again, and gets the
same numbers. Chunks of points sent to processes keep together the points that share
the values the statics model and the kinematics read (a bucket mass), so each
evaluation is made in one process only. What is kept is forgotten when the sweep ends.

Work runs in local processes by default (``processes``, default all cores), serially
with ``processes=1``, or on a Dask cluster when ``client`` is a
``distributed.Client`` (``hydrobond sweep --scheduler ADDRESS``); a progress bar
counts the points. Local processes are forked once and kept for the next sweep of the
same machine (:mod:`.workers`; :func:`~.workers.close_workers` ends them); they read and
check their points themselves, side by side, and a bad point still stops the sweep
before its analyses with the error a serial sweep gives. Ctrl-C stops a sweep at once.

Examples
--------
>>> from mechanisms.machine import DATA
>>> df = sweep(DATA / "excavator.toml", {"bucket_cylinder.bore": "90..100 mm:2"}, "tool-forces",
...            options={"n": 12, "functions": ["bucket"]}, processes=1, progress=False)
>>> df["bucket_cylinder.bore"].tolist(), (df["bucket_tool_force"] / 1e3).round(1).tolist()
([0.09, 0.1], [70.3, 86.8])
>>> df["rebuilt"].tolist(), df.attrs["units"]["bucket_tool_force"]          # bores: no model touched
(['', ''], 'N')
"""

from __future__ import annotations

import itertools
import math
import os
import re
import threading
import uuid
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from bondgraph.errors import BondGraphError, ParameterError
from .progress import silenced
from .reuse import EvaluationMemo, reusing

__all__ = ["sweep", "ANALYSES", "parse_values", "run_analysis", "Combined"]


def _analyses() -> dict[str, Callable]:
    from .energy import cycle_energy
    from .lifting import lift_capacity
    from .loading import breakout_forces
    from .digging import tool_forces
    from .reach import working_range

    return {"working-range": working_range, "tool-forces": tool_forces, "lift-capacity": lift_capacity,
            "breakout-forces": breakout_forces, "cycle-energy": cycle_energy}


#: analysis name → ``function(study, **options)`` returning an AnalysisResult
ANALYSES = ("working-range", "tool-forces", "lift-capacity", "breakout-forces", "cycle-energy")

_RANGE = re.compile(r"^\s*([+-]?[\d.eE+-]+)\s*\.\.\s*([+-]?[\d.eE+-]+)\s*([^:]*?)\s*:\s*(\d+)\s*$")


class Combined:
    """Several analyses of one point: their summaries side by side (see :func:`run_analysis`).

    Parameters
    ----------
    results : mapping
        Analysis name → its result.

    Examples
    --------
    See :func:`run_analysis`.
    """

    def __init__(self, results: Mapping[str, Any]):
        self.results = dict(results)

    def summary(self) -> dict[str, float]:
        """Every result's summary, merged.

        Returns
        -------
        dict
        """
        out: dict[str, float] = {}
        for r in self.results.values():
            out.update(r.summary())
        return out

    @property
    def summary_units(self) -> dict[str, str]:
        """Every result's summary units, merged."""
        out: dict[str, str] = {}
        for r in self.results.values():
            out.update(r.summary_units)
        return out


def run_analysis(study, analysis: str | Callable | Sequence, options: Mapping[str, Any] | None = None):
    """Run an analysis by name (or a callable of the study) with its options; a list of
    names runs each (``options`` then maps each name to its options) into a :class:`Combined`.

    Parameters
    ----------
    study : Study
    analysis : str, callable or sequence
        A name of :data:`ANALYSES`, ``f(study, **options)``, or a list of them.
    options : mapping, optional

    Returns
    -------
    AnalysisResult or Combined

    Raises
    ------
    ParameterError
        An unknown analysis (the closest name suggested), options for an analysis not run.

    Examples
    --------
    >>> from mechanisms.machine import DATA
    >>> from mechanisms.analysis import Study
    >>> study = Study(DATA / "excavator.toml")
    >>> both = run_analysis(study, ["working-range", "tool-forces"],
    ...                     {"working-range": {"n": 12}, "tool-forces": {"n": 12, "functions": ["bucket"]}})
    >>> both.summary_units["max_reach"], both.summary_units["bucket_tool_force"]
    ('m', 'N')
    >>> run_analysis(study, "tool-force")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: analysis 'tool-force': expected one of working-range, tool-forces, lift-capacity, breakout-forces, cycle-energy; did you mean 'tool-forces'?
    """
    options = dict(options or {})
    if isinstance(analysis, (list, tuple)):
        bad = [k for k in options if k not in analysis]
        if bad:
            raise ParameterError([f"options for {k!r}: not one of the analyses run ({', '.join(analysis)}); "
                                  "with several analyses, options are given per analysis name" for k in bad])
        return Combined({a: run_analysis(study, a, options.get(a)) for a in analysis})
    if callable(analysis):
        return analysis(study, **options)
    table = _analyses()
    if analysis not in table:
        import difflib

        close = difflib.get_close_matches(str(analysis), list(table), n=1)
        raise ParameterError(f"analysis {analysis!r}: expected one of {', '.join(table)}"
                             + (f"; did you mean {close[0]!r}?" if close else ""))
    return table[analysis](study, **options)


# --------------------------------------------------------------------------- values
def parse_values(key: str, spec: Any) -> list[Any]:
    """The values of one swept parameter (each with its unit) from its specification.

    Parameters
    ----------
    key : str
        The dotted key (for messages).
    spec : str, list or (numbers, unit)
        See the module.

    Returns
    -------
    list
        Values with units (text).

    Raises
    ------
    ParameterError
        A malformed range or list.

    Examples
    --------
    >>> parse_values("boom_cylinder.bore", "120..160 mm:3")
    ['120 mm', '140 mm', '160 mm']
    >>> parse_values("bucket.mass", "700, 900 kg")
    ['700 kg', '900 kg']
    >>> parse_values("bucket.mass", ([700, 900], "kg"))
    ['700 kg', '900 kg']
    """
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], str):
        nums, unit = spec
        vals = np.atleast_1d(np.asarray(nums, dtype=float))
        return [_fmt(v, unit) for v in vals]
    if isinstance(spec, str):
        m = _RANGE.match(spec)
        if m:
            lo, hi, unit, count = float(m.group(1)), float(m.group(2)), m.group(3), int(m.group(4))
            if count < 1 or not (math.isfinite(lo) and math.isfinite(hi)):
                raise ParameterError(f"sweep {key!r}: {spec!r}: expected LOW..HIGH UNIT:COUNT with COUNT ≥ 1")
            if count == 1 and lo != hi:
                raise ParameterError(f"sweep {key!r}: {spec!r}: one value cannot span {lo:g}..{hi:g}; "
                                     "give COUNT ≥ 2")
            return [_fmt(v, unit) for v in np.linspace(lo, hi, count)]
        if ".." in spec:
            raise ParameterError(f"sweep {key!r}: {spec!r}: a range is LOW..HIGH UNIT:COUNT, "
                                 "e.g. \"120..160 mm:5\"")
        parts = [p.strip() for p in spec.split(",") if p.strip()]
        if not parts:
            raise ParameterError(f"sweep {key!r}: no values in {spec!r}")
        unit = ""
        last = re.match(r"^[+-]?[\d.eE+-]+\s*(.*)$", parts[-1])
        if last:
            unit = last.group(1)
        out = []
        for p in parts:
            if re.fullmatch(r"[+-]?[\d.]+(?:[eE][+-]?\d+)?", p) and unit:
                out.append(f"{p} {unit}")
            else:
                out.append(p)
        return out
    if isinstance(spec, (list, tuple, np.ndarray)):
        if len(spec) == 0:
            raise ParameterError(f"sweep {key!r}: an empty list of values")
        return list(spec)
    raise ParameterError(f"sweep {key!r}: {spec!r}: expected a range \"LOW..HIGH UNIT:COUNT\", a list "
                         "of values with units, or (numbers, unit)")


def _fmt(v: float, unit: str) -> str:
    return f"{float(v):.12g} {unit}".strip()


def _number_unit(text: Any) -> tuple[float, str] | None:
    if not isinstance(text, str):
        return None
    m = re.match(r"^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*(.*?)\s*$", text)
    return (float(m.group(1)), m.group(2)) if m else None


def _coordinate_override(desc, key: str, value: Any) -> tuple[str, Any] | None:
    """``arm.points.G.x = "0.5 m"`` → ``("arm.points.G", ["Li", "0.5 m", <file's y>])``."""
    if not key.endswith((".x", ".y")):
        return None
    from .study import _raw

    head = key[:-2]
    try:
        raw = _raw(desc, head)
    except (KeyError, TypeError):
        return None
    if not isinstance(raw, list) or len(raw) not in (2, 3):
        return None
    new = list(raw)
    i = (len(raw) - 2) + (0 if key.endswith(".x") else 1)
    new[i] = value
    return head, new


def _si(desc, key: str, value: Any, read=None) -> float:
    """The SI number of a swept value (as the description reads it; ``read``: the
    description with the point's values, when the caller has it)."""
    from ..machine.quantities import to_si

    ov = _coordinate_override(desc, key, value)
    if ov is not None:
        return float(to_si(value, "m", key=key))
    d = read if read is not None else desc.with_overrides({key: value})
    v = d.values.get(key)
    if isinstance(v, (int, float)):
        return float(v)
    return float("nan")


def _points(desc, parameters, sample: int | None, seed: int) -> tuple[list[str], list[dict[str, Any]]]:
    """Keys and the list of points (key → value with unit)."""
    if isinstance(parameters, Mapping):
        keys = list(parameters)
        values = {k: parse_values(k, v) for k, v in parameters.items()}
        if sample is not None:
            if isinstance(sample, bool) or not isinstance(sample, int) or sample < 1:
                raise ParameterError(f"sample = {sample!r}: expected a number of points ≥ 1")
            from scipy.stats import qmc

            lims = {}
            problems = []
            for k in keys:
                nums = [_number_unit(v) for v in values[k]]
                if any(n is None for n in nums) or len({u for _, u in nums}) != 1:
                    problems.append(f"sweep {k!r}: a sample needs numbers in one unit (a range "
                                    f"\"LOW..HIGH UNIT:COUNT\"), found {values[k]!r}")
                    continue
                lims[k] = (min(n for n, _ in nums), max(n for n, _ in nums), nums[0][1])
            if problems:
                raise ParameterError(problems)
            u = qmc.LatinHypercube(d=len(keys), seed=seed).random(sample)
            points = [{k: _fmt(lims[k][0] + u[i, j] * (lims[k][1] - lims[k][0]), lims[k][2])
                       for j, k in enumerate(keys)} for i in range(sample)]
        else:
            order = sorted(keys, key=lambda k: _rebuild_rank(desc, k))   # rebuilding keys outermost
            points = [dict(zip(order, combo)) for combo in itertools.product(*(values[k] for k in order))]
            points = [{k: p[k] for k in keys} for p in points]
        return keys, points
    if hasattr(parameters, "to_dict") and hasattr(parameters, "columns"):
        parameters = parameters.to_dict("records")
    if isinstance(parameters, Sequence) and not isinstance(parameters, str) and \
            all(isinstance(p, Mapping) for p in parameters):
        keys = list(dict.fromkeys(k for p in parameters for k in p))
        return keys, [dict(p) for p in parameters]
    raise ParameterError(f"sweep parameters {type(parameters).__name__}: expected a dict key → values "
                         "(a grid or a sample) or a list of points (dicts key → value with unit)")


def _rebuild_rank(desc, key: str) -> int:
    """0 for keys that change the geometry, 1 for other model keys, 2 for run-time ones."""
    head = key.split(".")[0]
    if key.endswith((".x", ".y")) or ".points." in key or head in ("chassis", "hinges", "start") \
            or key.endswith((".retracted", ".stroke", ".length")):
        return 0
    if key in desc.runtime_keys():
        return 2
    return 1


def _overrides(desc, point: Mapping[str, Any]) -> dict[str, Any]:
    """A point's values as description overrides (coordinates folded into their points)."""
    out: dict[str, Any] = {}
    for k, v in point.items():
        ov = _coordinate_override(desc, k, v)
        if ov is None:
            out[k] = v
            continue
        head, new = ov
        if head in out:  # both coordinates of one point swept
            cur = list(out[head])
            cur[len(cur) - 2 + (0 if k.endswith(".x") else 1)] = v
            out[head] = cur
        else:
            out[head] = new
    return out


# --------------------------------------------------------------------------- workers
_STUDIES: dict[Any, Any] = {}
_MEMOS: dict[str, Any] = {}
_LOCK = threading.Lock()


def _base_key(base) -> tuple:
    """What a worker's study (and a kept pool, :mod:`.workers`) is of: the file's path, its
    overrides and its text."""
    return (base.file.path, repr(sorted(base.overrides.items())), repr(base.file.data))


def _run_chunk(base, analysis, options, items, read=None, run: str = "",
               done: Callable[[int], Any] | None = None,
               stop: Callable[[], bool] | None = None) -> list[dict[str, Any]]:
    """Run points ``items`` = [(index, point)] on this process's study of ``base``
    (``read``: index → the base read with the point's values, when the caller has them;
    ``done(k)``: k more points finished, for a progress bar in this process; ``stop()``
    true: return before the next point or batch).

    The process keeps its study of ``base`` (compiled models, stroke grids) between chunks
    and sweeps — a Dask worker builds it once — and, for the sweep ``run``, one
    :class:`~.reuse.EvaluationMemo` shared by every chunk of that sweep it is given
    (forgotten by :func:`_forget` when the sweep ends)."""
    from .study import Study

    from .threads import single_blas_thread

    out = []
    with _LOCK, single_blas_thread():  # one point at a time per process: compiled models keep buffers
        key = _base_key(base)
        study = _STUDIES.get(key)
        if study is None:
            while len(_STUDIES) >= 4:      # a long-lived worker keeps the last few bases
                _STUDIES.pop(next(iter(_STUDIES)))
            study = _STUDIES[key] = Study(base)
        memo = _MEMOS.get(run)
        if memo is None:
            while len(_MEMOS) >= 2:        # a sweep that ended without its _forget (an interrupted one)
                _MEMOS.pop(next(iter(_MEMOS)))
            memo = _MEMOS[run] = EvaluationMemo()
        if analysis == "tool-forces" and len(items) > 1:      # points of one geometry side by side
            for batch in _batches(items, _group_of(base)):
                if stop is not None and stop():
                    break
                out += _run_batch(study, base, analysis, options, batch, read, memo)
                if done is not None:
                    done(len(batch))
            return out
        for index, point in items:
            if stop is not None and stop():
                break
            row: dict[str, Any] = {"_index": index}
            try:
                ov = _overrides(base, point)
                log = study._move(ov, read[index]) if read is not None and index in read else study.update(ov)
                with silenced(), reusing(memo):  # the sweep's own bar counts the points
                    res = run_analysis(study, analysis, options)
                row.update(res.summary())
                row["_units"] = dict(res.summary_units)
                row["rebuilt"] = ", ".join(f"{k} {v}" for k, v in log.items() if v != "kept")
                row["error"] = ""
            except BondGraphError as exc:
                row["error"] = str(exc)
                row["rebuilt"] = ""
            out.append(row)
            if done is not None:
                done(1)
    return out


def _run_pooled(base, analysis, options, items, run: str) -> list[dict[str, Any]]:
    """A chunk in a local worker (:mod:`.workers`): its points read (the check the parent
    makes of every point before any work, made here, by the workers side by side), then
    run. A point that cannot be read stops the sweep: the chunk returns the problems
    (``"_problems"``) and sets the pool's stop flag, so that the other chunks stop before
    their next point. A row carries the SI values of its point's keys (``"_si"``)."""
    from .workers import request_stop, stop_requested

    read, problems = {}, []
    for index, point in items:
        try:
            read[index] = base.with_overrides(_overrides(base, point))
        except BondGraphError as exc:
            problems.append({"_index": index, "_problems": list(exc.problems)})
    if problems:
        request_stop()
        return problems
    if stop_requested():
        return []
    rows = _run_chunk(base, analysis, options, items, read, run, stop=stop_requested)
    points = dict(items)
    for row in rows:
        i = row["_index"]
        row["_si"] = {k: _si(base, k, v, read[i]) for k, v in points[i].items()}
    return rows


def _batches(items: list, group: Callable[[Any], Any], most: int = 64) -> list[list]:
    """Batches of points run side by side: the k-th point of each group (in the table's
    order), so that no two points of a batch share the evaluations the memo would replay
    for the later one (they run at the same time), and a batch meets one value of the keys
    the groups ignore (one circuit check for a new bore); at most ``most`` points each."""
    groups: dict[Any, list] = {}
    for it in items:
        groups.setdefault(group(it), []).append(it)
    out = []
    for k in range(max(len(g) for g in groups.values())):
        batch = sorted((g[k] for g in groups.values() if k < len(g)), key=lambda it: it[0])
        out += [batch[i:i + most] for i in range(0, len(batch), most)]
    return out


def _analyse(study, analysis, options, memo):
    with silenced(), reusing(memo):  # the sweep's own bar counts the points
        return run_analysis(study, analysis, options)


def _run_batch(study, base, analysis, options, batch, read, memo) -> list[dict[str, Any]]:
    """The points of ``batch`` moved to one after the other (what each rebuilt, as alone), then
    analysed side by side (:class:`~.lockstep.Lockstep`): each on a snapshot of the study that
    shares the built kinematics, grids and compiled models, its own parameter values put in
    whenever it runs; their kinematic solves batched."""
    import functools

    from .study import geometry_key

    rows, jobs, enters, slots = [], [], [], []
    for index, point in batch:
        row: dict[str, Any] = {"_index": index}
        try:
            ov = _overrides(base, point)
            new = read[index] if read is not None and index in read else base.with_overrides(ov)
            if jobs and geometry_key(new) != geometry_key(study.description):
                _run_side_by_side(study, jobs, enters, slots)    # a new geometry: those so far first
                jobs, enters, slots = [], [], []
            log = study._move(ov, new)
            row["rebuilt"] = ", ".join(f"{k} {v}" for k, v in log.items() if v != "kept")
            study.kinematics, study.statics           # built once, shared by the snapshots
            view, enter = study._snapshot()
            jobs.append(functools.partial(_analyse, view, analysis, options, memo))
            enters.append(enter)
            slots.append(row)
        except BondGraphError as exc:
            row["error"] = str(exc)
            row["rebuilt"] = ""
        rows.append(row)
    _run_side_by_side(study, jobs, enters, slots)
    return rows


def _run_side_by_side(study, jobs, enters, slots) -> None:
    """Run the analyses ``jobs`` of snapshots of ``study`` in lockstep; their rows filled in."""
    from .lockstep import Lockstep

    if not jobs:
        return
    _, restore = study._snapshot()
    try:
        results = Lockstep().run(jobs, enters)
    finally:
        restore()                                      # the study's own parameter values back
    for row, res in zip(slots, results):
        if isinstance(res, BondGraphError):
            row["error"] = str(res)
            row["rebuilt"] = ""
        elif isinstance(res, BaseException):
            raise res
        else:
            row.update(res.summary())
            row["_units"] = dict(res.summary_units)
            row["error"] = ""


def _forget(run: str) -> None:
    """Drop the evaluations kept for the sweep ``run`` (its end, in every process it ran in)."""
    with _LOCK:
        _MEMOS.pop(run, None)


def _collect(finished, rows: list, bar) -> None:
    """Rows of the chunks as their futures finish (Dask's or concurrent.futures')."""
    for fut in finished:
        got = fut.result()
        rows += got
        if bar is not None:
            bar.update(len(got))


def _chunks(items: list, n_chunks: int, group: Callable[[Any], Any] | None = None,
            workers: int = 1) -> list[list]:
    """``items`` in about ``n_chunks`` chunks. With ``group`` (item → a key), one chunk per
    worker, each of whole groups (the points with the same values of every key the statics
    model or the kinematics read: a bucket mass), filled largest group first into the
    lightest chunk, in the table's order inside: a process evaluates a group's points once
    and replays them for the others (the boom bores), and meets each value of the other keys
    once in a row (a new bore checks the circuit again). Fewer groups than twice the
    workers: the groups are split (each worker must have work)."""
    n_chunks = max(1, min(n_chunks, len(items)))
    if group is None:
        size = math.ceil(len(items) / n_chunks)
        return [items[i:i + size] for i in range(0, len(items), size)]
    groups: dict[Any, list] = {}
    for it in items:
        groups.setdefault(group(it), []).append(it)
    if len(groups) < 2 * workers:
        return _chunks([it for g in groups.values() for it in g], n_chunks)
    chunks: list[list] = [[] for _ in range(max(1, workers))]
    for g in sorted(groups.values(), key=len, reverse=True):
        min(chunks, key=len).extend(g)
    return [sorted(c, key=lambda it: it[0]) for c in chunks if c]


def _group_of(desc) -> Callable[[Any], tuple]:
    """A point's values of the keys that enter the statics model or the kinematics (those
    the hydraulic data of a cylinder, the base or the circuit do not)."""
    from ..machine.machine import inert_key

    def key(item):
        _, point = item[0], item[1]
        return tuple(sorted((k, repr(v)) for k, v in point.items() if not inert_key(desc, k, "extensions")))

    return key


def sweep(machine: Any, parameters: Any, analysis: str | Callable = "tool-forces", *,
          options: Mapping[str, Any] | None = None, sample: int | None = None, seed: int = 0,
          client: Any = None, processes: int | None = None, progress: bool = True,
          chunks_per_worker: int = 4):
    """Run ``analysis`` over a grid or a sample of parameter values.

    Parameters
    ----------
    machine : path, MachineDescription, Machine or Study
        The base every point is relative to (a study's description: its base with its
        overrides; a point's value wins on a key both set).
    parameters : dict or list of dicts
        Dotted key → values (see the module docstring): their product is the grid, or
        ``sample`` points are drawn over their ranges; or an explicit list of points.
    analysis : str, callable or list
        ``"working-range"``, ``"tool-forces"``, ``"lift-capacity"``, ``"cycle-energy"``,
        or ``f(study, **options)`` returning an :class:`~.result.AnalysisResult`
        (a top-level function, so that processes can receive it); or a list of them,
        whose headline numbers go side by side in the table.
    options : dict, optional
        Keyword options of the analysis (``{"n": 30}``, ``{"relief": "320 bar"}``); with a
        list of analyses, analysis name → its options.
    sample : int, optional
        A Latin-hypercube sample of this many points instead of the grid.
    seed : int
        Seed of the sample.
    client : distributed.Client, optional
        Run on this Dask cluster.
    processes : int, optional
        Local worker processes (default: the CPU count; 1 runs in this process). They are
        kept for the next sweep of the same machine file in this interpreter
        (``mechanisms.analysis.close_workers()`` ends them); Ctrl-C stops them.
    progress : bool
        A progress bar over the points.

    Returns
    -------
    pandas.DataFrame
        Columns: the parameters (SI values), the analysis's summary, ``rebuilt``
        (what each point rebuilt beyond parameter values), ``error`` (empty, or the
        point's named error). Units in ``df.attrs["units"]``.

    Raises
    ------
    ParameterError
        Unknown keys, values without units or out of range, an unknown analysis, bad
        options — all checked before any work starts.

    Examples
    --------
    Your own analysis: the front's total lever mass grows by exactly the bucket's
    change:

    >>> from types import SimpleNamespace
    >>> from mechanisms.machine import DATA
    >>> def front_mass(study):
    ...     parts = [p.values for p in study.description.parts.values()]
    ...     total = sum(v["mass"] for v in parts if v.get("mass"))
    ...     return SimpleNamespace(summary=lambda: {"front_mass": total},
    ...                            summary_units={"front_mass": "kg"})
    >>> df = sweep(DATA / "excavator.toml", {"bucket.mass": "700, 900 kg"}, front_mass,
    ...            processes=1, progress=False)
    >>> float(df["front_mass"].diff().iloc[1]), df["error"].tolist(), df.attrs["units"]["front_mass"]
    (200.0, ['', ''], 'kg')
    """
    import pandas as pd

    from .study import Study

    study = Study.of(machine)
    base = study.description     # a study's own overrides stay under every point
    names = list(analysis) if isinstance(analysis, (list, tuple)) else [analysis]
    for a in names:
        if not callable(a) and a not in ANALYSES:
            run_analysis(study, a)  # the named error
    keys, points = _points(base, parameters, sample, seed)
    if not points:
        raise ParameterError("sweep: no points")
    problems = []
    for k in keys:
        if k.endswith((".x", ".y")) and _coordinate_override(base, k, "0 m") is None:
            problems.append(f"sweep {k!r}: {k[:-2]!r} is not a point of {base.file.name} (a coordinate is "
                            "swept as part.points.NAME.x, chassis.\"part.point\".y or part.cog.x)")
    if problems:
        raise ParameterError(problems, subject="sweep")
    if isinstance(analysis, (list, tuple)):
        bad = [k for k in (options or {}) if k not in analysis]
        if bad:
            raise ParameterError([f"options for {k!r}: not one of the analyses run ({', '.join(analysis)}); "
                                  "with several analyses, options are given per analysis name" for k in bad])
        for a in analysis:
            _check_options(a, (options or {}).get(a))
            _check_requirements(a, base, (options or {}).get(a))
    else:
        _check_options(analysis, options)
        _check_requirements(analysis, base, options)
    procs = processes if processes is not None else (os.cpu_count() or 1)
    if client is None and (isinstance(procs, bool) or not isinstance(procs, int) or procs < 1):
        raise ParameterError(f"processes = {processes!r}: expected a whole number ≥ 1")
    pooled = client is None and procs > 1 and len(points) > 1
    items = list(enumerate(points))
    read = {}
    if not pooled:   # every point is read before any work (units, ranges, keys); on local workers, by them
        for i, p in items:
            try:
                read[i] = base.with_overrides(_overrides(base, p))
            except BondGraphError as exc:
                problems += [q for q in exc.problems if q not in problems]
        if problems:
            raise ParameterError(problems, subject="sweep")
    run = uuid.uuid4().hex              # the evaluations its processes keep, by this sweep
    rows: list[dict] = []
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(items), desc=f"sweep {_label(analysis)}", unit="point")
    try:
        if client is not None:
            from distributed import as_completed

            workers = max(1, len(client.scheduler_info().get("workers", {})) or 1)
            parts = _chunks(items, workers * chunks_per_worker, _group_of(base), workers)
            futures = [client.submit(_run_chunk, base, analysis, dict(options or {}), part, None, run,
                                     pure=False) for part in parts]
            try:
                _collect(as_completed(futures), rows, bar)
            finally:
                try:
                    client.run(_forget, run)
                except Exception:  # noqa: BLE001 - a worker gone: nothing of it to forget
                    pass
        elif not pooled:
            tick = bar.update if bar is not None else None
            if analysis == "tool-forces":                  # points side by side, the bar per batch
                rows += _run_chunk(base, analysis, dict(options or {}), items, read, run, tick)
            else:
                for it in items:
                    rows += _run_chunk(base, analysis, dict(options or {}), [it], read, run)
                    if tick is not None:
                        tick(1)
        else:
            from concurrent.futures import as_completed as done

            from .workers import local_workers

            parts = _chunks(items, procs * chunks_per_worker, _group_of(base), procs)
            named = all(isinstance(a, str) for a in names)   # a user's function: workers forked for it
            with local_workers(procs, _base_key(base), keep=named) as (pool, _):
                futures = [pool.submit(_run_pooled, base, analysis, dict(options or {}), part, run)
                           for part in parts]
                _collect(done(futures), rows, bar)
            for r in sorted(rows, key=lambda r: r["_index"]):      # in the points' order, as serially
                problems += [q for q in r.get("_problems", ()) if q not in problems]
            if problems:
                raise ParameterError(problems, subject="sweep")
    finally:
        _forget(run)
        if bar is not None:
            bar.close()
    rows.sort(key=lambda r: r["_index"])
    units: dict[str, str] = {}
    for r in rows:
        units.update(r.pop("_units", {}))
    records = []
    for (i, p), r in zip(items, rows):
        si = r.pop("_si", None)
        rec = {k: (si[k] if si is not None else _si(base, k, p[k], read.get(i))) if k in p else np.nan
               for k in keys}
        rec.update({k: v for k, v in r.items() if k != "_index"})
        records.append(rec)
    df = pd.DataFrame(records)
    front = keys + [c for c in df.columns if c not in keys and c not in ("rebuilt", "error")]
    df = df[front + ["rebuilt", "error"]]
    df.attrs["units"] = {**{k: _unit_of(base, k) for k in keys}, **units}
    df.attrs["analysis"] = _label(analysis)
    return df


def _label(analysis) -> str:
    if isinstance(analysis, (list, tuple)):
        return " + ".join(_label(a) for a in analysis)
    return analysis if isinstance(analysis, str) else getattr(analysis, "__name__", "analysis")


def _unit_of(desc, key: str) -> str:
    if key.endswith((".x", ".y")) or ".points." in key:
        return "m"
    from ..machine.description import _BASE, _BASE_MASS, _BODY, _CYLINDER, _LEVER, _MACHINE, _PAYLOAD

    head, _, leaf = key.partition(".")
    specs = {"machine": _MACHINE}.get(head)
    if specs is None and head in desc.parts:
        specs = {"body": _BODY, "lever": _LEVER, "cylinder": _CYLINDER}[desc.parts[head].type]
    if head == "payloads":
        specs, leaf = _PAYLOAD, leaf.split(".")[-1]
    if head == "base":
        specs, leaf = (_BASE_MASS, leaf.split(".")[-1]) if leaf.startswith("masses.") else (_BASE, leaf)
    for s in specs or []:
        if s.name == leaf:
            return s.unit
    return ""


def _check_requirements(analysis, desc, options) -> None:
    """What the machine file (with its ``--set`` overrides) must provide for a named analysis,
    checked once before any point: a wheel loader without ``[base]`` swept for its lift
    capacity is refused with the analysis's own error, not failed point by point."""
    if callable(analysis):
        return
    from .base import BaseMachine
    from .reach import tool_point

    if analysis in ("working-range", "tool-forces"):
        tool_point(desc, (options or {}).get("point"))
    elif analysis == "lift-capacity":
        BaseMachine.of(desc)
    elif analysis == "breakout-forces":
        from .loading import require_loader

        require_loader(desc, "breakout forces (ISO 14397-2)")


def _check_options(analysis, options) -> None:
    """Options must be keywords of the analysis (checked before the workers start)."""
    if callable(analysis) or not options:
        return
    import inspect

    fn = _analyses()[analysis]
    params = inspect.signature(fn).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return
    bad = [k for k in options if k not in params or k == "machine"]
    if bad:
        raise ParameterError([f"option {k!r} of analysis {analysis!r}: unknown (options: "
                              f"{', '.join(p for p in params if p != 'machine')})" for k in bad])
