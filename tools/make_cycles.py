"""Write the default cycle files of the shipped machines (mechanisms/data/*.csv).

A cycle is given here as poses against time (angles of the machine's
``[outputs.angles]``, or cylinder lengths); the lengths table is position analysis
of those poses, and the valves table is the spool commands a tracking controller
(:func:`mechanisms.machine.control.tracking_controller`) needed to follow the
lengths, recorded at 0.25 s and smoothed, so that the valve-driven run does what
the lengths cycle does.

Run: ``python tools/make_cycles.py [MACHINE ...]`` (default: every machine below).
The excavator's dig–lift–dump files predate this script and are kept as they are; the
mini excavator's are the excavator's scaled (lengths × 0.55, the same commands).
"""

from __future__ import annotations

import math
import sys

import numpy as np

from mechanisms.machine import DATA, Cycle, Machine
from mechanisms.machine.control import tracking_controller

#: machine → (lengths file, valves file, [(t, {angle or cylinder: value in deg or m})])
CYCLES = {
    "wheel_loader": ("wheel_loader_lengths.csv", "wheel_loader_valves.csv", [
        (0.0, {"boom": -27, "bucket": 0}),        # loading pose, bucket floor on the ground
        (1.5, {"boom": -27, "bucket": 35}),       # crowd: roll the bucket back into the pile
        (3.0, {"boom": -20, "bucket": 40}),       # break out
        (7.0, {"boom": 25, "bucket": 30}),        # lift while carrying
        (9.0, {"boom": 40, "bucket": 20}),        # at dump height
        (10.5, {"boom": 40, "bucket": -22}),      # dump
        (12.5, {"boom": 15, "bucket": 0}),        # lower and level
        (14.0, {"boom": -10, "bucket": 0}),
    ]),
    "knuckle_crane": ("knuckle_crane_lengths.csv", "knuckle_crane_valves.csv", [
        (0.0, {"inner": 10, "outer": -60}),       # folded, the load near the column
        (2.0, {"inner": 14, "outer": -55}),       # lift off
        (5.0, {"inner": 35, "outer": -15}),       # lift and unfold
        (8.0, {"inner": 40, "outer": -3}),        # reach out
        (10.0, {"inner": 33, "outer": -18}),      # lower
        (12.0, {"inner": 25, "outer": -30}),      # set down
    ]),
}


def lengths_table(m: Machine, knots) -> Cycle:
    times, rows = [], []
    near = m.start_pose
    for t, pose in knots:
        targets = {k: (math.radians(v) if k not in m.description.parts or
                       m.description.parts[k].type != "cylinder" else v) for k, v in pose.items()}
        p = m.pose(targets)
        rows.append([p.length(m.cylinder_of[f]) for f in m.functions])
        times.append(t)
        near = p
    vals = np.array(rows)
    return Cycle("extensions", times, {f: np.round(vals[:, i], 4) for i, f in enumerate(m.functions)},
                 m.functions)


def valves_table(path, lengths: Cycle, period: float = 0.25) -> Cycle:
    from bondgraph.hybrid import Controller

    m = Machine.from_file(path, mode="valves")
    t_end = lengths.end
    ctrl = tracking_controller(m, lengths, kp=3.0, period=0.01)
    log: list[tuple[float, dict]] = []

    def fn(t, y):
        out = ctrl.fn(t, y)
        log.append((t, out))
        return out

    dummy = Cycle("valves", [0, t_end], {f: [0, 0] for f in m.functions}, m.functions)
    m.run(dummy, controller=Controller(fn, ctrl.inputs, period=ctrl.period),
          t_eval=np.arange(0, t_end + 1e-9, 0.01), progress=False)
    ts = np.array([t for t, _ in log])
    order = np.argsort(ts, kind="stable")
    t = np.arange(0, t_end + 1e-9, period)
    out = {}
    for f in m.functions:
        cmd = np.array([o[f"{f}.cmd"] for _, o in log])[order]
        smooth = np.convolve(cmd, np.ones(25) / 25, mode="same")
        v = np.round(np.clip(np.interp(t, ts[order], smooth), -1, 1), 3)
        v[0] = v[-1] = 0.0
        out[f] = v
    return Cycle("valves", t, out, m.functions)


def main(names):
    for name in names or list(CYCLES):
        lf, vf, knots = CYCLES[name]
        path = DATA / f"{name}.toml"
        m = Machine.from_file(path, mode="extensions")
        lengths = lengths_table(m, knots)
        lengths.to_csv(DATA / lf)
        print("wrote", DATA / lf)
        valves = valves_table(path, lengths)
        valves.to_csv(DATA / vf)
        print("wrote", DATA / vf)


if __name__ == "__main__":
    main(sys.argv[1:])
