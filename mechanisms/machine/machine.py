"""A machine built from its description for one driving mode: model, start pose, runs.

:class:`Machine` reads a machine file (:mod:`.description`), assembles it from the
templates (:mod:`.assemble`), builds the bond-graph model once, solves the start
pose of ``[start]`` once, and runs cycles (:mod:`.run`). Masses, inertias, bores
and gravity are run-time parameters: :meth:`Machine.set` changes them without
rebuilding; keys the mode's model does not contain (a bore in mode forces, the
circuit in mode extensions, ``[base]``) change the description only; any other
change rebuilds.

Examples
--------
>>> from mechanisms.machine import Machine, DATA
>>> m = Machine.from_file(DATA / "excavator.toml", mode="forces")
>>> m.functions, round(m.start_pose.length("boom_cylinder"), 3)
(('boom', 'arm', 'bucket'), 3.668)
>>> m.set({"bucket.mass": "900 kg"})
'parameters'
>>> m.model.model.params["bucket.mass"]
900.0
>>> m.set({"boom_cylinder.bore": "150 mm", "circuit.power_unit.relief_crack": "290 bar"})
'description'
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from bondgraph.errors import AssemblyError, ParameterError

from components import Cylinder

from ..assembly import Mechanism, Pose
from ..model import MechanismModel
from .assemble import assemble
from .buildkey import machine_key
from .cycle import Cycle
from .description import MODES, MachineDescription
from .warmstart import start_targets

__all__ = ["Machine", "FORMULATIONS", "check_pose", "start_pose_of", "inert_key"]

FORMULATIONS = ("causal", "stiff", "cartesian")

#: other assembly branches a note describes (Machine.branch_note); start_branches() has them all
SHOWN_BRANCHES = 3

#: longest continuation step (m of a cylinder length, rad of an angle) on the straight path
#: from a known pose to a new one (:meth:`Machine.pose_at_lengths`, :meth:`Machine.pose`)
PATH_STEP, PATH_STEP_ANGLE = 0.02, 0.02


class Machine:
    """A machine description built for one mode.

    Parameters
    ----------
    description : MachineDescription
    mode : {"extensions", "forces", "valves"}
        What the cycle prescribes: cylinder lengths (inverse dynamics), cylinder
        forces (forward dynamics, end stops active) or spool commands (hydraulics).
    formulation : {"causal", "stiff", "cartesian"}
        The templates' causal bond graph (default), or a reference formulation of
        the same mechanism (:mod:`mechanisms.formulations`; modes extensions and forces).
    formulation_options : dict, optional
        Passed to :func:`~mechanisms.formulations.build_formulation`.
    end_stops : bool
        The cylinders' end stops act in modes forces and valves (default; their data are
        each cylinder's ``end_stop`` table, defaults 1e9 N/m and 1e6 N·s/m, a force drive's
        spring hardening over 1 mm, a cushion in mode valves when given). ``False`` switches
        them off: a cylinder may then leave its stroke, which a failed run names.

    Attributes
    ----------
    description, mode, formulation, mechanism, model, circuit, start_pose, build_time

    See Also
    --------
    Machine.from_file : a machine file.
    Machine.from_mechanism : a mechanism built from templates in Python.

    Examples
    --------
    >>> from mechanisms.machine import DATA
    >>> m = Machine.from_file(DATA / "wheel_loader.toml", mode="extensions")
    >>> m.functions, m.cylinder_of["lift"], m.report.summary().split(";")[0]
    (('lift', 'tilt'), 'lift_cylinder', "causality of 'wheel_loader': sound")
    """

    def __init__(self, description: MachineDescription, mode: str = "valves", *,
                 formulation: str = "causal", formulation_options: Mapping[str, Any] | None = None,
                 end_stops: bool = True):
        if mode not in MODES:
            raise ParameterError(f"mode {mode!r}: expected one of {', '.join(MODES)}")
        if formulation not in FORMULATIONS:
            raise ParameterError(f"formulation {formulation!r}: expected one of {', '.join(FORMULATIONS)}")
        if mode == "valves" and formulation != "causal":
            raise ParameterError(f"formulation {formulation!r} with mode 'valves': the hydraulic circuit "
                                 "couples to the causal graph's cylinder ports; expected formulation "
                                 "'causal' (the reference formulations take modes extensions and forces)")
        if not isinstance(end_stops, bool):
            raise ParameterError(f"end_stops = {end_stops!r}: expected True (the cylinders' end stops act, the "
                                 "default) or False")
        self.end_stops = end_stops
        self.mode = mode
        self.formulation = formulation
        self.formulation_options = dict(formulation_options or {})
        self._build(description)

    @classmethod
    def from_file(cls, path: str | Path, overrides: Mapping[str, Any] | None = None, *,
                  mode: str = "valves", **kw: Any) -> "Machine":
        """Read a machine file (with dotted-key ``overrides`` with units) and build it."""
        t0 = time.perf_counter()
        desc = MachineDescription.load(path, overrides)
        m = cls(desc, mode, **kw)
        m.build_time = time.perf_counter() - t0  # reading the file included
        return m

    @classmethod
    def from_mechanism(cls, mechanism: Mechanism, *, mode: str = "extensions", start: Mapping[str, Any],
                       guess: Mapping[str, Any] | None = None, outputs: Mapping[str, Any] | None = None,
                       limits: Mapping[str, Any] | None = None, circuit: Mapping[str, Any] | None = None,
                       base: Mapping[str, Any] | None = None, cycles: Mapping[str, Any] | None = None,
                       ground: Any = None, name: str | None = None, title: str | None = None,
                       source: str | None = None, default_cycle: str | None = None, kind: str | None = None,
                       soil: Mapping[str, Any] | None = None, swing: Mapping[str, Any] | None = None,
                       travel: Mapping[str, Any] | None = None,
                       formulation: str = "causal",
                       **kw: Any) -> "Machine":
        """A machine from a mechanism built from templates in Python: the same object, with
        the same checks and capabilities, as one read from a machine file.

        The mechanism gives the parts, ``[chassis]``, ``[hinges]`` and ``[payloads]`` (its
        bodies' point masses); every other section is a keyword argument written as in a
        file, values with their units. Its drives are not used: ``mode`` drives every
        cylinder (with their end stops in modes forces and valves). Each cylinder needs its
        ``bore`` and ``rod`` (:class:`~components.Cylinder`); its ``function`` (default its
        name) names its read-outs, cycle column and valve.

        Parameters
        ----------
        mechanism : Mechanism
        mode : {"extensions", "forces", "valves"}
            Default ``"extensions"``; ``"valves"`` needs a ``circuit``.
        start : dict
            One target per cylinder: its pin-to-pin length (``{"lift_cyl": "1.5 m"}``) or an
            angle of ``outputs["angles"]`` or a part (``{"boom": "40 deg"}``).
        guess : dict, optional
            Part angles that pick the assembly branch of the start pose (``{"rocker": "8 deg"}``).
        outputs : dict, optional
            ``{"points": {"tip": "bucket.Q"}, "angles": {"tilt": "bucket - arm"}}``: read-outs
            ``tip_x``, ``tip_y``, ``tilt_angle`` (default angles: every body, absolute).
        limits, circuit, base, cycles, soil, swing, travel : dict, optional
            ``[limits]`` joint ranges, the hydraulic ``[circuit]`` (``type`` fixed,
            load-sensing or open-centre, its tables by function name), the base machine
            ``[base]`` for tipping studies, named ``[cycles]`` (CSV files), the ``[soil]`` the
            cutting edge meets (``{"preset": "loose_sand", "edge": "bucket.Q", ...}``), the
            ``[swing]`` turntable the front rides on (``{"inertia": "35000 kg*m^2",
            "gear_ratio": 120}``, :mod:`.swing`), the ``[travel]`` carrier it travels on
            (``{"mass": "15 t", "rolling": 0.03}``, :mod:`.travel`).
        ground, name, title, source, default_cycle, kind
            The ``[machine]`` table's keys (``ground = "-1.2 m"``; ``kind = "loader"`` for the
            loader standards of the design studies).
        formulation : str
            As for :class:`Machine`.

        Raises
        ------
        ParameterError
            Every problem of every section at once, each by its key (a cylinder without a
            bore, an unknown key, a value of the wrong unit...).
        ConnectionRuleError, AssemblyError
            As for a machine file: the rules, a start pose that cannot be assembled or lies
            outside a stroke.

        Examples
        --------
        >>> from mechanisms.examples import single_boom
        >>> m = Machine.from_mechanism(single_boom(), start={"boom_cyl": "3.2 m"},
        ...                            outputs={"points": {"tip": "boom.F"}})
        >>> m.functions, round(m.start_pose.length("boom_cyl"), 12), m.description.file.name
        (('boom_cyl',), 3.2, "Machine.from_mechanism('boom_lift')")
        """
        t0 = time.perf_counter()
        desc = MachineDescription.from_mechanism(
            mechanism, start=start, guess=guess, outputs=outputs, limits=limits, circuit=circuit, base=base,
            cycles=cycles, ground=ground, soil=soil, swing=swing, travel=travel, name=name, title=title, source=source,
            default_cycle=default_cycle,
            kind=kind)
        m = cls(desc, mode, formulation=formulation, **kw)
        m.build_time = time.perf_counter() - t0
        return m

    def with_mode(self, mode: str, **kw: Any) -> "Machine":
        """The same machine built for another driving mode (``"forces"``, ``"valves"``...).

        Examples
        --------
        >>> from mechanisms.machine import DATA
        >>> Machine.from_file(DATA / "excavator.toml", mode="forces").with_mode("extensions").mode
        'extensions'
        """
        return Machine(self.description, mode, **{"formulation": self.formulation,
                                                   "formulation_options": self.formulation_options,
                                                   "end_stops": self.end_stops, **kw})

    def with_circuit(self, circuit: Mapping[str, Any], mode: str = "valves") -> "Machine":
        """The machine with a hydraulic circuit, built for mode ``valves``.

        ``circuit`` is the ``[circuit]`` table, values with units and tables by function
        name; its ``type`` picks the circuit (``"fixed"``, ``"load-sensing"``,
        ``"open-centre"``; :data:`~mechanisms.machine.CIRCUITS`). The start state that holds
        the start pose is found when a run starts (:meth:`start_state`): user code never
        names a chamber's state.

        Raises
        ------
        ParameterError
            Every problem of the circuit's tables, by key.

        Examples
        --------
        >>> from mechanisms.examples import single_boom
        >>> m = Machine.from_mechanism(single_boom(), start={"boom_cyl": "3.2 m"})
        >>> v = m.with_circuit({"type": "fixed",
        ...     "oil": {"density": "870 kg/m^3", "bulk_modulus": "1.4 GPa"},
        ...     "power_unit": {"pump_displacement": "100 cm^3/rev", "pump_speed": "1800 rpm",
        ...                    "relief_crack": "250 bar", "relief_full": "260 bar", "relief_flow": "400 L/min"},
        ...     "valves": {"boom_cyl": {"flow": "150 L/min", "dp": "10 bar"}}})
        >>> v.mode, v.functions
        ('valves', ('boom_cyl',))
        """
        return Machine(self.description.with_sections(circuit=circuit), mode, formulation=self.formulation,
                       formulation_options=self.formulation_options, end_stops=self.end_stops)

    def to_mechanism(self) -> Mechanism:
        """The machine's linkage as an undriven mechanism of templates, for editing in Python
        (:meth:`MachineDescription.to_mechanism <.description.MachineDescription.to_mechanism>`);
        :meth:`with_mechanism` builds the edited one with this machine's other sections.
        """
        return self.description.to_mechanism()

    def with_mechanism(self, mechanism: Mechanism, **sections: Any) -> "Machine":
        """This machine's sections (start pose, outputs, circuit, base, cycles...) on another
        (edited) mechanism, in the same mode; ``sections`` replace some of them.

        Examples
        --------
        >>> from mechanisms.machine import DATA
        >>> m = Machine.from_file(DATA / "excavator.toml", mode="extensions")
        >>> mech = m.to_mechanism()
        >>> _ = mech.replace(mech.parts["bucket"].evolve(mass="900 kg"))
        >>> m.with_mechanism(mech).params["bucket.mass"]
        900.0
        """
        return Machine.from_mechanism(mechanism, mode=self.mode, formulation=self.formulation,
                                      end_stops=self.end_stops, **{**self.description.sections(), **sections})

    def save(self, path: str | Path, **kw: Any) -> Path:
        """Write the machine as a description file (and its cycle files next to it); reading
        it back (:meth:`from_file`) builds the same equations and runs.
        See :meth:`MachineDescription.save <.description.MachineDescription.save>`."""
        return self.description.save(path, **kw)

    # ------------------------------------------------------------------ build
    def _build(self, desc: MachineDescription) -> None:
        t0 = time.perf_counter()
        self.description = desc
        causal = self.formulation == "causal"
        a = assemble(desc, self.mode, symbolic=causal, end_stops=self.end_stops)
        self.mechanism: Mechanism = a.mechanism
        self.mechanism.description = desc    # its displays name functions, outputs and the ground
        self.circuit = a.circuit
        self._symbols = a.symbols
        self.turntable = None
        if desc.swing is not None:      # the front on its turntable (mechanisms.machine.swing)
            from .swing import attach_swing

            attach_swing(self, a)
        self.carrier = None
        if desc.travel is not None:     # the front on its travelling carrier (mechanisms.machine.travel)
            from .travel import attach_travel

            attach_travel(self, a)
        if not causal and desc.soil is not None:
            raise ParameterError(f"{desc.name}: [soil] is modelled in the causal formulation only "
                                 f"(found formulation {self.formulation!r})")
        key = machine_key(desc, self.mode, end_stops=self.end_stops) if causal else None
        self._key = key
        if causal and desc.soil is not None:
            from .soil import with_soil

            sl = desc.soil
            with_soil(self, sl["properties"], edge=sl["edge"], face=sl["face"], width=sl["width"],
                      capacity=sl["capacity"], ground=sl["ground"], params=a.params, cache_key=key,
                      **({"dump_angle": sl["dump_angle"]} if sl.get("dump_angle") is not None else {}))
        elif causal:
            self.model = MechanismModel.build(self.mechanism, a.params, cache_key=key)
        else:
            from ..formulations import build_formulation

            self.model = build_formulation(a.mechanism, self.formulation, **self.formulation_options)
        self.start_pose = self._solve_start()
        self.build_time = time.perf_counter() - t0

    def _solve_start(self) -> Pose:
        """The start pose of ``[start]``, checked against strokes and joint limits."""
        key = getattr(self, "_key", None)
        pose = None
        if key is not None:       # a warm build: the pose stored under the machine's key
            from .warmstart import load_start_pose

            pose = load_start_pose(key, self.mechanism, start_targets(self.description)[0])
        if pose is None:
            pose = start_pose_of(self.description, self.mechanism)
            if key is not None:
                from .warmstart import save_start_pose

                save_start_pose(key, pose)
        self._check_pose(pose, f"start pose of {self.description.file.name} "
                               f"({self.description.where('start')})")
        return pose

    def _check_pose(self, pose: Pose, subject: str) -> None:
        """Refuse a pose with a cylinder outside its stroke or an angle outside its limits."""
        check_pose(self.description, pose, subject)

    def start_branches(self) -> list[Pose]:
        """The assembly branches of the start pose: the one taken first, then every other
        one at the same ``[start]`` targets (:meth:`Mechanism.assembly_branches
        <mechanisms.Mechanism.assembly_branches>`) with every cylinder inside its stroke and
        every angle inside its ``[limits]``; computed once."""
        if getattr(self, "_branches", None) is None:
            desc = self.description
            pose = self.start_pose
            targets = {k: mech_target for k, mech_target in _targets_of(desc, pose).items()}
            out = []
            for p in self.mechanism.assembly_branches(targets, {n: pose.angle(n) for n in self.mechanism.parts}):
                try:      # a branch with a cylinder outside its stroke is no pose of the machine
                    check_pose(desc, p, "branch")
                except AssemblyError:
                    continue
                out.append(p)
            self._branches = out
        return self._branches

    def branch_note(self) -> str:
        """What the start pose's assembly branches are and how to choose another: ``""`` when
        the start pose has one branch.

        Examples
        --------
        >>> from mechanisms.machine import DATA
        >>> m = Machine.from_file(DATA / "wheel_loader.toml", mode="extensions")
        >>> print(m.branch_note())        # doctest: +ELLIPSIS
        start pose: 2 assembly branches at the [start] targets; taken: the one of the file's guess.* (bellcrank -13.0°, link 20.0°), ...
          other branch: ...; choose it with guess.bellcrank = "124.1 deg", guess.link = "-71.4 deg" in [start] (absolute part angles from the x axis)
        """
        poses = self.start_branches()
        if len(poses) < 2:
            return ""
        desc = self.description
        taken, others = poses[0], poses[1:]

        def describe(p: Pose) -> str:
            bits = [f"{c} {p.length(c):.3f} m" for c in desc.cylinders]
            for name, (part, point) in list(desc.output_points.items())[:1]:
                x, y = p.points()[f"{part}/{point}"]
                bits.append(f"{name} ({x:.2f}, {y:.2f}) m")
            return ", ".join(bits)

        free = [n for n in self.mechanism.parts if n not in desc.start and not desc.parts[n].type == "cylinder"]
        if desc.guess:
            how = ("the one of the file's guess.* (" + ", ".join(f"{k} {math.degrees(v):.1f}°" for k, v in desc.guess.items())
                   + ")")
        else:
            how = "the one nearest the default guess (the file gives no guess.*: name the branch you mean)"
        lines = [f"start pose: {len(poses)} assembly branches at the [start] targets; taken: {how}, "
                 f"{describe(taken)}"]
        for p in others[:SHOWN_BRANCHES]:
            pick = ", ".join(f"guess.{n} = \"{_wrap_deg(p.angle(n)):.1f} deg\"" for n in free)
            lines.append(f"  other branch: {describe(p)}; choose it with {pick} in [start] (absolute part "
                         "angles from the x axis)")
        if len(others) > SHOWN_BRANCHES:
            lines.append(f"  ... and {len(others) - SHOWN_BRANCHES} more (Machine.start_branches() lists them)")
        return "\n".join(lines)

    def angle(self, pose: Pose, name: str) -> float:
        """An angle of ``[outputs.angles]`` (or a part's absolute angle) at a pose (rad)."""
        part, ref = self.description.angles.get(name, (name, None))
        a = pose.angle(part)
        return a - pose.angle(ref) if ref else a

    # ------------------------------------------------------------------ names
    @property
    def name(self) -> str:
        """The machine's name (``[machine] name``)."""
        return self.description.name

    @property
    def functions(self) -> tuple[str, ...]:
        """The cylinder functions, in file order: the names of read-outs, cycle columns, valves."""
        return self.description.functions

    @property
    def cylinder_of(self) -> dict[str, str]:
        """Function → the name of its cylinder part."""
        return self.description.cylinder_of

    @property
    def report(self):
        """The causal report of the assembled machine."""
        return self.model.model.report

    @property
    def params(self) -> dict[str, float]:
        """Current values of the run-time parameters (by file key)."""
        p = self.model.model.params
        return {k: p[k] for k in self._symbols if k in p}

    # ------------------------------------------------------------------ poses
    def pose(self, targets: Mapping[str, float] | None = None) -> Pose:
        """A pose: the start pose, or one with other targets (cylinder lengths in m, angles of
        ``[outputs.angles]`` or parts in rad), on the start pose's assembly branch."""
        if targets is None:
            return self.start_pose
        desc = self.description
        tg: dict[str, float] = {}
        absolute: dict[str, float] = {}
        for k, v in targets.items():
            if k in desc.parts and desc.parts[k].type == "cylinder":
                tg[k] = float(v)
            elif k in desc.angles or k in desc.parts:
                part, ref = desc.angles.get(k, (k, None))
                if ref is None:
                    absolute[part] = float(v)
                else:
                    base = absolute.get(ref, targets.get(ref))
                    if base is None:
                        raise ParameterError(f"pose target {k!r} is relative to {ref!r}: give {ref!r} too")
                    absolute[part] = float(base) + float(v)
            else:
                raise ParameterError(f"pose target {k!r}: not a cylinder or an angle of {desc.name!r} "
                                     f"(cylinders {', '.join(desc.cylinders)}; angles {', '.join(desc.angles)})")
        tg.update(absolute)
        pose = self._along_path(tg, self.start_pose, f"pose of {desc.name}")
        self._check_pose(pose, f"pose of {desc.name}")
        return pose

    def pose_at_lengths(self, lengths: Mapping[str, float], near: Pose | None = None) -> Pose:
        """The pose with the functions' cylinders at ``lengths`` (m), on the assembly branch
        of ``near`` (default the start pose, the branch of the file's ``[start]``).

        The pose is followed from ``near`` along the straight path in length space
        (continuation, :meth:`Mechanism.track <mechanisms.Mechanism.track>`), so it is the
        one the cylinders reach by moving there, never the loop's mirror image.

        Raises
        ------
        ParameterError
            A function unknown or missing, a length that is not a finite number.
        AssemblyError
            A length outside its stroke; a pose with an angle outside its ``[limits]``
            range (as :meth:`pose`); lengths that cannot be assembled (the loop and
            the inputs that cannot be met together); a path that passes a loop's dead
            centre, beyond which only the other branch closes (the loop and the input
            values on both sides).
        """
        desc = self.description
        problems = [f"{f!r}: not a function of {desc.name!r} ({', '.join(desc.functions)})"
                    for f in lengths if f not in desc.functions]
        problems += [f"{f!r}: no length given (every function's cylinder needs one)"
                     for f in desc.functions if f not in lengths]
        for f, v in lengths.items():
            if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) \
                    or not math.isfinite(float(v)):
                problems.append(f"{f}: length {v!r}, expected a finite number (m)")
        if problems:
            raise ParameterError(problems, subject=f"pose of {desc.name} at cylinder lengths")
        tg = {self.cylinder_of[f]: float(lengths[f]) for f in desc.functions}
        at = ", ".join(f"{f} {tg[self.cylinder_of[f]]:.6g} m" for f in desc.functions)
        pose = self._along_path(tg, near or self.start_pose, f"pose of {desc.name} at {at}")
        self._check_pose(pose, f"pose of {desc.name} at {at}")
        return pose

    def _along_path(self, targets: Mapping[str, float], near: Pose, subject: str) -> Pose:
        """The pose at ``targets`` (as :meth:`Mechanism.solve_pose`) followed from ``near``
        along the straight path in target space, on ``near``'s assembly branch."""
        mech = self.mechanism
        try:
            mech.check_targets(targets)
        except AssemblyError as exc:
            raise AssemblyError(exc.problems, subject=subject) from None
        a = {k: mech._target_value(near, k) for k in targets}
        steps = {k: PATH_STEP if isinstance(mech.parts[k], Cylinder) else PATH_STEP_ANGLE for k in targets}
        n = max([1] + [math.ceil(abs(targets[k] - a[k]) / steps[k]) for k in targets])
        path = {k: np.linspace(a[k], targets[k], n + 1)[1:] for k in targets}
        try:
            return mech.track(path, near, diagnose=False)[-1]
        except AssemblyError as exc:
            if getattr(exc, "dead_centre", False):
                raise AssemblyError(exc.problems, subject=subject) from None
            i = getattr(exc, "index", n - 1)
        guess = {p: near.angle(p) for p in mech.parts}
        try:  # can the targets be assembled at all? (the diagnosis names the loop and inputs)
            mech.solve_pose(targets, guess=guess)
        except AssemblyError as exc:
            raise AssemblyError(exc.problems, subject=subject) from None
        lost = ", ".join(f"{k} {mech._fmt_target(k, float(path[k][i]))}" for k in targets)
        raise AssemblyError(f"the targets assemble only on another assembly branch: the straight path "
                            f"from the {'start pose' if near is self.start_pose else 'given pose'} "
                            f"leaves the reachable set at {lost}", subject=subject)

    # ------------------------------------------------------------------ parameters
    def set(self, values: Mapping[str, Any]) -> str:
        """Change values by dotted key with units (``{"bucket.mass": "900 kg"}``).

        Returns what the change reached, one of three outcomes:

        ``"description"``
            Only keys the model of this mode does not contain (:func:`inert_key`: the
            bores, friction and other hydraulic data of the cylinders and the whole
            ``[circuit]`` in modes extensions and forces, ``[base]``, the ground level and
            the cycle files in every mode): the description is updated (read-outs such
            as the required pressures, a later build in mode valves and the analyses see
            it), the compiled model is not touched. A change a valves build would read
            is checked by building the circuit alone (:func:`.check.check_circuit`).
        ``"parameters"``
            Run-time parameters of the compiled model (masses, inertias, payload masses,
            gravity; bores and rods in mode valves) took their new values: no rebuild.
        ``"rebuilt"``
            Anything else (geometry, strokes, the start pose, the circuit in mode
            valves...): the machine was assembled, derived and compiled again (the
            compile cache makes a model seen before cheap).

        Raises
        ------
        ParameterError
            Unknown keys, wrong units, bad values (every problem at once); nothing changes.
        """
        return self._set_to(self.description.with_overrides(values))

    def _set_to(self, new: MachineDescription) -> str:
        """:meth:`set` to ``new``, this machine's description already read with the new values
        (a study's point, read once by its caller)."""
        old = self.description
        changed = {k for k in set(new.values) | set(old.values) if new.values.get(k) != old.values.get(k)}
        bad = [k for k in changed if new.values.get(k) == 0 and k.endswith(("bore", "rod"))]
        if bad:
            raise ParameterError([f"{k!r}: 0, expected a value > 0" for k in sorted(bad)])
        relevant = {k for k in changed if not inert_key(new, k, self.mode)}
        same_structure = (new.hinges == old.hinges and new.chassis == old.chassis
                          and set(new.payloads) == set(old.payloads)
                          and (self.mode != "valves" or new.circuit == old.circuit))
        if not relevant and same_structure:
            if new.circuit is not None and self.mode != "valves" and (
                    new.circuit != old.circuit or any(k.partition(".")[0] in new.parts for k in changed)):
                from .check import check_circuit

                check_circuit(new)   # what a valves build will read must be valid now, not then
            self.description = new
            return "description"
        if self.formulation == "causal" and relevant <= set(self._symbols) and same_structure:
            self.model.model.set_params({k: float(new.values[k]) for k in relevant})
            self.description = new
            if self.circuit is not None:  # its numeric areas (start state, controllers) follow the bores
                self.circuit.areas.update({f: new.areas(f) for f in new.functions})
            return "parameters"
        self._build(new)
        return "rebuilt"

    # ------------------------------------------------------------------ cycles
    def cycle(self, name: str | None = None, mode: str | None = None) -> Cycle:
        """A named cycle of the file (default: ``[machine] default_cycle``) for a mode.

        Mode ``forces`` without a forces table: the forces of an inverse-dynamics run of
        the cycle's lengths table (what holds the machine on that path).
        """
        desc = self.description
        mode = mode or self.mode
        name = name or desc.default_cycle
        if name is None:
            raise ParameterError(f"{desc.file.name}: no default cycle ([machine] default_cycle); "
                                 "give a cycle file")
        files = desc.cycles.get(name)
        if files is not None and mode == "forces" and "forces" not in files and "extensions" in files:
            return self._forces_from_lengths(name)
        path = desc.cycle_file(name, mode)
        return Cycle.from_csv(path, mode, desc.functions)

    def _forces_from_lengths(self, name: str) -> Cycle:
        return forces_from_lengths(self.description, name)

    def check_cycle(self, cycle: Cycle, t_end: float | None = None) -> None:
        """Check a prescribed cycle against every stroke and against reachability."""
        from .strokes import check_cycle

        check_cycle(self, cycle, t_end)

    # ------------------------------------------------------------------ runs
    def start_state(self, pose: Pose | None = None, inputs: Mapping[str, Any] | None = None) -> dict[str, float]:
        """The state a run starts from at ``pose`` (default the start pose), at rest.

        Mode ``valves``: spools centred, the chamber pressures that hold the machine
        (one linear solve on the model's Jacobian for the loaded sides, then
        :func:`bondgraph.equilibrium` with the supply), the other sides at the base
        pressure. Modes ``forces``/``extensions``: the pose, at rest.
        """
        from .start import start_state

        return start_state(self, pose or self.start_pose, inputs)

    def export_fmu(self, path, **kw: Any):
        """Write the machine as a standalone FMI 2.0 FMU, or FMI 3.0 with ``fmi_version=3``
        (``hydrobond export-fmu``); see :func:`.fmu.export_machine_fmu` for the options.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from mechanisms.machine import DATA
        >>> m = Machine.from_file(DATA / "excavator.toml", mode="valves")
        >>> m.export_fmu(pathlib.Path(tempfile.mkdtemp()) / "excavator.fmu").suffix
        '.fmu'
        """
        from .fmu import export_machine_fmu

        return export_machine_fmu(self, path, **kw)

    def run(self, cycle: Cycle | str | None = None, t_end: float | None = None, **kw: Any):
        """Run a cycle (default: the file's default cycle); see :func:`.run.run_machine`."""
        from .run import run_machine

        if cycle is None or isinstance(cycle, str):
            cycle = self.cycle(cycle)
        return run_machine(self, cycle, t_end, **kw)

    def mobility(self) -> dict[str, int]:
        """Grübler count of the planar linkage (each cylinder two links and a slider)."""
        from .check import mobility

        return mobility(self.mechanism)

    def explore(self):
        """Pose the machine by hand in a notebook: one slider per function within its stroke,
        the machine redrawn as it moves, the output points, the cylinder forces and chamber
        pressures that hold the pose at rest, the margins to the stroke ends and the ground,
        and a button that makes the pose the start pose (:class:`.explore.Explorer`).

        Raises
        ------
        ParameterError
            ipywidgets is not installed (the message says what to install).

        Examples
        --------
        >>> from mechanisms.machine import DATA
        >>> ex = Machine.from_file(DATA / "excavator.toml", mode="extensions").explore()
        >>> ex.sliders["boom"].value = 3.2
        >>> round(ex.pose.length("boom_cylinder"), 9)
        3.2
        """
        from .explore import Explorer

        return Explorer(self)

    def _repr_html_(self) -> str:
        from ..display import machine_html

        return machine_html(self)

    def __repr__(self) -> str:
        return (f"Machine({self.name!r}, mode {self.mode!r}, formulation {self.formulation!r}, "
                f"functions {', '.join(self.functions)})")


