"""Checking a machine file without running it: every section, every problem at once.

:func:`check_file` is ``hydrobond check``: it reads the file (every format problem of
every section at once), then builds what each section describes and collects what
fails, section by section, into one error:

* the linkage (mode ``forces``): connection rules, causality, the start pose against
  strokes and joint limits;
* ``[circuit]``: the selected circuit's model (mode ``valves``: its tables, its bond
  graph coupled to the linkage, its causality) and the start state that holds the start
  pose; the tables of the other circuit types the file carries (``[circuit.load_sensing]``
  of a file that selects ``"fixed"``) are read by their own builder;
* ``[cycles]``: every cycle file read for its mode and functions, a lengths cycle checked
  against the strokes and followed from the start pose.

:func:`mobility` is the planar Grübler–Kutzbach count
``M = 3·(n − 1) − 2·j`` with ``n`` links (the chassis, every body and lever, and
two per cylinder: barrel and rod) and ``j`` one-degree-of-freedom joints (every
pin — ``k`` parts on one pin make ``k − 1`` joints, the chassis counting as a
part — and one slider per cylinder). A machine whose mobility differs from its
number of cylinders is over- or under-actuated; the causal report says the same
from the bond graph (one independent mechanical state per degree of freedom).

Examples
--------
>>> from mechanisms.machine import Machine, DATA
>>> m = Machine.from_file(DATA / "excavator.toml", mode="forces")
>>> mobility(m.mechanism)["M"]
3
>>> print(check_text(m).splitlines()[0])
excavator: 5 rigid parts, 3 cylinders; mobility M = 3·(12 − 1) − 2·15 = 3, 3 cylinders: fully actuated
>>> text = check_file(DATA / "excavator.toml", {"circuit.valves.arm.flow": "-1 L/min"})
Traceback (most recent call last):
...
bondgraph.errors.ParameterError: hydrobond check of excavator.toml: 1 problem
  - [circuit]: 'circuit.valves.arm.flow' (override): found '-1 L/min', expected a value > 0
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from bondgraph.errors import BondGraphError
from components import Cylinder

__all__ = ["mobility", "check_text", "check_file", "check_circuit", "linkage_lines"]


def mobility(mech) -> dict[str, int]:
    """Grübler count of a :class:`~mechanisms.Mechanism` (see the module text)."""
    n_cyl = sum(isinstance(p, Cylinder) for p in mech.parts.values())
    n_rigid = len(mech.parts) - n_cyl
    links = 1 + n_rigid + 2 * n_cyl
    # group the pins: points joined by hinges (union-find), chassis pins separately
    parent: dict[tuple, tuple] = {}

    def find(a):
        while parent.setdefault(a, a) != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for a, b in mech.hinges:
        parent[find((a.part, a.name))] = find((b.part, b.name))
    pins: dict[tuple, set] = {}
    for a, b in mech.hinges:
        for hp in (a, b):
            pins.setdefault(find((hp.part, hp.name)), set()).add(hp.part)
    for (part, point) in mech.fixed:
        key = find((part, point))
        pins.setdefault(key, set()).update({part, "chassis"})
    # points of one part hinged together at one place (rocker J and J2) count once
    revolute = sum(len(parts) - 1 for parts in pins.values())
    joints = revolute + n_cyl
    M = 3 * (links - 1) - 2 * joints
    return {"M": M, "links": links, "revolute": revolute, "sliders": n_cyl, "joints": joints,
            "cylinders": n_cyl, "rigid_parts": n_rigid}


def check_text(machine, *, verbose: bool = True) -> str:
    """The linkage part of ``hydrobond check``: mobility, causality, start pose.

    Parameters
    ----------
    machine : Machine
        A built machine (any mode).
    verbose : bool
        Also the details after the summary (:func:`linkage_lines`): the Grübler count's
        links and joints, the connection rules, the full causal report (states,
        derivative-causality chains, loops) and each cylinder's start length in its stroke.

    Examples
    --------
    >>> from mechanisms.machine import Machine, DATA
    >>> m = Machine.from_file(DATA / "wheel_loader.toml", mode="forces")
    >>> print(check_text(m, verbose=False))   # doctest: +ELLIPSIS
    wheel_loader: ... fully actuated
    causality of 'wheel_loader': sound; ...
    start pose: lift ... m (...% extended), tilt ... m (...% extended)
    start pose: 2 assembly branches at the [start] targets; taken: the one of the file's guess.* ...
      other branch: ...
    """
    summary, details = linkage_lines(machine)
    return "\n".join(summary + (details if verbose else []))


def linkage_lines(machine) -> tuple[list[str], list[str]]:
    """``(summary, details)`` of the linkage of ``machine``: the summary is the mobility
    verdict, the causality verdict and the start pose; the details are the count's links and
    joints, the connection rules, the causal report below its first line and the strokes.

    Examples
    --------
    >>> from mechanisms.machine import Machine, DATA
    >>> summary, details = linkage_lines(Machine.from_file(DATA / "excavator.toml", mode="forces"))
    >>> len(summary), details[1]
    (3, 'connection rules: all satisfied (every hinge and part checked)')
    """
    mech = machine.mechanism
    mb = mobility(mech)
    verdict = ("fully actuated" if mb["M"] == mb["cylinders"] else
               f"{'under' if mb['M'] > mb['cylinders'] else 'over'}-actuated: {mb['M']} degrees of freedom, "
               f"{mb['cylinders']} cylinders")
    report = str(machine.report).splitlines()
    pose = machine.start_pose
    lengths, strokes = [], []
    for f in machine.functions:
        lo, hi = machine.description.stroke_limits(f)
        L = pose.length(machine.cylinder_of[f])
        share = 100 * (L - lo) / (hi - lo)
        lengths.append(f"{f} {L:.4f} m ({share:.0f}% extended)")
        strokes.append(f"  {f}: {L:.4f} m in {lo:.3f} … {hi:.3f} m ({share:.0f}% extended)")
    summary = [f"{machine.name}: {mb['rigid_parts']} rigid parts, {mb['cylinders']} cylinders; mobility "
               f"M = 3·({mb['links']} − 1) − 2·{mb['joints']} = {mb['M']}, {mb['cylinders']} cylinders: {verdict}",
               report[0],
               "start pose: " + ", ".join(lengths)]
    branches = machine.branch_note() if machine.formulation == "causal" else ""
    if branches:      # more than one assembly branch at the [start] targets: which, and how to choose
        summary += branches.splitlines()
    details = [f"mobility: {mb['links']} links counting the chassis and barrel + rod per cylinder; "
               f"{mb['revolute']} pin joints and {mb['sliders']} sliders",
               "connection rules: all satisfied (every hinge and part checked)",
               *report[1:],
               "start pose in the strokes (pin-to-pin lengths):", *strokes]
    return summary, details


def check_circuit(desc, type_name: str | None = None):
    """Build the circuit of ``desc`` alone (no linkage, no model): its tables checked by
    its builder (``type_name``: another registered type than the file's ``[circuit] type``).

    Raises
    ------
    ParameterError
        Every problem of the circuit's tables.
    """
    import sympy as sp

    from bondgraph import Input

    from .circuits import CircuitContext, build_circuit

    section = dict(desc.circuit or {})
    if type_name is not None:
        section["type"] = type_name
    ctx = CircuitContext(section=section, description=desc, functions=desc.functions,
                         lengths={f: sp.Symbol(f"{desc.cylinder_of[f]}.length", positive=True)
                                  for f in desc.functions},
                         commands={f: Input(f"{f}.cmd") for f in desc.functions}, symbols={}, name="hyd")
    return build_circuit(ctx)


def check_file(path: str | Path, overrides: Mapping[str, Any] | None = None, *,
               verbose: bool = False) -> str:
    """``hydrobond check``: build every section of a machine file; the report text.

    Parameters
    ----------
    path : str or Path
        The machine file.
    overrides : mapping, optional
        Dotted keys with units (``--set``).
    verbose : bool
        After the summary (mobility and causality verdicts, the start pose, the chamber
        pressures that hold it, the other circuit tables, each cycle reachable or not), the
        details: the mobility count, the full causal report with its derivative-causality
        chains, each start length in its stroke.

    Raises
    ------
    BondGraphError
        The description's format problems (:class:`~bondgraph.ParameterError`, all of
        them), or every problem the sections' builds met, each prefixed by its section,
        in one error of the first failing section's class. Problems are never held back
        for ``verbose``: a file with one does not pass.

    Examples
    --------
    >>> from mechanisms.machine import DATA
    >>> print(check_file(DATA / "knuckle_crane.toml"))   # doctest: +ELLIPSIS
    knuckle_crane: ... fully actuated
    causality of 'knuckle_crane': sound; ...
    start pose: lift ... m (...% extended), fold ... m (...% extended)
    circuit 'fixed': built with the linkage (mode valves), ... hydraulic states; the start state holds the start pose with
      lift: cap ... bar, rod ... bar
      fold: cap ... bar, rod ... bar
    ...
    no problems found (--verbose: the mobility count, the causal report with its derivative-causality chains, each start length in its stroke)
    """
    from .circuits import CIRCUIT_TABLES
    from .cycle import Cycle
    from .description import MachineDescription
    from .machine import Machine
    from .strokes import check_strokes

    desc = MachineDescription.load(path, overrides)
    problems: list[str] = []
    kinds: list[type] = []
    lines: list[str] = []
    details: list[str] = []

    def fail(section: str, exc: BondGraphError, keep=None) -> None:
        probs = [p for p in exc.problems if keep is None or keep(p)]
        if probs:
            kinds.append(type(exc))
            problems.extend(f"{section}: {p}" for p in probs)

    machine = None
    try:
        machine = Machine(desc, "forces")
        summary, details = linkage_lines(machine)
        lines += summary
        from .swing import swing_check_lines

        lines += swing_check_lines(machine)
    except BondGraphError as exc:
        fail("linkage", exc)
    circ = desc.circuit
    if circ is None:
        lines.append("circuit: none (modes extensions and forces only)")
    else:
        typ = circ.get("type")
        try:
            if machine is None:
                check_circuit(desc)          # the tables at least
            elif desc.travel is not None:    # no travel drive in the circuits: built for the front alone
                valves = Machine(desc.with_sections(travel=None), "valves")
                lines += circuit_lines(valves, valves.start_state())
                lines.append("  (built without [travel]: the circuits have no travel drive, so a machine "
                             "with [travel] runs in modes extensions and forces)")
            else:
                valves = Machine(desc, "valves")
                lines += circuit_lines(valves, valves.start_state())
                from .circuits_swing import swing_section_line

                lines += [x for x in [swing_section_line(valves.circuit)] if x]
        except BondGraphError as exc:
            fail("[circuit]", exc)
        for other, table in CIRCUIT_TABLES.items():
            if other == typ or table not in circ:
                continue
            try:
                check_circuit(desc, other)
                lines.append(f"[circuit.{table}] (circuit type {other!r}, not selected): read, builds")
            except BondGraphError as exc:   # only its own table: the shared ones are the selected type's
                fail(f"[circuit.{table}] (circuit type {other!r}, not selected)", exc,
                     keep=lambda p, t=table: f"circuit.{t}" in p)
    for name, files in desc.cycles.items():
        for mode, file in files.items():
            try:
                cyc = Cycle.from_csv(file, mode, desc.functions)
                if machine is not None:
                    machine.check_cycle(cyc)
                else:           # no linkage to follow it on: its strokes at least
                    check_strokes(desc, cyc)
                lines.append(f"cycle {name!r} ({mode}): {file.name}, {cyc.start:g} … {cyc.end:g} s"
                             + (", inside the strokes and reachable" if mode == "extensions" and machine
                                else ""))
            except BondGraphError as exc:
                fail(f"[cycles.{name}] {mode}", exc)
    if problems:
        raise kinds[0](problems, subject=f"hydrobond check of {desc.file.name}")
    if verbose:
        return "\n".join(lines + ["", "details:"] + details)
    return "\n".join(lines + [f"no problems found (--verbose: {VERBOSE_CHECK})"])


#: what ``hydrobond check --verbose`` adds to the summary
VERBOSE_CHECK = ("the mobility count, the causal report with its derivative-causality chains, each start "
                 "length in its stroke")


def circuit_lines(machine, x0: Mapping[str, float]) -> list[str]:
    """What ``hydrobond check`` says of a built valves machine: its circuit and the chamber
    pressures that hold the start pose."""
    circ = machine.circuit
    prefix = f"{machine.mechanism.name}/{circ.name}"
    n = sum(1 for s in machine.model.model.state_names if s.startswith(prefix + "/"))
    lines = [f"circuit {machine.description.circuit.get('type')!r}: built with the linkage (mode valves), "
             f"{n} hydraulic states; the start state holds the start pose with"]
    for f in machine.functions:
        cap, rod = (x0[f"{prefix}/{s}"] for s in circ.chambers[f])
        lines.append(f"  {f}: cap {cap / 1e5:.1f} bar, rod {rod / 1e5:.1f} bar")
    return lines
