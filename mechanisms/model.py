"""A built mechanism: the generic model plus the machine's kinematic read-outs.

:class:`MechanismModel` wraps a :class:`bondgraph.Model` built from
:meth:`Mechanism.bond_graph` and knows which states are which part's angle
and which cylinder's length, so it can start a run from a :class:`Pose`,
drive cylinders by prescribed lengths or forces, and report hinge positions
(computed along each part's root chain from the integrated angles), loop
closure gaps and cylinder forces.

Examples
--------
>>> from mechanisms.examples import single_boom
>>> mm = MechanismModel.build(single_boom(drive="force"))
>>> mm.model.report.summary()
"causality of 'boom_lift': sound; 1 independent states, 3 displacement states, 3 dependent storage elements, 0 algebraic loops, 0 conflicts"
"""

from __future__ import annotations

from typing import Any, Mapping

import warnings

import numpy as np

from bondgraph import AssemblyError, Model, ParameterError, Results, SimulationError, Spline, build, simulate
from bondgraph.errors import BondGraphWarning
from components.ports import PortClass

from .assembly import Mechanism, Pose
from .strokes import explain, stroke_problems

__all__ = ["MechanismModel", "extension_signals", "OVERRUN"]

#: a cylinder whose end stop lets it this far past a stroke end (m) is named after a forces
#: run: the force is beyond what the stop model holds (a stiff stop penetrates millimetres)
OVERRUN = 0.01


def extension_signals(lengths: Mapping[str, Any]) -> dict[str, Spline]:
    """Splines of prescribed pin-to-pin lengths: ``{cylinder: Spline}``.

    Parameters
    ----------
    lengths : dict
        Cylinder name → ``(times, lengths)`` (two sequences of equal length ≥ 2, s and m;
        times increasing) or a ready :class:`~bondgraph.Spline`.

    Returns
    -------
    dict
        Cylinder name → C² cubic spline with *clamped* ends (zero slope at the first and
        the last time), so the motion starts and ends at rest and its accelerations (the
        inverse dynamics) exist everywhere; outside the table's times the length is not
        extrapolated (the rate is held at its end value, zero).

    Raises
    ------
    ParameterError
        A table that is not ``(times, lengths)``, not finite, or whose times do not increase.

    Examples
    --------
    >>> s = extension_signals({"lift_cyl": ([0.0, 1.0, 2.0], [1.5, 1.8, 1.6])})["lift_cyl"]
    >>> float(s.value(1.0)), float(s.rate().value(0.0))     # through the rows, starting at rest
    (1.8, 0.0)
    """
    out = {}
    for cyl, spec in lengths.items():
        if isinstance(spec, Spline):
            out[cyl] = spec
            continue
        try:
            times, vals = spec
        except (TypeError, ValueError):
            raise ParameterError(f"lengths of {cyl!r}: found {spec!r:.80}, expected (times, lengths): two "
                                 "sequences, s and m, e.g. ([0, 1, 2], [1.5, 1.8, 1.6])") from None
        out[cyl] = Spline(times, vals, name=f"{cyl} length")
    return out


