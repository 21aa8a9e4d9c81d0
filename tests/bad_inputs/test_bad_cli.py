"""Bad command lines of `hydrobond` / `excavator`: each one named error (exit status 2 with
one message), checked before anything runs where it can be."""

import pytest

from bondgraph import ParameterError
from mechanisms.machine import cli

from .catalogue import Case, check, ids

P = ParameterError


def run(*argv):
    """The command as `main` runs it, but raising instead of printing and returning 2."""
    def call():
        args = cli.parser().parse_args(list(argv))
        handler = {"run": lambda a: cli._run(a, "hydrobond"), "check": cli._check, "compare": cli._compare}
        return handler[args.command](args)
    return call


QUICK = ["--mode", "extensions", "--no-animation", "--no-bond-graph", "--quiet"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    (d / "a_file").write_text("x")
    (d / "nan.csv").write_text("time,boom,arm,bucket\n0,3.6683,2.9692,3.0662\nnan,3.6683,2.9692,3.0662\n")
    (d / "dir.csv").mkdir()
    (d / "binary.csv").write_bytes(b"\x00\x01" * 100)
    (d / "dup.csv").write_text("time [s],tip_x [m],tip_x [m]\n0,1,1\n1,1,1\n")
    (d / "good.csv").write_text("time [s],tip_x [m]\n0,1\n1,1\n")
    (d / "later.csv").write_text("time [s],tip_x [m]\n5,1\n6,1\n")
    (d / "other.csv").write_text("time [s],hook_x [m]\n0,1\n1,1\n")
    (d / "mm.csv").write_text("time [s],boom [mm],arm [kg],bucket [m]\n0,3668.3,2.9692,3.0662\n"
                              "1,3668.3,2.9692,3.0662\n")
    (d / "bad.toml").write_text("[machine]\nname = 'x'\ngravity = -9.81\n")
    return d


def cases(d):
    out = str(d / "out")
    return [
        Case("t-end-negative", run("run", "excavator", "--t-end", "-1", "--out", out, *QUICK), P, ["--t-end -1"]),
        Case("t-end-nan", run("run", "excavator", "--t-end", "nan", "--out", out, *QUICK), P, ["--t-end nan"]),
        Case("t-end-inf", run("run", "excavator", "--t-end", "inf", "--out", out, *QUICK), P, ["--t-end inf"]),
        Case("t-end-zero", run("run", "excavator", "--t-end", "0", "--out", out, *QUICK), P,
             ["--t-end 0", "> 0 s"]),
        Case("rtol-ten", run("run", "excavator", "--rtol", "10", "--out", out, *QUICK), P, ["--rtol 10", "0 < rtol < 1"]),
        Case("atol-negative", run("run", "excavator", "--atol=-1e-9", "--out", out, *QUICK), P, ["--atol"]),
        Case("dt-zero", run("run", "excavator", "--dt", "0", "--out", out, *QUICK), P, ["--dt 0"]),
        Case("out-is-a-file", run("run", "excavator", "--out", str(d / "a_file"), *QUICK), P,
             ["--out", "a_file", "is a file"]),
        Case("out-unwritable", run("run", "excavator", "--out", "/proc/hydrobond-out", *QUICK), P,
             ["--out /proc/hydrobond-out", "cannot write there"]),
        Case("unknown-machine", run("run", "backhoe", "--out", out, *QUICK), P,
             ["machine 'backhoe'", "not a shipped machine", "excavator"]),
        Case("machine-directory", run("run", str(d), "--out", out, *QUICK), P, ["is a directory"]),
        Case("set-without-equals", run("run", "excavator", "--set", "bucket.mass", "--out", out, *QUICK), P,
             ["--set 'bucket.mass'", "KEY=VALUE"]),
        Case("set-unknown-key", run("run", "excavator", "--set", "bucket.mas=9 kg", "--out", out, *QUICK), P,
             ["bucket.mas", "did you mean 'bucket.mass'"]),
        Case("set-bare-number", run("run", "excavator", "--set", "bucket.mass=900", "--out", out, *QUICK), P,
             ["bucket.mass", "bare number 900", '"900 kg"']),
        Case("cycle-name-unknown", run("run", "excavator", "--cycle", "dig", "--out", out, *QUICK), P,
             ["cycle 'dig'", "dig_lift_dump"]),
        Case("cycle-nan-time", run("run", "excavator", "--cycle", str(d / "nan.csv"), "--out", out, *QUICK), P,
             ["nan.csv", "line 3", "not finite"]),
        Case("cycle-directory", run("run", "excavator", "--cycle", str(d / "dir.csv"), "--out", out, *QUICK), P,
             ["dir.csv", "is a directory"]),
        Case("cycle-binary", run("run", "excavator", "--cycle", str(d / "binary.csv"), "--out", out, *QUICK), P,
             ["binary.csv", "binary"]),
        Case("valves-cartesian", run("run", "excavator", "--mode", "valves", "--formulation", "cartesian",
                                     "--out", out, "--quiet"), P, ["formulation 'cartesian'", "mode 'valves'"]),
        Case("check-bad-file", run("check", str(d / "bad.toml")), P, ["bad.toml", "machine.gravity"]),
        Case("compare-missing", run("compare", str(d / "nowhere"), str(d / "good.csv"), "--out", out), P,
             ["nowhere", "not found"]),
        Case("compare-duplicate-column", run("compare", str(d / "dup.csv"), str(d / "good.csv"), "--out", out), P,
             ["dup.csv", "'tip_x' appears twice"]),
        Case("compare-no-common-time", run("compare", str(d / "good.csv"), str(d / "later.csv"), "--out", out),
             P, ["A covers t = 0 … 1 s", "B t = 5 … 6 s", "no common time"]),
        Case("compare-no-common-column", run("compare", str(d / "good.csv"), str(d / "other.csv"), "--out", out),
             P, ["no column in common", "A: tip_x", "B: hook_x"]),
        Case("cycle-unit-wrong-dimension", run("run", "excavator", "--cycle", str(d / "mm.csv"), "--out", out,
                                               *QUICK), P, ["mm.csv", "column 'arm [kg]'", "a mass",
                                                            "expected a length"]),
        Case("compare-binary", run("compare", str(d / "binary.csv"), str(d / "good.csv"), "--out", out), P,
             ["binary.csv", "binary"]),
    ]


NAMES = [c.id for c in cases(__import__("pathlib").Path("/tmp"))]


@pytest.mark.parametrize("name", NAMES)
def test_bad_command_line(files, name):
    check(next(c for c in cases(files) if c.id == name))


def test_main_prints_one_message_and_returns_2(files, capsys):
    rc = cli.main(["run", "excavator", "--t-end", "nan", "--out", str(files / "out"), *QUICK])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and err == ["hydrobond: --t-end nan: expected a finite time > 0 s"]
    assert not (files / "out" / "results.csv").exists()
