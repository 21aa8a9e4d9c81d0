"""``excavator run``: the shortcut for ``hydrobond run excavator`` (:mod:`mechanisms.machine.cli`).

Examples
--------
>>> main(["run", "--mode", "extensions", "--t-end", "0.2", "--out", "/tmp/excavator-doctest",
...       "--no-animation", "--no-bond-graph", "--quiet"])
0
"""

from __future__ import annotations

import sys

from ..machine.cli import excavator_main as main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
