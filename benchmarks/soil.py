"""Integration time of the excavator's valves cycle with and without a soil tool (loose sand).

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


def median_run(m, n=5):
    m.run(t_end=10.0, progress=False)           # warm
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        m.run(t_end=10.0, progress=False)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    bare = Machine.from_file(DATA / "excavator.toml", mode="valves")
    soil = with_soil(Machine.from_file(DATA / "excavator.toml", mode="valves"), preset("loose_sand"),
                     edge=("bucket", "Q"), face=math.radians(60), width=1.2, capacity=1.0)
    a, b = median_run(bare), median_run(soil)
    print(f"cores {os.cpu_count()}, load average {os.getloadavg()}")
    print(f"valves cycle, 10 s: without soil {a:.3f} s, with soil {b:.3f} s, ratio {b / a:.2f}")


if __name__ == "__main__":
    from conditions import announce

    announce()
    main()
