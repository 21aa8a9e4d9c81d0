"""Write the default cycle files of the shipped machines (mechanisms/data/*.csv).

A cycle is given here as poses against time (angles of the machine's
``[outputs.angles]``, or cylinder lengths); the lengths table is position analysis
of those poses, and the valves table is the spool commands a tracking controller
(:func:`mechanisms.machine.control.tracking_controller`) needed to follow the
lengths, recorded at 0.25 s and smoothed, so that the valve-driven run does what
the lengths cycle does.

A cycle may instead be given as a path of the tool: ``TIP_PATHS`` lists the tip's position
and the bucket's angle against time; they are interpolated monotonically (PCHIP: a level
stretch stays level) and turned into cylinder lengths every ``period`` by inverse
kinematics (least squares on the machine's own position analysis, within the strokes).
Their valves table is what the tracking operator
(:class:`mechanisms.machine.operator.TrackingOperator`) commanded on the file's own circuit to
hold that path, recorded at 0.25 s and smoothed (:func:`operator_valves_table`): it lasts as
long as the operator's paced cycle, and replayed open loop it drifts from the path (the
script prints by how much).

The truck-loading cycle of ``excavator_truck`` (:data:`TRUCK_LOADING`) is the bite's lengths
on a stretched time line with a swing angle column: 90° out while lifting, back while lowering.
Its valves table (:data:`TRUCK_VALVES`) has the front's commands recorded as above and a swing
lever shaped as an operator works it, its release times solved so the swing stops at 90° and
back at 0.

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


#: machine → (lengths file, valves file, tip point, bucket part, period (s), [(t, x m, y m, bucket angle deg)])
GROUND = -1.70                                    # the excavator's ground line (m, machine frame)
TIP_PATHS = {
    "excavator_dig": ("excavator_dig_lengths.csv", "excavator_dig_valves.csv", "bucket/Q", "bucket", 0.25, [
        (0.0, 8.0, GROUND + 0.6, 30),             # bucket open, 0.6 m above the ground, 8 m out
        (1.5, 7.6, GROUND - 0.35, 25),            # penetrate to 0.35 m
        (2.5, 7.1, GROUND - 0.35, 18),            # drag 2 m toward the machine at constant depth,
        (3.5, 6.6, GROUND - 0.35, 10),            # curling slowly: the bite fills the bucket
        (4.5, 6.1, GROUND - 0.35, 0),
        (5.5, 5.6, GROUND - 0.35, -12),
        (6.8, 5.2, GROUND + 0.3, -70),            # curl and break out
        (8.5, 5.6, 1.3, -80),                     # lift: tip 3 m above the ground
        (10.0, 6.6, 1.3, 30),                     # dump ahead (no swing: the front is planar)
        (13.0, 8.0, GROUND + 0.6, 30),            # back to the start
    ]),
}


def tip_path_lengths(m: Machine, point: str, part: str, period: float, knots) -> Cycle:
    """Cylinder lengths every ``period`` that put ``point`` on the PCHIP path of ``knots``
    with ``part`` at its angle (inverse kinematics; the solution is checked to 1e-6)."""
    from scipy.interpolate import PchipInterpolator
    from scipy.optimize import least_squares

    cyl = [m.cylinder_of[f] for f in m.functions]
    lim = np.array([m.description.stroke_limits(f) for f in m.functions])
    knots = np.array(knots, dtype=float)
    path = PchipInterpolator(knots[:, 0], np.column_stack([knots[:, 1:3], np.radians(knots[:, 3])]), axis=0)

    def fk(L):
        p = m.pose(dict(zip(cyl, L)))
        x, y = p.points()[point]
        return np.array([x, y, p.angle(part)])

    times = np.arange(0.0, knots[-1, 0] + 1e-9, period)
    L = lim.mean(axis=1)
    rows = []
    for t in times:
        target = path(t)
        sol = least_squares(lambda v: fk(v) - target, L, bounds=(lim[:, 0], lim[:, 1]), xtol=1e-12, ftol=1e-12)
        miss = float(np.max(np.abs(fk(sol.x) - target)))
        if miss > 1e-6:
            raise SystemExit(f"t = {t:g} s: the path is out of reach ({miss:.3g} off); change the knots")
        L = sol.x
        rows.append(L.copy())
    vals = np.array(rows)
    return Cycle("extensions", times, {f: np.round(vals[:, i], 4) for i, f in enumerate(m.functions)},
                 m.functions)


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


def operator_valves_table(path, lengths: Cycle, period: float = 0.25, smooth: int = 25) -> Cycle:
    """The spool commands of the tracking operator holding ``lengths`` on the file's circuit,
    sampled every ``period`` (s) after a moving average over ``smooth`` of its 0.01 s samples;
    prints the open-loop replay's drift from the tracked run and from the reference path."""
    from mechanisms.machine.operator import TrackingOperator

    m = Machine.from_file(path, mode="valves")
    op = TrackingOperator(m, lengths)
    log: list[tuple[float, dict]] = []
    step = op.controller.fn

    def fn(t, y):
        out = step(t, y)
        log.append((t, out))
        return out

    op.controller = type(op.controller)(fn, op.controller.inputs, period=op.controller.period)
    run = op.drive(progress=False)
    ts = np.array([t for t, _ in log])
    first = int(np.nonzero(np.diff(ts) < 0)[0][-1]) + 1 if np.any(np.diff(ts) < 0) else 0   # the last run
    ts, cmds = ts[first:], [o for _, o in log[first:]]
    t_end = op.cycle_time
    t = np.arange(0, t_end + 1e-9, period)
    out = {}
    for f in m.functions:
        cmd = np.convolve([o[f"{f}.cmd"] for o in cmds], np.ones(smooth) / smooth, mode="same")
        v = np.round(np.clip(np.interp(t, ts, cmd), -1, 1), 3)
        v[0] = v[-1] = 0.0
        out[f] = v
    table = Cycle("valves", t, out, m.functions)
    replay, tracked = m.run(table, progress=False).table(), run.table()
    tt = tracked["time"]
    x, y = np.interp(tt, replay["time"], replay["tip_x"]), np.interp(tt, replay["time"], replay["tip_y"])
    path_ = op._kinematic_run()
    clock = op.clock(tt)
    to_run = np.hypot(x - tracked["tip_x"], y - tracked["tip_y"])
    to_path = np.hypot(x - np.interp(clock, path_["time"], path_["tip_x"]),
                       y - np.interp(clock, path_["time"], path_["tip_y"]))
    print(f"  tracked: {run.tracking.text()}")
    print(f"  the valves table replayed open loop: tip {np.median(to_run) * 1e3:.0f} mm from the tracked run "
          f"(median; {np.percentile(to_run, 95) * 1e3:.0f} mm at the 95th percentile), "
          f"{np.median(to_path) * 1e3:.0f} mm from the path")
    return table


