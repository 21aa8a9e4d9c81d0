"""Benchmark (issue 23): the standalone FMU of the excavator against its native run.

Side by side, medians of ``--repeat`` runs (never timed inside tests): the export (model
rebuilt with its read-outs, C compiled, FMU zipped), the native run of the 10 s
dig–lift–dump cycle in mode ``valves`` (``method="CVODE"``), and the FMU co-simulated by
FMPy in a Python that cannot import this package (commands ramped between the cycle's
points through ``fmi2SetRealInputDerivatives``, 0.01 s communication steps), with the
largest tip distance between the two. Both at the same tolerances (``--rtol``, atol
``rtol/100``). The FMU's wall time includes FMPy's Python loop over the 1000 steps. The
FMI 2.0 and the FMI 3.0 FMU (same runtime core, input ramps through
``fmi2SetRealInputDerivatives`` or the ``der(<input>)`` variables) side by side; then the
swinging machine (``excavator_truck`` in mode forces, 1.5 s of forces with a swing torque,
as its test) natively and as an FMI 3.0 FMU.

Run: ``python benchmarks/fmu_standalone.py [--repeat 3] [--rtol 1e-6]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "cosim"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rtol", type=float, default=1e-6)
    a = ap.parse_args()
    from test_standalone_fmu import _DRIVER

    from mechanisms.machine import DATA, Machine

    m = Machine.from_file(DATA / "excavator.toml", mode="valves")
    cyc = m.cycle(None)
    rtol, atol = a.rtol, a.rtol / 100
    tmp = Path(tempfile.mkdtemp())
    t_exp, t_nat = {2: [], 3: []}, []
    fmus = {}
    for _ in range(a.repeat):
        for v in (2, 3):
            T = time.perf_counter()
            fmus[v] = m.export_fmu(tmp / f"excavator_fmi{v}.fmu", rtol=rtol, atol=atol, fmi_version=v)
            t_exp[v].append(time.perf_counter() - T)
        T = time.perf_counter()
        run = m.run(cyc, rtol=rtol, atol=atol, progress=False, method="CVODE")
        t_nat.append(time.perf_counter() - T)
    table = run.table()
    med = statistics.median
    print(f"excavator valves, 10 s cycle, rtol {rtol:g}   (load {os.getloadavg()[0]:.2f})")
    print(f"  {'native run (machine.run, CVODE)':<42}{med(t_nat):7.2f} s")
    for v, fmu in fmus.items():
        args = dict(fmu=str(fmu), kind="CS", t_end=float(run.t[-1]), dt=0.01, rtol=rtol, outputs=["tip_x", "tip_y"],
                    table_t=cyc.time.tolist(), table={f"{f}.cmd": cyc.values[f].tolist() for f in cyc.functions})
        t_fmu = []
        for _ in range(a.repeat):
            T = time.perf_counter()
            proc = subprocess.run([sys.executable, "-I", "-c", _DRIVER, json.dumps(args)], capture_output=True,
                                  text=True, cwd=tmp)
            t_fmu.append(time.perf_counter() - T)
            if proc.returncode:
                raise SystemExit(proc.stderr[-2000:])
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        x, y = (np.array(w) for w in out["y"])
        err = float(np.max(np.hypot(x - table["tip_x"], y - table["tip_y"])))
        print(f"  {f'FMI {v}.0 export (rebuild + compile + zip)':<42}{med(t_exp[v]):7.2f} s")
        print(f"  {f'FMI {v}.0 FMU co-simulated by FMPy (-I)':<42}{med(t_fmu):7.2f} s   "
              f"(incl. interpreter start; ratio to native {med(t_fmu) / med(t_nat):.1f})")
        print(f"  {f'FMI {v}.0 tip distance FMU – native':<42}{err:.2e} m")
    swing(a.repeat, rtol, atol, tmp)


def swing(repeat: int, rtol: float, atol: float, tmp: Path) -> None:
    """The machine on its turntable: native run and FMI 3.0 co-simulation, same inputs."""
    from test_standalone_fmu import _DRIVER, _truck_forces_cycle

    from mechanisms.machine import DATA, Machine

    m = Machine.from_file(DATA / "excavator_truck.toml", mode="forces")
    cyc = _truck_forces_cycle(m)
    fmu = m.export_fmu(tmp / "truck_fmi3.fmu", rtol=rtol, atol=atol, fmi_version=3)
    t_nat, t_fmu = [], []
    for _ in range(repeat):
        T = time.perf_counter()
        run = m.run(cyc, rtol=rtol, atol=atol, progress=False, method="CVODE")
        t_nat.append(time.perf_counter() - T)
    table = {f"{m.cylinder_of[f]}.force": cyc.values[f].tolist() for f in cyc.functions}
    table["swing.torque"] = (np.asarray(cyc.swing) / m.turntable.gear_ratio).tolist()
    args = dict(fmu=str(fmu), kind="CS", t_end=float(run.t[-1]), dt=0.01, rtol=rtol,
                outputs=["tip_x", "tip_y", "swing_angle"], table_t=cyc.time.tolist(), table=table)
    for _ in range(repeat):
        T = time.perf_counter()
        proc = subprocess.run([sys.executable, "-I", "-c", _DRIVER, json.dumps(args)], capture_output=True,
                              text=True, cwd=tmp)
        t_fmu.append(time.perf_counter() - T)
        if proc.returncode:
            raise SystemExit(proc.stderr[-2000:])
    tab = run.table()
    x, y, phi = (np.array(w) for w in json.loads(proc.stdout.strip().splitlines()[-1])["y"])
    med = statistics.median
    print(f"excavator_truck forces, 1.5 s with swing torque, rtol {rtol:g}   (load {os.getloadavg()[0]:.2f})")
    print(f"  {'native run (machine.run, CVODE)':<42}{med(t_nat):7.2f} s")
    print(f"  {'FMI 3.0 FMU co-simulated by FMPy (-I)':<42}{med(t_fmu):7.2f} s   "
          f"(incl. interpreter start; ratio to native {med(t_fmu) / med(t_nat):.1f})")
    print(f"  {'tip distance, swing angle FMU – native':<42}{np.max(np.hypot(x - tab['tip_x'], y - tab['tip_y'])):.2e} m, "
          f"{np.max(np.abs(phi - tab['swing_angle'])):.2e} rad")


if __name__ == "__main__":
    from conditions import announce

    announce()
    main()
