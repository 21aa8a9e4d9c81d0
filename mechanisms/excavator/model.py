"""The excavator as a model: build once, run cycles, read named results.

:class:`Excavator` builds the machine of :mod:`mechanisms.excavator.machine`
with the drives a mode needs — prescribed lengths (inverse dynamics),
prescribed forces (forward dynamics) or valve commands through the hydraulic
circuit — and :meth:`Excavator.run` returns an :class:`ExcavatorRun` whose
:meth:`~ExcavatorRun.table` has the named series a report needs.

Examples
--------
>>> from mechanisms.excavator import Excavator, Cycle
>>> exc = Excavator(mode="extensions")
>>> run = exc.run(Cycle.default("extensions"), t_end=0.5)
>>> tab = run.table()
>>> round(float(tab["boom_length"][0]), 3), round(float(tab["boom_angle"][0]), 4)
(3.668, 0.8727)
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable, Mapping

import numpy as np

from bondgraph import ParameterError, Results, Signal, power_balance

from ..model import MechanismModel
from .cycle import FUNCTIONS, Cycle
from .machine import CYLINDERS, body_angles, excavator_mechanism, pose_from_angles, start_pose
from .params import load_params

__all__ = ["Excavator", "ExcavatorRun", "CYL_OF"]

CYL_OF = dict(zip(FUNCTIONS, CYLINDERS))


class Excavator:
    """A built excavator for one driving mode.

    Parameters
    ----------
    params : path or dict, optional
        A parameter file, or already loaded SI parameters; default the reference machine.
    overrides : dict, optional
        Dotted keys with units (``{"bucket.mass": "50 kg"}``).
    mode : {"extensions", "forces", "valves"}
    hydraulics : dict, optional
        Hydraulic parameters (mode ``valves``).
    formulation : {"causal", "stiff", "cartesian"}
        How the mechanism's dynamics are formulated (:mod:`mechanisms.formulations`):
        the causal bond graph of the templates (default), stiff virtual joints, or the
        Cartesian DAE with Lagrange multipliers. The reference formulations take modes
        ``extensions`` and ``forces``; the hydraulic circuit of mode ``valves`` couples
        to the causal graph's cylinder ports.
    formulation_options : dict, optional
        Passed to :func:`~mechanisms.formulations.build_formulation` (``stiffness``,
        ``damping``; ``alpha``, ``beta``).

    Examples
    --------
    >>> exc = Excavator(mode="forces", formulation="cartesian")
    >>> exc.model.kind, len(exc.model.model.state_names)
    ('cartesian', 42)
    >>> Excavator(mode="valves", formulation="stiff")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: formulation 'stiff' with mode 'valves': the hydraulic circuit couples to the causal graph's cylinder ports; expected formulation 'causal' (the reference formulations take modes extensions and forces)
    """

    def __init__(self, params: Any = None, overrides: Mapping[str, Any] | None = None,
                 mode: str = "valves", hydraulics: Any = None, formulation: str = "causal",
                 formulation_options: Mapping[str, Any] | None = None):
        from ..formulations import FORMULATIONS

        if mode not in ("extensions", "forces", "valves"):
            raise ParameterError(f"mode {mode!r}: expected extensions, forces or valves")
        if formulation not in FORMULATIONS:
            raise ParameterError(f"formulation {formulation!r}: expected one of {', '.join(FORMULATIONS)}")
        if mode == "valves" and formulation != "causal":
            raise ParameterError(f"formulation {formulation!r} with mode 'valves': the hydraulic circuit "
                                 "couples to the causal graph's cylinder ports; expected formulation "
                                 "'causal' (the reference formulations take modes extensions and forces)")
        t0 = time.perf_counter()
        if isinstance(params, Mapping) and "boom" in params:
            self.params = dict(params)
        else:
            self.params = load_params(params, overrides)
        self.mode = mode
        self.formulation = formulation
        self.hydraulic = None
        if mode == "valves":
            from .hydraulics import ExcavatorHydraulics

            self.hydraulic = ExcavatorHydraulics(self.params, hydraulics)
            drives = self.hydraulic.drives()
        else:
            drives = "extension" if mode == "extensions" else "force"
        self.mechanism = excavator_mechanism(self.params, drives)
        if formulation == "causal":
            self.model = MechanismModel.build(self.mechanism)
        else:
            from ..formulations import build_formulation

            self.model = build_formulation(self.mechanism, formulation, **dict(formulation_options or {}))
        self.build_time = time.perf_counter() - t0

    @property
    def report(self):
        """The causal report of the assembled machine."""
        return self.model.model.report

    def pose(self, theta: tuple[float, float, float] | None = None):
        """Pose at body angles (rad; default the start pose of the parameters)."""
        if theta is None:
            return start_pose(self.mechanism, self.params)
        return pose_from_angles(self.mechanism, self.params, *theta)

    def run(self, cycle: Cycle, t_end: float | None = None, *, theta0: tuple | None = None,
            controller: Callable | None = None, rtol: float = 1e-6, atol: float = 1e-8,
            method: str = "CVODE", t_eval: np.ndarray | None = None, energy: bool = True,
            progress: bool = True) -> "ExcavatorRun":
        """Run a cycle of this excavator's mode.

        Parameters
        ----------
        cycle : Cycle
            Its mode must be this excavator's.
        t_end : float, optional
            Default: the cycle's last time.
        theta0 : tuple, optional
            Start body angles (rad) in modes forces/valves (default: start pose).
        controller : callable, optional
            ``u = controller(t, y)`` (mode valves): spool commands instead of the table.
        """
        if cycle.mode != self.mode:
            raise ParameterError(f"cycle is for mode {cycle.mode!r}, the excavator was built for "
                                 f"{self.mode!r}")
        t_end = cycle.end if t_end is None else float(t_end)
        if t_eval is None:
            t_eval = np.linspace(0.0, t_end, int(round(t_end * 100)) + 1)
        sig = cycle.signals()
        mm = self.model
        if self.formulation == "cartesian":
            energy = False  # no bond graph to account power on; the report says so
        t0 = time.perf_counter()
        if self.mode == "extensions":
            lengths = {CYL_OF[f]: s for f, s in sig.items()}
            th0 = self._angles_at_lengths({c: s.value(0.0) for c, s in lengths.items()})
            res = mm.simulate_extensions(lengths, (0.0, t_end), guess=th0, t_eval=t_eval, rtol=rtol,
                                         atol=atol, method=method, energy=energy, progress=progress)
        elif self.mode == "forces":
            pose = self.pose(theta0)
            res = mm.simulate_forces({CYL_OF[f]: s for f, s in sig.items()}, (0.0, t_end), pose,
                                     t_eval=t_eval, rtol=rtol, atol=atol, method=method, energy=energy,
                                     progress=progress)
        else:
            res = self.hydraulic.run(self, sig, t_end, theta0=theta0, controller=controller,
                                     t_eval=t_eval, rtol=rtol, atol=atol, method=method, energy=energy,
                                     progress=progress)
        return ExcavatorRun(self, res, time.perf_counter() - t0, cycle)

    def _angles_at_lengths(self, lengths: Mapping[str, float]) -> dict[str, float]:
        """Guess angles (rad) for a pose at given lengths: start pose angles and linkage branch."""
        pose = self.pose()
        guess = {n: pose.angle(n) for n in ("boom", "arm", "bucket", "rocker", "link")}
        sol = self.mechanism.solve_pose(lengths, guess=guess)
        return {n: sol.angle(n) for n in guess}


class ExcavatorRun:
    """One run: the generic :class:`~bondgraph.Results` plus the machine's read-outs."""

    def __init__(self, exc: Excavator, res: Results, wall: float, cycle: Cycle):
        self.excavator = exc
        self.results = res
        self.wall_time = wall
        self.cycle = cycle
        self._table: dict[str, np.ndarray] | None = None

    @property
    def t(self) -> np.ndarray:
        return self.results.t

    def positions(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        return self.excavator.model.positions(self.results)

    def table(self) -> dict[str, np.ndarray]:
        """Named series: ``time``, ``tip_x``/``tip_y``, lengths, forces, angles, every hinge."""
        if self._table is not None:
            return self._table
        mm = self.excavator.model
        res = self.results
        pos = mm.positions(res)
        out: dict[str, np.ndarray] = {"time": res.t}
        out["tip_x"], out["tip_y"] = pos["bucket/Q"]
        for f, c in CYL_OF.items():
            out[f"{f}_length"] = mm.coordinates(res, c)["s"]
        for f, c in CYL_OF.items():
            out[f"{f}_rate"] = mm.cylinder_rate(res, c)
        for f, c in CYL_OF.items():
            out[f"{f}_force"] = mm.cylinder_force(res, c)
        t1 = mm.coordinates(res, "boom")["theta"]
        ta = mm.coordinates(res, "arm")["theta"]
        tb = mm.coordinates(res, "bucket")["theta"]
        out["boom_angle"], out["arm_angle"], out["bucket_angle"] = t1, ta - t1, tb - ta
        if self.excavator.hydraulic is not None:
            out.update(self.excavator.hydraulic.table(self.excavator, res))
        else:  # pressures a cylinder needs, with the other side at zero
            for f, sec in (("boom", "boom_cylinder"), ("arm", "arm_cylinder"), ("bucket", "bucket_cylinder")):
                c = self.excavator.params[sec]
                a_cap = c["count"] * math.pi * c["bore"] ** 2 / 4
                a_rod = c["count"] * math.pi * (c["bore"] ** 2 - c["rod"] ** 2) / 4
                F = out[f"{f}_force"]
                out[f"{f}_cap_pressure_required"] = np.where(F > 0, F / a_cap, 0.0)
                out[f"{f}_rod_pressure_required"] = np.where(F < 0, -F / a_rod, 0.0)
        for name, (x, y) in pos.items():
            out[f"{name.replace('/', '_')}_x"] = x
            out[f"{name.replace('/', '_')}_y"] = y
        if res._w is not None:
            out["stored_energy"] = res.stored_energy()
            out["source_work"] = res.source_work()
            out["dissipated"] = res.dissipated()
        self._table = out
        return out

    def to_csv(self, path) -> Any:
        """Write the table (``time`` first) atomically."""
        import csv
        import os
        import tempfile
        from pathlib import Path

        tab = self.table()
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".csv")
        keys = list(tab)
        with os.fdopen(fd, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(keys)
            for i in range(len(tab["time"])):
                w.writerow([f"{float(tab[k][i]):.10g}" for k in keys])
        os.replace(tmp, path)
        return path

    def loop_closure(self) -> float:
        """Largest loop gap over the run (m)."""
        return max(float(np.max(g)) for g in self.excavator.model.loop_closure(self.results).values())

    def energy_balance(self):
        """:func:`bondgraph.power_balance` of the run (source work includes gravity)."""
        return power_balance(self.results)
