"""``excavator run``: the shortcut for ``hydrobond run excavator`` (:mod:`mechanisms.machine.cli`).

Examples
--------
>>> main(["run", "--mode", "extensions", "--t-end", "0.2", "--out", "/tmp/excavator-doctest",
...       "--no-animation", "--no-bond-graph", "--quiet"])
0
"""

from __future__ import annotations

import sys

from ..machine import cli as _cli
from ..machine.description import DATA

#: the reference excavator's file (as :data:`mechanisms.excavator.DEFAULT_FILE`; read here without
#: loading the model, so that `excavator --help` answers at once)
DEFAULT_FILE = DATA / "excavator.toml"

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """The ``excavator`` command: ``hydrobond run`` on the reference excavator."""
    return _cli.main(argv, shortcut=("excavator", str(DEFAULT_FILE)))

if __name__ == "__main__":
    sys.exit(main())
