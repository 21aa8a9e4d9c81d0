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

#: the folder beside the repository that holds the design notes, and the notes' names; written
#: in pieces so that this file does not itself cite them
_TOP = "sha" + "red"
_NOTES = ("EXCAVATOR", "SEEDS", "PERFORMANCE", "STYLE", "ARCHITECTURE", "PEERS")
#: what citing a file outside the repository looks like
OUTSIDE = re.compile(
    rf"\.\./{_TOP}|{_TOP}/design|{_TOP}/seeds|\b(?:{'|'.join(_NOTES)})\.md\b"
    r"|\bseeds?[\s_-]+00\d\b|\bseed\s*#?\s*00\d")

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


#: a page of the documentation named by its path (``docs/guide/errors.md``)
DOCS_PAGE = re.compile(r"\bdocs/[A-Za-z0-9_./-]+?\.md\b")


def test_every_cited_docs_page_exists():
    """A tracked file that names a page of ``docs/`` by its path names a page that is there."""
    missing = []
    for path in tracked_files():
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for i, line in enumerate(text.splitlines(), 1):
            for m in DOCS_PAGE.finditer(line):
                if not (ROOT / m.group(0)).is_file():
                    missing.append(f"{path.relative_to(ROOT)}:{i}: {m.group(0)}")
    assert not missing, "files cite documentation pages that do not exist:\n" + "\n".join(missing)


def test_the_docs_page_pattern():
    assert [m.group(0) for m in DOCS_PAGE.finditer("see docs/reference/excavator_data.md section B")] == \
        ["docs/reference/excavator_data.md"]
    assert not DOCS_PAGE.search("docs/_static/x.png")


def test_the_pattern_catches_what_it_should():
    for bad in (f"see ../{_TOP}/design/{_NOTES[0]}.md", f"{_NOTES[1]}.md, 002", "(seed" + " 004)",
                f"{_TOP}/seeds/000.txt", "the seed" + "-003 oscillator"):
        assert OUTSIDE.search(bad), bad
    for good in ("docs/reference/excavator_data.md section B", "a seed of 7", "seed=7"):
        assert not OUTSIDE.search(good), good
