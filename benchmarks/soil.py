"""Integration time of the excavator's valves cycle with and without a soil tool (loose sand);
and of the dig machine's bite (``excavator_dig``: gravel, open centre, engine) against the same
machine and spool table without the soil and the engine (issue 21's goal: ≤ 1.5×).

Side by side, medians of 5 runs each (models built and compiled first); prints the load
average and the core count beside the times. Run: ``python benchmarks/soil.py``.
"""

import math
import os
import statistics
import time

from components.soil import preset
from mechanisms.machine import DATA, Machine
from mechanisms.machine.soil import with_soil


def median_run(m, n=5, t_end=10.0):
    m.run(t_end=t_end, progress=False)           # warm
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        m.run(t_end=t_end, progress=False)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def dig():
    full = Machine.from_file(DATA / "excavator_dig.toml", mode="valves")
    d = full.description
    circuit = {k: v for k, v in d.raw_tables()["circuit"].items() if k != "engine"}
    bare = Machine(d.with_sections(soil=None, circuit=circuit), mode="valves")
    a, b = median_run(bare, t_end=13.0), median_run(full, t_end=13.0)
    print(f"dig machine's bite, 13 s valves run: without soil and engine {a:.3f} s, with both {b:.3f} s, "
          f"ratio {b / a:.2f} (goal ≤ 1.5)")


def main():
    bare = Machine.from_file(DATA / "excavator.toml", mode="valves")
    soil = with_soil(Machine.from_file(DATA / "excavator.toml", mode="valves"), preset("loose_sand"),
                     edge=("bucket", "Q"), face=math.radians(60), width=1.2, capacity=1.0)
    a, b = median_run(bare), median_run(soil)
    print(f"cores {os.cpu_count()}, load average {os.getloadavg()}")
    print(f"valves cycle, 10 s: without soil {a:.3f} s, with soil {b:.3f} s, ratio {b / a:.2f}")
    dig()


if __name__ == "__main__":
    from conditions import announce

    announce()
    main()