#: the truck-loading cycle of excavator_truck: the bite's lengths on a time map (truck time →
#: bite time, PCHIP through these knots: monotone and C¹, so the rates stay continuous) and a
#: rest-to-rest swing (minimum-jerk quintic) of ``angle`` degrees over each swing window
TRUCK_LOADING = {
    "machine": "excavator_truck", "bite": "excavator_dig_lengths.csv", "file": "excavator_truck_lengths.csv",
    "period": 0.1, "angle": 90.0,
    # (truck time, bite time): dig as the bite; its lift (6.8–8.5 s) stretched over the swing out,
    # its dump (8.5–10 s) as it is, its return (10–13 s) stretched over the swing back
    "time_map": [(0.0, 0.0), (5.5, 5.5), (6.8, 6.8), (10.6, 8.5), (12.1, 10.0), (16.1, 13.0), (17.0, 13.0)],
    "swings": [(6.8, 10.6, 0.0, 1.0), (12.1, 16.1, 1.0, 0.0)],     # (from, to, start and end fraction)
}


def min_jerk(t, t0: float, t1: float) -> np.ndarray:
    """0 → 1 from ``t0`` to ``t1``, at rest (zero rate and acceleration) at both ends:
    ``10τ³ − 15τ⁴ + 6τ⁵``."""
    tau = np.clip((np.asarray(t, dtype=float) - t0) / (t1 - t0), 0.0, 1.0)
    return tau ** 3 * (10 - 15 * tau + 6 * tau ** 2)


def truck_loading(spec=TRUCK_LOADING) -> Cycle:
    """The truck-loading lengths-and-swing cycle (see :data:`TRUCK_LOADING`)."""
    from scipy.interpolate import PchipInterpolator

    m = Machine.from_file(DATA / f"{spec['machine']}.toml", mode="extensions")
    bite = Cycle.from_csv(DATA / spec["bite"], "extensions", m.functions)
    knots = np.array(spec["time_map"], dtype=float)
    to_bite = PchipInterpolator(knots[:, 0], knots[:, 1])
    t = np.round(np.arange(0.0, knots[-1, 0] + 1e-9, spec["period"]), 6)
    lengths = bite.sample(to_bite(t))            # the bite's own C² spline, at the mapped times
    frac = np.zeros_like(t)
    for t0, t1, a, b in spec["swings"]:
        inside = t >= t0
        frac = np.where(inside, a + (b - a) * min_jerk(t, t0, t1), frac)
    swing = np.radians(spec["angle"]) * frac
    return Cycle("extensions", t, {f: np.round(lengths[f], 6) for f in m.functions}, m.functions,
                 swing=np.round(swing, 9))


