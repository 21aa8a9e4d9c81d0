"""Shared helper of the bad-input catalogue (issue 10).

Every case is one call that a user could make by mistake. It must raise exactly one
exception of our own family (a :class:`bondgraph.BondGraphError` subclass) whose message
names the culprit: no foreign exception, no hang, no silent acceptance.

A case is ``Case(id, call, error, culprits)``:

* ``call`` — a zero-argument callable doing the bad thing;
* ``error`` — the expected :class:`~bondgraph.BondGraphError` subclass;
* ``culprits`` — substrings the message must contain (element, port, bond, parameter,
  key, file line...), compared case-insensitively.

Each area keeps its cases in its own ``test_bad_<area>.py`` and runs them with
:func:`check`.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass
from typing import Callable, Sequence

from bondgraph import BondGraphError

__all__ = ["Case", "check", "ids"]


@dataclass(frozen=True)
class Case:
    id: str
    call: Callable[[], object]
    error: type[BondGraphError]
    culprits: Sequence[str]
    timeout: float = 60.0


class _Hang(Exception):
    pass


def _alarm(signum, frame):  # pragma: no cover - only on a hang
    raise _Hang()


def check(case: Case) -> BondGraphError:
    """Run one case; return the error for further checks."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, case.timeout)
    try:
        try:
            case.call()
        except _Hang:
            raise AssertionError(f"{case.id}: still running after {case.timeout} s (a hang)") from None
        except BondGraphError as err:
            if not isinstance(err, case.error):
                raise AssertionError(f"{case.id}: raised {type(err).__name__}, expected "
                                     f"{case.error.__name__}: {err}") from err
            msg = str(err).lower()
            missing = [c for c in case.culprits if c.lower() not in msg]
            if missing:
                raise AssertionError(f"{case.id}: the message does not name {missing}: {err}") from err
            return err
        except Exception as err:  # noqa: BLE001 - the point of the catalogue
            raise AssertionError(f"{case.id}: foreign exception {type(err).__name__}: {err}") from err
        raise AssertionError(f"{case.id}: accepted silently (expected {case.error.__name__})")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def ids(cases: Sequence[Case]) -> list[str]:
    return [c.id for c in cases]
