"""The `hydrobond` command: run with overrides, compare, check, list; interrupts; file modes."""

import json
import os
import signal
import stat
import subprocess
import sys

import numpy as np
import pytest

from mechanisms.machine import cli
from mechanisms.machine.cli import main
from mechanisms.machine.differences import QUANTITIES
from mechanisms.machine.files import current_umask
from mechanisms.machine.names import resolve_machine
from mechanisms.machine.table import read_csv


def test_help_states_the_defaults_and_the_units():
    out = subprocess.run([sys.executable, "-m", "mechanisms.machine", "run", "--help"],
                         capture_output=True, text=True, check=True).stdout
    for word in ("--set", "--rtol", "--method", "--dt", "(default: 0.01)", "(default: CVODE)",
                 "SI units", "`boom_cap_pressure [Pa]`", "hydrobond list"):
        assert word in out, word


def test_run_with_an_override_writes_readable_files(tmp_path, capsys):
    out = tmp_path / "o"
    rc = main(["run", "excavator", "--mode", "extensions", "--t-end", "0.5", "--set", "bucket.mass=900 kg",
               "--set", 'bucket.cog=["0.3 m", "-0.6 m"]', "--out", str(out), "--no-bond-graph"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "timings: build" in text and "× real time" in text
    mode = 0o666 & ~current_umask()
    for name in ("results.csv", "report.txt", "trajectory.png", "timeseries.png", "cycle.gif"):
        p = out / name
        assert p.stat().st_size > 0 and stat.S_IMODE(p.stat().st_mode) == mode, name
    assert not [p for p in out.iterdir() if p.name.startswith(".")]   # no temporary left behind
    cols, units = read_csv(out / "results.csv")
    assert units["boom_force"] == "N"


def test_compare_prints_a_difference_table(tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    base = ["run", "excavator", "--mode", "extensions", "--t-end", "0.5", "--no-animation",
            "--no-bond-graph", "--quiet"]
    assert main(base + ["--out", str(a)]) == 0
    assert main(base + ["--out", str(b), "--set", "bucket.mass=900 kg"]) == 0
    capsys.readouterr()
    assert main(["compare", str(a), str(b), "--out", str(tmp_path / "c"), "--verbose"]) == 0
    text = capsys.readouterr().out
    table = text[text.index("every common column"):].splitlines()[2:]
    rows = {line.split()[0]: line for line in table if line.strip()}
    assert float(rows["tip_x"].split()[2]) < 1e-5                 # same prescribed motion
    assert float(rows["bucket_force"].split()[2]) > 100.0         # a heavier bucket needs more force
    assert (tmp_path / "c" / "compare.png").stat().st_size > 0


def test_compare_summary_first_the_table_behind_verbose(tmp_path, capsys):
    """Without --verbose: one row per quantity, in engineering units, its value the largest
    difference of the columns of that quantity (checked against the results files); the
    full table only with --verbose."""
    a, b = tmp_path / "a", tmp_path / "b"
    base = ["run", "excavator", "--mode", "extensions", "--t-end", "0.5", "--no-animation",
            "--no-bond-graph", "--quiet"]
    assert main(base + ["--out", str(a)]) == 0
    assert main(base + ["--out", str(b), "--set", "bucket.mass=900 kg"]) == 0
    capsys.readouterr()
    assert main(["compare", str(a), str(b), "--out", str(tmp_path / "c")]) == 0
    text = capsys.readouterr().out
    assert "every common column" not in text and "boom_C (distance)" not in text
    assert "--verbose" in text
    rows = {q: line.strip()[len(q):].split() for line in text.splitlines() if line.startswith("  ")
            for q in QUANTITIES if line.strip().startswith(q + " ")}
    assert list(rows)[:4] == ["output point paths", "cylinder lengths", "cylinder rates", "forces"]
    ca, _ = read_csv(a / "results.csv")
    cb, _ = read_csv(b / "results.csv")
    forces = {k: np.max(np.abs(cb[k] - ca[k])) for k in ca if k.endswith("_force")}
    worst = max(forces, key=forces.get)
    column, value, unit = rows["forces"][:3]
    assert column == worst and unit == "kN"
    assert float(value) == pytest.approx(forces[worst] / 1e3, rel=1e-3)
    pressures = [k for k in ca if k.endswith("_pressure_required")]
    assert rows["pressures"][0] in pressures and rows["pressures"][2] == "bar"
    assert rows["cylinder lengths"][1:] == ["0", "mm", "(the", "same)"]            # the same prescribed lengths
    assert len(text.splitlines()) < 25


def test_check_prints_a_summary_and_the_causal_report_with_verbose(capsys):
    assert main(["check", "excavator"]) == 0
    text = capsys.readouterr().out
    assert "mobility M = 3·(12 − 1) − 2·15 = 3, 3 cylinders: fully actuated" in text
    assert "causality of 'excavator': sound" in text
    assert "start pose: boom 3.6683 m (95% extended)" in text
    assert "the start state holds the start pose with\n  boom: cap " in text
    assert "inside the strokes and reachable" in text and "no problems found" in text
    assert "derivative causality" not in text and " ← " not in text        # the chains: --verbose
    assert main(["check", "excavator", "-v"]) == 0
    verbose = capsys.readouterr().out
    assert verbose.startswith(text.rsplit("\n", 2)[0])                  # the summary first
    assert "derivative causality (dependent storage):" in verbose and " ← " in verbose
    assert "  boom: 3.6683 m in 2.480 … 3.730 m (95% extended)" in verbose
    assert verbose.count("causality of 'excavator'") == 1


def test_list_names_the_shipped_machines(capsys):
    assert main(["list"]) == 0
    assert "excavator" in capsys.readouterr().out


@pytest.mark.parametrize("backend", ["python", "native"])
def test_ctrl_c_writes_partial_results_and_the_report(tmp_path, capsys, monkeypatch, backend):
    """A real SIGINT half a second into the run: partial results and report written, one
    line on stderr, exit 130. The Python path sees the request after the next step; the
    native driver when it next hands control to Python (here at the end of a valve-table
    segment, every 0.25 s of the cycle; at least every 0.1 s of wall clock)."""
    from bondgraph.native import auto_backend
    from mechanisms.machine import run as run_mod

    orig = run_mod.Interrupt.__call__
    sent = []

    def call(self, t, x):
        if t > 0.5 and not sent:
            sent.append(t)
            os.kill(os.getpid(), signal.SIGINT)
        return orig(self, t, x)

    monkeypatch.setattr(run_mod.Interrupt, "__call__", call)
    out = tmp_path / "o"
    with auto_backend(backend):
        rc = main(["run", "excavator", "--mode", "valves", "--out", str(out), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 130
    at = "0.5" if backend == "python" else "0.75"
    assert len(err) == 1 and err[0].startswith(f"hydrobond: interrupted at t = {at}")
    cols, _ = read_csv(out / "results.csv")
    assert float(at) <= cols["time"][-1] < float(at) + 0.1
    assert f"INTERRUPTED at t = {at}" in (out / "report.txt").read_text()
    assert not (out / "cycle.gif").exists()


def test_an_interrupted_animation_leaves_no_file(tmp_path, monkeypatch):
    from PIL import Image

    from mechanisms.machine import Machine
    from mechanisms.machine.plots import animate

    run = Machine.from_file(resolve_machine("excavator"), mode="extensions").run(t_end=0.3, progress=False)

    def boom(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(Image.Image, "save", boom)
    with pytest.raises(KeyboardInterrupt):
        animate(run, tmp_path / "cycle.gif", progress=False)
    assert list(tmp_path.iterdir()) == []


def test_the_animation_of_the_10_s_cycle_keeps_its_palette(tmp_path):
    from PIL import GifImagePlugin, Image

    from mechanisms.machine import Machine
    from mechanisms.machine.plots import animate

    run = Machine.from_file(resolve_machine("excavator"), mode="valves").run(progress=False)
    path = animate(run, tmp_path / "cycle.gif", progress=False)
    old = GifImagePlugin.LOADING_STRATEGY
    GifImagePlugin.LOADING_STRATEGY = GifImagePlugin.LoadingStrategy.RGB_AFTER_DIFFERENT_PALETTE_ONLY
    try:
        im = Image.open(path)
        assert im.n_frames == 151
        first = im.getpalette()
        for k in (75, 150):   # a frame with another palette would be loaded as RGB
            im.seek(k)
            assert im.mode == "P" and im.getpalette() == first
        red = tuple(int(255 * c) for c in __import__("matplotlib").colors.to_rgb("tab:red"))
        colours = {tuple(first[i:i + 3]) for i in range(0, len(first), 3)}
        assert min(sum((a - b) ** 2 for a, b in zip(c, red)) for c in colours) < 30  # the path's red
    finally:
        GifImagePlugin.LOADING_STRATEGY = old


def test_the_tracking_operator_drives_a_run_from_the_command_line(tmp_path, capsys):
    out = tmp_path / "track"
    rc = main(["run", "excavator", "--operator", "track", "--out", str(out), "--no-animation",
               "--no-bond-graph", "--quiet"])
    assert rc == 0
    report = (out / "report.txt").read_text()
    assert "cycle tracking operator on dig_lift_dump_lengths.csv" in report
    line = next(s for s in report.splitlines() if s.startswith("operator: tracking the lengths"))
    # the tip held the path: its distance to the kinematic path (any point of it) is a lower
    # bound of the operator's own figure (distance at the reference time)
    cols, _ = read_csv(out / "results.csv")
    from mechanisms.machine import DATA, Machine

    ref = Machine.from_file(DATA / "excavator.toml", mode="extensions").run(progress=False).table()
    path = np.column_stack([ref["tip_x"], ref["tip_y"]])
    tip = np.column_stack([cols["tip_x"], cols["tip_y"]])
    nearest = np.min(np.linalg.norm(tip[:, None, :] - path[None, :, :], axis=2), axis=1)
    median_mm = float(line.split("tip within ")[1].split(" mm")[0])
    assert np.median(nearest) * 1e3 <= median_mm + 0.5 and median_mm < 30


def test_the_tracking_operator_needs_the_valves(capsys):
    assert main(["run", "excavator", "--mode", "extensions", "--operator", "track", "--quiet"]) == 2
    assert "--operator track: drives the valves; expected --mode valves" in capsys.readouterr().err


_POOLS = ("import json, os, sys\n"
          "from mechanisms.machine import cli\n"
          "sys.argv = ['hydrobond', 'check', 'excavator']\n"
          "status = cli.main({argv})\n"
          "from threadpoolctl import threadpool_info\n"
          "print(json.dumps([status, os.environ.get('OPENBLAS_NUM_THREADS'),\n"
          "                  sorted({{p['num_threads'] for p in threadpool_info() if p['internal_api'] == 'openblas'}})]))\n")


@pytest.mark.parametrize("preset, argv, expected", [
    (None, "None", ["1", [1]]),          # a command started as a program: one thread
    ("2", "None", ["2", [2]]),           # the user's own setting wins
    ("omp", "None", [None, [2]]),        # so does OMP_NUM_THREADS, which OpenBLAS also reads
    (None, "sys.argv[1:]", [None, None]),  # called in-process: the environment untouched
])
def test_a_command_keeps_openblas_to_one_thread_unless_told(preset, argv, expected):
    # OpenBLAS's pool waits busily after it loads, on the core the run needs (blaspolicy)
    # none of the variables OpenBLAS reads for its size (a Dask cluster started earlier in
    # this process sets OMP_NUM_THREADS in its environment)
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")}
    if preset == "omp":
        env["OMP_NUM_THREADS"] = "2"
    elif preset is not None:
        env["OPENBLAS_NUM_THREADS"] = preset
    out = subprocess.run([sys.executable, "-c", _POOLS.format(argv=argv)], env=env, capture_output=True,
                         text=True, check=True)
    status, var, threads = json.loads(out.stdout.strip().splitlines()[-1])
    assert status == 0 and var == expected[0]
    if expected[1] is not None:
        assert threads == expected[1]
    else:                               # the libraries' own default, read in a plain interpreter
        plain = subprocess.run([sys.executable, "-c", "import json, numpy, scipy.linalg\n"
                                "from threadpoolctl import threadpool_info\n"
                                "print(json.dumps(sorted({p['num_threads'] for p in threadpool_info()"
                                " if p['internal_api'] == 'openblas'})))"],
                               env=env, capture_output=True, text=True, check=True)
        assert threads == json.loads(plain.stdout)
