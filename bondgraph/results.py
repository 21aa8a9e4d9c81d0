"""Simulation results: named series, bond variables on request, energy, CSV.

Examples
--------
>>> from bondgraph import BondGraph, Se, One, I, R, build, simulate, power_balance
>>> bg = BondGraph("drag")
>>> _ = bg.add(Se("F", 2.0), One("v"), I("m", 1.0), R("b", 1.0))
>>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
...     _ = bg.connect(a, b)
>>> res = simulate(build(bg), (0, 3), energy=True, rtol=1e-10, atol=1e-12)
>>> pb = power_balance(res)
>>> pb.relative < 1e-7
True
>>> float(res.flow("drag/b3")[-1]) == float(res["drag/m.f"][-1])
True
"""

from __future__ import annotations

import csv
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Sequence

import numpy as np

from .errors import BondGraphWarning, ParameterError, UnknownNameError
from .files import atomic_path

if TYPE_CHECKING:  # pragma: no cover
    from .model import Model
    from .signals import InputSet

__all__ = ["Results", "PowerBalance", "power_balance"]


class Results:
    """Time series of one run, made by :func:`~bondgraph.simulate`.

    ``res[name]`` gives a state, a bond variable (``"e[model/b3]"``), an input, an
    output (``"energy[model/m]"``, an observer) or ``"t"``; bond variables and
    energies are evaluated on request from the states, all times in one call.

    Parameters
    ----------
    model : Model
    t : ndarray
        Times.
    y : ndarray
        States (and the three energy integrals with ``energy=True``), one row per time.
    inputs : InputSet
        The run's inputs.
    energy : bool or None
        Whether ``y`` carries the energy integrals.
    stats : dict
    message : str
    events : tuple, optional

    Attributes
    ----------
    t : ndarray
        Times.
    x : ndarray, shape (len(t), n_states)
        States, columns in ``state_names`` order.
    stats : dict
        ``nfev``, ``njev``, ``steps``, ``wall_time``, ``backend``.
    events : tuple
        ``(times, event_indices, states)`` of located events.
    message : str
        ``"ok"``, or why the run stopped (a terminal event).
    stopped : bool
        A terminal event ended the run.

    Raises
    ------
    UnknownNameError
        ``res[name]`` with a name that is none of the above (close names suggested).

    Examples
    --------
    A 2 N force on a 1 kg mass against a 1 N·s/m damper: ``v = 2·(1 − e^{−t})``.

    >>> import math
    >>> from bondgraph import BondGraph, Se, One, I, R, build, simulate
    >>> bg = BondGraph("drag")
    >>> _ = bg.add(Se("F", 2.0), One("v"), I("m", 1.0), R("b", 1.0))
    >>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
    ...     _ = bg.connect(a, b)
    >>> res = simulate(build(bg), (0.0, 3.0), rtol=1e-10, atol=1e-12, progress=False)
    >>> bool(abs(res["drag/m.f"][-1] - 2 * (1 - math.exp(-3.0))) < 1e-8)
    True
    >>> bool(abs(res.effort("b")[-1] - res["drag/m.f"][-1]) < 1e-12)   # damper force b·v
    True
    >>> res["drag/m.v"]
    Traceback (most recent call last):
    ...
    bondgraph.errors.UnknownNameError: 'drag/m.v': not a state, bond variable, input or output of 'drag'; did you mean 'drag/m.f'?
    """

    def __init__(self, model: "Model", t: np.ndarray, y: np.ndarray, inputs: "InputSet", *,
                 energy: bool | None, stats: dict, message: str, events=None):
        nx = len(model.state_names)
        self.model = model
        self.t = np.asarray(t, dtype=float)
        y = np.asarray(y, dtype=float).reshape(len(self.t), -1) if len(self.t) else np.zeros((0, nx))
        self.x = y[:, :nx]
        self._w = y[:, nx:nx + 3] if energy and y.shape[1] >= nx + 3 else None
        self.inputs = inputs
        self.stats = dict(stats)
        self.message = message
        self.events = events if events is not None else (np.array([]), np.array([], int), np.zeros((0, nx)))
        self.stopped = False
        self._out: dict[str, np.ndarray] | None = None
        self.extra: dict[str, np.ndarray] = {}
        #: SI unit of a named series, where the layer that built the model knows it (the
        #: core does not: a state of an ``I`` is a momentum in whatever domain it models);
        #: :meth:`plot` groups series by it and says "unit unknown" for the others
        self.units: dict[str, str] = {}

    @property
    def state_names(self) -> list[str]:
        """Names of the columns of :attr:`x` (the model's states)."""
        return self.model.state_names

    def __len__(self) -> int:
        return len(self.t)

    # ------------------------------------------------------------------ access
    def outputs(self) -> dict[str, np.ndarray]:
        """Every bond effort/flow, stored energy and power at every time (cached).

        Returns
        -------
        dict
            Output name (see :attr:`CompiledSystem.output_names
            <bondgraph.CompiledSystem>`) → array over :attr:`t`.

        Warns
        -----
        BondGraphWarning
            Once, naming the outputs that are not finite and from when.
        """
        if self._out is None:
            from .batch import evaluate_many

            sysm = self.model.system
            U = DU = None
            if self.inputs.names:
                U, DU = self.inputs.at(self.t)
            # every sample in one call of the compiled outputs (rows that cannot be
            # evaluated, a singular block, are NaN)
            data = evaluate_many(sysm, self.x, U, DU, t=self.t) if len(self.t) else \
                np.zeros((0, len(sysm.output_names)))
            self._out = {n: data[:, j] for j, n in enumerate(sysm.output_names)}
            self._warn_non_finite(data, sysm.output_names)
        return self._out

    def _warn_non_finite(self, data: np.ndarray, names: Sequence[str]) -> None:
        """Outputs that are not finite at some output time are named (once per run):
        which, from when, and the state there; never passed on silently."""
        bad = ~np.isfinite(data)
        if not bad.any():
            return
        cols = np.flatnonzero(bad.any(axis=0))
        row = int(np.flatnonzero(bad.any(axis=1))[0])
        listed = ", ".join(names[j] for j in cols[:5]) + (f" and {len(cols) - 5} more" if len(cols) > 5 else "")
        state = ", ".join(f"{n}={v:.6g}" for n, v in zip(self.state_names, self.x[row])) or "no states"
        inputs = ""
        if self.inputs.names:
            U, _ = self.inputs.at(self.t[row:row + 1])
            inputs = "; inputs " + ", ".join(f"{n}={v:.6g}" for n, v in zip(self.inputs.names, U[0]))
        warnings.warn(BondGraphWarning(
            f"{self.model.name if hasattr(self.model, 'name') else 'model'}: {len(cols)} output(s) not finite "
            f"at {int(bad.any(axis=1).sum())} of {len(self.t)} output times, from t = {self.t[row]:.6g} s: "
            f"{listed} (state there: {state}{inputs}). A law or input is evaluated outside its domain "
            "(a square root or logarithm of a negative value, a division by zero) or a block is "
            "singular there"), stacklevel=3)

    def __getitem__(self, key: str) -> np.ndarray:
        if key == "t" or key == "time":
            return self.t
        if key in self.extra:
            return self.extra[key]
        names = self.state_names
        if key in names:
            return self.x[:, names.index(key)]
        out = self.outputs()
        if key in out:
            return out[key]
        if key in self.inputs.names:
            sig = self.inputs.signals[self.inputs.names.index(key)]
            if hasattr(sig, "values_at"):   # a Signal: all times in one call
                return sig.values_at(self.t)
            return np.array([sig.value(ti) for ti in self.t])
        import difflib

        close = difflib.get_close_matches(key, names + list(out) + list(self.extra), n=3)
        raise UnknownNameError(f"{key!r}: not a state, bond variable, input or output of "
                       f"{self.model.name!r}" + (f"; did you mean {', '.join(map(repr, close))}?" if close else ""))

    def _bond(self, bond: str) -> str:
        """Full bond name from a bond name, a unique suffix, or a one-port element."""
        g = self.model.graph
        names = [k for *_, k in self.model.bond_ends]
        if bond in names:
            return bond
        cands = [n for n in names if n.endswith("/" + bond)]
        if len(cands) == 1:
            return cands[0]
        nodes = [n for n in g.nodes if n == bond or n.endswith("/" + bond)]
        if len(nodes) == 1:
            inc = list(g.in_edges(nodes[0], keys=True)) + list(g.out_edges(nodes[0], keys=True))
            if len(inc) == 1:
                return inc[0][2]
            raise ParameterError(f"{bond!r}: element {nodes[0]} has {len(inc)} bonds; name one of "
                                 f"{', '.join(k for *_, k in inc)}")
        raise ParameterError(f"bond {bond!r}: not a bond or one-port element of model "
                             f"{self.model.name!r}" + (f" (ambiguous: {', '.join(cands)})" if cands else ""))

    def effort(self, bond: str) -> np.ndarray:
        """Effort of a bond (full or unique short name, or a one-port element's name).

        Parameters
        ----------
        bond : str
            ``"drag/b3"``, ``"b3"`` (if unique) or ``"b"`` (a one-port element).

        Returns
        -------
        ndarray

        Raises
        ------
        ParameterError
            Not a bond or one-port element, or ambiguous.
        """
        return self[f"e[{self._bond(bond)}]"]

    def flow(self, bond: str) -> np.ndarray:
        """Flow of a bond (names as :meth:`effort`).

        Returns
        -------
        ndarray

        Parameters
        ----------
        bond : str

        Raises
        ------
        ParameterError
            As :meth:`effort`.
        """
        return self[f"f[{self._bond(bond)}]"]

    def power(self, bond: str) -> np.ndarray:
        """Power ``e·f`` of a bond, positive in the half-arrow's direction.

        Returns
        -------
        ndarray

        Parameters
        ----------
        bond : str

        Examples
        --------
        A 2 N force holding a 1 kg mass against a damper delivers ``F·v``:

        >>> from bondgraph import BondGraph, Se, One, I, R, build, simulate
        >>> bg = BondGraph("drag")
        >>> _ = bg.add(Se("F", 2.0), One("v"), I("m", 1.0, initial=2.0), R("b", 1.0))
        >>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
        ...     _ = bg.connect(a, b)
        >>> res = simulate(build(bg), (0.0, 1.0), progress=False)
        >>> [round(float(v), 9) for v in res.power("F")[[0, -1]]]    # steady at v = 2 m/s
        [4.0, 4.0]
        """
        return self.effort(bond) * self.flow(bond)

    def stored_energy(self, element: str | None = None) -> np.ndarray:
        """Stored energy of one storage element, or of all of them.

        Parameters
        ----------
        element : str, optional
            Path of a storage element (``"osc/m"``); default: the sum.

        Returns
        -------
        ndarray

        Raises
        ------
        ParameterError
            The element stores no energy (the storage elements are listed).

        Examples
        --------
        An undamped oscillator keeps its 0.5 J:

        >>> import numpy as np
        >>> from bondgraph import BondGraph, One, I, C, build, simulate
        >>> bg = BondGraph("osc")
        >>> _ = bg.add(One("v"), I("m", 1.0, initial=1.0), C.spring("k", 1.0))
        >>> _ = bg.connect("v", "m"); _ = bg.connect("v", "k")
        >>> res = simulate(build(bg), (0.0, 3.0), rtol=1e-10, atol=1e-12, progress=False)
        >>> bool(np.allclose(res.stored_energy(), 0.5, atol=1e-8))
        True
        >>> float(res.stored_energy("osc/k")[0])
        0.0
        """
        out = self.outputs()
        keys = [k for k in out if k.startswith("energy[")]
        if element is not None:
            k = f"energy[{element}]"
            if k not in out:
                raise ParameterError(f"element {element!r} stores no energy in "
                                     f"{self.model.name!r} (storage: {', '.join(k[7:-1] for k in keys)})")
            return out[k]
        return sum((out[k] for k in keys), np.zeros(len(self.t)))

    def source_work(self) -> np.ndarray:
        """Cumulative work delivered by all sources (needs ``energy=True``).

        Returns
        -------
        ndarray
            Zero at the start.

        Raises
        ------
        ParameterError
            The run was made without ``energy=True``.

        Examples
        --------
        At steady state, a 2 N force at 2 m/s does 4 J/s, all of it dissipated:

        >>> from bondgraph import BondGraph, Se, One, I, R, build, simulate
        >>> bg = BondGraph("drag")
        >>> _ = bg.add(Se("F", 2.0), One("v"), I("m", 1.0, initial=2.0), R("b", 1.0))
        >>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
        ...     _ = bg.connect(a, b)
        >>> res = simulate(build(bg), (0.0, 1.5), energy=True, rtol=1e-10, atol=1e-12,
        ...                progress=False)
        >>> round(float(res.source_work()[-1]), 6), round(float(res.dissipated()[-1]), 6)
        (6.0, 6.0)
        """
        return self._need_w()[:, 0]

    def dissipated(self) -> np.ndarray:
        """Cumulative energy dissipated by all resistors (needs ``energy=True``).

        Returns
        -------
        ndarray

        Raises
        ------
        ParameterError
            The run was made without ``energy=True``.

        Examples
        --------
        See :meth:`source_work`.
        """
        return self._need_w()[:, 1]

    def parametric_work(self) -> np.ndarray:
        """Cumulative energy that entered storage through varying coefficients (needs
        ``energy=True``); see :func:`power_balance`.

        Returns
        -------
        ndarray

        Raises
        ------
        ParameterError
            The run was made without ``energy=True``.
        """
        return self._need_w()[:, 2]

    def _need_w(self) -> np.ndarray:
        if self._w is None:
            raise ParameterError("energy accounting was not integrated; run "
                                 "simulate(..., energy=True)")
        return self._w

    # ------------------------------------------------------------------ export
    def to_csv(self, path: str | os.PathLike, columns: Sequence[str] | None = None) -> Path:
        """Write ``time`` and the chosen columns (default: all states) atomically.

        Values are written in SI with full precision (``repr``); the header names the
        columns as they are looked up.

        Parameters
        ----------
        path : str or path-like
        columns : sequence of str, optional
            Any names ``res[name]`` accepts.

        Returns
        -------
        pathlib.Path

        Raises
        ------
        UnknownNameError
            A column that does not exist (nothing is written).

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from bondgraph import BondGraph, Se, One, I, build, simulate
        >>> bg = BondGraph("push")
        >>> _ = bg.add(Se("F", 2.0), One("v"), I("m", 4.0))
        >>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
        >>> res = simulate(build(bg), (0.0, 1.0), t_eval=[0.0, 0.5, 1.0], progress=False)
        >>> with tempfile.TemporaryDirectory() as d:
        ...     text = res.to_csv(pathlib.Path(d) / "push.csv", ["push/m.f", "e[push/b1]"]).read_text()
        >>> print(text.strip())
        time,push/m.f,e[push/b1]
        0.0,0.0,2.0
        0.5,0.25,2.0
        1.0,0.5,2.0
        """
        columns = list(columns) if columns is not None else list(self.state_names)
        data = [self[c] for c in columns]
        path = Path(path)
        with atomic_path(path) as tmp, open(tmp, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["time"] + columns)
            for i, ti in enumerate(self.t):
                w.writerow([repr(float(ti))] + [repr(float(col[i])) for col in data])
        return path

    def plot(self, *names: str, ax=None, units: dict[str, str] | None = None, **kw):
        """Plot named series against time, one axes per unit, on a shared time axis.

        Parameters
        ----------
        *names : str
            States, bond variables (``"e[bond]"``), inputs or outputs (default: every state).
        ax : matplotlib Axes, optional
            Draw there; then every series must have the same unit.
        units : dict, optional
            SI unit of a series (``{"cart/m.f": "m/s"}``), over :attr:`units`. A series
            of no known unit is drawn on an axes labelled ``[unit unknown]``; pressures,
            flows, forces, energies and angles are drawn in bar, L/min, kN, kJ and deg.
        **kw
            Passed to ``Axes.plot``.

        Returns
        -------
        Axes, or an array of Axes (top to bottom) when the series have several units.

        Examples
        --------
        >>> import matplotlib; matplotlib.use("Agg")
        >>> from bondgraph import BondGraph, Se, One, I, R, build, simulate
        >>> bg = BondGraph("drag")
        >>> _ = bg.add(Se("F", 2.0), One("v"), I("m", 1.0), R("b", 1.0))
        >>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
        ...     _ = bg.connect(a, b)
        >>> res = simulate(build(bg), (0, 3), progress=False)
        >>> ax = res.plot("drag/m.f")
        >>> ax.get_ylabel(), ax.get_xlabel()
        ('drag/m.f [unit unknown]', 'time [s]')
        >>> axes = res.plot("drag/m.f", "e[drag/b3]", units={"drag/m.f": "m/s", "e[drag/b3]": "N"})
        >>> [a.get_ylabel() for a in axes]
        ['drag/m.f [m/s]', 'e[drag/b3] [kN]']
        """
        import matplotlib.pyplot as plt

        from .units import display_unit

        if len(names) == 1 and isinstance(names[0], (list, tuple)):
            names = tuple(names[0])                       # plot(["a", "b"]) as plot("a", "b")
        bad = [n for n in names if not isinstance(n, str)]
        if bad:
            raise ParameterError(f"Results.plot: names {bad!r}, expected strings (states, bond "
                                 "variables, inputs or outputs)")
        missing = [n for n in names if n not in self.state_names and n not in self.extra
                   and n not in self.inputs.names and n not in self.outputs()]
        if missing:
            raise UnknownNameError(f"Results.plot: {', '.join(map(repr, missing))}: not a state, bond "
                                   f"variable, input or output of {self.model.name!r} (states: "
                                   f"{', '.join(self.state_names)})")
        known = {**self.units, **(units or {})}
        groups: dict[str, list[str]] = {}
        for n in names or self.state_names:
            groups.setdefault(known.get(n) or "", []).append(n)
        if ax is not None and len(groups) > 1:
            listed = "; ".join(f"{', '.join(v)}: {k or 'unit unknown'}" for k, v in groups.items())
            raise ParameterError(f"Results.plot: series of {len(groups)} units for one axes ({listed}); "
                                 "expected one unit per axes: pass names of one unit, or no ax to get "
                                 "one axes per unit")
        if ax is None:
            fig, axes = plt.subplots(len(groups), 1, figsize=(7, 1.0 + 2.5 * len(groups)), sharex=True,
                                     squeeze=False, layout="constrained")
            axes = axes[:, 0]
        else:
            axes = np.array([ax])
        for a, (unit, group) in zip(axes, groups.items()):
            factor, shown = display_unit(unit) if unit else (1.0, "unit unknown")
            for n in group:
                a.plot(self.t, np.asarray(self[n]) * factor, label=n, **kw)
            what = group[0] if len(group) == 1 else "value"
            a.set_ylabel(f"{what} [{shown}]")
            a.grid(True, alpha=0.3)
            if len(group) > 1:
                a.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
        axes[-1].set_xlabel("time [s]")
        return axes[0] if len(axes) == 1 else axes

    def _repr_html_(self) -> str:
        from .display import results_html

        return results_html(self)

    def __repr__(self) -> str:
        return (f"Results({self.model.name!r}: {len(self.t)} points, t = "
                f"{self.t[0] if len(self.t) else '?'}…{self.t[-1] if len(self.t) else '?'} s, "
                f"{self.stats.get('nfev', '?')} RHS calls, {self.message})")


