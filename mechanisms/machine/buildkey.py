"""The key a machine's compiled model is cached under: its description, mode and code.

A machine built a second time — the same file, in a new process — loads its compiled
model without writing the elements' laws again (``bondgraph.keyed``). That is only
correct if the key names everything the model depends on, so it is made of:

* the description's tables exactly as read, overrides applied, in file order
  (:attr:`MachineDescription.raw <.description.MachineDescription.raw>`: every value with
  its unit, the parts, hinges, circuit, soil...) — any changed value, even a run-time
  one such as a mass, is a different key (its build then reuses the compiled code by
  its fingerprint, and only writes the laws again);
* the mode and whether the end stops act;
* the source of the packages that read and build it (:func:`source_digest`: every
  ``.py``, ``.c`` and ``.h`` file of ``bondgraph``, ``components`` and ``mechanisms``),
  the Python and sympy versions.

A machine whose circuit type is registered from outside these packages
(:func:`~mechanisms.machine.register_circuit` in a notebook or a script) has no key: its
builder's source is not in the digest, so it is built the ordinary way every time.

Examples
--------
>>> from mechanisms.machine.description import DATA, MachineDescription
>>> d = MachineDescription.load(DATA / "excavator.toml")
>>> heavier = MachineDescription.load(DATA / "excavator.toml", {"bucket.mass": "900 kg"})
>>> machine_key(d, "valves") == machine_key(MachineDescription.load(DATA / "excavator.toml"), "valves")
True
>>> len({machine_key(d, "valves"), machine_key(heavier, "valves"), machine_key(d, "forces"),
...      machine_key(d, "valves", end_stops=False)})
4
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

__all__ = ["machine_key", "source_digest", "build_origin"]

#: the packages whose source shapes a built machine
PACKAGES = ("bondgraph", "components", "mechanisms")
#: the kinds of file hashed
SUFFIXES = (".py", ".c", ".h")
_DIGEST: list[str] = []


def source_digest() -> str:
    """Hash of the source of :data:`PACKAGES` (file names and contents), once per process.

    Returns
    -------
    str
        32 hex digits.

    Examples
    --------
    >>> len(source_digest()), source_digest() == source_digest()
    (32, True)
    """
    if not _DIGEST:
        import importlib.util

        h = hashlib.sha256()
        for pkg in PACKAGES:
            spec = importlib.util.find_spec(pkg)
            root = Path(spec.origin).parent
            for p in sorted(root.rglob("*")):
                if p.suffix in SUFFIXES and "__pycache__" not in p.parts:
                    h.update(f"{pkg}/{p.relative_to(root).as_posix()}\0".encode())
                    h.update(p.read_bytes())
                    h.update(b"\0")
        _DIGEST.append(h.hexdigest()[:32])
    return _DIGEST[0]


def machine_key(desc, mode: str, *, end_stops: bool = True) -> str | None:
    """The text that names a machine's compiled model (see the module); ``None`` for a
    circuit built by a builder registered from outside the packages.

    Parameters
    ----------
    desc : MachineDescription
    mode : str
        ``"extensions"``, ``"forces"`` or ``"valves"``.
    end_stops : bool
        As for :class:`~.machine.Machine`.

    Returns
    -------
    str or None

    Examples
    --------
    >>> from mechanisms.machine.description import DATA, MachineDescription
    >>> machine_key(MachineDescription.load(DATA / "knuckle_crane.toml"), "forces").splitlines()[0]
    'hydrobond machine model v1'
    """
    import sympy

    if mode == "valves" and isinstance(desc.circuit, dict):
        from .circuits import CIRCUITS

        builder = CIRCUITS.get(desc.circuit.get("type"))
        if builder is None or getattr(builder, "__module__", "").split(".")[0] not in PACKAGES:
            return None

    tables = json.dumps(desc.raw, default=repr, ensure_ascii=False, allow_nan=True)
    return "\n".join(["hydrobond machine model v1", f"mode {mode}", f"end_stops {bool(end_stops)}",
                      f"source {source_digest()}", f"python {sys.version_info[0]}.{sys.version_info[1]}",
                      f"sympy {sympy.__version__}", tables])


def build_origin(machine) -> str:
    """How a machine's model was made, for the timings line of a report: ``"compiled
    model from cache"`` (loaded by key, no law written), ``"laws written, compiled code
    from cache"`` (a build by fingerprint: a value or the package changed since),
    ``"derived and compiled"`` (a model never built before), or ``""`` for the reference
    formulations (no compiled model).

    Parameters
    ----------
    machine : Machine

    Returns
    -------
    str

    Examples
    --------
    >>> from mechanisms.machine import DATA, Machine
    >>> m = Machine.from_file(DATA / "knuckle_crane.toml", mode="forces")
    >>> build_origin(Machine.from_file(DATA / "knuckle_crane.toml", mode="forces"))
    'compiled model from cache'
    """
    bt = getattr(getattr(getattr(machine, "model", None), "model", None), "build_times", None)
    if not isinstance(bt, dict):
        return ""
    if bt.get("keyed") == 1.0:
        return "compiled model from cache"
    if bt.get("cached") == 1.0:
        return "laws written, compiled code from cache"
    return "derived and compiled"
