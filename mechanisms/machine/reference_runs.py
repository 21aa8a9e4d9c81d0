"""The kinematic runs a tracking operator measures against, made once per machine and reference.

A :class:`~.operator.TrackingOperator` predicts its loads from the reference run in mode
``extensions`` (pure kinematics: the cylinders move as the lengths say) and from the same run
four times slower, and measures its tracking against the first. Neither depends on the
hydraulic circuit: in mode ``extensions`` the ``[circuit]`` table is inert (the cylinders are
not driven by it, :func:`~.machine.inert_key`). Operators that drive circuit variants of
one machine along one cycle (a comparison of circuits) therefore need the same two runs, and
:func:`kinematic_run` makes each once: it keeps the last few, by the machine's description
without its circuit (:func:`~.buildkey.machine_key` of mode ``extensions``: every value the
build reads), the reference's columns and the time stretch.

The kept tables are read-only: every operator reads the same arrays.

Examples
--------
>>> from mechanisms.machine import DATA, Machine
>>> m = Machine.from_file(DATA / "excavator.toml", mode="valves")
>>> ref = m.cycle(mode="extensions")
>>> tab = kinematic_run(m, ref)
>>> kinematic_run(m, ref) is tab, bool(tab["time"][-1] == ref.time[-1]), tab["boom_force"].flags.writeable
(True, True, False)
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Any, Mapping

import numpy as np

from .buildkey import machine_key

__all__ = ["kinematic_run"]

#: how many kinematic runs are kept (two per machine and reference: real time and slower)
_KEEP = 8
_RUNS: "OrderedDict[tuple, Mapping[str, np.ndarray]]" = OrderedDict()
#: the last machine built in mode extensions for these runs, by its key: (key, machine)
_BUILT: list = [None, None]


def _reference_digest(reference: Any) -> str:
    """A digest of a lengths cycle's columns: its times, each function's lengths, its swing."""
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(reference.time, dtype=float).tobytes())
    for f in reference.functions:
        h.update(f.encode())
        h.update(np.ascontiguousarray(reference.values[f], dtype=float).tobytes())
    if reference.swing is not None:
        h.update(b"swing")
        h.update(np.ascontiguousarray(reference.swing, dtype=float).tobytes())
    return h.hexdigest()


def _key(machine: Any, reference: Any, slower: float) -> tuple | None:
    """What a kinematic run depends on; ``None`` when the machine's build has no key."""
    if machine.formulation != "causal":
        return None
    desc = machine.description
    if desc.circuit is not None:
        desc = desc.with_sections(circuit=None)
    text = machine_key(desc, "extensions", end_stops=machine.end_stops)
    if text is None:
        return None
    return (text, _reference_digest(reference), float(slower))


def kinematic_run(machine: Any, reference: Any, slower: float = 1.0) -> Mapping[str, np.ndarray]:
    """The table of ``machine`` in mode ``extensions`` run on the lengths of ``reference``.

    Parameters
    ----------
    machine : Machine
        Any mode: its description is built in mode ``extensions`` (the circuit left out of
        what decides whether a kept run applies, as it is out of that build).
    reference : Cycle
        Mode ``extensions``: the lengths (and the swing angle, if any).
    slower : float
        Stretch the reference's time by this factor (the inertial forces fall with its square).

    Returns
    -------
    mapping
        Column name → read-only array, as :meth:`MachineRun.table <.run.MachineRun.table>`;
        the same object for the same machine description, reference and ``slower``.

    Examples
    --------
    A circuit variant of the machine shares the run (the circuit does not enter it):

    >>> from mechanisms.machine import DATA, Machine
    >>> fixed = Machine.from_file(DATA / "excavator.toml", mode="valves")
    >>> oc = Machine.from_file(DATA / "excavator.toml", {"circuit.type": "open-centre"}, mode="valves")
    >>> ref = fixed.cycle(mode="extensions")
    >>> kinematic_run(fixed, ref, 4.0) is kinematic_run(oc, ref, 4.0)
    True
    """
    key = _key(machine, reference, slower)
    if key is not None and key in _RUNS:
        _RUNS.move_to_end(key)
        return _RUNS[key]
    from .cycle import Cycle

    if machine.mode == "extensions":
        kin = machine
    elif key is not None and _BUILT[0] == key[0]:     # the real-time and the slower run: one build
        kin = _BUILT[1]
    else:
        kin = machine.with_mode("extensions")
        if key is not None:
            _BUILT[:] = [key[0], kin]
    ref = reference
    if slower != 1.0:
        ref = Cycle("extensions", reference.time * slower, reference.values, reference.functions,
                    source=f"{reference.source}, {slower:g} times slower", swing=reference.swing)
    table = {}
    for name, column in kin.run(ref, progress=False).table().items():
        column = np.array(column, copy=True)
        column.flags.writeable = False
        table[name] = column
    if key is not None:
        _RUNS[key] = table
        while len(_RUNS) > _KEEP:
            _RUNS.popitem(last=False)
    return table
