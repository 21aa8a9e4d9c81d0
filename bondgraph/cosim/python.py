"""Adapter for a plain Python object: attributes in, attributes out, ``do_step``.

The wrapped object follows a small duck-typed protocol (nothing to inherit):

=====================================  ==============================================
``obj.do_step(t, h)``                  required; advance from ``t`` to ``t + h``;
                                       return None or the time actually reached
``obj.<input> = value``                each input is written as an attribute (float)
``obj.<output>``                       each output is read as an attribute, or called
                                       if it is a method without arguments
``obj.set_input_derivatives(t, d)``    optional; ``d[name]`` is a tuple of the input's
                                       time derivatives at ``t`` (needed when
                                       ``input_derivative_order > 0``; may be shorter
                                       than that order: missing ones are zero)
``obj.output_derivatives(order)``      optional; returns ``{name: (d1, ..., d_order)}``
                                       (needed when ``output_derivative_order > 0``)
``obj.time``                           optional; the object's own simulation time (an
                                       attribute or a method without arguments); the
                                       master checks it after every step
``obj.get_state()``/``set_state(s)``   optional; enables rollback
``obj.setup(t0, t_end, step)``         optional
``obj.terminate()``                    optional
=====================================  ==============================================

Examples
--------
>>> class Integrator:
...     def __init__(self):
...         self.u = 0.0
...         self.y = 0.0
...     def do_step(self, t, h):
...         self.y += self.u * h
>>> sub = PythonSubsystem(Integrator(), "integ", inputs=[("u", "m/s")],
...                       outputs=[("y", "m")], direct_feedthrough=False)
>>> sub.set_inputs(0.0, np.array([2.0]), np.zeros((0, 1)))
>>> sub.do_step(0.0, 0.5)
>>> sub.get_outputs()
array([1.])
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

import numpy as np

from ..errors import ParameterError
from .subsystem import Port, Subsystem

__all__ = ["PythonSubsystem"]


class PythonSubsystem(Subsystem):
    """Wrap a plain Python object as a :class:`~bondgraph.cosim.Subsystem`.

    Parameters
    ----------
    obj : object
        The model object (see the module docstring for its protocol).
    name : str
        Subsystem name.
    inputs, outputs : iterable of Port or (name, unit[, description])
        Ports; each name must be an attribute of ``obj``.
    direct_feedthrough : bool
        True if an output reads an input at the same instant.
    input_derivative_order, output_derivative_order : int, optional
        How many derivative orders the object accepts / provides (0, 1 or 2).
    max_step : float or None, optional
        The object's own fixed internal step, if it has one.

    Raises
    ------
    ParameterError
        Listing every missing attribute or method of ``obj``.

    Examples
    --------
    >>> class Obj:
    ...     u = 0.0
    >>> PythonSubsystem(Obj(), "o", inputs=[("u", "m"), ("w", "m")], outputs=[("y", "m")],
    ...                 direct_feedthrough=False)
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: subsystem 'o': 3 problems
      - object of type Obj has no method do_step(t, h)
      - input 'w': object of type Obj has no attribute 'w' (give it an initial value)
      - output 'y': object of type Obj has no attribute or method 'y'
    """

    def __init__(self, obj: Any, name: str, inputs: Iterable[Port | Sequence[str]],
                 outputs: Iterable[Port | Sequence[str]], *, direct_feedthrough: bool,
                 input_derivative_order: int = 0, output_derivative_order: int = 0,
                 max_step: float | None = None):
        super().__init__(name, inputs, outputs, direct_feedthrough=direct_feedthrough,
                         max_step=max_step)
        kind = type(obj).__name__
        problems = []
        if not callable(getattr(obj, "do_step", None)):
            problems.append(f"object of type {kind} has no method do_step(t, h)")
        for port in self.inputs:
            if not hasattr(obj, port.name):
                problems.append(f"input {port.name!r}: object of type {kind} has no "
                                f"attribute {port.name!r} (give it an initial value)")
        for port in self.outputs:
            if not hasattr(obj, port.name):
                problems.append(f"output {port.name!r}: object of type {kind} has no "
                                f"attribute or method {port.name!r}")
        for label, order, method in (("input_derivative_order", input_derivative_order,
                                      "set_input_derivatives"),
                                     ("output_derivative_order", output_derivative_order,
                                      "output_derivatives")):
            if order not in (0, 1, 2):
                problems.append(f"{label}: found {order!r}, expected 0, 1 or 2")
            elif order and not callable(getattr(obj, method, None)):
                problems.append(f"{label}={order}: object of type {kind} has no method "
                                f"{method}()")
        if problems:
            raise ParameterError(problems, subject=f"subsystem {name!r}")
        self.obj = obj
        self.input_derivative_order = input_derivative_order
        self.output_derivative_order = output_derivative_order
        self._in_names = self.input_names
        self._out_names = self.output_names
        self._out_is_method = tuple(callable(getattr(obj, n)) for n in self._out_names)
        self._has_state = callable(getattr(obj, "get_state", None)) and callable(
            getattr(obj, "set_state", None))
        self._has_time = hasattr(obj, "time")

    @property
    def can_save_state(self) -> bool:
        """True if the object has ``get_state`` and ``set_state``."""
        return self._has_state

    def setup(self, t0: float, t_end: float, step: float) -> None:
        """Call ``obj.setup(t0, t_end, step)`` if the object has it.

        Parameters
        ----------
        t0 : float
            Start time (s).
        t_end : float
            End time (s).
        step : float
            Communication step (s).
        """
        fn = getattr(self.obj, "setup", None)
        if callable(fn):
            fn(t0, t_end, step)

    def set_inputs(self, t: float, values: np.ndarray, derivatives: np.ndarray) -> None:
        """Write each input as an attribute; pass derivatives if the object takes them.

        Parameters
        ----------
        t : float
            Time (s).
        values : ndarray
            Input values at ``t``.
        derivatives : ndarray
            Input derivatives at ``t`` (row k: order k + 1).
        """
        obj = self.obj
        for name, value in zip(self._in_names, values.tolist()):
            setattr(obj, name, value)
        if self.input_derivative_order:
            d = derivatives.T.tolist()
            obj.set_input_derivatives(t, {n: tuple(d[i]) for i, n in enumerate(self._in_names)})

    def get_outputs(self) -> np.ndarray:
        """Read each output attribute (calling it if it is a method).

        Returns
        -------
        ndarray
        """
        obj = self.obj
        return np.array([getattr(obj, n)() if m else getattr(obj, n)
                         for n, m in zip(self._out_names, self._out_is_method)], dtype=float)

    def get_output_derivatives(self, order: int) -> np.ndarray:
        """Ask the object for ``{name: (d1, ...)}`` and stack it as (order, n_out).

        Parameters
        ----------
        order : int
            Number of derivative orders.

        Returns
        -------
        ndarray
        """
        d = self.obj.output_derivatives(order)
        missing = [n for n in self._out_names if n not in d]
        if missing:
            raise ParameterError(
                [f"output_derivatives({order}) returned no entry for output {n!r}"
                 for n in missing], subject=f"subsystem {self.name!r}")
        return np.array([[float(d[n][k]) for n in self._out_names] for k in range(order)])

    def do_step(self, t: float, h: float) -> float | None:
        """Call ``obj.do_step(t, h)``.

        Parameters
        ----------
        t : float
            Time (s).
        h : float
            Step (s).

        Returns
        -------
        float, optional
        """
        return self.obj.do_step(t, h)

    def get_time(self) -> float | None:
        """``obj.time`` (called if it is a method), or None if the object has none.

        Returns
        -------
        float, optional
        """
        if not self._has_time:
            return None
        clock = self.obj.time
        return clock() if callable(clock) else clock

    def save_state(self) -> Any:
        """Call ``obj.get_state()``.

        Returns
        -------
        object
        """
        if not self._has_state:
            return super().save_state()
        return self.obj.get_state()

    def restore_state(self, state: Any) -> None:
        """Call ``obj.set_state(state)``.

        Parameters
        ----------
        state : object
            A state from :meth:`save_state`.
        """
        if not self._has_state:
            return super().restore_state(state)
        self.obj.set_state(state)

    def terminate(self) -> None:
        """Call ``obj.terminate()`` if the object has it."""
        fn = getattr(self.obj, "terminate", None)
        if callable(fn):
            fn()
