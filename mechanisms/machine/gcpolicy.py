"""The cyclic garbage collector during ``hydrobond run``: off while the command imports
and builds, then the long-lived objects frozen out of its reach.

Importing the model stack and building a machine create about a million objects that
live as long as the command (sympy's and networkx's modules and caches, matplotlib's,
the templates, the graph, the model). Python's cyclic collector walks every one of them
at each full collection, and the output stage's allocations trigger several: about
0.3–0.4 s of a warm ``hydrobond run excavator`` went to collections (measured with
``gc.callbacks``) that found those objects alive each time. The command therefore turns
the collector off while it imports and builds (reference counting still frees every
object without a cycle), then moves what exists into the permanent generation
(:func:`gc.freeze`) and turns it on again, so that the run and the output stage collect
only what they make; the command settles again once it has imported the plotting library
for its files. The forked output process (:mod:`.background`) inherits the frozen
objects, which its collections then leave untouched too.

Everything is restored when the command ends, so a command run in-process (a test, a
notebook calling :func:`~.cli.main`) leaves the interpreter's collector as it found it.

Examples
--------
>>> import gc
>>> was = gc.isenabled()
>>> with command_gc() as policy:
...     off = not gc.isenabled()
...     policy.settle()
...     on = gc.isenabled() == was and gc.get_freeze_count() > 0
>>> off, on, gc.isenabled() == was, gc.get_freeze_count()
(True, True, True, 0)
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

__all__ = ["CommandGC", "command_gc", "settle"]

#: the policy of the command running now (what :func:`settle` acts on)
_ACTIVE: list["CommandGC"] = []


class CommandGC:
    """The collector off from construction until :meth:`settle`; :meth:`close` restores it.

    Examples
    --------
    >>> import gc
    >>> was = gc.isenabled()
    >>> p = CommandGC()
    >>> gc.isenabled()
    False
    >>> p.close(); gc.isenabled() == was
    True
    """

    def __init__(self) -> None:
        self.was_enabled = gc.isenabled()
        self.frozen = False
        gc.disable()

    def settle(self) -> None:
        """Freeze what exists (the imports and the build) and turn the collector back on
        (if it was on when the command started). A later call freezes what came since
        (the plotting library imported for the output stage, say)."""
        gc.freeze()
        if not self.frozen and self.was_enabled:
            gc.enable()
        self.frozen = True

    def close(self) -> None:
        """Unfreeze and leave the collector on or off as it was found."""
        if self.frozen:
            gc.unfreeze()
            self.frozen = False
        if self.was_enabled:
            gc.enable()
        else:
            gc.disable()


@contextmanager
def command_gc() -> Iterator[CommandGC]:
    """The policy for one command: :class:`CommandGC` while the block runs, restored after
    it however it ends; :func:`settle` inside the block settles it.

    Examples
    --------
    >>> import gc
    >>> with command_gc():
    ...     gc.isenabled()
    False
    """
    policy = CommandGC()
    _ACTIVE.append(policy)
    try:
        yield policy
    finally:
        _ACTIVE.remove(policy)
        policy.close()


def settle() -> None:
    """Settle the running command's policy (:meth:`CommandGC.settle`); nothing outside one.

    Examples
    --------
    >>> import gc
    >>> with command_gc():
    ...     settle()
    ...     gc.get_freeze_count() > 0
    True
    """
    if _ACTIVE:
        _ACTIVE[-1].settle()
