"""Draw the README's picture from a real run: the excavator's dig cycle, valves mode.

The figure is the trajectory plot that ``hydrobond run excavator`` writes
(``trajectory.png``), made by the same function (:func:`mechanisms.machine.plots.plot_trajectory`)
from the same run (the shipped ``excavator.toml``, its default cycle, mode ``valves``).
Run it again after a change to the plots or to the machine file::

    python tools/readme_figure.py            # writes docs/_static/excavator_dig_cycle.png
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

os.environ.setdefault("MPLBACKEND", "Agg")

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "_static" / "excavator_dig_cycle.png"


def main(argv: list[str] | None = None) -> Path:
    """Run the excavator's default cycle in mode valves and write its trajectory plot."""
    from mechanisms.machine import DATA, Machine
    from mechanisms.machine.plots import plot_trajectory

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT, help=f"PNG to write (default {OUT.relative_to(ROOT)})")
    args = ap.parse_args(argv)
    run = Machine.from_file(DATA / "excavator.toml", mode="valves").run()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    plot_trajectory(run, args.out)
    print(f"wrote {args.out}")
    return args.out


if __name__ == "__main__":
    main()
