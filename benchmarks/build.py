"""Benchmark (issue 22): a machine's build, cold and warm, and its valves run.

Each build runs in a fresh interpreter, as ``hydrobond run`` meets it, and is timed as
the command reports it (``Machine.from_file``: reading the file, the templates and the
circuit, the model, the start pose); the process then runs the 10 s valves cycle and
reports its start state and integration (energy accounting on, as the command runs it).
Three kinds of build, interleaved, medians of ``--repeat``:

* **cold** — an empty cache (``$BONDGRAPH_CACHE`` a new folder): every law written in
  sympy, the equations derived, the C code generated and compiled, the units read by pint;
* **laws written, code cached** — a value the file did not have before (the bucket's
  mass, a run-time parameter): the model is another key, so its laws are written again
  to find its fingerprint, whose compiled code the cache holds;
* **warm** — the same file again: the compiled model loads by its key
  (:mod:`mechanisms.machine.buildkey`), no law written.

Printed beside issue 22's goals (warm build ≤ 0.3 s, valves run ≤ 0.03 s) and its figures
before. What a warm build still spends is split by module imports (``-X importtime``:
scipy.linalg for the LU solver's LAPACK, scipy.optimize for the start pose) and the rest.

``--root DIR`` measures another checkout's packages the same way (``--root /path/to/main``:
the figures before a change, taken in the same conditions); ``--against DIR`` measures this
checkout and DIR interleaved (each probe of one followed by the same probe of the other),
and prints the build's CPU time beside its wall time.

Run: ``PYTHONPATH=. python benchmarks/build.py [--repeat 5] [--machine excavator] [--root DIR]
[--against DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: one build and one valves run in a fresh interpreter; prints a JSON line
_PROBE = """
import json, sys, time
from mechanisms.machine import DATA, Machine
overrides = json.loads(sys.argv[2])
c0 = time.process_time()
m = Machine.from_file(DATA / (sys.argv[1] + ".toml"), overrides, mode="valves")
cpu = time.process_time() - c0
c0 = time.process_time()
run = m.run(progress=False)
run_cpu = time.process_time() - c0
bt = m.model.model.build_times
print(json.dumps({"build": m.build_time, "build_cpu": cpu, "run_cpu": run_cpu, "start": run.timings["start"],
                  "integration": run.timings["integration"], "keyed": bt.get("keyed", 0.0),
                  "cached": bt.get("cached", 0.0), "compile": bt.get("compile", 0.0)}))
