"""The cache folder: counted by kind, emptied all or by age, a file being written left
alone; a model built again after emptying it is the same model."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

from bondgraph import BondGraph, C, I, One, R, Se, build, simulate
from bondgraph.cachefolder import cache_usage, clear_cache
from bondgraph.errors import ParameterError
from mechanisms.machine.cli import main


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("BONDGRAPH_CACHE", str(tmp_path))
    return tmp_path


def _model():
    bg = BondGraph("osc")
    _ = bg.add(Se("F", 1.0), One("v"), I("m", 2.0), C.spring("k", 50.0), R("b", 0.3))
    for a, b in [("F", "v"), ("v", "m"), ("v", "k"), ("v", "b")]:
        _ = bg.connect(a, b)
    return build(bg)


def _run(model):
    return simulate(model, (0, 2), method="CVODE", rtol=1e-9, atol=1e-12, t_eval=np.linspace(0, 2, 21),
                    progress=False)


def test_a_build_fills_the_folder_and_usage_counts_every_entry(folder):
    _run(_model())
    names = [p.name for p in folder.iterdir() if p.is_file()]
    u = cache_usage()
    assert u.folder == folder and u.files == len(names) > 0
    assert u.bytes == sum((folder / n).stat().st_size for n in names)
    assert "bg" in u.kinds and "eq" in u.kinds          # the compiled model and its equations
    assert str(u).startswith(f"cache folder {folder}: {u.files} files")


def test_emptied_folder_builds_the_same_model_again(folder):
    first = _run(_model())
    files, size = clear_cache()
    assert files > 0 and size > 0 and cache_usage().files == 0
    again = _run(_model())                                 # derived and compiled again
    assert cache_usage().files == files
    np.testing.assert_array_equal(first.x, again.x)


def test_older_than_deletes_only_old_entries_and_a_file_being_written_is_left(folder):
    old, new = folder / "eq_aaaaaaaaaaaaaaaa.pkl", folder / "eq_bbbbbbbbbbbbbbbb.pkl"
    writing, dead = folder / ".model_cccccccccccc.abc.pkl", folder / "bg_dddddddddddd.123.tmp"
    for p in (old, new, writing, dead):
        p.write_bytes(b"x" * 100)
    t = time.time() - 10 * 86400
    for p in (old, dead):
        os.utime(p, (t, t))
    assert clear_cache(5) == (2, 200)                      # the old entry, the dead writer's file
    assert sorted(p.name for p in folder.iterdir()) == sorted([new.name, writing.name])
    assert cache_usage().files == 1                        # the file being written is no entry
    assert clear_cache() == (1, 100) and writing.exists()


@pytest.mark.parametrize("bad", [-1, float("nan"), float("inf"), True, "3"])
def test_bad_age_is_refused_by_name(folder, bad):
    with pytest.raises(ParameterError, match="older_than"):
        clear_cache(bad)


def test_cli_shows_and_clears(folder, capsys):
    (folder / "eq_aaaaaaaaaaaaaaaa.pkl").write_bytes(b"x" * 2000)
    assert main(["cache"]) == 0
    assert "1 file, 2.0 kB" in capsys.readouterr().out
    assert main(["cache", "--older-than", "3"]) == 2                 # deletes nothing: said so
    assert "without --clear" in capsys.readouterr().err
    assert main(["cache", "--clear", "--older-than", "-1"]) == 2
    assert "older_than" in capsys.readouterr().err
    assert main(["cache", "--clear"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("deleted 1 entry (2.0 kB)") and "0 files" in out