@dataclass(frozen=True)
class PowerBalance:
    """Stored-energy change against source work minus dissipation (plus parametric work).

    Attributes
    ----------
    stored_change, source_work, dissipated, parametric : float
        Net values over the run (J).
    residual : float
        ``ΔE_stored − (W_sources − W_dissipated + W_parametric)`` (J).
    relative : float
        ``|residual| / scale``.
    scale : float
        The largest energy flow over the run (J): the most energy any one term moved,
        counted in both directions (``∫|P| dt``, from the output samples); for the
        stored energy also the most it held.
    scale_term : str
        Which term that is (``"source work"``, ``"dissipation"``, ``"stored energy"``,
        ``"parametric work"``).

    Examples
    --------
    See :func:`power_balance`.
    """

    stored_change: float
    source_work: float
    dissipated: float
    residual: float
    relative: float
    parametric: float = 0.0
    scale: float = float("nan")
    scale_term: str = ""

    def __str__(self) -> str:
        par = f", parametric work = {self.parametric:.6g} J" if self.parametric else ""
        rel = (f"{self.relative:.2e} of the largest energy flow over the run, the "
               f"{self.scale_term} ({self.scale:.3g} J {'held or moved' if self.scale_term == 'stored energy' else 'moved'})" if self.scale_term
               else f"{self.relative:.2e} relative")
        return (f"ΔE_stored = {self.stored_change:.6g} J, source work = {self.source_work:.6g} J, "
                f"dissipated = {self.dissipated:.6g} J{par}, residual = {self.residual:.3g} J "
                f"({rel})")


