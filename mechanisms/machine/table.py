"""Read-outs of a run named by what they mean, with their units.

Columns (SI units throughout, said in the CSV header as ``name [unit]``):

=============================  =======  ==================================================
column                         unit     what
=============================  =======  ==================================================
``time``                       s
``<point>_x``, ``<point>_y``   m        each ``[outputs.points]`` entry (``tip_x``)
``<f>_length``                 m        pin-to-pin length of function ``f``'s cylinder
``<f>_rate``                   m/s      its extension rate
``<f>_force``                  N        total axial force on the linkage, + pushing
``<f>_stop_force``             N        end-stop force (mode forces)
``<angle>_angle``              rad      each ``[outputs.angles]`` entry
``<f>_cap_pressure`` ...       Pa       chamber pressures (mode valves; gauge)
``<f>_cap_pressure_required``  Pa       pressure the force needs, other side at 0 (modes
                                        extensions, forces)
``<f>_command``                1        spool command (mode valves)
``pump_pressure`` ...          Pa ...   the circuit's own read-outs (pump, relief)
``<part>_<point>_x`` ...       m        every hinge point
``swing_angle`` ...            rad ...  the swing (with ``[swing]``): angle, rate (rad/s),
                                        torque at the axis (N·m), inertia J(q) (kg·m²)
``stored_energy`` ...          J        energy accounting (with ``energy=True``)
=============================  =======  ==================================================

Examples
--------
>>> from mechanisms.machine import Machine, DATA
>>> run = Machine.from_file(DATA / "excavator.toml", mode="extensions").run(t_end=0.1, progress=False)
>>> header(run)[:4]
['time [s]', 'tip_x [m]', 'tip_y [m]', 'boom_length [m]']
"""

from __future__ import annotations

import csv
import io
import math

import numpy as np

__all__ = ["run_table", "write_csv", "header", "read_csv", "output_point_names"]


def run_table(run) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    machine = run.machine
    desc = machine.description
    mm = machine.model
    res = run.results
    out: dict[str, np.ndarray] = {"time": res.t}
    units: dict[str, str] = {"time": "s"}

    def put(name, arr, unit):
        out[name] = np.asarray(arr, dtype=float)
        units[name] = unit

    pos = mm.positions(res)
    for name, (part, point) in desc.output_points.items():
        x, y = pos[f"{part}/{point}"]
        put(f"{name}_x", x, "m")
        put(f"{name}_y", y, "m")
    for f in desc.functions:
        put(f"{f}_length", mm.coordinates(res, desc.cylinder_of[f])["s"], "m")
    for f in desc.functions:
        put(f"{f}_rate", mm.cylinder_rate(res, desc.cylinder_of[f]), "m/s")
    for f in desc.functions:
        put(f"{f}_force", mm.cylinder_force(res, desc.cylinder_of[f]), "N")
    if machine.mode == "forces" and machine.formulation == "causal":
        for f in desc.functions:
            put(f"{f}_stop_force", res.effort(f"{machine.mechanism.name}/{desc.cylinder_of[f]}_stop"), "N")
    coords = {}
    for name, (part, ref) in desc.angles.items():
        th = _angle(mm, res, part, coords)
        put(f"{name}_angle", th - _angle(mm, res, ref, coords) if ref else th, "rad")
    if machine.mode == "valves":
        circ = machine.circuit
        prefix = f"{machine.mechanism.name}/{circ.name}"
        for f in desc.functions:
            cap, rod = circ.chambers[f]
            put(f"{f}_cap_pressure", res[f"{prefix}/{cap}"], "Pa")
            put(f"{f}_rod_pressure", res[f"{prefix}/{rod}"], "Pa")
        for f in desc.functions:
            try:
                put(f"{f}_command", res[f"{f}.cmd"], "1")
            except Exception:  # noqa: BLE001 - a controller run records no input table
                pass
        for name, (arr, unit) in circ.read_outs(res, prefix).items():
            put(name, arr, unit)
    else:
        for f in desc.functions:
            a_cap, a_rod = desc.areas(f)
            F = out[f"{f}_force"]
            put(f"{f}_cap_pressure_required", np.where(F > 0, F / a_cap, 0.0), "Pa")
            put(f"{f}_rod_pressure_required", np.where(F < 0, -F / a_rod, 0.0), "Pa")
    tool = getattr(machine, "soil_tool", None)
    if tool is not None:   # the soil at the cutting edge (mechanisms.machine.soil)
        path = f"{machine.mechanism.name}/{tool.name}"
        fill = np.asarray(res[f"{path}/fill.volume"], dtype=float)
        put("bucket_fill", fill, "m^3")
        put("payload_mass", fill * tool.soil.unit_weight / (tool.soil.swell * desc.gravity), "kg")
        # what the dumps have moved so far: the dump source's outflow, integrated (trapezoid
        # over the samples), as bank volume (÷ swell) and mass
        out_flow = -np.asarray(res.flow(f"{path}/dump"), dtype=float)
        t = np.asarray(res.t, dtype=float)
        loose = np.concatenate([[0.0], np.cumsum(0.5 * (out_flow[1:] + out_flow[:-1]) * np.diff(t))])
        put("moved_volume", loose / tool.soil.swell, "m^3")
        put("moved_mass", loose * tool.soil.unit_weight / (tool.soil.swell * desc.gravity), "kg")
        put("cutting_force", res.effort(f"{path}/cutting"), "N")
        put("penetration_force", res.effort(f"{path}/penetration"), "N")
    from .swing import swing_read_outs

    for name, (arr, unit) in swing_read_outs(machine, res).items():
        put(name, arr, unit)
    from .travel import travel_read_outs

    for name, (arr, unit) in travel_read_outs(machine, res).items():
        put(name, arr, unit)
    for name, (x, y) in pos.items():
        key = name.replace("/", "_")
        put(f"{key}_x", x, "m")
        put(f"{key}_y", y, "m")
    if getattr(res, "_w", None) is not None:
        put("stored_energy", res.stored_energy(), "J")
        put("source_work", res.source_work(), "J")
        put("dissipated", res.dissipated(), "J")
    return out, units


