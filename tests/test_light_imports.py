"""Importing the packages and building the command line's parser load no model stack.

Structural checks (which modules a fresh interpreter has loaded), not timings: sympy is
loaded to derive equations, scipy.optimize to solve, networkx to hold a graph,
matplotlib to plot, and none of them to import a package, print ``--help`` or read a
machine file. The packages' public names load on first use (:mod:`bondgraph.lazy`) and
stay what an eager import made them.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ["sympy", "symengine", "scipy.optimize", "scipy.interpolate", "networkx", "matplotlib"]


def loaded_after(code: str) -> list[str]:
    """The heavy modules a fresh interpreter holds after running ``code``."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("code", [
    "import bondgraph",
    "import components",
    "import mechanisms",
    "import mechanisms.machine, mechanisms.analysis, mechanisms.excavator, components.hydraulics",
    "from mechanisms.machine.cli import parser; parser().format_help()",
    "from mechanisms.excavator.cli import main",
    "from bondgraph.errors import ParameterError; from bondgraph.files import cache_dir",
])
def test_importing_a_package_or_the_cli_parser_loads_no_model_stack(code):
    assert loaded_after(code) == []


def test_reading_every_shipped_machine_file_loads_no_model_stack():
    # what `hydrobond list` does: parse and check each file, with its units
    code = ("from mechanisms.machine.description import DATA, MachineDescription\n"
            "ds = [MachineDescription.load(p) for p in sorted(DATA.glob('*.toml'))]\n"
            "assert len(ds) >= 4 and all(d.functions for d in ds)")
    assert loaded_after(code) == []


def test_building_a_model_still_loads_what_it_needs():
    # the check above would pass vacuously if the probe could not see a loaded module
    assert "sympy" in loaded_after("import bondgraph as bg; bg.One('v')")


def test_a_public_name_that_is_also_a_submodule_stays_the_public_name():
    code = ("import inspect, sys\n"
            "import bondgraph.simulate, bondgraph.linearize, bondgraph as bg\n"
            "assert inspect.isfunction(bg.simulate) and inspect.isfunction(bg.linearize)\n"
            "assert bg.simulate is sys.modules['bondgraph.simulate'].simulate")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_lazy_names_are_the_defining_modules_objects():
    import bondgraph
    import mechanisms.excavator
    from bondgraph import elements, graph
    from mechanisms.excavator import cli, model

    assert bondgraph.One is elements.One and bondgraph.BondGraph is graph.BondGraph
    assert mechanisms.excavator.DEFAULT_FILE == cli.DEFAULT_FILE == model.DEFAULT_FILE
    assert set(bondgraph.__all__) <= set(dir(bondgraph))
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        bondgraph.Nothing  # noqa: B018


def test_the_shipped_circuits_are_registered_wherever_the_registry_is_read():
    code = ("from mechanisms.machine.circuits import CIRCUITS\n"
            "assert {'fixed', 'load-sensing', 'open-centre'} <= set(CIRCUITS), sorted(CIRCUITS)")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_warm_build_loads_no_scipy_solver():
    # the second build of a file loads its model, start pose and start state by key; the
    # LU's LAPACK comes without scipy.linalg's package
    code = ("from mechanisms.machine import DATA, Machine\n"
            "Machine.from_file(DATA / 'excavator.toml', mode='valves')\n")
    loaded_after(code)                 # fills the caches
    probe = code + ("import json, sys\n"
                    "print(json.dumps([m for m in ('scipy.optimize', 'scipy.linalg', 'scipy.spatial', "
                    "'scipy.interpolate') if m in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
    # the probe sees a loaded module: solving the start pose again does load scipy.optimize
    assert "scipy.optimize" in loaded_after(
        "from mechanisms.machine import DATA, Machine\n"
        "m = Machine.from_file(DATA / 'excavator.toml', mode='valves')\n"
        "m.mechanism.solve_pose({'boom': 0.8, 'arm': -0.5, 'bucket': -0.2})")


def test_a_warm_valves_run_loads_no_scipy_solver(tmp_path):
    # the excavator's stroke ends are state events (StateEvents): on the native path their
    # crossings and the extrema inside a step are located on the step's polynomial by
    # numpy, without scipy.optimize's Brent. The bucket's spool held open drives it to its
    # outer end: a contact, located on steps handed to Python
    cycle = tmp_path / "bucket_to_its_end.csv"
    cycle.write_text("time,boom,arm,bucket\n0,0,0,0\n0.2,0,0,1\n3,0,0,1\n")
    code = ("import bondgraph.stepping as st\n"
            "looked = []\n"
            "crossings = st._crossings\n"
            "st._crossings = lambda *a: looked.append(a[1]) or crossings(*a)\n"
            "from mechanisms.machine import DATA, Cycle, Machine\n"
            "m = Machine.from_file(DATA / 'excavator.toml', mode='valves')\n"
            f"run = m.run(Cycle.from_csv({str(cycle)!r}, 'valves', m.functions), progress=False)\n"
            "assert run.results.stats['backend'] == 'native' and looked  # steps were examined\n"
            "assert [(c.function, c.end) for c in run.contacts] == [('bucket', 'outer')]\n")
    loaded_after(code)                 # fills the caches (model, start pose, start state)
    assert "scipy.optimize" not in loaded_after(code)


def test_a_run_shorter_than_its_progress_bars_delay_loads_no_tqdm():
    # the bar appears after a second; tqdm.auto (asyncio with it) is imported only then
    code = ("import sys\n"
            "import bondgraph as bg\n"
            "M = bg.BondGraph('osc')\n"
            "M.add(bg.One('v'), bg.I('m', 1.0, initial=1.0), bg.C.spring('k', 4.0))\n"
            "M.connect('v', 'm'); M.connect('v', 'k')\n"
            "res = bg.simulate(bg.build(M), (0, 1), method='CVODE', progress=True)\n"
            "print(res.stats['backend'], 'tqdm' in sys.modules, 'asyncio' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["native", "False", "False"]