class MechanismModel:
    """A mechanism's compiled bond-graph model and its kinematics.

    Built by :meth:`build` from a :class:`~mechanisms.Mechanism` whose cylinders are driven
    (:meth:`Mechanism.drive_extension <mechanisms.Mechanism.drive_extension>`,
    :meth:`~mechanisms.Mechanism.drive_force`, or a hydraulic component). It runs the
    mechanism with prescribed lengths (inverse dynamics, :meth:`simulate_extensions`) or
    forces (:meth:`simulate_forces`), checked against the strokes, and reads hinge
    positions, loop-closure gaps and cylinder forces from a run.

    For runs with cycles by function name, the start state that holds a pose, hydraulic
    circuits, contacts, plots, reports and the design studies, make the mechanism a
    :class:`~mechanisms.machine.Machine` (:meth:`Machine.from_mechanism
    <mechanisms.machine.Machine.from_mechanism>`).

    Parameters
    ----------
    mechanism : Mechanism
    model : bondgraph.Model

    Attributes
    ----------
    mechanism, model, name

    Examples
    --------
    >>> from mechanisms.examples import single_boom
    >>> mm = MechanismModel.build(single_boom("extension"))
    >>> res = mm.simulate_extensions({"boom_cyl": ([0, 1], [3.2, 3.5])}, (0, 1), progress=False)
    >>> F = mm.cylinder_force(res, "boom_cyl")
    >>> gap = max(mm.loop_closure(res)["boom/B–boom_cyl/B"])     # the integrator's drift, about rtol
    >>> bool(F[0] > 0), bool(gap < 1e-4)
    (True, True)
    """

    def __init__(self, mechanism: Mechanism, model: Model):
        self.mechanism = mechanism
        self.model = model
        self.name = mechanism.name

    @classmethod
    def build(cls, mechanism: Mechanism, params: Mapping[str, float] | None = None, *,
              cache_key: str | None = None) -> "MechanismModel":
        """Assemble the mechanism's bond graph, assign causality, derive and compile it.

        Parameters
        ----------
        mechanism : Mechanism
            Every cylinder driven; checked against the connection rules first.
        params : dict, optional
            Values of run-time parameters (sympy symbols used as masses, inertias...).
        cache_key : str, optional
            Text naming the model completely, for :func:`bondgraph.build` (a machine
            passes its ``mechanisms.machine.buildkey.machine_key``).

        Returns
        -------
        MechanismModel
            ``.model.report`` is the causal report (independent states, dependent storage
            elements and why, algebraic loops, conflicts).

        Raises
        ------
        ConnectionRuleError
            Every rule the mechanism breaks (a cylinder not driven, a Pd without its Pr...).
        CausalityConflict, EquationError, ParameterError
            From the core (:func:`bondgraph.build`).

        Examples
        --------
        >>> from mechanisms.examples import single_boom
        >>> mm = MechanismModel.build(single_boom("extension"))
        >>> mm.model.report.summary()
        "causality of 'boom_lift': sound; 0 independent states, 3 displacement states, 3 dependent storage elements, 0 algebraic loops, 0 conflicts"
        """
        return cls(mechanism, build(mechanism.bond_graph(), params, cache_key=cache_key))

    # ------------------------------------------------------------------ names
    def __repr__(self) -> str:
        return (f"MechanismModel({self.mechanism.name!r}: {len(self.mechanism.parts)} parts, "
                f"{len(self.model.state_names)} states, inputs {', '.join(self.model.input_names) or 'none'})")

    def _repr_svg_(self) -> str:
        from .display import causal_diagram_svg

        return causal_diagram_svg(self)

    def state(self, part: str, coord: str) -> str:
        """Global state name of a part coordinate (``theta`` of a body, ``phi`` of a lever's
        or cylinder's axis, ``s`` of a cylinder's length).

        Examples
        --------
        >>> from mechanisms.examples import single_boom
        >>> MechanismModel.build(single_boom()).state("boom_cyl", "s")
        'boom_lift/boom_cyl/ext.s'
        """
        p = self.mechanism.parts[part]
        try:
            return f"{self.name}/{part}/{p.coordinate_states[coord]}"
        except KeyError:
            raise ParameterError(f"{part}: no coordinate {coord!r} (has "
                                 f"{', '.join(p.coordinate_states)})") from None

    def state_units(self) -> dict[str, str]:
        """SI units of the states this model knows: every part's angle (rad), every cylinder's
        length (m) and a force drive's rate (m/s). A run's :attr:`Results.units
        <bondgraph.Results.units>` gets them, so :meth:`Results.plot <bondgraph.Results.plot>`
        draws angles and lengths on axes of their own.

        Examples
        --------
        >>> from mechanisms.examples import single_boom
        >>> MechanismModel.build(single_boom()).state_units()["boom_lift/boom_cyl/ext.s"]
        'm'
        """
        out = {}
        for name, part in self.mechanism.parts.items():
            for coord in part.coordinate_states:
                out[self.state(name, coord)] = "m" if coord == "s" else "rad"
        for cyl, d in self.mechanism.drives.items():
            if d.kind == "force":
                out[f"{self.name}/{cyl}_piston.f"] = "m/s"
        return {k: v for k, v in out.items() if k in self.model.state_names}

    def drive_bond(self, cyl: str) -> str:
        """The bond that carries the cylinder's drive force (effort) and rate (flow)."""
        g = self.model.graph
        target = f"{self.name}/{cyl}/ext"
        for u, v, k in g.in_edges(target, keys=True):
            if not u.startswith(f"{self.name}/{cyl}/"):
                return k
        raise ParameterError(f"{cyl}: no drive bond found")

    # ------------------------------------------------------------------ runs
    def initial_state(self, pose: Pose, rates: Mapping[str, float] | None = None) -> dict[str, float]:
        """The model's state at a pose, at rest (``rates``: cylinder → initial extension rate
        of a force drive, m/s)."""
        x0 = pose.states()
        for cyl, d in self.mechanism.drives.items():
            if d.kind == "force":
                x0[f"{self.name}/{cyl}_piston.f"] = float((rates or {}).get(cyl, 0.0))
        return {k: v for k, v in x0.items() if k in self.model.state_names}

    def _limits(self, cylinders) -> dict[str, tuple[float, float]]:
        return {c: self.mechanism.parts[c].length_limits for c in cylinders}

    def check_lengths(self, lengths: Mapping[str, Any], t_span, *,
                      guess: Mapping[str, float] | None = None) -> Pose:
        """Check prescribed lengths before a run; returns the start pose.

        The splines are sampled densely (between the table's rows too) and checked against
        every stroke, then the poses are followed from the start pose along the table (on
        its assembly branch) to the end of the run.

        Raises
        ------
        ParameterError
            Lengths not given for exactly the extension-driven cylinders; a ``t_span`` that
            starts before the table or is not increasing.
        AssemblyError
            A length outside its stroke (the cylinder, its worst value and when, the limit),
            or a pose that cannot be assembled or leaves the start's assembly branch (when
            and why).
        """
        sig = extension_signals(lengths)
        drives = {c for c, d in self.mechanism.drives.items() if d.kind == "extension"}
        if set(sig) != drives:
            raise ParameterError(f"lengths given for {sorted(sig)}, expected exactly the "
                                 f"extension-driven cylinders {sorted(drives)}")
        t0, t1 = _span(t_span)
        first = max(float(s.times[0]) for s in sig.values())
        last = min(float(s.times[-1]) for s in sig.values())
        if t0 < first - 1e-12:
            raise ParameterError(f"t_span starts at {t0:g} s, before the lengths table starts ({first:g} s): "
                                 "the lengths are not defined there; start at or after it")
        end = min(t1, last)
        ts = np.unique(np.concatenate([np.linspace(t0, end, 401)] + [s.times[(s.times >= t0) & (s.times <= end)]
                                                                     for s in sig.values()]))
        vals = {c: np.array([s.value(x) for x in ts]) for c, s in sig.items()}
        problems = stroke_problems(self._limits(sig), ts, vals)
        if problems:
            raise AssemblyError(problems, subject=f"prescribed lengths of {self.name!r} leave a stroke")
        pose = self.mechanism.solve_pose({c: v[0] for c, v in vals.items()}, guess=guess)
        step = max(1, len(ts) // 80)
        idx = np.unique(np.append(np.arange(0, len(ts), step), len(ts) - 1))
        try:
            self.mechanism.track({c: v[idx] for c, v in vals.items()}, pose)
        except AssemblyError as exc:
            i = getattr(exc, "index", 0)
            at = ", ".join(f"{c} {vals[c][idx[i]]:.4f} m" for c in vals)
            raise AssemblyError([f"unreachable at t = {ts[idx[i]]:.4g} s ({at})"] + exc.problems,
                                subject=f"prescribed lengths of {self.name!r} leave the reachable set") from None
        return pose

    def simulate_extensions(self, lengths: Mapping[str, Any], t_span, *,
                            guess: Mapping[str, float] | None = None, check: bool = True, **kw) -> Results:
        """Inverse dynamics: the cylinders follow prescribed pin-to-pin lengths.

        Parameters
        ----------
        lengths : dict
            Cylinder name → ``(times, lengths)`` (s, m) or a :class:`~bondgraph.Spline`
            (:func:`extension_signals`: C² splines that start and end at rest), for every
            extension-driven cylinder.
        t_span : (float, float)
            Start and end time (s). Past the table's end the lengths are held (a
            :class:`~bondgraph.errors.BondGraphWarning` says so).
        guess : dict, optional
            Part angles (rad) that pick the assembly branch of the start pose.
        check : bool
            Check the lengths against the strokes and reachability first
            (:meth:`check_lengths`); default True.
        **kw
            Passed to :func:`bondgraph.simulate` (``t_eval``, ``rtol``, ``atol``, ``method``...).

        Returns
        -------
        Results
            Read the drive forces with :meth:`cylinder_force`, positions with :meth:`positions`.

        Raises
        ------
        AssemblyError, ParameterError
            From :meth:`check_lengths`, before anything runs.
        SimulationError
            A failed integration, its physical cause first (:func:`mechanisms.strokes.explain`).

        Examples
        --------
        >>> from mechanisms.examples import single_boom
        >>> mm = MechanismModel.build(single_boom("extension"))
        >>> res = mm.simulate_extensions({"boom_cyl": ([0, 1], [3.2, 3.5])}, (0, 1), progress=False)
        >>> round(float(res["boom_lift/boom_cyl/ext.s"][-1]), 6)
        3.5
        >>> mm.simulate_extensions({"boom_cyl": ([0, 1], [3.2, 3.9])}, (0, 1))
        Traceback (most recent call last):
        ...
        bondgraph.errors.AssemblyError: prescribed lengths of 'boom_lift' leave a stroke: 1 problem
          - boom_cyl: 3.900 m at t = 1 s exceeds the stroke end 3.730 m (outside from t = 0.68 s to 1 s)
        """
        sig = extension_signals(lengths)
        t0, t1 = _span(t_span)
        if check:
            pose = self.check_lengths(sig, t_span, guess=guess)
        else:
            pose = self.mechanism.solve_pose({c: s.value(t0) for c, s in sig.items()}, guess=guess)
        last = min(float(s.times[-1]) for s in sig.values())
        if t1 > last + 1e-9 * max(1.0, abs(last)):
            warnings.warn(BondGraphWarning(
                f"t_span ends at {t1:g} s, past the end of the lengths table ({last:g} s): from {last:g} s on "
                f"the lengths are held ({', '.join(f'{c} = {s.value(last):.4g} m' for c, s in sig.items())})"),
                stacklevel=2)
        inputs = {f"{c}.rate": s.rate(name=f"{c}.rate") for c, s in sig.items()}
        inputs.update(kw.pop("inputs", {}))
        return self._simulate(t_span, self.initial_state(pose), inputs, kw)

    def simulate_forces(self, forces: Mapping[str, Any], t_span, pose: Pose,
                        rates: Mapping[str, float] | None = None, **kw) -> Results:
        """Forward dynamics: prescribed cylinder forces (N, net force on the rod, + pushing).

        A force drive has its cylinder's end stops by default (:meth:`Mechanism.drive_force
        <mechanisms.Mechanism.drive_force>`): a force the machine cannot take ends against a
        stop. After the run, a :class:`~bondgraph.errors.BondGraphWarning` names every
        cylinder that left its stroke (how far, when): by more than 0.1 mm without end
        stops, by more than :data:`OVERRUN` (10 mm) through its stops.

        Parameters
        ----------
        forces : dict
            Cylinder → force: a number, a signal (:class:`~bondgraph.Table`,
            :class:`~bondgraph.Spline`) or a callable of time.
        t_span : (float, float)
        pose : Pose
            The start pose (:meth:`Mechanism.solve_pose <mechanisms.Mechanism.solve_pose>`).
        rates : dict, optional
            Initial extension rates (m/s).
        **kw
            Passed to :func:`bondgraph.simulate`.

        Raises
        ------
        SimulationError
            A failed integration, its physical cause first (a cylinder past its stroke, a
            toggle position), the partial results kept (``err.results``).

        Examples
        --------
        >>> from mechanisms.examples import single_boom
        >>> mm = MechanismModel.build(single_boom("force"))
        >>> pose = mm.mechanism.solve_pose({"boom_cyl": 3.2}, guess={"boom": 0.4})
        >>> res = mm.simulate_forces({"boom_cyl": 250e3}, (0, 2), pose, progress=False)
        >>> round(float(max(res["boom_lift/boom_cyl/ext.s"])), 2)        # stopped at the stroke end
        3.73
        """
        inputs = {f"{c}.force": f for c, f in forces.items()}
        inputs.update(kw.pop("inputs", {}))
        res = self._simulate(t_span, self.initial_state(pose, rates), inputs, kw)
        drives = {c: d for c, d in self.mechanism.drives.items() if d.kind == "force"}
        over = []
        for stopped in (False, True):
            cyls = [c for c, d in drives.items() if (d.end_stop is not None) == stopped]
            tol = OVERRUN if stopped else 1e-4
            over += [p + (f": its end stop was overrun by more than {OVERRUN * 1e3:g} mm (the force is "
                          "beyond what the cylinder holds at its end)" if stopped else
                          ": the cylinder left its stroke (no end stops on its drive)")
                     for p in stroke_problems(self._limits(cyls), res.t,
                                              {c: res[self.state(c, "s")] for c in cyls}, tol=tol)]
        if over:
            warnings.warn(BondGraphWarning(f"model {self.name!r}: " + "; ".join(over)), stacklevel=2)
        return res

    def _simulate(self, t_span, x0, inputs, kw) -> Results:
        try:
            res = simulate(self.model, t_span, x0=x0, inputs=inputs, **kw)
        except SimulationError as exc:
            raise explain(exc, self) from None
        res.units.update(self.state_units())
        return res

    # ------------------------------------------------------------------ read-outs
    def coordinates(self, res: Results, part: str) -> dict[str, np.ndarray]:
        """A part's coordinates along a run: ``theta`` of a body, ``phi`` (and ``s`` of a
        cylinder) of a lever or cylinder (rad, m)."""
        p = self.mechanism.parts[part]
        return {c: res[self.state(part, c)] for c in p.coordinate_states}

    def poses(self, res: Results) -> dict[str, tuple]:
        """Every part's pose along a run (arrays), from the chassis along the root chains."""
        mech = self.mechanism
        world: dict[str, dict] = {}
        poses = {}
        for name in mech._tree_order():
            part = mech.parts[name]
            parent = mech._parent(part)
            if parent is None:
                at = mech.fixed[(name, part.root.name)]
                root = (np.full(len(res.t), at[0]), np.full(len(res.t), at[1]))
            else:
                root = world[parent[0]][parent[1]]
            poses[name] = part.pose_from_states(root, self.coordinates(res, name))
            world[name] = part.world_points(poses[name])
        return poses

    def positions(self, res: Results) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """World position (m) of every hinge point along the run, keyed ``"part/point"``
        (computed along each part's root chain from the integrated angles).

        Examples
        --------
        >>> from mechanisms.examples import single_boom
        >>> mm = MechanismModel.build(single_boom("extension"))
        >>> res = mm.simulate_extensions({"boom_cyl": ([0, 1], [3.2, 3.5])}, (0, 1), progress=False)
        >>> x, y = mm.positions(res)["boom/C"]          # the foot pin on the chassis
        >>> float(x[-1]), float(y[-1])
        (-0.164, 1.428)
        """
        out = {}
        for name, pose in self.poses(res).items():
            for pn, xy in self.mechanism.parts[name].world_points(pose).items():
                out[f"{name}/{pn}"] = xy
        return out

    def free_points(self) -> list[str]:
        """The load points (``Li``) nothing is hinged to — tool tips, hooks — as ``"part/point"``."""
        hinged = {hp for h in self.mechanism.hinges for hp in h}
        return [f"{p.name}/{hp.name}" for p in self.mechanism.parts.values() for hp in p.points.values()
                if hp.cls is PortClass.LI and hp not in hinged]

    def loop_closure(self, res: Results) -> dict[str, np.ndarray]:
        """Gap (m) at every Pd–Pr hinge along the run: the loops' closure residual."""
        pos = self.positions(res)
        out = {}
        for a, b in self.mechanism.hinges:
            if {a.cls, b.cls} == {PortClass.PD, PortClass.PR}:
                pa, pb = pos[f"{a.part}/{a.name}"], pos[f"{b.part}/{b.name}"]
                out[f"{a.part}/{a.name}–{b.part}/{b.name}"] = np.hypot(pa[0] - pb[0], pa[1] - pb[1])
        return out

    def cylinder_force(self, res: Results, cyl: str) -> np.ndarray:
        """Axial force on the cylinder's drive (N, positive pushing)."""
        return res.effort(self.drive_bond(cyl))

    def cylinder_rate(self, res: Results, cyl: str) -> np.ndarray:
        """Extension rate of the cylinder (m/s, positive extending)."""
        return res.flow(self.drive_bond(cyl))

    def plot_trajectory(self, res: Results, points: list[str] | None = None, *, ax=None):
        """The first and last postures of a run and the paths of some hinge points.

        Parameters
        ----------
        res : Results
            A run of this model.
        points : list of str, optional
            ``"part/point"`` names; default :meth:`free_points` (the tool tips).
        ax : matplotlib Axes, optional

        Returns
        -------
        matplotlib.figure.Figure

        Examples
        --------
        >>> import matplotlib; matplotlib.use("Agg")
        >>> from mechanisms.examples import single_boom
        >>> mm = MechanismModel.build(single_boom("extension"))
        >>> res = mm.simulate_extensions({"boom_cyl": ([0, 1], [3.2, 3.5])}, (0, 1), progress=False)
        >>> fig = mm.plot_trajectory(res)
        >>> fig.axes[0].get_xlabel(), [t.get_text() for t in fig.axes[0].get_legend().get_texts()][-1]
        ('x [m]', 'boom/F path')
        """
        import matplotlib.pyplot as plt

        pos = self.positions(res)
        points = self.free_points() if points is None else list(points)
        unknown = [p for p in points if p not in pos]
        if unknown:
            raise ParameterError(f"plot_trajectory: no hinge point {', '.join(map(repr, unknown))} in "
                                 f"{self.name!r} (points: {', '.join(pos)})")
        if ax is None:
            fig, ax = plt.subplots(figsize=(8, 6), layout="constrained")
        else:
            fig = ax.figure
        poses = self.poses(res)
        for i, colour in ((0, "0.35"), (-1, "tab:blue")):
            first = True
            for name, part in self.mechanism.parts.items():
                pose = tuple(float(np.asarray(v)[i]) for v in poses[name])
                for line in part.sketch(pose):
                    xs, ys = zip(*line)
                    ax.plot(xs, ys, color=colour, lw=2, solid_capstyle="round",
                            label=f"posture at t = {res.t[i]:.2f} s" if first else None)
                    first = False
        for k, p in enumerate(points):
            x, y = pos[p]
            ax.plot(x, y, lw=1.6, color=f"C{(k + 3) % 10}", label=f"{p} path")
            ax.plot(x[0], y[0], "o", color=f"C{(k + 3) % 10}")
        ax.set_aspect("equal", adjustable="datalim")
        ax.set_xlabel("x [m]")
        ax.set_ylabel("y [m]")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small", loc="best")
        ax.set_title(f"{self.name}: {res.t[0]:g} … {res.t[-1]:g} s")
        return fig

def _span(t_span) -> tuple[float, float]:
    try:
        t0, t1 = (float(x) for x in t_span)
    except (TypeError, ValueError):
        raise ParameterError(f"t_span = {t_span!r}: expected (start, end) in s") from None
    if not (np.isfinite(t0) and np.isfinite(t1) and t1 > t0):
        raise ParameterError(f"t_span = {t_span!r}: expected finite times with end > start (s)")
    return t0, t1
