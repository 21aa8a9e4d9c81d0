"""The native driver's SUNDIALS stays private: FMPy's own CVODE (another version) still runs in
the same process after a native run (it used to crash the interpreter when ours were loaded
with RTLD_GLOBAL)."""

import subprocess
import sys
import textwrap

import pytest

from bondgraph.native.driver import load_driver

pytest.importorskip("fmpy")

SCRIPT = textwrap.dedent("""
    import math, pathlib, tempfile
    from bondgraph import BondGraph, MSe, One, I, R, Input, build, simulate
    bg = BondGraph("push")
    _ = bg.add(MSe("F", Input("F")), One("v"), I("m", 2.0), R("b", 4.0))
    for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
        _ = bg.connect(a, b)
    model = build(bg)
    ours = simulate(model, (0.0, 1.0), inputs={"F": 8.0}, method="CVODE", rtol=1e-10, atol=1e-12)
    assert ours.stats["backend"] == "native", ours.stats
    from bondgraph.export import export_standalone_fmu
    fmu = export_standalone_fmu(model, pathlib.Path(tempfile.mkdtemp()) / "push.fmu",
                                inputs_start={"F": 8.0}, co_simulation=False)
    from fmpy import simulate_fmu
    res = simulate_fmu(str(fmu), stop_time=1.0, relative_tolerance=1e-10, output=["push/m.f"])
    exact = 2.0 * (1 - math.exp(-2.0))
    print(abs(float(res["push/m.f"][-1]) - exact) < 1e-6, abs(float(ours["push/m.f"][-1]) - exact) < 1e-8)
""")


@pytest.mark.skipif(not load_driver().ok, reason="native driver unavailable")
def test_fmpy_model_exchange_runs_after_a_native_run_in_the_same_process():
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["True", "True"]
