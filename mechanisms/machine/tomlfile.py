"""Read a TOML file and remember on which line every key is, for error messages.

:mod:`tomllib` gives the data but no positions; :class:`TomlFile` scans the text
once for table headers (``[a.b]``, ``[[a]]``) and ``key = value`` lines (bare,
quoted and dotted keys; multi-line arrays, inline tables and multi-line strings
skipped) so that a problem with ``boom.mass`` can say ``excavator.toml, line 27``.

Examples
--------
>>> f = TomlFile.from_text('[boom]\\ntype = "body"\\nmass = "1307 kg"\\npoints.C = ["Rt", "0 m", "0 m"]\\n',
...                        name="m.toml")
>>> f.data["boom"]["mass"], f.line("boom.mass"), f.where("boom.points.C")
('1307 kg', 3, 'm.toml, line 4')
>>> TomlFile.from_text("[a]\\nb = = 1\\n", name="bad.toml")
Traceback (most recent call last):
...
bondgraph.errors.ParameterError: machine file bad.toml: not valid TOML (Invalid value (at line 2, column 5))

A machine file may start from another one: ``[machine] extends = "excavator.toml"`` (a path
relative to the file) reads that file first and lays this one's tables over it, key by key
(:func:`merge_extended`). Its cycle files stay where they are; an error in an inherited key
names the file and line it comes from.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bondgraph.errors import ParameterError

__all__ = ["TomlFile", "merge_extended", "read_text_file"]

_BARE = r"[A-Za-z0-9_-]+"
_QUOTED = r'"(?:[^"\\]|\\.)*"' + r"|'[^']*'"
_KEY_PART = rf"(?:{_BARE}|{_QUOTED})"
_KEY = rf"{_KEY_PART}(?:\s*\.\s*{_KEY_PART})*"
_HEADER = re.compile(rf"^\s*(\[\[?)\s*({_KEY})\s*\]\]?\s*(?:#.*)?$")
_ASSIGN = re.compile(rf"^\s*({_KEY})\s*=")


def _split_key(text: str) -> list[str]:
    parts = []
    for m in re.finditer(_KEY_PART, text):
        tok = m.group(0)
        if tok[0] in "\"'":
            tok = tok[1:-1]
        parts.append(tok)
    return parts


def read_text_file(path: str | Path, what: str) -> str:
    """The text of a file, or a :class:`ParameterError` saying why it cannot be read."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise ParameterError(f"{what} {str(p)!r}: not found") from None
    except IsADirectoryError:
        raise ParameterError(f"{what} {str(p)!r}: is a directory, expected a file") from None
    except PermissionError:
        raise ParameterError(f"{what} {str(p)!r}: permission denied") from None
    except OSError as exc:
        raise ParameterError(f"{what} {str(p)!r}: cannot be read ({exc.strerror or exc})") from None
    if b"\x00" in raw[:4096]:
        raise ParameterError(f"{what} {str(p)!r}: a binary file, expected text")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ParameterError(f"{what} {str(p)!r}: not UTF-8 text (byte {exc.start}, line {line})") from None


@dataclass
class TomlFile:
    """Parsed TOML data and the line of every key (``"a.b.c"`` → line number)."""

    data: dict[str, Any]
    name: str
    path: Path | None = None
    lines: dict[str, int] = field(default_factory=dict)
    #: keys read from an extended file: dotted key → (that file's name, line)
    inherited: dict[str, tuple[str, int]] = field(default_factory=dict)

    @classmethod
    def read(cls, path: str | Path, what: str = "machine file", _chain: tuple[Path, ...] = ()) -> "TomlFile":
        p = Path(path)
        return cls.from_text(read_text_file(p, what), name=p.name, path=p, what=what, _chain=_chain)

    @classmethod
    def from_text(cls, text: str, *, name: str = "<text>", path: Path | None = None,
                  what: str = "machine file", _chain: tuple[Path, ...] = ()) -> "TomlFile":
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ParameterError(f"{what} {name}: not valid TOML ({exc})") from None
        f = cls(data, name, path, _locate(text))
        machine = data.get("machine")
        if isinstance(machine, dict) and "extends" in machine:
            f = merge_extended(f, what, _chain)
        return f

    def line(self, key: str) -> int | None:
        """Line of ``key`` (dotted path), or of its nearest enclosing table."""
        k = key.split("[", 1)[0] if key.endswith("]") else key     # an array element: the array's line
        while k:
            if k in self.lines:
                return self.lines[k]
            if "." not in k:
                return None
            k = k.rsplit(".", 1)[0]
        return None

    @property
    def label(self) -> str:
        """What the data are, for messages: ``"machine file excavator.toml"``, or the name
        itself for data not read from a file (``"Machine.from_mechanism('loader')"``)."""
        return self.name if self.name.startswith("Machine.") else f"machine file {self.name}"

    def where(self, key: str) -> str:
        """``"excavator.toml, line 27"`` (or just the file name); for a key inherited from an
        extended file, that file and line (``"excavator.toml, line 27, extended by dig.toml"``)."""
        k = key.split("[", 1)[0] if key.endswith("]") else key     # an array element: the array's line
        while k:
            if k in self.lines:
                return f"{self.name}, line {self.lines[k]}"
            if k in self.inherited:
                base, m = self.inherited[k]
                return f"{base}, line {m}, extended by {self.name}"
            k = k.rsplit(".", 1)[0] if "." in k else ""
        return self.name


