"""The repository is self-contained: no tracked file cites a file outside it.

The design notes the project was started from live outside the repository; what a
user needs of them is in ``docs/`` in the project's own words, with the published
sources cited. This test fails on any tracked text file that points at them.
"""

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: what citing a file outside the repository looks like
OUTSIDE = re.compile(
    r"\.\./shared|shared/design|shared/seeds|\b(?:EXCAVATOR|SEEDS|PERFORMANCE|STYLE|ARCHITECTURE|PEERS)\.md\b"
    r"|\bseeds?\s+00\d\b|\bseed\s*#?\s*00\d")


def tracked_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files are unknown")
    return [ROOT / line for line in out.splitlines() if line]


def test_no_tracked_file_cites_outside_the_repository():
    found = []
    for path in tracked_files():
        if path.resolve() == Path(__file__).resolve() or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue   # binary files (images) cite nothing
        for i, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()[:120]}")
    assert not found, "files cite paths outside the repository:\n" + "\n".join(found)


def test_the_pattern_catches_what_it_should():
    for bad in ("see ../shared/design/EXCAVATOR.md", "SEEDS.md, 002", "(seed 004)", "shared/seeds/000.txt"):
        assert OUTSIDE.search(bad), bad
    for good in ("docs/reference/excavator_data.md section B", "a seed of 7", "seed=7"):
        assert not OUTSIDE.search(good), good
