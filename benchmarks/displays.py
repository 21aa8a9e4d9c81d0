"""Benchmark: what a notebook display costs, per shipped machine, and what live curves cost a run.

For every machine of ``mechanisms/data``: the first display (drawing made) and a repeat
(cached) of the ``Machine``, its ``Mechanism``, its ``MechanismModel``, its start ``Pose``, its ``CausalReport``,
a short run (``MachineRun``, mode extensions), the mechanism's ``BondGraph``; one slider
move of ``machine.explore()`` (pose followed, statics, redraw); and the default cycle run
with and without ``live=[...]`` curves (the run's wall time, side by side). The budget of
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
            ok = "yes" if min(a, b if b == b else a) <= BUDGET else "NO"
            print(f"{name:<15} {what:<22} {a:8.3f} {b:8.4f}  {ok}" if b == b else
                  f"{name:<15} {what:<22} {a:8.3f} {'':>8}  {'yes' if a <= BUDGET else 'NO'}")
        plain = timed(lambda: m.run(progress=False), 1)
        livecurves = []

        def with_live():
            run = m.run(progress=False, live=[f"{f}_force", f"{next(iter(m.description.output_points))}_y"])
            livecurves.append(run.live.updates)
            run.live.close()
        live = timed(with_live, 1)
        print(f"{name:<15} {'default cycle run':<22} {plain:8.3f} s plain, {live:.3f} s with live curves "
              f"({livecurves[-1]} redraws), ratio {live / plain:.2f}")


def _fresh_cache(obj):
    """The object with its cached display dropped, so the next display draws again."""
    obj.__dict__.pop("_html_cache", None)
    obj.__dict__.pop("_svg_cache", None)
    return obj


if __name__ == "__main__":
    main()
