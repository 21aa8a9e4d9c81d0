"""A machine under study: its description and what the analyses build from it, rebuilt
only as far as a change reaches.

A :class:`Study` holds a :class:`~mechanisms.machine.MachineDescription` and, built on
first use and kept:

* the **kinematics** (:class:`~.kinematics.BoxKinematics` on the assembled mechanism
  and its start pose) and its solved stroke grids — they depend on the geometry only
  (points, strokes, retracted lengths, hinges, chassis pins, start pose, limits);
* the **statics machine** (mode ``extensions``) whose bond graph gives holding forces,
  chassis reactions and velocity ratios (:mod:`.statics`);
* the **valves machine** (mode ``valves``) for cycle runs;
* the circuit's relief and tank pressures.

:meth:`Study.update` moves the study to the base description with other overrides
(each sweep point is relative to the base, never to the previous point) and keeps
whatever the change does not reach, as :meth:`Machine.set
<mechanisms.machine.Machine.set>` decides for each built machine: a mass or a bore
reuses the compiled models with new run-time parameter values; keys a mode's model
does not contain (a bore for the statics machine, the ``[base]`` masses for every
model) touch no model at all (logged ``"kept"``); a geometry change re-assembles (and
the compile cache makes a geometry seen before cheap). :attr:`Study.log` says what
each update did.

Examples
--------
>>> from mechanisms.machine import DATA
>>> s = Study(DATA / "excavator.toml")
>>> s.statics.machine.mode, len(s.kinematics.blocks)
('extensions', 4)
>>> s.update({"boom_cylinder.bore": "150 mm"})
{'kinematics': 'kept', 'extensions': 'kept'}
>>> s.update({"bucket.mass": "900 kg"})
{'kinematics': 'kept', 'extensions': 'parameters'}
>>> s.update({"arm.points.G": ["Li", "0.52 m", "0.96 m"]})["kinematics"]
'rebuilt'
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

import numpy as np

from bondgraph.errors import BondGraphError, ParameterError

from ..machine.description import MachineDescription, split_key
from .kinematics import BoxGrid, BoxKinematics

__all__ = ["Study"]


def _geometry(desc: MachineDescription) -> str:
    """Everything the position analysis depends on, as one comparable text."""
    parts = {}
    for name, p in desc.parts.items():
        v = p.values
        keys = {"lever": ("length", "root", "tip"), "cylinder": ("retracted", "stroke", "root", "tip")}
        parts[name] = (p.type, sorted(p.points.items()), [v.get(k) for k in keys.get(p.type, ())])
    return repr((sorted(parts.items()), sorted(desc.chassis.items()), desc.hinges, sorted(desc.start.items()),
                 sorted(desc.guess.items()), sorted(desc.limits.items()), sorted(desc.angles.items())))


_GEOMETRY: dict[int, tuple[MachineDescription, str]] = {}


def geometry_key(desc: MachineDescription) -> str:
    """Everything the position analysis of ``desc`` depends on, as one comparable text
    (made once per description object: an evaluation keyed by it asks at every call).

    Parameters
    ----------
    desc : MachineDescription

    Returns
    -------
    str

    Examples
    --------
    >>> from mechanisms.machine import DATA
    >>> d = MachineDescription.load(DATA / "excavator.toml")
    >>> geometry_key(d) == geometry_key(d.with_overrides({"bucket.mass": "900 kg"}))
    True
    >>> geometry_key(d) == geometry_key(d.with_overrides({"arm.points.G": ["Li", "0.52 m", "0.96 m"]}))
    False
    """
    hit = _GEOMETRY.get(id(desc))
    if hit is not None and hit[0] is desc:
        return hit[1]
    if len(_GEOMETRY) > 256:
        _GEOMETRY.clear()
    text = _geometry(desc)
    _GEOMETRY[id(desc)] = (desc, text)
    return text


class Study:
    """A machine description and the models, kinematics and pressures analyses need.

    Parameters
    ----------
    source : str, Path, MachineDescription, Machine or Study
        A machine file (or a shipped machine's name), a description, a built machine
        (its description is taken, and the machine itself is reused for its mode — and
        changed by :meth:`update`), or another study (its description, its overrides
        included, is this study's base).
    overrides : dict, optional
        Dotted keys with units on top of ``source``.

    Attributes
    ----------
    base : MachineDescription
        The description :meth:`update` is relative to (a sweep of a study is relative to its
        :attr:`description`: the study's overrides stay).
    description : MachineDescription
        The base with the current overrides.
    log : dict
        What the last :meth:`update` did with each built thing.

    Raises
    ------
    ParameterError
        A source of another kind, or bad overrides.

    Examples
    --------
    The stroke box runs from each cylinder's retracted length to retracted + stroke
    (the boom's 2.48 m and 1.25 m in the file); the circuit's relief valve gives the
    pressure limit unless one is given:

    >>> from mechanisms.machine import DATA
    >>> s = Study(DATA / "excavator.toml")
    >>> s.axes(3)["boom_cylinder"]
    array([2.48 , 3.105, 3.73 ])
    >>> s.pressures()["relief"]["boom"], s.pressures(relief="320 bar")["relief"]["boom"]
    (30000000.0, 32000000.0)
    >>> s.axes({"boom": 1, "stick": 3})
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: stroke grid: 2 problems
      - points per stroke for 'stick': not a function of 'excavator' (boom, arm, bucket)
      - points per stroke for 'boom': 1, expected a whole number ≥ 2
    """

    def __init__(self, source: Any, overrides: Mapping[str, Any] | None = None):
        from ..machine.machine import Machine

        machine = None
        if isinstance(source, Study):
            desc = source.description     # where that study is: its overrides included
        elif isinstance(source, Machine):
            desc, machine = source.description, source
        elif isinstance(source, MachineDescription):
            desc = source
        elif isinstance(source, (str, Path)):
            from ..machine.names import resolve_machine

            desc = MachineDescription.load(resolve_machine(str(source)))
        else:
            raise ParameterError(f"a study of {type(source).__name__}: expected a machine file, a "
                                 "MachineDescription or a Machine")
        #: the description update() is relative to
        self.base = desc
        self.description = desc if not overrides else desc.with_overrides(overrides)
        self.overrides: dict[str, Any] = dict(overrides or {})
        self._machines: dict[str, Any] = {}
        if machine is not None and not overrides and machine.formulation == "causal":
            self._machines[machine.mode] = machine
        self._kin: BoxKinematics | None = None
        self._grids: dict[tuple, BoxGrid] = {}
        self._results: dict[tuple, Any] = {}     # analyses of the geometry alone (:meth:`_remember`)
        self._statics = None
        self._pressures: dict[str, Any] = {}
        #: what the last :meth:`update` did with each built thing
        self.log: dict[str, str] = {}

    @classmethod
    def of(cls, source: Any) -> "Study":
        """``source`` itself if it is a study, else a new study of it.

        Parameters
        ----------
        source : Study or anything :class:`Study` takes

        Returns
        -------
        Study
        """
        return source if isinstance(source, Study) else cls(source)

    # ------------------------------------------------------------------ changes
    def update(self, overrides: Mapping[str, Any]) -> dict[str, str]:
        """Move to the base description with ``overrides`` (dotted keys with units).

        Returns what happened to each built thing: ``"kept"``, ``"parameters"`` (a
        compiled model took new run-time parameter values) or ``"rebuilt"``.

        Parameters
        ----------
        overrides : mapping
            Dotted keys with units, relative to :attr:`base`.

        Returns
        -------
        dict

        Raises
        ------
        ParameterError
            Unknown keys, wrong units, bad values (every problem at once).
        """
        return self._move(overrides, self.base.with_overrides(overrides))

    def _move(self, overrides: Mapping[str, Any], new: MachineDescription) -> dict[str, str]:
        """:meth:`update` to ``new``, the base read with ``overrides`` (read once by the caller)."""
        old = self.description
        log: dict[str, str] = {}
        if self._kin is not None:
            if _geometry(new) != _geometry(old):
                self._kin = None
                self._grids = {}
                self._results = {}
                log["kinematics"] = "rebuilt"
            else:
                log["kinematics"] = "kept"
        if new.circuit != old.circuit:
            self._pressures = {}
        for mode, machine in list(self._machines.items()):
            try:
                log[mode] = self._update_machine(mode, machine, new, overrides)
            except BondGraphError:
                # a machine whose move failed may be half-moved (a rebuild refused part-way):
                # forgotten, so that the next use builds it from the description (a later
                # point never runs on it)
                del self._machines[mode]
                if mode == "extensions":
                    self._statics = None
                    self._kin = None
                raise
        if "extensions" in self._machines and log.get("extensions") == "rebuilt":
            self._statics = None
        self.description = new
        self.overrides = dict(overrides)
        self.log = log
        return log

    def _update_machine(self, mode, machine, new, overrides) -> str:
        """Move a built machine to ``new`` as :meth:`Machine.set` of the keys that differ from
        its description (each at its override or its base value) would, without reading the
        point again. A change its model does not contain (``"description"``) leaves the
        model as it was."""
        cur = machine.description
        keys = {k for k in set(cur.overrides) | set(overrides)
                if cur.overrides.get(k, _MISSING) != overrides.get(k, _MISSING)}
        if not keys:
            return "kept"
        done = machine._set_to(new)         # what set() of those keys reads: the point, read once
        return "kept" if done == "description" else done

    def _snapshot(self) -> tuple["Study", Any]:
        """A study at this one's description that shares what this one has built (kinematics,
        grids, compiled models), and the function that puts its models' run-time parameter
        values of now back into the shared models (:mod:`.lockstep`: points of one geometry
        run side by side, taking turns)."""
        import copy

        view = copy.copy(self)
        # the machines copied (a later rebuild of this study's machine, in place, leaves them)
        view._machines = {mode: copy.copy(m) for mode, m in self._machines.items()}
        if self._statics is not None:
            view._statics = copy.copy(self._statics)
            view._statics.machine = view._machines.get("extensions", self._statics.machine)
        view.overrides, view.log = dict(self.overrides), dict(self.log)
        params = [(m.model.model.system.params, m.model.model.system.params.copy())
                  for m in self._machines.values()]

        def enter() -> None:
            for live, own in params:
                live[:] = own

        return view, enter

    def _remember(self, key: tuple, make):
        """``make()``, made once per ``key`` and geometry: for an analysis of the geometry alone
        (the working range), which a change that leaves the geometry (a bore, a mass) does not
        reach. ``key`` holds every other input of ``make`` (its arguments, the description's
        values it reads)."""
        full = (key, _geometry(self.description))
        if full not in self._results:
            self._results[full] = make()
        return self._results[full]

    # ------------------------------------------------------------------ built things
    def machine(self, mode: str):
        """The machine of this description built for ``mode`` (built once, then updated).

        Parameters
        ----------
        mode : str
            A driving mode of :class:`~mechanisms.machine.Machine`.

        Returns
        -------
        Machine
        """
        from ..machine.machine import Machine

        if mode not in self._machines:
            self._machines[mode] = Machine(self.description, mode)
        return self._machines[mode]

    @property
    def statics(self):
        """:class:`~.statics.FrontStatics` on the machine built for mode ``extensions``."""
        from .statics import FrontStatics

        m = self.machine("extensions")
        if self._statics is None or self._statics.machine is not m:
            self._statics = FrontStatics(m)
        return self._statics

    @property
    def kinematics(self) -> BoxKinematics:
        """The batched position analysis of the current geometry."""
        if self._kin is None:
            m = self._machines.get("extensions")
            if m is not None and _geometry(m.description) == _geometry(self.description):
                mech, start = m.mechanism, m.start_pose
            else:
                mech, start = _mechanism(self.description)
            self._kin = BoxKinematics(mech, start)
        return self._kin

    def axes(self, n: int | Mapping[str, int] = 50) -> dict[str, np.ndarray]:
        """The stroke box sampled with ``n`` lengths per cylinder (or per function).

        Parameters
        ----------
        n : int or mapping
            Lengths per stroke, or function → lengths (50 for those not named).

        Returns
        -------
        dict
            Cylinder → lengths (m).

        Raises
        ------
        ParameterError
            Unknown functions, counts below 2 (all listed).
        """
        desc = self.description
        counts = n if isinstance(n, Mapping) else {f: n for f in desc.functions}
        problems = [f"points per stroke for {f!r}: not a function of {desc.name!r} "
                    f"({', '.join(desc.functions)})" for f in counts if f not in desc.functions]
        for f in desc.functions:
            k = counts.get(f, 50)
            if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2:
                problems.append(f"points per stroke for {f!r}: {k!r}, expected a whole number ≥ 2")
        if problems:
            raise ParameterError(problems, subject="stroke grid")
        return {desc.cylinder_of[f]: np.linspace(*desc.stroke_limits(f), int(counts.get(f, 50)))
                for f in desc.functions}

    def grid(self, n: int | Mapping[str, int] = 50) -> BoxGrid:
        """Every pose of the stroke box on ``n`` lengths per stroke (cached per geometry).

        Parameters
        ----------
        n : int or mapping
            As for :meth:`axes`.

        Returns
        -------
        BoxGrid
        """
        ax = self.axes(n)
        key = tuple(len(v) for v in ax.values())
        if key not in self._grids:
            desc = self.description
            limits = {name: (lo, hi, desc.angles[name]) for name, (lo, hi) in desc.limits.items()}
            self._grids[key] = self.kinematics.solve_grid(ax, limits=limits)
        return self._grids[key]

    def moving_functions(self, part: str, point: str) -> list[str]:
        """The functions whose cylinders move ``part``'s ``point`` (in the file's order): the
        excavator's tip moves with all three, the loader's bucket pin with the lift alone.

        Parameters
        ----------
        part, point : str

        Returns
        -------
        list of str
        """
        kin = self.kinematics
        cyls = set().union(*(kin._deps(q, None) for q, _ in kin._chain(part, point)))
        return [f for f in self.description.functions if self.description.cylinder_of[f] in cyls]

    def pressures(self, relief: Any = None, tank: Any = None) -> dict[str, Any]:
        """Relief and tank pressure per function (Pa) and where they come from.

        ``relief``/``tank``: a pressure with its unit (``"320 bar"``) or a dict function →
        pressure; what is not given comes from the circuit of the file (the relief
        valve's cracking pressure, the tank's gauge pressure).

        Returns
        -------
        dict
            ``{"relief": {function: Pa}, "tank": {...}, "source": {function: text}}``.

        Parameters
        ----------
        relief : object, optional
        tank : object, optional

        Raises
        ------
        ParameterError
            A pressure without a unit, an unknown function, no circuit and no ``relief``.
        """
        from ..machine.quantities import to_si

        desc = self.description
        out = {"relief": {}, "tank": {}, "source": {}}

        def given(value, what):
            if value is None:
                return {}
            if not isinstance(value, Mapping):  # one pressure for every function: read it once
                return {f: to_si(value, "Pa", key=what) for f in desc.functions}
            res, problems = {}, []
            for f, v in value.items():
                if f not in desc.functions:
                    problems.append(f"{what} for {f!r}: not a function of {desc.name!r} "
                                    f"({', '.join(desc.functions)})")
                    continue
                try:
                    res[f] = to_si(v, "Pa", key=f"{what} ({f})")
                except ParameterError as exc:
                    problems += exc.problems
            if problems:
                raise ParameterError(problems)
            return res

        r, t = given(relief, "relief"), given(tank, "tank")
        need = [f for f in desc.functions if f not in r]
        circ = self._circuit_pressures() if need or len(t) < len(desc.functions) else {}
        for f in desc.functions:
            if f in r:
                out["relief"][f], src = r[f], "given"
            elif circ.get("relief") is not None:
                out["relief"][f], src = circ["relief"], "circuit relief (cracking)"
            else:
                raise ParameterError(f"{desc.file.name}: no relief pressure for {f!r}: the file has no "
                                     "[circuit] with a relief valve; give relief=\"300 bar\" "
                                     "(or --relief on the command line)")
            out["tank"][f] = t.get(f, circ.get("tank", 0.0))
            out["source"][f] = src
        return out

    def _circuit_pressures(self) -> dict[str, Any]:
        if "circuit" not in self._pressures:
            desc = self.description
            if desc.circuit is None:
                self._pressures["circuit"] = {}
            else:
                from ..machine.assemble import assemble

                circ = assemble(desc, "valves", symbolic=False).circuit
                pu = getattr(getattr(circ, "hydraulic", None), "power_unit", None)
                self._pressures["circuit"] = {"relief": circ.relief_pressure,
                                              "tank": float(getattr(pu, "tank_pressure", 0.0) or 0.0)}
        return self._pressures["circuit"]

    def __repr__(self) -> str:
        built = ", ".join(sorted(self._machines)) or "nothing"
        return f"Study({self.description.name!r}, overrides {self.overrides}, built: {built})"


_MISSING = object()


def _raw(desc: MachineDescription, key: str) -> Any:
    """A key's value as the file (or an override) gives it, with its unit."""
    parts = split_key(key)
    if ".".join(parts) in desc.overrides:
        return desc.overrides[".".join(parts)]
    node: Any = desc.file.data
    for part in parts:
        node = node[part]
    return node


def _mechanism(desc: MachineDescription):
    """The mechanism and its checked start pose, without building a model."""
    from ..machine.assemble import assemble
    from ..machine.machine import check_pose, start_pose_of

    mech = assemble(desc, "extensions", symbolic=False).mechanism
    pose = start_pose_of(desc, mech)
    check_pose(desc, pose, f"start pose of {desc.file.name} ({desc.where('start')})")
    return mech, pose
