"""Parameter rules: what a number must be, stated once where the parameter is declared.

A :class:`Check` is one rule — finite; finite and ≥ 0; finite and > 0; finite and
non-zero — with the meaning of the parameter (``"mass or inertia"``). Elements check
their numbers with it at construction, declare it with the parameter
(``ctx.param("m", value, check=...)``), and the built model keeps it by parameter
name, so :meth:`bondgraph.Model.set_params` enforces the same rule with the same
message. Templates use :func:`number_problems` to check all their numbers at once.

Examples
--------
>>> POSITIVE_R = Check(">0", "resistance")
>>> POSITIVE_R.problem("R 'b', parameter 'r'", -2.0)
"R 'b', parameter 'r': found -2.0, expected a finite number > 0 (resistance)"
>>> POSITIVE_R.problem("R 'b', parameter 'r'", 3) is None
True
>>> number("12"), number(float("nan")), number(True)
(None, nan, None)
>>> number_problems("body 'arm'", {"mass": (-1.0, NONNEGATIVE), "cog[0]": ("a", FINITE)})
["body 'arm': mass: found -1.0, expected a finite number ≥ 0", "body 'arm': cog[0]: found 'a' (text), expected a finite number"]
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any, Mapping

import sympy as sp

__all__ = ["Check", "FINITE", "NONNEGATIVE", "POSITIVE", "NONZERO", "number", "number_problems"]

_RULES = {
    "finite": "a finite number",
    ">=0": "a finite number ≥ 0",
    ">0": "a finite number > 0",
    "!=0": "a finite non-zero number",
}


@dataclass(frozen=True)
class Check:
    """One rule for a numeric parameter.

    Parameters
    ----------
    rule : {"finite", ">=0", ">0", "!=0"}
        Every rule includes "finite" (no NaN, no infinity).
    meaning : str
        What the parameter is, for the message (``"mass or inertia"``).

    Raises
    ------
    ValueError
        An unknown rule (a programming error in the element that declares it).

    Examples
    --------
    >>> mass = Check(">=0", "mass")
    >>> mass.accepts(0.0), mass.accepts(-1.0), mass.accepts(float("inf"))
    (True, False, False)
    >>> mass.problem("body 'arm', mass", -1.0)
    "body 'arm', mass: found -1.0, expected a finite number ≥ 0 (mass)"
    """

    rule: str = "finite"
    meaning: str = ""

    def __post_init__(self):
        if self.rule not in _RULES:
            raise ValueError(f"Check rule {self.rule!r}: expected one of {', '.join(_RULES)}")

    @property
    def expected(self) -> str:
        """What the rule expects, as messages say it: ``"a finite number ≥ 0 (mass)"``.

        Examples
        --------
        >>> Check(">0", "stiffness").expected
        'a finite number > 0 (stiffness)'
        """
        return _RULES[self.rule] + (f" ({self.meaning})" if self.meaning else "")

    def accepts(self, value: float) -> bool:
        """Does a float satisfy the rule?

        Parameters
        ----------
        value : float

        Returns
        -------
        bool

        Examples
        --------
        >>> NONZERO.accepts(-3.0), NONZERO.accepts(0.0)
        (True, False)
        """
        if not math.isfinite(value):
            return False
        if self.rule == ">=0":
            return value >= 0
        if self.rule == ">0":
            return value > 0
        if self.rule == "!=0":
            return value != 0
        return True

    def problem(self, label: str, value: Any) -> str | None:
        """``None`` if ``value`` is a number that satisfies the rule, else the message.

        Parameters
        ----------
        label : str
            What is checked (``"R 'b', parameter 'r'"``), the start of the message.
        value : object
            Anything; text, booleans and symbols are not numbers.

        Returns
        -------
        str or None

        Examples
        --------
        >>> POSITIVE.problem("k", "stiff")
        "k: found 'stiff' (text), expected a finite number > 0"
        >>> POSITIVE.problem("k", 2) is None
        True
        """
        x = number(value)
        if x is None:
            return f"{label}: found {_show(value)}, expected {self.expected}"
        if not self.accepts(x):
            return f"{label}: found {value!r}, expected {self.expected}"
        return None

    def with_meaning(self, meaning: str) -> "Check":
        """The same rule with another description.

        Parameters
        ----------
        meaning : str

        Returns
        -------
        Check

        Examples
        --------
        >>> FINITE.with_meaning("effort").expected
        'a finite number (effort)'
        """
        return Check(self.rule, meaning)


FINITE = Check("finite")
NONNEGATIVE = Check(">=0")
POSITIVE = Check(">0")
NONZERO = Check("!=0")


def _show(value: Any) -> str:
    if isinstance(value, str):
        return f"{value!r} (text)"
    if isinstance(value, bool):
        return f"{value!r} (a bool)"
    return repr(value)


def number(value: Any) -> float | None:
    """``value`` as a float if it is a real number (NaN and ±inf included), else ``None``.

    Text, booleans, complex numbers and symbolic expressions with free symbols are not
    numbers; numpy scalars and sympy numbers are.

    Parameters
    ----------
    value : object

    Returns
    -------
    float or None

    Examples
    --------
    >>> import numpy as np, sympy as sp
    >>> number(np.float32(0.5)), number(sp.Rational(1, 4)), number(sp.Symbol("x")), number(1j)
    (0.5, 0.25, None, None)
    """
    if isinstance(value, (bool, str, bytes)) or value is None:
        return None
    if isinstance(value, sp.Basic):
        if not value.is_number:
            return None
        try:
            return float(value)
        except (TypeError, ValueError):
            return None
    if isinstance(value, numbers.Real):
        return float(value)
    try:
        import numpy as np

        if isinstance(value, np.ndarray) and value.shape == () and np.isrealobj(value):
            return float(value)
    except ImportError:  # pragma: no cover
        pass
    return None


def number_problems(subject: str, values: Mapping[str, tuple[Any, Check]]) -> list[str]:
    """Check several named numbers of one object; every problem, each naming its parameter.

    Parameters
    ----------
    subject : str
        The object, e.g. ``"lever 'link'"`` (``""``: the names alone).
    values : mapping
        ``name -> (value, check)``.

    Returns
    -------
    list of str
        One message per value that breaks its check (empty if all are good).

    Examples
    --------
    >>> number_problems("lever 'link'", {"length": (0.0, POSITIVE), "mass": (2.0, NONNEGATIVE)})
    ["lever 'link': length: found 0.0, expected a finite number > 0"]
    """
    out = []
    for name, (value, check) in values.items():
        msg = check.problem(f"{subject}: {name}" if subject else name, value)
        if msg is not None:
            out.append(msg)
    return out