#: the truck-loading cycle in valves: the front's spool commands recorded by the tracking
#: controller on the lengths (as the other valves tables), the swing's lever shaped by hand as
#: an operator works it — pushed to ``command`` over ``ramp`` at the start of each swing
#: window, held, released over ``ramp`` (the centred valve then brakes the swing against the
#: crossover relief) — its release times solved (bisection on the whole valves run) so that the
#: swing stops at ``angle`` out and back at 0
TRUCK_VALVES = {"file": "excavator_truck_valves.csv", "period": 0.05, "command": 1.0, "ramp": 0.3,
                "starts": (6.8, 12.1), "angle": 90.0}


def swing_lever(t, releases, spec=TRUCK_VALVES) -> np.ndarray:
    """The hand-shaped swing lever of :data:`TRUCK_VALVES`: +command out from the first start
    to the first release, −command back from the second start to the second release."""
    t = np.asarray(t, dtype=float)
    ramp = spec["ramp"]

    def held(t0, t1):
        return np.clip((t - t0) / ramp, 0, 1) - np.clip((t - t1) / ramp, 0, 1)
    (a, b), (r1, r2) = spec["starts"], releases
    return spec["command"] * (held(a, r1) - held(b, r2))


def truck_valves(spec=TRUCK_VALVES, rounds: int = 2) -> Cycle:
    """The truck-loading cycle in valves (see :data:`TRUCK_VALVES`)."""
    from bondgraph.hybrid import Controller
    from scipy.optimize import brentq

    path = DATA / f"{TRUCK_LOADING['machine']}.toml"
    lengths = Cycle.from_csv(DATA / TRUCK_LOADING["file"], "extensions", ("boom", "arm", "bucket"))
    m = Machine.from_file(path, mode="valves")
    t_end = lengths.end
    t = np.round(np.arange(0.0, t_end + 1e-9, spec["period"]), 6)
    (a, b) = spec["starts"]
    releases = (a + 1.7, b + 1.7)
    front = {f: np.zeros_like(t) for f in m.functions}

    def table(releases, front):
        return Cycle("valves", t, {f: front[f] for f in m.functions}, m.functions,
                     swing=np.round(swing_lever(t, releases, spec), 4))

    for _ in range(rounds):
        # the front's commands: the tracking controller on the lengths, the swing on its lever
        ctrl = tracking_controller(m, lengths, kp=3.0, period=0.01)
        log: list[tuple[float, dict]] = []

        def fn(tt, y):
            out = ctrl.fn(tt, y)
            log.append((tt, out))
            return out
        m.run(table(releases, front), controller=Controller(fn, ctrl.inputs, period=ctrl.period),
              t_eval=np.arange(0, t_end + 1e-9, 0.01), progress=False)
        ts = np.array([tt for tt, _ in log])
        order = np.argsort(ts, kind="stable")
        for f in m.functions:
            cmd = np.array([o[f"{f}.cmd"] for _, o in log])[order]
            smooth = np.convolve(cmd, np.ones(25) / 25, mode="same")
            v = np.round(np.clip(np.interp(t, ts[order], smooth), -1, 1), 3)
            v[0] = v[-1] = 0.0
            front[f] = v

        # the releases: out to the angle, back to 0 (each swing's stop, from the whole run)
        def angle(releases):
            tab = m.run(table(releases, front), progress=False).table()
            return tab["time"], tab["swing_angle"]

        def out(r1):
            tt, phi = angle((r1, releases[1]))
            return math.degrees(phi[tt < b].max()) - spec["angle"]

        r1 = brentq(out, a + 0.5, b - 1.0, xtol=1e-3)

        def back(r2):
            tt, phi = angle((r1, r2))
            return math.degrees(phi[-1])

        releases = (r1, brentq(back, b + 0.5, t_end - 0.5, xtol=1e-3))
    return table(releases, front)


def main(names):
    for name in names or [*CYCLES, *TIP_PATHS, TRUCK_LOADING["machine"]]:
        if name == TRUCK_LOADING["machine"]:      # lengths and swing from the bite's (write that first)
            truck_loading().to_csv(DATA / TRUCK_LOADING["file"])
            print("wrote", DATA / TRUCK_LOADING["file"])
            truck_valves().to_csv(DATA / TRUCK_VALVES["file"])
            print("wrote", DATA / TRUCK_VALVES["file"])
            continue
        path = DATA / f"{name}.toml"
        m = Machine.from_file(path, mode="extensions")
        if name in TIP_PATHS:
            lf, vf, point, part, period, knots = TIP_PATHS[name]
            lengths = tip_path_lengths(m, point, part, period, knots)
        else:
            lf, vf, knots = CYCLES[name]
            lengths = lengths_table(m, knots)
        lengths.to_csv(DATA / lf)
        print("wrote", DATA / lf)
        valves = operator_valves_table(path, lengths) if name in TIP_PATHS else valves_table(path, lengths)
        valves.to_csv(DATA / vf)
        print("wrote", DATA / vf)


if __name__ == "__main__":
    main(sys.argv[1:])
