"""Benchmark: what a notebook display costs, per shipped machine, and what live curves cost a run.

For every machine of ``mechanisms/data``: the first display (drawing made) and a repeat
(cached) of the ``Machine``, its ``Mechanism``, its ``MechanismModel``, its start ``Pose``, its ``CausalReport``,
a short run (``MachineRun``, mode extensions), the mechanism's ``BondGraph``; one slider
move of ``machine.explore()`` (pose followed, statics, redraw); and the default cycle run
through the hydraulics (mode valves) with and without ``live=[...]`` curves (the
run's wall time, side by side). The budget of
a display is 0.2 s. Medians of ``--repeat``.

Run: ``MPLBACKEND=Agg python benchmarks/displays.py [--repeat 3] [--machines excavator ...]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

BUDGET = 0.2


def timed(fn, repeat: int) -> float:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def first_and_cached(make, show, repeat: int) -> tuple[float, float]:
    """Median time of a display on a fresh object, and of a second display of one object."""
    firsts, agains = [], []
    for _ in range(repeat):
        obj = make()
        t0 = time.perf_counter()
        show(obj)
        t1 = time.perf_counter()
        show(obj)
        t2 = time.perf_counter()
        firsts.append(t1 - t0)
        agains.append(t2 - t1)
    return statistics.median(firsts), statistics.median(agains)


def main(argv=None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from mechanisms.machine import DATA, Machine

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--machines", nargs="*", default=sorted(p.stem for p in DATA.glob("*.toml")))
    args = ap.parse_args(argv)
    r = args.repeat
    print(f"display cost (s), medians of {r}; budget {BUDGET} s; first = drawing made, again = cached")
    print(f"{'machine':<15} {'object':<22} {'first':>8} {'again':>8}  within budget")
    for name in args.machines:
        m = Machine.from_file(DATA / f"{name}.toml", mode="extensions")
        run = m.run(t_end=1.0, progress=False)
        rows = []

        def fresh_pose(m=m):
            return m.pose_at_lengths({f: m.start_pose.length(m.cylinder_of[f]) for f in m.functions})

        rows.append(("Machine", first_and_cached(lambda: _fresh_cache(m), lambda o: o._repr_html_(), r)))
        rows.append(("Mechanism", first_and_cached(lambda: _fresh_cache(m.mechanism), lambda o: o._repr_html_(), r)))
        rows.append(("Pose", first_and_cached(fresh_pose, lambda o: o._repr_html_(), r)))
        rows.append(("CausalReport", first_and_cached(lambda: m.report, lambda o: o._repr_html_(), r)))
        rows.append(("MachineRun (1 s)", first_and_cached(lambda: _fresh_cache(run), lambda o: o._repr_html_(), r)))
        rows.append(("MechanismModel", first_and_cached(lambda: _fresh_cache(m.model), lambda o: o._repr_svg_(), r)))
        rows.append(("BondGraph (mechanism)", first_and_cached(lambda: m.mechanism.bond_graph(),
                                                               lambda o: o._repr_svg_(), 1)))
        ex = m.explore()
        f = m.functions[0]
        lo, hi = m.description.stroke_limits(f)
        values = [lo + (hi - lo) * k / 6 for k in (2, 3, 4)] * r

        def move(vs=iter(values), ex=ex, f=f):
            ex.sliders[f].value = next(vs)
        rows.append(("explore: slider move", (timed(move, r), float("nan"))))
        for what, (a, b) in rows:
            again = f"{b:8.4f}" if b == b else f"{'':>8}"
            print(f"{name:<15} {what:<22} {a:8.3f} {again}  {'yes' if a <= BUDGET else 'NO (first display)'}")
        # live curves: the default cycle through the hydraulics (mode valves), with and without
        v = m.with_mode("valves") if m.description.circuit is not None else m
        plain = timed(lambda: v.run(progress=False), r)
        redraws = []

        def with_live(v=v, f=f):
            run = v.run(progress=False, live=[f"{f}_force", f"{next(iter(v.description.output_points))}_y"])
            redraws.append(run.live.updates)
            run.live.close()
        live = timed(with_live, r)
        print(f"{name:<15} {'cycle run, mode ' + v.mode:<22} {plain:8.3f} s plain, {live:.3f} s with live curves "
              f"({redraws[-1]} redraws): +{live - plain:.3f} s, ratio {live / plain:.2f}")


def _fresh_cache(obj):
    """The object with its cached display dropped, so the next display draws again."""
    obj.__dict__.pop("_html_cache", None)
    obj.__dict__.pop("_svg_cache", None)
    return obj


if __name__ == "__main__":
    from conditions import announce

    announce()
    main()