#: the hydraulic data of a cylinder's part table: only the circuit (mode valves) reads them
HYDRAULIC_KEYS = frozenset({"bore", "rod", "dead_volume_cap", "dead_volume_rod", "leakage_internal",
                            "leakage_external", "friction"})


def inert_key(desc: MachineDescription, key: str, mode: str) -> bool:
    """Whether a dotted key does not enter the model a machine builds for ``mode``.

    ``[base]``, the ground level and the cycle files enter no model; in modes
    ``extensions`` and ``forces`` the circuit and the cylinders' hydraulic data (bore,
    rod, dead volumes, leakage, friction) do not either, nor, in mode ``extensions``,
    the end stops.

    Examples
    --------
    >>> from mechanisms.machine import DATA, MachineDescription
    >>> d = MachineDescription.load(DATA / "excavator.toml")
    >>> [inert_key(d, "boom_cylinder.bore", m) for m in ("extensions", "forces", "valves")]
    [True, True, False]
    """
    head, _, rest = key.partition(".")
    if head in ("base", "cycles") or key == "machine.ground":
        return True
    if mode == "valves":
        return False
    if head == "circuit":
        return True
    part = desc.parts.get(head)
    if part is None or part.type != "cylinder":
        return False
    leaf = rest.split(".")[0]
    return leaf in HYDRAULIC_KEYS or (mode == "extensions" and leaf == "end_stop")


