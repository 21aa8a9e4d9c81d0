"""Find and load the SUNDIALS 7 shared libraries that the scikit-sundae wheel brings.

The wheel ships ``scikit_sundae.libs/libsundials_*-<hash>.so.<version>`` (built with a
32-bit ``sunindextype`` and ``double`` reals) and no headers. The C driver
(:mod:`bondgraph.native.driver`), which declares the few functions it calls itself, is
linked against these files by path, with their directory as its run path. They are
loaded here first, in the process's local scope (never ``RTLD_GLOBAL``), so their
symbols never stand in for those of another SUNDIALS in the same process: FMPy brings its
own CVODE, of another version, for model-exchange FMUs. Before the driver is loaded the
version is read from the library (``SUNDIALSGetVersionNumber``) and checked: a major
version other than 7 would not match the driver's declarations.

Nothing here imports scikit-sundae itself (its import loads OpenBLAS: ~0.5 s).

The official ``sundials4py`` 7.9.0 wheels (which would bring headers) were looked at as
the other source; its index offers no distribution installable here, so the wheel
that the project already depends on is the one used.

Examples
--------
>>> info = sundials_info()
>>> info.ok or bool(info.reason)      # loaded, or a reason saying why not
True
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["SundialsInfo", "sundials_info", "REQUIRED_MAJOR"]

#: the driver's declarations are those of SUNDIALS 7.x
REQUIRED_MAJOR = 7
#: libraries in load order (each needs the ones before it)
_LIBS = ("sundials_core", "sundials_nvecserial", "sundials_sunmatrixdense",
         "sundials_sunlinsoldense", "sundials_sunmatrixband", "sundials_sunlinsolband", "sundials_cvode")


@dataclass
class SundialsInfo:
    """What was found: ``ok``, the ``version``, the library ``paths``, or a ``reason``.

    Attributes
    ----------
    ok : bool
    version : str
        ``"7.x.y"`` as the library reports it.
    paths : dict
        Library name → file.
    reason : str
        Why they cannot be used (empty when ``ok``).

    Examples
    --------
    >>> info = sundials_info()
    >>> info.ok == info.version.startswith(f"{REQUIRED_MAJOR}.") or not info.ok
    True
    """

    ok: bool
    version: str = ""
    paths: dict[str, Path] = field(default_factory=dict)
    reason: str = ""
    handles: list = field(default_factory=list, repr=False)

    def key(self) -> str:
        """Identifies the libraries (part of the driver's cache key).

        Returns
        -------
        str
            The version and the library file names.
        """
        return self.version + "|" + "|".join(p.name for p in self.paths.values())


_INFO: list[SundialsInfo] = []


def _library_dir() -> Path | None:
    spec = importlib.util.find_spec("sksundae")
    if spec is None or not spec.submodule_search_locations:
        return None
    pkg = Path(list(spec.submodule_search_locations)[0])
    for cand in (pkg.parent / "scikit_sundae.libs", pkg / ".libs", pkg.parent / "sksundae.libs"):
        if cand.is_dir():
            return cand
    return None


def _find(libdir: Path) -> tuple[dict[str, Path], list[str]]:
    # one listing, matched by prefix (``lib<name>-<hash>.so…`` of a repaired wheel, else
    # ``lib<name>.so…``): what two globs per library found, without compiling patterns
    files = sorted(os.listdir(libdir))
    paths, missing = {}, []
    for name in _LIBS:
        hits = ([f for f in files if f.startswith(f"lib{name}-") and ".so" in f]
                or [f for f in files if f.startswith(f"lib{name}.so")])
        if hits:
            paths[name] = libdir / hits[0]
        else:
            missing.append(f"lib{name}")
    return paths, missing


def sundials_info() -> SundialsInfo:
    """Locate, version-check and load (once) the SUNDIALS libraries of scikit-sundae.

    Never raises: a missing or wrong library is a ``reason``.

    Returns
    -------
    SundialsInfo
        The same object for the whole process.

    Examples
    --------
    >>> info = sundials_info()
    >>> info is sundials_info(), sorted(info.paths) == sorted(_LIBS) or not info.ok
    (True, True)
    """
    if _INFO:
        return _INFO[0]
    _INFO.append(_load())
    return _INFO[0]


def _load() -> SundialsInfo:
    libdir = _library_dir()
    if libdir is None:
        return SundialsInfo(False, reason="scikit-sundae is not installed, or its wheel has no "
                                          "bundled SUNDIALS libraries (scikit_sundae.libs); "
                                          "`pip install scikit-sundae` brings them")
    paths, missing = _find(libdir)
    if missing:
        return SundialsInfo(False, paths=paths,
                            reason=f"SUNDIALS libraries missing in {libdir}: {', '.join(missing)}")
    handles = []
    try:
        for name in _LIBS:
            handles.append(ctypes.CDLL(str(paths[name])))
    except OSError as exc:
        return SundialsInfo(False, paths=paths, reason=f"cannot load the SUNDIALS libraries: {exc}")
    core = handles[0]
    major, minor, patch = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    label = ctypes.create_string_buffer(64)
    try:
        fn = core.SUNDIALSGetVersionNumber
    except AttributeError:
        return SundialsInfo(False, paths=paths, handles=handles,
                            reason=f"{paths['sundials_core'].name} has no SUNDIALSGetVersionNumber: "
                                   "not a SUNDIALS ≥ 2.7 library")
    fn.argtypes = [ctypes.POINTER(ctypes.c_int)] * 3 + [ctypes.c_char_p, ctypes.c_int]
    fn.restype = ctypes.c_int
    fn(ctypes.byref(major), ctypes.byref(minor), ctypes.byref(patch), label, 64)
    version = f"{major.value}.{minor.value}.{patch.value}"
    if major.value != REQUIRED_MAJOR:
        return SundialsInfo(False, version=version, paths=paths, handles=handles,
                            reason=f"SUNDIALS {version} found ({paths['sundials_core'].name}); the "
                                   f"native driver is written against SUNDIALS {REQUIRED_MAJOR}.x "
                                   "(install a scikit-sundae release that bundles SUNDIALS 7)")
    return SundialsInfo(True, version=version, paths=paths, handles=handles)