def output_point_names(columns) -> list[str]:
    """The ``[outputs.points]`` of a table (a run's or a results.csv's columns, in order):
    the ``NAME_x``/``NAME_y`` pairs that open it after ``time``, before the first read-out
    of another kind (the parts' hinge points, later, are not outputs).

    Examples
    --------
    >>> output_point_names(["time", "hook_tip_x", "hook_tip_y", "lift_length", "inner_O_x", "inner_O_y"])
    ['hook_tip']
    """
    cols = [c for c in columns if c != "time"]
    out = []
    for a, b in zip(cols[::2], cols[1::2]):
        if not (a.endswith("_x") and b == f"{a[:-2]}_y"):
            break
        out.append(a[:-2])
    return out


def _angle(mm, res, part, cache):
    if part not in cache:
        c = mm.coordinates(res, part)
        cache[part] = c["theta"] if "theta" in c else c["phi"]
    return cache[part]


def header(run) -> list[str]:
    tab = run.table()
    return [f"{k} [{run.units.get(k, '1')}]" for k in tab]


def write_csv(run, path):
    """The table as CSV (``time [s]`` first, ``%.10g``), written atomically (0644)."""
    from .files import atomic_write

    tab = run.table()
    keys = list(tab)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header(run))
    cols = [np.asarray(tab[k], dtype=float).tolist() for k in keys]     # Python floats: formatted alike, faster
    w.writerows([f"{x:.10g}" for x in row] for row in zip(*cols))
    return atomic_write(path, buf.getvalue())


def read_csv(path) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """A results CSV back as ``(columns, units)`` (headers ``name [unit]`` or plain names).

    Raises
    ------
    ParameterError
        Not a file, not text, a duplicate column, a row of another length, a non-number.
    """
    from bondgraph.errors import ParameterError

    from .tomlfile import read_text_file

    text = read_text_file(path, "results file")
    rows = list(csv.reader(io.StringIO(text)))
    rows = [r for r in rows if r]
    if len(rows) < 2:
        raise ParameterError(f"results file {path}: no data rows")
    names, units = [], {}
    for h in rows[0]:
        h = h.strip()
        if h.endswith("]") and " [" in h:
            n, u = h[:-1].split(" [", 1)
        else:
            n, u = h, ""
        if n in units:
            raise ParameterError(f"results file {path}: column {n!r} appears twice")
        names.append(n)
        units[n] = u
    data = np.zeros((len(rows) - 1, len(names)))
    for i, r in enumerate(rows[1:], start=2):
        if len(r) != len(names):
            raise ParameterError(f"results file {path}, line {i}: {len(r)} values, expected {len(names)}")
        try:
            data[i - 2] = [float(x) for x in r]
        except ValueError:
            raise ParameterError(f"results file {path}, line {i}: not a number in {r!r}") from None
    return {n: data[:, j] for j, n in enumerate(names)}, units