def check_pose(desc: MachineDescription, pose: Pose, subject: str) -> None:
    """Refuse a pose with a cylinder outside its stroke or an angle outside its limits.

    Raises
    ------
    AssemblyError
        Every cylinder and angle out of range, with the key of each limit.
    """
    problems = []
    for f in desc.functions:
        c = desc.cylinder_of[f]
        lo, hi = desc.stroke_limits(f)
        L = pose.length(c)
        if not lo - 1e-9 <= L <= hi + 1e-9:
            problems.append(f"{f}: cylinder {c} at {L:.4f} m, outside its stroke {lo:.3f} … {hi:.3f} m")
    for name, (lo, hi) in desc.limits.items():
        part, ref = desc.angles.get(name, (name, None))
        a = pose.angle(part) - (pose.angle(ref) if ref else 0.0)
        if not lo - 1e-9 <= a <= hi + 1e-9:
            problems.append(f"angle {name}: {math.degrees(a):.2f}°, outside its range "
                            f"{math.degrees(lo):.2f}° … {math.degrees(hi):.2f}° "
                            f"('limits.{name}', {desc.where(f'limits.{name}')})")
    if problems:
        raise AssemblyError(problems, subject=subject)


def _wrap_deg(angle: float) -> float:
    """An angle in degrees in (−180°, 180°]."""
    d = math.degrees(angle) % 360.0
    return d - 360.0 if d > 180.0 else d


