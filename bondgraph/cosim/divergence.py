"""The divergence watch: two bounds a sound coupling never breaks.

**Energy bound (power bonds).** On a power bond one subsystem sends an effort ``e`` and
receives a flow, the other sends the flow ``f`` and receives the effort. Each side uses
the value the glue handed it, so the power the flow side absorbs, ``e_used * f_sent``,
and the power the effort side delivers, ``e_sent * f_used``, differ. Their difference
integrated over time,

    created(t) = integral of (e_used f_sent - e_sent f_used) dt,

is energy that no subsystem and no source supplied: the coupling made it. The energy
balance of the coupled system is ``E(t) - E(0) = W_sources(t) - D(t) + created(t)``
(checked against the stored energy of B3, computed from its states, in the tests), and
an exact exchange has ``created = 0``. The watch compares the energy created in a window
with the energy that crossed the bond in it, ``integral of |e f| dt``, and reports the
bond when the coupling creates more than ``threshold`` (2 %) of the energy it carries in
each of ``patience`` (4) consecutive windows. Why 2 %: a mode that swaps its energy ``E``
through the bond carries about ``2 E`` per cycle and dissipates ``4 pi zeta E``, so a
coupling that creates 2 % of the carried energy outgrows the damping of every mode with
a damping ratio below 0.3 % (lightly damped structures diverge; zero-order hold and
extrapolation lag pump energy in), and is badly inaccurate for the others. On the
benchmark cases accurate couplings stay below 0.3 % (B1, B2, B3 with linear or quadratic
glue, the excavator split with linear or quadratic glue), the excavator split with
zero-order hold at 1 ms reaches 1.6 %, and the diverging ones create 2-170 %. Windows
of ``window * 2**j`` steps are checked at every scale, so slow oscillations are seen over
long windows and fast ones over short ones. The bond power does not see energy made by
a position signal exchanged beside it (a spring fed the other side's held position), so
declare the bond on the signals that carry the power.
Windows whose newest carries less than ``floor`` (0.1 %) of the energy the bond carried
since the start are not judged: the exchange has died out (a system coming to rest) and what
the coupling creates there is a share of almost nothing — B2 coupled by linear glue at
0.5 ms, 1.2 % off the analytic solution over 10 s, was reported at 8.2 s for creating
3.7 % of the 0.3 mJ its last windows carried (the bond had carried about 50 J).

**Budget bound (power bonds, over the whole run).** A coupling can stay under the
window bound and still make the result: Gauss-Seidel zero-order hold on B2 at
``H = 0.5 ms`` creates 0.2 % of what crosses the bond (its stiff spring swaps a lot of
energy back and forth) yet ends 119 % away from the monolithic solution, having created
ten times the energy the system started with. The energy a bond *moves* is the range of
its net transfer ``W(t) = integral of e f dt`` (what went one way before coming back);
with ``DivergenceMonitor(budget=0.1)`` the watch reports a bond when the energy the
coupling created since the start exceeds ``budget`` of that range at ``patience``
consecutive checks. It is **off by default**: the master cannot see the subsystems'
damping, and a well-damped system dissipates what a coupling keeps creating, so over a
long run the created energy outgrows any bounded range while the result stays accurate
(B1 with damping ratio 0.2, Jacobi zero-order hold at 1 ms: 0.8 % off the analytic
solution, yet over a 10 % budget at 5.96 s). Switch it on for lightly damped couplings
(structures, oil columns), where it catches B2's 119 % and 17 % cases that the window
bound misses; accurate couplings of B1-B3 stay below 5 % over their benchmark spans.
Created energy that is negative (the coupling damps) is not reported.

**Growth bound (every exchanged signal).** Sampled every ``H``, a signal that grows by
more than a factor ``e`` per communication step cannot be followed by any glue of order
0-2: quadratic extrapolation of ``exp(t/tau)`` one step ahead is already 25 % short at
``tau = H``. Such growth is either a coupling instability that the samples alias (the
energy residual, sampled at the same instants, is then blind: B1 at ``H = 10 ms``) or a
physical transient the step cannot resolve; either way the results are meaningless.
The watch measures the envelope ``max |y|`` over windows of ``growth_window`` (4) steps
and reports a signal whose envelope grows by more than ``exp(efolds * growth_window)``
(one e-fold per step) in ``growth_patience`` (2) consecutive windows. Growth from rest
(``t**k``) has window-to-window ratios ``((j+1)/j)**k`` that fall towards 1 and is not
mistaken for it.

Both bounds report once per bond or signal, with the time, the growth factors and the
signals involved; the error catcher decides what happens (``ErrorPolicy.divergence``:
``"abort"`` by default, ``"error"``, ``"warning"`` or ``"off"``).

Examples
--------
A bond whose coupling keeps creating a tenth of the energy it carries, checked as the
master does every 20 steps:

>>> import numpy as np
>>> T = np.arange(201) * 1e-3
>>> Y = np.column_stack([np.sin(300 * T), np.cos(300 * T)])
>>> carried = np.concatenate([[0.0], np.cumsum(np.abs(Y[1:, 0] * Y[1:, 1]) * 1e-3)])
>>> watch = DivergenceWatch(DivergenceMonitor(), ["a.F", "b.v"], [0, 1], ["a.F*b.v"],
...                         [0], [1], step=1e-3)
>>> found = [(n, f) for n in range(20, 201, 20)
...          for f in watch.energy(n, T, Y, 0.1 * carried[:, None], carried[:, None])]
>>> n, (subject, message) = found[0]
>>> n, subject
(80, 'bond a.F*b.v')
>>> print(message[:88])
the coupling created 0.00255 J in the last 4 windows of 20 steps (0-0.08 s), 10 % of the
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..errors import ParameterError

__all__ = ["DivergenceMonitor", "DivergenceWatch"]


def _whole(x, low: int) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= low


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


@dataclass(frozen=True)
class DivergenceMonitor:
    """Settings of the divergence watch (see :mod:`bondgraph.cosim.divergence`).

    Parameters
    ----------
    window : int
        Communication steps in the shortest energy window (longer ones: ``window * 2**j``).
    patience : int
        Consecutive windows over the energy bound that make a report.
    threshold : float
        Energy bound: the largest share of the energy carried through a bond that the
        coupling may create in a window (default 0.02).
    efolds : float
        Growth bound: the largest growth rate of an exchanged signal, in e-folds per
        communication step (default 1).
    growth_window : int
        Communication steps per envelope window of the growth bound.
    growth_patience : int
        Consecutive windows over the growth bound that make a report.
    budget : float or None
        Budget bound: the largest energy the coupling may create since the start, as a
        share of the range of the bond's net transfer; ``None`` (default) switches it off
        (see the module notes: it misreads well-damped systems over long runs).
    floor : float
        Energy bound: windows whose newest carries less than this share of the energy the
        bond carried since the start are not judged (default 1e-3: the exchange died out).
    enabled : bool
        False switches the watch off (as ``ErrorPolicy(divergence="off")`` does); the
        energy residual is still recorded.

    Examples
    --------
    >>> DivergenceMonitor(threshold=0.02).threshold
    0.02
    >>> DivergenceMonitor(window=0, threshold=-1)
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: divergence monitor: 2 problems
      - window: found 0, expected a whole number >= 1
      - threshold: found -1, expected a fraction > 0
    """

    window: int = 20
    patience: int = 4
    threshold: float = 0.02
    efolds: float = 1.0
    growth_window: int = 4
    growth_patience: int = 2
    budget: float | None = None
    floor: float = 1e-3
    enabled: bool = True

    def __post_init__(self):
        problems = []
        for name in ("window", "patience", "growth_window", "growth_patience"):
            v = getattr(self, name)
            if not _whole(v, 1):
                problems.append(f"{name}: found {v!r}, expected a whole number >= 1")
        if not (_number(self.threshold) and self.threshold > 0):
            problems.append(f"threshold: found {self.threshold!r}, expected a fraction > 0")
        if self.budget is not None and not (_number(self.budget) and self.budget > 0):
            problems.append(f"budget: found {self.budget!r}, expected a fraction > 0 or None")
        if not (_number(self.floor) and 0 <= self.floor < 1):
            problems.append(f"floor: found {self.floor!r}, expected a fraction in [0, 1)")
        if not (_number(self.efolds) and self.efolds > 0):
            problems.append(f"efolds: found {self.efolds!r}, expected a positive number of "
                            "e-folds per step")
        if not isinstance(self.enabled, bool):
            problems.append(f"enabled: found {self.enabled!r}, expected True or False")
        if problems:
            raise ParameterError(problems, subject="divergence monitor")


class DivergenceWatch:
    """Applies the two bounds to a run's arrays as they fill.

    Parameters
    ----------
    monitor : DivergenceMonitor
        The settings.
    signal_names : sequence of str
        Names of the columns of the outputs array.
    watched : sequence of int
        Columns of the exchanged signals (outputs that feed an input).
    bond_names : sequence of str
        Names of the power bonds.
    effort, flow : sequence of int
        Output columns of each bond's effort and flow.
    step : float
        Communication step in s, for the messages.

    Examples
    --------
    A signal growing by 1.5 e-folds per step (the bound is 1) is reported after two
    windows of 4 steps beyond the first:

    >>> import numpy as np
    >>> T = np.arange(41) * 1e-3
    >>> Y = np.exp(1.5 * np.arange(41))[:, None]
    >>> watch = DivergenceWatch(DivergenceMonitor(), ["a.F"], [0], [], [], [], step=1e-3)
    >>> found = [(n, f) for n in range(4, 41, 4) for f in watch.growth(n, T, Y)]
    >>> n, (subject, message) = found[0]
    >>> n, subject, message[:45]
    (12, 'signal a.F', 'grew 1.63e+05x in 8 steps (0.004-0.012 s), mo')
    """

    def __init__(self, monitor: DivergenceMonitor, signal_names: Sequence[str],
                 watched: Sequence[int], bond_names: Sequence[str], effort: Sequence[int],
                 flow: Sequence[int], step: float):
        self.monitor = monitor
        self.names = tuple(signal_names)
        self.watched = np.asarray(sorted(set(int(i) for i in watched)), dtype=np.intp)
        self.bonds = tuple(bond_names)
        self.effort = np.asarray(effort, dtype=np.intp)
        self.flow = np.asarray(flow, dtype=np.intp)
        self.step = float(step)
        self._bond_done: set[int] = set()
        self._signal_done: set[int] = set()
        self._streak: np.ndarray | None = None      # consecutive windows over the bound
        self._ring: np.ndarray | None = None        # the last envelopes, for the message
        self._prev: np.ndarray | None = None
        self._limit = 0.0
        self._k = 0
        self._net = np.zeros(len(self.bonds))      # net transfer W at point _net_n
        self._net_lo = np.zeros(len(self.bonds))
        self._net_hi = np.zeros(len(self.bonds))
        self._net_n = 0
        self._budget_streak = np.zeros(len(self.bonds), dtype=int)

    # ------------------------------------------------------------------ energy bound
    def energy(self, n: int, T: np.ndarray, Y: np.ndarray, created: np.ndarray,
               carried: np.ndarray) -> list[tuple[str, str]]:
        """Bonds over the energy bound at point ``n`` (call when ``n % window == 0``).

        Parameters
        ----------
        n : int
            Index of the newest communication point.
        T, Y : ndarray
            Times and outputs (rows up to ``n`` filled).
        created, carried : ndarray, shape (>= n + 1, n_bonds)
            Cumulative energy created by the coupling (signed) and cumulative energy
            carried (``integral of |e f| dt``) on each bond.

        Returns
        -------
        list of (subject, message)
        """
        m = self.monitor
        found = self._budget(n, T, Y, created)
        L = m.window
        least = m.floor * carried[n]          # a window carrying less is not judged
        while n % L == 0 and m.patience * L <= n:
            span = n - m.patience * L
            # necessary: over the whole span the coupling created more than the bound
            if not np.any(created[n] - created[span] > m.threshold * (carried[n] - carried[span])):
                L *= 2
                continue
            idx = n - L * np.arange(m.patience + 1)               # newest first
            c = created[idx[:-1]] - created[idx[1:]]
            x = carried[idx[:-1]] - carried[idx[1:]]
            # judged unless the newest window carries next to nothing (the exchange died out;
            # a diverging one grows, its newest window carries the most)
            over = np.all((c > m.threshold * x) & (c > 0.0), axis=0) & (x[0] >= least)
            for b in np.flatnonzero(over):
                if b in self._bond_done:
                    continue
                self._bond_done.add(int(b))
                found.append((f"bond {self.bonds[b]}",
                              self._energy_message(b, idx, c[:, b], x[:, b], T, Y, L)))
            L *= 2
        return found

    def _budget(self, n: int, T: np.ndarray, Y: np.ndarray, created: np.ndarray) -> list[tuple[str, str]]:
        """Bonds whose coupling created more than ``budget`` of the range of their net
        transfer since the start (the budget bound)."""
        m = self.monitor
        if m.budget is None or not self.bonds or n <= self._net_n:
            return []
        k = self._net_n
        p = Y[k:n + 1, self.effort] * Y[k:n + 1, self.flow]
        W = self._net + np.concatenate([np.zeros((1, p.shape[1])),
                                        np.cumsum(0.5 * (p[1:] + p[:-1]) * np.diff(T[k:n + 1])[:, None],
                                                  axis=0)])
        self._net_lo = np.minimum(self._net_lo, W.min(axis=0))
        self._net_hi = np.maximum(self._net_hi, W.max(axis=0))
        self._net, self._net_n = W[-1], n
        moved = self._net_hi - self._net_lo
        over = (created[n] > m.budget * moved) & (created[n] > 0.0) & (n >= m.patience * m.window)
        self._budget_streak = np.where(over, self._budget_streak + 1, 0)
        found = []
        for b in np.flatnonzero(self._budget_streak >= m.patience):
            if b in self._bond_done:
                continue
            self._bond_done.add(int(b))
            found.append((f"bond {self.bonds[b]}",
                          f"the coupling created {created[n, b]:.3g} J since the start "
                          f"(0-{T[n]:.6g} s), {100 * created[n, b] / moved[b]:.3g} % of the "
                          f"{moved[b]:.3g} J the bond moved (the range of its net transfer; "
                          f"budget {100 * m.budget:g} %: an exact exchange creates none). The "
                          f"result is made by the coupling at H={self.step:g} s: use a higher "
                          "glue order, give the subsystems input derivatives, or a smaller "
                          "communication step"))
        return found

    def _energy_message(self, b, idx, c, x, T, Y, L) -> str:
        m = self.monitor
        t0, t1 = T[idx[-1]], T[idx[0]]
        share = 100.0 * c.sum() / x.sum()
        lo = 100.0 * float(np.min(c / x))
        grow = []
        for col in (self.effort[b], self.flow[b]):
            first = np.abs(Y[idx[-1]:idx[-2] + 1, col]).max()
            last = np.abs(Y[idx[1]:idx[0] + 1, col]).max()
            g = last / first if first > 0 else math.inf
            grow.append(f"|{self.names[col]}| grew {g:.3g}x")
        return (f"the coupling created {c.sum():.3g} J in the last {m.patience} windows of "
                f"{L} steps ({t0:.6g}-{t1:.6g} s), {share:.3g} % of the {x.sum():.3g} J "
                f"that crossed the bond (at least {lo:.3g} % in every window; bound "
                f"{100 * m.threshold:g} %: an exact exchange creates none); "
                f"{' and '.join(grow)} from the first to the last window. The coupling is "
                f"unstable or badly inaccurate at H={self.step:g} s: use a higher glue "
                "order, give the subsystems input derivatives, or a smaller communication "
                "step")

    # ------------------------------------------------------------------ growth bound
    def growth(self, n: int, T: np.ndarray, Y: np.ndarray) -> list[tuple[str, str]]:
        """Signals over the growth bound at point ``n`` (call when
        ``n % growth_window == 0``).

        Parameters
        ----------
        n : int
            Index of the newest communication point.
        T, Y : ndarray
            Times and outputs (rows up to ``n`` filled).

        Returns
        -------
        list of (subject, message)
            Each signal is reported once per run.
        """
        m = self.monitor
        W = m.growth_window
        if not self.watched.size or n < W:
            return []
        env = np.abs(Y[n - W + 1:n + 1, self.watched]).max(axis=0)
        if self._streak is None:
            self._streak = np.zeros(env.shape, dtype=int)
            self._ring = np.zeros((m.growth_patience + 1, env.size))
            self._limit = math.exp(m.efolds * W)
        self._ring[self._k % (m.growth_patience + 1)] = env
        self._k += 1
        prev = self._prev
        self._prev = env
        if prev is None:
            return []
        over = (prev > 0) & (env > self._limit * prev)
        self._streak = np.where(over, self._streak + 1, 0)
        if self._streak.max() < m.growth_patience:
            return []
        found = []
        oldest = self._ring[self._k % (m.growth_patience + 1)]
        for j in np.flatnonzero(self._streak >= m.growth_patience):
            col = int(self.watched[j])
            if col in self._signal_done:
                continue
            self._signal_done.add(col)
            total = float(env[j] / oldest[j])
            steps = W * m.growth_patience
            rate = math.log(total) / steps
            found.append((f"signal {self.names[col]}",
                          f"grew {total:.3g}x in {steps} steps ({T[n - steps]:.6g}-{T[n]:.6g} "
                          f"s), more than {self._limit:.3g}x in each window of {W} steps: "
                          f"{rate:.3g} e-folds per step, reaching |{self.names[col]}|="
                          f"{env[j]:.3g} (bound {m.efolds:g} e-fold per step of "
                          f"H={self.step:g} s, beyond which no glue of order 0-2 can follow a "
                          "signal). The coupling is unstable or the step is too large for the "
                          "dynamics: use a smaller communication step"))
        return found