"""

#: a warm build with the imports it makes timed (``-X importtime``, microseconds)
_IMPORTS = """
import sys
from mechanisms.machine import DATA, Machine
import mechanisms.machine.machine
print("=====BUILD", file=sys.stderr, flush=True)
m = Machine.from_file(DATA / (sys.argv[1] + ".toml"), mode="valves")
print(m.build_time)
"""


#: the checkout whose packages are measured (``--root``)
MEASURED = [ROOT]


def _env(cache: str | None = None, root: Path | None = None) -> dict[str, str]:
    path = os.environ.get("PYTHONPATH")
    root = MEASURED[0] if root is None else root
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=str(root) + (os.pathsep + path if path else ""))
    if cache is not None:
        env["BONDGRAPH_CACHE"] = cache
    return env


def probe(machine: str, overrides: dict, cache: str | None = None, root: Path | None = None) -> dict[str, float]:
    """One build and valves run in a fresh interpreter (in checkout ``root``, default the measured one)."""
    root = MEASURED[0] if root is None else root
    proc = subprocess.run([sys.executable, "-c", _PROBE, machine, json.dumps(overrides)], env=_env(cache, root),
                          cwd=root, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"the probe failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def import_split(machine: str) -> tuple[float, dict[str, float]]:
    """A warm build's time and the top-level imports it made (s), largest first."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", _IMPORTS, machine], env=_env(),
                          cwd=MEASURED[0], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"the import probe failed:\n{proc.stderr[-2000:]}")
    after = proc.stderr.split("=====BUILD", 1)[1]
    out: dict[str, float] = {}
    for line in after.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cum, name = line.split("|")
        if len(name) - len(name.lstrip()) <= 1:              # a top-level import of the build
            out[name.strip()] = out.get(name.strip(), 0.0) + int(cum) / 1e6
    return float(proc.stdout.strip().splitlines()[-1]), dict(sorted(out.items(), key=lambda kv: -kv[1]))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--machine", default="excavator")
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout to measure (default this one)")
    ap.add_argument("--against", type=Path, help="another checkout, measured interleaved with this one")
    args = ap.parse_args(argv)
    MEASURED[0] = args.root.resolve()
    if args.against is not None:
        return against(args.machine, args.repeat, args.against.resolve())
    print(f"measuring the packages of {MEASURED[0]}")
    probe(args.machine, {})                                   # the warm cache for this source
    rows: dict[str, list[dict]] = {"cold": [], "laws": [], "warm": []}
    with tempfile.TemporaryDirectory() as d:
        for i in range(args.repeat):
            rows["cold"].append(probe(args.machine, {}, cache=os.path.join(d, f"cold{i}")))
            mass = f"{900 + uuid.uuid4().int % 10**6 / 1e4:.4f} kg"   # a key never built
            rows["laws"].append(probe(args.machine, {"bucket.mass": mass}))
            rows["warm"].append(probe(args.machine, {}))
    med = statistics.median
    print(f"\n{args.machine}, mode valves: each build in a fresh interpreter as `hydrobond run` reports it, "
          f"interleaved, medians of {args.repeat}")
    print(f"{'build':<36} {'build':>8} {'start state':>12} {'integration':>12} {'start + int.':>13}  how")
    labels = {"cold": "cold (empty cache)", "laws": "a new value (laws written)", "warm": "warm (same file)"}
    for k, rs in rows.items():
        how = {1.0: "compiled model from cache"}.get(rs[-1]["keyed"], "laws written, code from cache"
                                                     if rs[-1]["cached"] == 1.0 else "derived and compiled")
        print(f"{labels[k]:<36} {med(r['build'] for r in rs):>7.3f}s {med(r['start'] for r in rs):>11.3f}s "
              f"{med(r['integration'] for r in rs):>11.3f}s "
              f"{med(r['start'] + r['integration'] for r in rs):>12.3f}s  {how}")
    cold, warm = med(r["build"] for r in rows["cold"]), med(r["build"] for r in rows["warm"])
    run = med(r["start"] + r["integration"] for r in rows["warm"])
    print(f"cold / warm build: {cold / warm:.1f}×; goals (issue 22): warm build ≤ 0.3 s "
          f"({'met' if warm <= 0.3 else 'not met'}; before 0.68–1.4 s), valves run ≤ 0.03 s "
          f"({'met' if run <= 0.03 else 'not met'}; before 0.086–0.136 s, median 0.088 s)")
    total, imports = import_split(args.machine)
    big = {k: v for k, v in imports.items() if v >= 0.01}
    print(f"\nwhat one warm build spends ({total:.3f} s, with -X importtime's own overhead): imports "
          + ", ".join(f"{k} {v:.3f} s" for k, v in big.items())
          + f"; the rest {total - sum(imports.values()):.3f} s")


def against(machine: str, repeat: int, other: Path) -> None:
    """Warm and new-value builds with their valves runs, this checkout and ``other``
    interleaved; medians of ``repeat``, wall and CPU."""
    roots = {"before": other, "after": MEASURED[0]}
    print(f"measuring {other} (before) against {MEASURED[0]} (after), interleaved")
    for r in roots.values():
        probe(machine, {}, root=r)                             # the warm cache for each source
    rows: dict[tuple[str, str], list[dict]] = {(w, k): [] for w in roots for k in ("laws", "warm")}
    for _ in range(repeat):
        mass = f"{900 + uuid.uuid4().int % 10**6 / 1e4:.4f} kg"   # a key never built, the same for both
        for w, r in roots.items():
            rows[(w, "laws")].append(probe(machine, {"bucket.mass": mass}, root=r))
        for w, r in roots.items():
            rows[(w, "warm")].append(probe(machine, {}, root=r))
    med = statistics.median
    print(f"\n{machine}, mode valves, medians of {repeat}: build (wall / CPU) and the valves run "
          f"(start state + integration, wall / CPU of the run call)")
    for k, label in (("laws", "a new value (laws written)"), ("warm", "warm (same file)")):
        for w in roots:
            rs = rows[(w, k)]
            print(f"{label:<28} {w:<7} build {med(r['build'] for r in rs):.3f} / {med(r['build_cpu'] for r in rs):.3f} s"
                  f"   run {med(r['start'] + r['integration'] for r in rs):.3f} / {med(r['run_cpu'] for r in rs):.3f} s"
                  f"   (start {med(r['start'] for r in rs):.3f}, integration {med(r['integration'] for r in rs):.3f})")
    warm = med(r["build"] for r in rows[("after", "warm")])
    run = med(r["start"] + r["integration"] for r in rows[("after", "warm")])
    print(f"goals (issue 22): warm build ≤ 0.3 s ({'met' if warm <= 0.3 else 'not met'}: {warm:.3f} s), "
          f"valves run ≤ 0.03 s ({'met' if run <= 0.03 else 'not met'}: {run:.3f} s); load now "
          f"{os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    from conditions import announce

    announce()
    main()
