"""Machines named as users name them: a file or a shipped machine, and ``KEY=VALUE`` overrides.

What a command line, a study or a script gives as text becomes what the machine layer
takes: :func:`resolve_machine` turns ``"excavator"`` (a machine shipped in
``mechanisms/data/``) or a path into the path of a machine file, and :func:`parse_sets`
turns ``--set`` items (``bucket.mass=900 kg``) into the overrides
:meth:`~.description.MachineDescription.load` applies. Both live here, below every command
line, so that the analyses and scripts use them without importing a CLI module.

Examples
--------
>>> resolve_machine("excavator").name
'excavator.toml'
>>> parse_sets(["bucket.mass=900 kg", 'bucket.cog=["0.3 m", "-0.6 m"]'])
{'bucket.mass': '900 kg', 'bucket.cog': ['0.3 m', '-0.6 m']}
>>> parse_sets(["bucket.mass", "=1 kg"])
Traceback (most recent call last):
...
bondgraph.errors.ParameterError: 2 problems
  - --set 'bucket.mass': expected KEY=VALUE, e.g. bucket.mass="900 kg"
  - --set '=1 kg': empty key
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from bondgraph.errors import ParameterError

__all__ = ["resolve_machine", "parse_sets"]


def resolve_machine(name: str) -> Path:
    """The path of a machine file: ``name`` itself, or a shipped machine by its name.

    Parameters
    ----------
    name : str
        A path to a machine file (TOML), or the name of a machine in ``mechanisms/data/``
        (``"excavator"``, ``"wheel_loader"``: ``hydrobond list`` shows them). A name without
        suffix that is not an existing file is looked up among the shipped machines.

    Returns
    -------
    Path
        The file (whether it exists is for the description's loader to say, with the file's
        name in its message).

    Raises
    ------
    ParameterError
        ``name`` has no suffix, is not a file and is not a shipped machine; the message lists
        the shipped machines.

    Examples
    --------
    >>> resolve_machine("excavator").parent.name
    'data'
    >>> resolve_machine("my_machines/loader.toml")
    PosixPath('my_machines/loader.toml')
    >>> resolve_machine("backhoe")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: machine 'backhoe': no such file, and not a shipped machine (...)
    """
    from .description import DATA

    p = Path(name)
    if p.suffix == "" and not p.exists():
        cand = DATA / f"{name}.toml"
        if cand.is_file():
            return cand
        shipped = sorted(q.stem for q in DATA.glob("*.toml"))
        raise ParameterError(f"machine {name!r}: no such file, and not a shipped machine "
                             f"({', '.join(shipped)})")
    return p


def parse_sets(items: list[str]) -> dict[str, Any]:
    """``--set`` items (``KEY=VALUE``) as overrides of a machine file.

    Parameters
    ----------
    items : list of str
        ``"bucket.mass=900 kg"``: a dotted key, ``=``, and a value. The value is read as a
        TOML value when it is one (``["0.3 m", "-0.6 m"]``, ``"900 kg"``, ``true``, ``2``),
        else kept as its text (``900 kg``), which is how units are usually typed.

    Returns
    -------
    dict
        Dotted key → value, for :meth:`~.description.MachineDescription.load`.

    Raises
    ------
    ParameterError
        Every item without ``=`` or with an empty key, at once.

    Examples
    --------
    >>> parse_sets(['circuit.type="load-sensing"', "circuit.valves.boom.flow = 120 L/min"])
    {'circuit.type': 'load-sensing', 'circuit.valves.boom.flow': '120 L/min'}
    """
    out: dict[str, Any] = {}
    problems = []
    for item in items:
        if "=" not in item:
            problems.append(f"--set {item!r}: expected KEY=VALUE, e.g. bucket.mass=\"900 kg\"")
            continue
        key, val = (x.strip() for x in item.split("=", 1))
        if not key:
            problems.append(f"--set {item!r}: empty key")
            continue
        try:
            out[key] = tomllib.loads(f"v = {val}")["v"]
        except tomllib.TOMLDecodeError:
            out[key] = val
    if problems:
        raise ParameterError(problems)
    return out
