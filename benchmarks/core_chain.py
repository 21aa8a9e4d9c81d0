"""Benchmark (issue 2): a chain of N mass–spring–dampers, N = 10, 40, 200.

Measures, side by side in one run:

* our build time — assemble + causality + derive + compile — cold (empty
  compile cache) and warm (cached C library), and 10 s of simulation
  (LSODA and CVODE), medians of ``--repeat`` runs;
* with ``--cse-compare``, the cold build with the common-subexpression search in slices
  (``bondgraph.codegen.CSE_SLICE``) against one search over all statements, interleaved,
  stage by stage (issue 22: cold build N = 200 ≤ 2 s, N = 1000 ≤ 10 s);
* the derivation time of the Python peers on the same chains, each in a venv
  of its own (PyPI ``bondgraph`` shares our import name): BondGraphTools 0.4.6
  (``constitutive_relations``) and bondgraph 0.2.0 (``get_state_equations``).
  ``--install-peers`` creates those venvs under ``benchmarks/.peers``.

Run: ``python benchmarks/core_chain.py [--repeat 3] [--install-peers]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PEERS = {
    "BondGraphTools 0.4.6": ("bgt", "BondGraphTools==0.4.6", "chain_bgt.py"),
    "bondgraph 0.2.0": ("pybg", "bondgraph==0.2.0", "chain_pybg.py"),
}


def mass_chain(n: int):
    import bondgraph as bg

    M = bg.BondGraph(f"chain{n}")
    M.add(bg.Sf("wall", 0.0), bg.Se("F", 1.0))
    prev = "wall"
    for i in range(n):
        M.add(bg.Zero(f"s{i}"), bg.C.spring(f"k{i}", 100.0 + i), bg.One(f"v{i}"),
              bg.I(f"m{i}", 1.0 + 0.01 * i), bg.R(f"c{i}", 0.5))
        for a, b in [(prev, f"s{i}"), (f"s{i}", f"k{i}"), (f"s{i}", f"v{i}"), (f"v{i}", f"m{i}"),
                     (f"v{i}", f"c{i}")]:
            M.connect(a, b)
        prev = f"v{i}"
    M.connect("F", prev)
    return M


def ours(n: int, repeat: int) -> dict[str, float]:
    import bondgraph as bg

    cold, warm, lsoda, cvode = [], [], [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as cache:
            os.environ["BONDGRAPH_CACHE"] = cache
            t0 = time.perf_counter()
            model = bg.build(mass_chain(n))
            cold.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            model = bg.build(mass_chain(n))
            warm.append(time.perf_counter() - t0)
            for method, acc in (("LSODA", lsoda), ("CVODE", cvode)):
                t0 = time.perf_counter()
                bg.simulate(model, (0, 10), method=method, progress=False)
                acc.append(time.perf_counter() - t0)
    os.environ.pop("BONDGRAPH_CACHE", None)
    return {"cold": statistics.median(cold), "warm": statistics.median(warm),
            "LSODA": statistics.median(lsoda), "CVODE": statistics.median(cvode)}


def cse_compare(n: int, repeat: int) -> None:
    """Cold builds of the N-chain, sliced search against one search, interleaved (medians)."""
    import bondgraph as bg
    import bondgraph.codegen as cg

    sliced = cg.CSE_SLICE
    rows: dict[str, list[dict]] = {"sliced": [], "whole": []}
    for _ in range(repeat):
        for kind, size in (("sliced", sliced), ("whole", 10**9)):
            cg.CSE_SLICE = size
            with tempfile.TemporaryDirectory() as cache:
                os.environ["BONDGRAPH_CACHE"] = cache
                t0 = time.perf_counter()
                model = bg.build(mass_chain(n))
                rows[kind].append({"total": time.perf_counter() - t0, **model.build_times})
    cg.CSE_SLICE = sliced
    os.environ.pop("BONDGRAPH_CACHE", None)
    med = {k: {s: statistics.median(r[s] for r in v) for s in ("collect", "derive", "generate", "compile",
                                                                 "total")} for k, v in rows.items()}
    print(f"N = {n}: cold build, common subexpressions searched in slices of {sliced} vs in one search "
          f"(medians of {repeat})")
    for s in ("collect", "derive", "generate", "compile", "total"):
        a, b = med["sliced"][s], med["whole"][s]
        print(f"  {s:<9} sliced {a:7.3f} s   whole {b:7.3f} s   whole/sliced {b / a:5.2f}×")


def peer(label: str, ns: list[int], install: bool, timeout: float) -> dict[int, float | str]:
    venv, req, driver = PEERS[label]
    root = HERE / ".peers" / venv
    py = root / "bin" / "python"
    if not py.exists():
        if not install:
            return {n: "not installed (--install-peers)" for n in ns}
        subprocess.run([sys.executable, "-m", "venv", str(root)], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", req], check=True)
    out: dict[int, float | str] = {}
    for n in ns:
        try:
            proc = subprocess.run([str(py), str(HERE / "peers" / driver), str(n)], capture_output=True,
                                  text=True, timeout=timeout)
            line = [x for x in proc.stdout.splitlines() if x.strip()]
            out[n] = float(line[-1].split()[1]) if line else f"failed: {proc.stderr.strip()[-120:]}"
        except subprocess.TimeoutExpired:
            out[n] = f"> {timeout:.0f} s"
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sizes", type=int, nargs="*", default=[10, 40, 200])
    ap.add_argument("--peer-sizes", type=int, nargs="*", default=[10, 40])
    ap.add_argument("--peer-timeout", type=float, default=400.0)
    ap.add_argument("--install-peers", action="store_true")
    ap.add_argument("--cse-compare", action="store_true",
                    help="only the cold build, sliced vs one common-subexpression search, at --sizes")
    args = ap.parse_args()
    if args.cse_compare:
        for n in args.sizes:
            cse_compare(n, args.repeat)
        return

    print(f"# N-mass chain, medians of {args.repeat} runs (seconds)")
    print(f"{'N':>5} {'build cold':>11} {'build warm':>11} {'sim LSODA':>10} {'sim CVODE':>10}")
    res = {}
    for n in args.sizes:
        r = ours(n, args.repeat)
        res[n] = r
        print(f"{n:>5} {r['cold']:>11.3f} {r['warm']:>11.3f} {r['LSODA']:>10.3f} {r['CVODE']:>10.3f}", flush=True)
    if len(args.sizes) >= 2:
        import math

        a, b = args.sizes[0], args.sizes[-1]
        k = math.log(res[b]["cold"] / res[a]["cold"]) / math.log(b / a)
        print(f"cold build grows as N^{k:.2f} from N = {a} to {b}")
    print("\n# derivation time of the peers vs our full cold build (assemble…compile)")
    for label in PEERS:
        pr = peer(label, args.peer_sizes, args.install_peers, args.peer_timeout)
        for n, v in pr.items():
            ours_t = res.get(n, {}).get("cold")
            if isinstance(v, float) and ours_t:
                print(f"{label:>22} N = {n:>4}: {v:8.3f} s  → ours is {v / ours_t:6.1f}× faster")
            else:
                print(f"{label:>22} N = {n:>4}: {v}")


if __name__ == "__main__":
    from conditions import announce

    announce()
    main()
