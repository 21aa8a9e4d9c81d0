"""The excavator's valves model derived in two fresh processes with other hash seeds
(``PYTHONHASHSEED``) and empty caches is the same model: the same generated C source,
and its default valves cycle gives the same table bit for bit.

Before the derivation stopped following the hash order of sets, the two sources differed
in the order of their intermediates and the tip of the 10 s cycle moved by ~5e-7 m
between two cold builds. The core of it is in ``tests/core/test_hash_seed.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
SEEDS = (0, 12345)

#: run in a fresh process: cold build of the valves model, its C source and its run's table
CHILD = """
import sys
import numpy as np
from mechanisms.machine import DATA, Machine
m = Machine.from_file(DATA / "excavator.toml", mode="valves")
times = m.model.model.build_times
assert times.get("cached", 0.0) == 0.0 and times.get("keyed", 0.0) == 0.0, "the cache was not empty"
open(sys.argv[1] + ".c", "w").write(m.model.model.system.source)
np.savez(sys.argv[1] + ".npz", **m.run(progress=False).table())
"""


def built_in(seed: int, tmp_path: Path) -> tuple[str, dict[str, np.ndarray]]:
    out = tmp_path / f"excavator{seed}"
    env = dict(os.environ, PYTHONHASHSEED=str(seed), BONDGRAPH_CACHE=str(tmp_path / f"cache{seed}"),
               MPLBACKEND="Agg",
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-c", CHILD, str(out)], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, f"the build under hash seed {seed} failed:\n{proc.stderr[-3000:]}"
    with np.load(f"{out}.npz") as table:
        return Path(f"{out}.c").read_text(), {k: table[k] for k in table.files}


@pytest.mark.slow
def test_two_hash_seeds_build_the_same_excavator_and_run_it_bit_for_bit(tmp_path):
    (src_a, run_a), (src_b, run_b) = (built_in(s, tmp_path) for s in SEEDS)
    if src_a != src_b:
        line = next(i for i, (x, y) in enumerate(zip(src_a.splitlines(), src_b.splitlines()), 1) if x != y)
        pytest.fail(f"seeds {SEEDS} derive other sources, first at line {line}")
    assert run_a.keys() == run_b.keys() and {"time", "tip_x", "tip_y"} <= run_a.keys()
    assert run_a["time"][-1] >= 10.0 - 1e-9 and np.ptp(run_a["tip_x"]) > 1.0    # the whole cycle ran
    different = [k for k in run_a if not np.array_equal(run_a[k], run_b[k], equal_nan=True)]
    assert not different, f"seeds {SEEDS} run to other values of {', '.join(different)}"