def _targets_of(desc: MachineDescription, pose: Pose) -> dict[str, float]:
    """The ``[start]`` targets as :meth:`Mechanism.solve_pose` takes them (cylinder lengths,
    absolute part angles), read off a pose that meets them."""
    out: dict[str, float] = {}
    for k in desc.start:
        if k in desc.parts and desc.parts[k].type == "cylinder":
            out[k] = pose.length(k)
        else:
            part = desc.angles.get(k, (k, None))[0]
            out[part] = pose.angle(part)
    return out


def start_pose_of(desc: MachineDescription, mechanism: Mechanism) -> Pose:
    """Solve the ``[start]`` targets of a description on its mechanism (not yet checked
    against strokes and limits: :meth:`Machine._check_pose` does that)."""
    targets, guess, problems = start_targets(desc)
    if problems:
        raise ParameterError(problems, subject=f"start pose of {desc.file.name}")
    try:
        return mechanism.solve_pose(targets, guess=guess)
    except (AssemblyError, ParameterError) as exc:
        raise type(exc)(exc.problems, subject=f"start pose of {desc.file.name} "
                                              f"({desc.where('start')})") from None


def forces_from_lengths(desc: MachineDescription, name: str) -> Cycle:
    """A forces cycle: the cylinder forces of an inverse-dynamics run of the named cycle's
    lengths table (what moves the machine along that path), sampled at 1001 times."""
    inv = Machine(desc, "extensions")
    run = inv.run(inv.cycle(name, "extensions"), progress=False)
    tab = run.table()
    t = np.linspace(tab["time"][0], tab["time"][-1], 1001)
    src = desc.cycle_file(name, "extensions").name
    swing = np.interp(t, tab["time"], tab["swing_torque"]) if run.cycle.swing is not None else None
    travel = np.interp(t, tab["time"], tab["tractive_force"]) if "tractive_force" in tab else None
    return Cycle("forces", t, {f: np.interp(t, tab["time"], tab[f"{f}_force"]) for f in desc.functions},
                 desc.functions, source=f"inverse dynamics of {src}", swing=swing, travel=travel)