def merge_extended(f: TomlFile, what: str = "machine file", chain: tuple[Path, ...] = ()) -> TomlFile:
    """Resolve ``[machine] extends``: the named file's tables with ``f``'s laid over them.

    Tables merge key by key (a table in ``f`` adds to or replaces single keys of the base's
    table); any other value in ``f`` replaces the base's. The base's ``[cycles]`` file names
    are made absolute (they are relative to the base file). ``extends`` itself is dropped from
    the merged data, so a merged description written out is self-contained.

    Raises
    ------
    ParameterError
        ``extends`` not a file name, the file missing or unreadable, or files that extend
        each other in a circle.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "base.toml").write_text('[machine]\\nname = "a"\\ngravity = "9.81 m/s^2"\\n'
    ...                                  '[boom]\\nmass = "1 kg"\\n')
    >>> _ = (d / "new.toml").write_text('[machine]\\nextends = "base.toml"\\nname = "b"\\n'
    ...                                 '[boom]\\ntype = "body"\\n')
    >>> f = TomlFile.read(d / "new.toml")
    >>> f.data["machine"], f.data["boom"]
    ({'name': 'b', 'gravity': '9.81 m/s^2'}, {'mass': '1 kg', 'type': 'body'})
    >>> f.where("boom.mass"), f.where("boom.type")
    ('base.toml, line 5, extended by new.toml', 'new.toml, line 5')
    """
    raw = f.data["machine"]["extends"]
    n = f.line("machine.extends")
    at = f"{f.name}, line {n}" if n else f.name
    if not isinstance(raw, str) or not raw.strip():
        raise ParameterError(f"'machine.extends' ({at}): found {raw!r}, expected the name of a machine file")
    here = f.path.parent if f.path is not None else Path.cwd()
    path = Path(raw) if Path(raw).is_absolute() else here / raw
    me = f.path.resolve() if f.path is not None else None
    chain = chain + ((me,) if me is not None else ())
    if path.resolve() in chain:
        raise ParameterError(f"'machine.extends' ({at}): {raw!r} extends {f.name} again (a circle: "
                             + " → ".join(p.name for p in chain + (path.resolve(),)) + ")")
    if not path.is_file():
        raise ParameterError(f"'machine.extends' ({at}): {str(path)!r} does not exist (a path relative "
                             f"to {f.name})")
    base = TomlFile.read(path, what, _chain=chain)
    data = _deep_copy(base.data)
    cycles = data.get("cycles")
    if isinstance(cycles, dict):
        for files in cycles.values():
            if isinstance(files, dict):
                for mode, fn in files.items():
                    if mode != "description" and isinstance(fn, str) and not Path(fn).is_absolute():
                        files[mode] = str(path.parent.resolve() / fn)
    _lay_over(data, f.data)
    data["machine"].pop("extends", None)
    inherited = {k: (base.name, m) for k, m in base.lines.items()}
    inherited.update(base.inherited)
    return TomlFile(data, f.name, f.path, dict(f.lines), inherited)


def _deep_copy(d: Any) -> Any:
    if isinstance(d, dict):
        return {k: _deep_copy(v) for k, v in d.items()}
    if isinstance(d, list):
        return [_deep_copy(v) for v in d]
    return d


def _lay_over(base: dict[str, Any], top: dict[str, Any]) -> None:
    for k, v in top.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            _lay_over(base[k], v)
        else:
            base[k] = _deep_copy(v)


def _locate(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    table: list[str] = []
    depth = 0            # open brackets/braces of a value spanning lines
    in_ml: str | None = None  # inside a multi-line string ('''/""")
    arrays: dict[str, int] = {}
    for n, line in enumerate(text.splitlines(), start=1):
        if in_ml:
            if in_ml in line:
                in_ml = None
            continue
        if depth > 0:
            depth = max(0, depth + _bracket_balance(line))
            continue
        m = _HEADER.match(line)
        if m:
            table = _split_key(m.group(2))
            key = ".".join(table)
            if m.group(1) == "[[":
                i = arrays.get(key, 0)
                arrays[key] = i + 1
                table = table + [str(i)]
                key = ".".join(table)
            out.setdefault(key, n)
            continue
        m = _ASSIGN.match(line)
        if not m:
            continue
        parts = table + _split_key(m.group(1))
        for i in range(len(table) + 1, len(parts) + 1):
            out.setdefault(".".join(parts[:i]), n)
        rest = line[m.end():]
        for q in ('"""', "'''"):
            if rest.count(q) == 1:
                in_ml = q
        if not in_ml:
            depth = max(0, _bracket_balance(rest))
    return out


def _bracket_balance(s: str) -> int:
    """Open minus closed ``[``/``{`` outside strings and comments."""
    bal, quote, i = 0, None, 0
    while i < len(s):
        c = s[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c == "#":
            break
        elif c in "[{":
            bal += 1
        elif c in "]}":
            bal -= 1
        i += 1
    return bal
