"""Benchmark: what the diesel engine adds to the excavator's 10 s valves cycle — the
integration time with the engine driving the pump (``[circuit.engine]``) and without it
(the same pump at constant high-idle speed), open-centre and load-sensing, medians of ``--repeat`` runs
side by side with their ratio (goal: the engine adds at most 1.5×).

Run: ``PYTHONPATH=. python benchmarks/engine.py [--repeat 5]``.

The machines are built once, outside the timings; each repeat integrates the whole cycle
(start state included in the run, reported apart). The conditions (cores, load average
before and after, the checkout measured) are printed by ``conditions.py``.
"""

from __future__ import annotations

import argparse
import statistics


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    from mechanisms.machine import DATA, Machine

    print(f"{'circuit':<14} {'without engine (s)':>19} {'with engine (s)':>16} {'ratio':>7}")
    for typ in ("open-centre", "load-sensing"):
        with_engine = Machine.from_file(DATA / "excavator.toml", {"circuit.type": typ})
        # the same pump without the engine: the engine's pump displacement at constant high idle
        sec = {k: v for k, v in with_engine.description.circuit.items() if k != "engine"}
        eng = with_engine.description.circuit["engine"]
        sec["power_unit"] = {**sec["power_unit"], "pump_displacement": eng["pump_displacement"],
                             "pump_speed": eng["high_idle"]}
        without = Machine(with_engine.description.with_sections(circuit=sec), mode="valves")
        med = {}
        for label, m in (("without", without), ("with", with_engine)):
            m.run(progress=False)                      # compile and warm up outside the timings
            med[label] = statistics.median(m.run(progress=False).timings["integration"]
                                           for _ in range(args.repeat))
        print(f"{typ:<14} {med['without']:>19.3f} {med['with']:>16.3f} {med['with'] / med['without']:>7.2f}")


if __name__ == "__main__":
    from conditions import announce

    announce()
    main()
