"""A machine's ``[travel]``: its front on a travelling carrier, from a file or from Python.

A machine file's ``[travel]`` table (or ``Machine.from_mechanism(..., travel={...})``) puts
the planar front on a :class:`~mechanisms.travel.Carrier` through
:func:`mechanisms.with_travel`: the equations still come from the graph, the travel along
the ground is one more degree of freedom, and a ``[soil]`` tool sees the cutting edge's
velocity on the ground (its velocity in the frame plus the travel speed).

How the travel is driven follows the machine's mode and the cycle's ``travel`` column:

* ``extensions`` — the column is the travel speed (m/s; ``travel [km/h]`` converts),
  interpolated linearly; the speed is prescribed (``drive="speed"``: a wheel loader's
  hydrostatic drive held as a speed source) and the tractive force it takes is a read-out;
* ``forces`` — the column is the tractive force at the wheels (N), linear in time;
* ``valves`` — refused: the circuits have no travel drive (a
  :class:`~bondgraph.errors.ParameterError` naming the ``[travel]`` line).

A cycle without a ``travel`` column holds the carrier still (speed 0) in mode extensions,
and gives it no tractive force in mode forces.

The run table gains ``travel_x`` (m), ``travel_speed`` (m/s) and ``tractive_force`` (N);
the energy split a ``travel drive`` row (its work) and a ``rolling resistance`` row.

Examples
--------
>>> from mechanisms.machine import Machine, DATA
>>> m = Machine.from_file(DATA / "wheel_loader_pile.toml", mode="extensions")
>>> m.carrier.drive, m.carrier.mass, "travel.speed" in m.model.model.input_names
('speed', 13000.0, True)
>>> m.with_mode("valves")
Traceback (most recent call last):
...
bondgraph.errors.ParameterError: 'travel' (wheel_loader_pile.toml, line 16): mode 'valves' with [travel]: the circuits have no travel drive; expected mode 'extensions' (a travel speed column) or 'forces' (a tractive force column), or a file without [travel]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bondgraph import Table
from bondgraph.errors import ParameterError

from ..travel import Carrier, TravelMechanism, with_travel

__all__ = ["TRAVEL", "attach_travel", "travel_inputs", "travel_read_outs", "travel_energy_label",
           "travel_report_lines"]

#: the carrier's name in a machine's graph (its inputs ``travel.speed``, ``travel.force``)
#: and the cycle column that drives it
TRAVEL = "travel"


def attach_travel(machine, assembled) -> TravelMechanism:
    """Put the assembled front of ``machine`` on the carrier of its ``[travel]`` (in place:
    ``machine.mechanism`` becomes the :class:`~mechanisms.travel.TravelMechanism`,
    ``machine.carrier`` the carrier).

    Raises
    ------
    ParameterError
        Mode ``valves`` or a reference formulation (named with the ``[travel]`` line).

    Examples
    --------
    >>> from mechanisms.machine import Machine, DATA
    >>> m = Machine.from_file(DATA / "wheel_loader_pile.toml", mode="forces")
    >>> type(m.mechanism).__name__, m.carrier.drive
    ('TravelMechanism', 'force')
    """
    desc = machine.description
    tr = desc.travel
    where = f"'travel' ({desc.where('travel')})"
    if machine.mode == "valves":
        raise ParameterError(f"{where}: mode 'valves' with [travel]: the circuits have no travel drive; expected "
                             "mode 'extensions' (a travel speed column) or 'forces' (a tractive force column), "
                             "or a file without [travel]")
    if machine.formulation != "causal":
        raise ParameterError(f"{where}: [travel] is modelled in the causal formulation only (found "
                             f"formulation {machine.formulation!r})")
    drive = "speed" if machine.mode == "extensions" else "force"
    carrier = Carrier(TRAVEL, mass=tr["mass"], rolling=tr["rolling"], rolling_speed=tr["rolling_speed"],
                      drive=drive, v0=tr["speed"] if drive == "force" else 0.0)   # g: the front's (a run-time parameter)
    moving = with_travel(assembled.mechanism, carrier)
    moving.description = desc
    machine.mechanism = moving
    machine.carrier = carrier
    return moving


def travel_inputs(machine, cycle) -> dict[str, Any]:
    """The carrier's input for a run of ``cycle`` (its ``travel`` column, or the carrier held
    still / given no force); empty without ``[travel]``.

    Raises
    ------
    ParameterError
        A ``travel`` column for a machine without ``[travel]``.

    Examples
    --------
    >>> from mechanisms.machine import Machine, DATA
    >>> m = Machine.from_file(DATA / "wheel_loader_pile.toml", mode="extensions")
    >>> u = travel_inputs(m, m.cycle("pile_loading"))
    >>> sorted(u), round(float(u["travel.speed"].value(1.0)), 3)
    (['travel.speed'], 1.5)
    """
    carrier = getattr(machine, "carrier", None)
    col = getattr(cycle, "travel", None)
    if carrier is None:
        if col is not None:
            raise ParameterError(f"cycle {cycle.source}: a 'travel' column, but {machine.name!r} has no [travel] "
                                 "(the machine does not travel); expected a machine file with [travel] or a cycle "
                                 "without the column")
        return {}
    if col is None:
        return {carrier.input: 0.0}
    return {carrier.input: Table(cycle.time, col, name=carrier.input)}


def travel_read_outs(machine, res) -> dict[str, tuple[np.ndarray, str]]:
    """``travel_x`` (m), ``travel_speed`` (m/s) and ``tractive_force`` (N, at the wheels:
    the prescribed speed's in mode extensions, the input's in mode forces) along a run;
    empty without a carrier.

    Examples
    --------
    >>> from mechanisms.machine import Machine, DATA
    >>> run = Machine.from_file(DATA / "wheel_loader_pile.toml", mode="extensions").run(t_end=0.2, progress=False)
    >>> sorted(travel_read_outs(run.machine, run.results))
    ['tractive_force', 'travel_speed', 'travel_x']
    """
    carrier = getattr(machine, "carrier", None)
    if carrier is None:
        return {}
    mech = machine.mechanism
    root = mech.name
    x = np.asarray(res[mech.travel_state("position")], dtype=float)
    v = np.asarray(res.flow(f"{root}/{TRAVEL}/drive"), dtype=float)
    F = np.asarray(mech.tractive_force(res), dtype=float)
    return {"travel_x": (x, "m"), "travel_speed": (v, "m/s"), "tractive_force": (F, "N")}


def travel_energy_label(node: str, root: str) -> str | None:
    """The energy-split row of a carrier element (``None`` for another element): its drive
    (``travel drive``) or ``rolling resistance``.

    Examples
    --------
    >>> travel_energy_label("wheel_loader/travel/rolling", "wheel_loader")
    'rolling resistance'
    """
    prefix = f"{root}/{TRAVEL}/"
    if not node.startswith(prefix):
        return None
    return {"speed": "travel drive", "force": "travel drive", "rolling": "rolling resistance"}.get(node[len(prefix):])


def travel_report_lines(run) -> list[str]:
    """The report's travel lines: how it was driven, the distance, the peak speed, the
    tractive force against the traction limit of ``[travel] tractive_max``.

    Examples
    --------
    >>> from mechanisms.machine import Machine, DATA
    >>> run = Machine.from_file(DATA / "wheel_loader_pile.toml", mode="extensions").run(t_end=0.2, progress=False)
    >>> travel_report_lines(run)[0].split(";")[0].strip()
    "travel     speed prescribed by the cycle's 'travel' column"
    """
    machine = run.machine
    if getattr(machine, "carrier", None) is None:
        return []
    tab = run.table()
    x, v, F = (np.asarray(tab[k], dtype=float) for k in ("travel_x", "travel_speed", "tractive_force"))
    if run.cycle.travel is None:
        how = "held still (no 'travel' column)" if machine.mode == "extensions" else "no tractive force"
    else:
        how = f"{'speed prescribed' if machine.mode == 'extensions' else 'tractive force given'} by the cycle's " \
              "'travel' column"
    line = (f"  travel     {how}; {x.min():.2f} … {x.max():.2f} m, speed {v.min():.2f} … {v.max():.2f} m/s, "
            f"tractive force {F.min() / 1e3:.1f} … {F.max() / 1e3:.1f} kN")
    limit = machine.description.travel.get("tractive_max")
    if limit is not None:
        peak = float(np.abs(F).max())
        line += (f" (traction limit {limit / 1e3:.1f} kN: " +
                 ("within it)" if peak <= limit else f"EXCEEDED by {(peak - limit) / 1e3:.1f} kN: the wheels slip)"))
    return [line]