def power_balance(res: Results) -> PowerBalance:
    """Energy balance of a run: ``ΔE_stored − (W_sources − W_dissipated + W_parametric)``.

    Needs ``simulate(..., energy=True)``. ``W_parametric`` is the energy that entered
    co-energy storage through a varying coefficient (a chamber ``V(x)/β``): with
    the usual lumped chamber law ``ṗ = β/V·Q`` the stored energy ``V·p²/(2β)`` is
    not a function of the port power alone, and this term says by how much.

    ``relative`` divides the residual by the *largest energy flow over the run*: for
    each term (source work, dissipation, parametric work, stored energy) the energy it
    moved in both directions, ``∫|P| dt`` (the total variation of its cumulative
    value over the output samples) — for the stored energy also the most it held,
    since an undamped oscillation moves energy between storage elements at a constant
    total — and the largest of these. So a motion that returns to rest, or an
    oscillation whose net work is small, is judged against the energy in play, not
    against a net change near zero; ``str()`` names that term and its size.

    Parameters
    ----------
    res : Results
        Of a run with ``energy=True``.

    Returns
    -------
    PowerBalance

    Raises
    ------
    ParameterError
        Not a :class:`Results`, or a run without ``energy=True``.

    Examples
    --------
    >>> from bondgraph import BondGraph, One, I, C, build, simulate
    >>> bg = BondGraph("osc")
    >>> _ = bg.add(One("v"), I("m", 1.0, initial=1.0), C.spring("k", 1.0))
    >>> _ = bg.connect("v", "m"); _ = bg.connect("v", "k")
    >>> pb = power_balance(simulate(build(bg), (0, 6.283185307179586), energy=True,
    ...                             rtol=1e-10, atol=1e-12))
    >>> pb.scale_term, round(pb.scale, 6), pb.relative < 1e-8   # 0.5 J, exchanged m ↔ k
    ('stored energy', 0.5, True)
    >>> print(pb)  # doctest: +ELLIPSIS
    ΔE_stored = ... J (... of the largest energy flow over the run, the stored energy (0.5 J held or moved))
    """
    if not isinstance(res, Results):
        raise ParameterError(f"power_balance: found {type(res).__name__}, expected the Results of "
                             "simulate(..., energy=True)")
    E = res.stored_energy()
    W = res.source_work()
    D = res.dissipated()
    P = res.parametric_work()
    dE = float(E[-1] - E[0])
    ws, wd, wp = float(W[-1] - W[0]), float(D[-1] - D[0]), float(P[-1] - P[0])
    resid = dE - (ws - wd + wp)
    moved = {"stored energy": max(_moved(E), float(np.max(np.abs(E)))),
             "source work": _moved(W), "dissipation": _moved(D),
             "parametric work": _moved(P)}
    term = max(moved, key=moved.get)
    scale = moved[term]
    return PowerBalance(dE, ws, wd, resid, abs(resid) / max(scale, 1e-300), wp, scale, term)


def _moved(cumulative: np.ndarray) -> float:
    """Energy a term moved in both directions: total variation of its cumulative series."""
    return float(np.sum(np.abs(np.diff(cumulative)))) if len(cumulative) > 1 else 0.0
