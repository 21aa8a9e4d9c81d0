"""Command line: ``python -m bondgraph.cosim run CONFIG``.

Commands
--------
``run CONFIG [--out FILE] [--progress]``
    Run the co-simulation described by a JSON/TOML file and write a CSV (``--out``,
    else the file's ``output``, else ``CONFIG`` with a ``.csv`` suffix). An aborted run
    writes the results up to the last good point, prints why, and exits with 1.
``table CONFIG``
    Print the relations table (both directions, with units).
``export FACTORY --name NAME [--out DIR] [--kwargs JSON]``
    Export a Python subsystem as an FMI 2.0 co-simulation FMU.

Exit codes: 0 success, 1 the run aborted or ended with errors, 2 bad configuration.

Examples
--------
>>> main(["table", "no-such-file.toml"])     # the message goes to stderr
2
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence

from ..errors import BondGraphError, CosimulationError

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bondgraph.cosim",
                                description="Co-simulation middleware of the bondgraph toolkit.")
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run a co-simulation from a JSON/TOML configuration")
    r.add_argument("config", type=Path)
    r.add_argument("--out", type=Path, default=None, help="CSV file to write")
    r.add_argument("--progress", action="store_true", help="show a progress bar")
    t = sub.add_parser("table", help="print the relations table")
    t.add_argument("config", type=Path)
    e = sub.add_parser("export", help="export a Python subsystem as an FMU")
    e.add_argument("factory", help="package.module:callable returning a Subsystem")
    e.add_argument("--name", required=True, help="model identifier of the FMU")
    e.add_argument("--out", type=Path, default=Path("."), help="destination folder")
    e.add_argument("--kwargs", default="{}", help="JSON keyword arguments for the factory")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments (default: the command line).

    Returns
    -------
    int
        0 success, 1 the run aborted or ended with errors, 2 bad configuration.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> cfg = pathlib.Path(tempfile.mkdtemp()) / "b1.json"
    >>> _ = cfg.write_text(json.dumps({
    ...     "step": 1e-3, "end": 0.01, "bonds": [["spring.F", "mass.v"]],
    ...     "relations": ["mass.x -> spring.x", "mass.v -> spring.v", "spring.F -> mass.F"],
    ...     "subsystems": [{"factory": "bondgraph.cosim.examples:b1_mass"},
    ...                    {"factory": "bondgraph.cosim.examples:b1_spring"}]}))
    >>> main(["table", str(cfg)])
    mass -> spring
      mass.x [m]    -> spring.x [m]
      mass.v [m/s]  -> spring.v [m/s]
    spring -> mass
      spring.F [N]  -> mass.F [N]
    power bonds
      spring.F [N] * mass.v [m/s]
    0
    >>> main(["run", str(cfg)])     # doctest: +ELLIPSIS
    wrote .../b1.csv (11 points, t=0..0.01 s, ... s wall)
    0
    """
    args = _parser().parse_args(argv)
    from .config import load_config

    try:
        if args.command == "export":
            from .export import export_fmu

            try:
                kwargs = json.loads(args.kwargs)
            except json.JSONDecodeError as exc:
                print(f"error: --kwargs: not valid JSON ({exc})", file=sys.stderr)
                return 2
            path = export_fmu(args.factory, args.out, model_name=args.name, kwargs=kwargs)
            print(f"wrote {path}")
            return 0
        setup = load_config(args.config)
        if args.command == "table":
            print(setup.simulation.table())
            return 0
        out = args.out or setup.output or args.config.with_suffix(".csv")
        try:
            res = setup.simulation.run(progress=args.progress)
        except CosimulationError as exc:
            if exc.results is not None:
                exc.results.to_csv(out)
                print(f"wrote {out} ({len(exc.results)} points, {exc.results.status})")
            print(f"error: {exc}", file=sys.stderr)
            return 1
        res.to_csv(out)
        print(f"wrote {out} ({len(res)} points, t={res.time[0]:g}..{res.time[-1]:g} s, "
              f"{res.info['wall_time']:.3g} s wall)")
        return 0
    except BondGraphError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
