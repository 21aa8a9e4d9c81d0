"""The :class:`Subsystem` interface: one solver that runs on its own.

A co-simulation couples subsystems that each advance their own state. The master
talks to every subsystem through the hook methods of :class:`Subsystem` only, in
this order::

    setup(t0, t_end, step)                  once, before the first step
    set_inputs(t, values, derivatives)      inputs valid from t on (a polynomial)
    get_outputs()                           outputs at the subsystem's current time
    get_output_derivatives(order)           optional, for a smooth start-up
    do_step(t, h) -> None | time reached    advance from t to t + h
    get_time() -> float | None              optional: the subsystem's own clock
    save_state() / restore_state(state)     optional, for rollback
    terminate()                             once, at the end (also after an abort)

Inputs are handed over as a truncated Taylor polynomial around ``t``:
``u(t + tau) = values + derivatives[0]*tau + derivatives[1]*tau**2/2``. A subsystem
declares how many derivative orders it uses (:attr:`Subsystem.input_derivative_order`);
one that uses none sees its inputs held constant over its step.

Writing an adapter for a state-space model
------------------------------------------
A model with a state vector ``x``, a right-hand side ``rhs(t, x, u)``, input setters and
output getters maps onto the hooks like this (see :class:`bondgraph.cosim.OdeSubsystem`
for a ready-made base that does exactly this with :func:`scipy.integrate.solve_ivp`):

* ``set_inputs``: store ``values`` and ``derivatives``; the right-hand side evaluates
  the input polynomial at its own time (``u(t + tau)``) and calls the model's input
  setters with it.
* ``do_step(t, h)``: integrate ``rhs`` from ``t`` to ``t + h`` with a maximum internal
  step no larger than the ``step`` given to ``setup``; keep the new state.
* ``get_outputs``: call the output getters at the current state and current inputs (if
  an output depends on an input directly, declare ``direct_feedthrough=True``).
* ``get_output_derivatives(1)``: ``dy/dt = dg/dx * rhs + dg/du * du/dt``; return it if
  the model can (it gives the glue an exact start), otherwise leave the default.
* ``get_time``: return the model's own time (the solver's ``t``); the master compares
  it with the communication point after every step, so a stuck solver is caught.
* ``save_state``/``restore_state``: return/accept a copy of ``(t, x)``.

Examples
--------
>>> import numpy as np
>>> class Gain(Subsystem):
...     def __init__(self):
...         super().__init__("gain", inputs=[("u", "m")], outputs=[("y", "m")],
...                          direct_feedthrough=True)
...         self.u = np.zeros(1)
...     def set_inputs(self, t, values, derivatives):
...         self.u = values
...     def get_outputs(self):
...         return 2.0 * self.u
...     def do_step(self, t, h):
...         return None
>>> g = Gain()
>>> g.set_inputs(0.0, np.array([1.5]), np.zeros((0, 1)))
>>> g.get_outputs()
array([3.])
>>> g.input_names, g.output_names, g.can_save_state
(('u',), ('y',), False)
"""

from __future__ import annotations

import math
import re
import warnings
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np

from ..errors import BondGraphWarning, ParameterError

__all__ = ["Port", "Subsystem", "as_ports", "terminate_all"]

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Port:
    """One named input or output of a subsystem.

    Parameters
    ----------
    name : str
        Identifier, unique among the subsystem's inputs (or outputs).
    unit : str
        Unit as written by the user (``"m"``, ``"N"``, ``"Pa"``; ``"1"`` for none), as
        pint reads it or in the FMI/Modelica spelling (``"m3/s"``). Relations compare
        units with pint (:mod:`bondgraph.cosim.units`): ``"m*s^-1"`` is ``"m/s"``,
        ``"mm"`` feeds ``"m"`` scaled by 0.001, an unknown unit is an error.
    description : str, optional
        Free text shown in tables.

    Examples
    --------
    >>> Port("x", "m", "rod position")
    Port(name='x', unit='m', description='rod position')
    """

    name: str
    unit: str
    description: str = ""


def as_ports(specs: Iterable[Port | Sequence[str]], what: str, owner: str) -> tuple[Port, ...]:
    """Turn ``Port`` objects or ``(name, unit[, description])`` tuples into ports.

    Parameters
    ----------
    specs : iterable of Port or tuple
        The port specifications.
    what : str
        ``"input"`` or ``"output"``, for messages.
    owner : str
        Subsystem name, for messages.

    Returns
    -------
    tuple of Port

    Raises
    ------
    ParameterError
        Listing every malformed or duplicated port.

    Examples
    --------
    >>> as_ports([("x", "m"), Port("v", "m/s")], "output", "mass")
    (Port(name='x', unit='m', description=''), Port(name='v', unit='m/s', description=''))
    >>> as_ports([("x",)], "output", "mass")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: subsystem 'mass': 1 problem
      - output #0 ('x',): expected a Port or a (name, unit[, description]) tuple
    """
    ports: list[Port] = []
    problems: list[str] = []
    for i, spec in enumerate(specs):
        if isinstance(spec, Port):
            port = spec
        elif (isinstance(spec, (tuple, list)) and 2 <= len(spec) <= 3
              and all(isinstance(s, str) for s in spec)):
            port = Port(*spec)
        else:
            problems.append(f"{what} #{i} {spec!r}: expected a Port or a "
                            "(name, unit[, description]) tuple")
            continue
        if not _NAME.match(port.name):
            problems.append(f"{what} {port.name!r}: expected an identifier "
                            "(letters, digits, underscores)")
        if not isinstance(port.unit, str) or not port.unit.strip():
            problems.append(f"{what} {port.name!r}: found unit {port.unit!r}, expected a "
                            "non-empty unit string ('1' for dimensionless)")
        ports.append(port)
    seen: set[str] = set()
    for port in ports:
        if port.name in seen:
            problems.append(f"{what} {port.name!r}: declared twice")
        seen.add(port.name)
    if problems:
        raise ParameterError(problems, subject=f"subsystem {owner!r}")
    return tuple(ports)


class Subsystem(ABC):
    """Abstract base of everything the co-simulation master can step.

    Parameters
    ----------
    name : str
        Identifier of the subsystem (used in relations as ``"name.port"``).
    inputs, outputs : iterable of Port or (name, unit[, description]) tuples
        The signals the subsystem reads and produces.
    direct_feedthrough : bool
        True if some output depends on an input at the same instant (an algebraic
        part, e.g. a spring force computed from the other side's position). The master
        then re-reads this subsystem's outputs after writing its inputs at each
        communication point. Say it explicitly: there is no default guess.
    max_step : float or None, optional
        The largest internal step this subsystem would take on its own (a fixed-step
        solver's step). The time manager refuses a run whose communication step for
        this subsystem is smaller than this. None: the subsystem adapts its internal
        step to the ``step`` passed to :meth:`setup`.

    Attributes
    ----------
    input_derivative_order : int
        Number of input derivative orders :meth:`set_inputs` uses (0, 1 or 2).
    output_derivative_order : int
        Number of output derivative orders :meth:`get_output_derivatives` returns.
    failure_kind : str
        Error-catcher kind used when a hook of this subsystem raises
        (``"step_failed"``; FMU adapters use ``"fmu_status"``).

    Raises
    ------
    ParameterError
        A bad name, ports, ``max_step`` or ``direct_feedthrough`` (all listed).

    Examples
    --------
    A source of ``sin t`` (no inputs), written on the hooks and coupled to a mass:

    >>> import math
    >>> from bondgraph.cosim import StateSpaceSubsystem, cosimulate
    >>> class Sine(Subsystem):
    ...     def __init__(self):
    ...         super().__init__("force", inputs=[], outputs=[("F", "N")],
    ...                          direct_feedthrough=False)
    ...         self.t = 0.0
    ...     def setup(self, t0, t_end, step):
    ...         self.t = t0
    ...     def set_inputs(self, t, values, derivatives):
    ...         pass
    ...     def get_outputs(self):
    ...         return np.array([math.sin(self.t)])
    ...     def do_step(self, t, h):
    ...         self.t = t + h
    >>> mass = StateSpaceSubsystem("mass", A=[[0, 1], [0, 0]], B=[[0], [1]], C=[[0, 1]],
    ...                            D=[[0]], x0=[0, 0], inputs=[("F", "N")],
    ...                            outputs=[("v", "m/s")])
    >>> res = cosimulate([Sine(), mass], ["force.F -> mass.F"], step=0.01, end=1.0)
    >>> bool(abs(res["mass.v"][-1] - (1 - math.cos(1.0))) < 1e-4)     # v = 1 − cos t, O(H²)
    True
    >>> Subsystem.__init__(Sine(), "my force", [], [], direct_feedthrough="no")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: subsystem 'my force': 2 problems
      - name 'my force': expected an identifier (letters, digits, underscores; no '.')
      - direct_feedthrough: found 'no', expected True or False
    """

    input_derivative_order: int = 0
    output_derivative_order: int = 0
    failure_kind: str = "step_failed"

    def __init__(self, name: str, inputs: Iterable[Port | Sequence[str]],
                 outputs: Iterable[Port | Sequence[str]], *, direct_feedthrough: bool,
                 max_step: float | None = None):
        problems = []
        if not isinstance(name, str) or not _NAME.match(name):
            problems.append(f"name {name!r}: expected an identifier (letters, digits, "
                            "underscores; no '.')")
        if max_step is not None and not (isinstance(max_step, (int, float))
                                         and math.isfinite(max_step) and max_step > 0):
            problems.append(f"max_step: found {max_step!r}, expected a positive time in s "
                            "or None")
        if not isinstance(direct_feedthrough, bool):
            problems.append(f"direct_feedthrough: found {direct_feedthrough!r}, expected "
                            "True or False")
        if problems:
            raise ParameterError(problems, subject=f"subsystem {name!r}")
        self._name = name
        self._inputs = as_ports(inputs, "input", name)
        self._outputs = as_ports(outputs, "output", name)
        both = sorted({p.name for p in self._inputs} & {p.name for p in self._outputs})
        if both:
            raise ParameterError([f"port {n!r}: declared both as input and as output; expected "
                                  "distinct names" for n in both], subject=f"subsystem {name!r}")
        self._feedthrough = direct_feedthrough
        self._max_step = None if max_step is None else float(max_step)

    # ------------------------------------------------------------------ description
    @property
    def name(self) -> str:
        """Identifier used in relations."""
        return self._name

    @property
    def inputs(self) -> tuple[Port, ...]:
        """Input ports, in the order of the ``values`` vector."""
        return self._inputs

    @property
    def outputs(self) -> tuple[Port, ...]:
        """Output ports, in the order of :meth:`get_outputs`."""
        return self._outputs

    @property
    def input_names(self) -> tuple[str, ...]:
        """Names of the inputs."""
        return tuple(p.name for p in self._inputs)

    @property
    def output_names(self) -> tuple[str, ...]:
        """Names of the outputs."""
        return tuple(p.name for p in self._outputs)

    @property
    def direct_feedthrough(self) -> bool:
        """True if an output depends on an input at the same instant."""
        return self._feedthrough

    @property
    def max_step(self) -> float | None:
        """Largest internal step the subsystem takes on its own (None: adapts)."""
        return self._max_step

    @property
    def can_save_state(self) -> bool:
        """True if :meth:`save_state` and :meth:`restore_state` are implemented."""
        cls = type(self)
        return (cls.save_state is not Subsystem.save_state
                and cls.restore_state is not Subsystem.restore_state)

    def __repr__(self) -> str:
        ins = ", ".join(f"{p.name} [{p.unit}]" for p in self._inputs)
        outs = ", ".join(f"{p.name} [{p.unit}]" for p in self._outputs)
        return f"<{type(self).__name__} {self._name!r}: in ({ins}) -> out ({outs})>"

    # ------------------------------------------------------------------ hooks
    def setup(self, t0: float, t_end: float, step: float) -> None:
        """Prepare a run from ``t0`` to ``t_end`` taking steps of ``step`` seconds.

        Override to initialise solvers; the internal step must not exceed ``step``.
        The default does nothing.

        Parameters
        ----------
        t0 : float
            Start time (s).
        t_end : float
            End time (s).
        step : float
            Communication step (s).
        """

    @abstractmethod
    def set_inputs(self, t: float, values: np.ndarray, derivatives: np.ndarray) -> None:
        """Receive the inputs valid from time ``t`` on.

        Parameters
        ----------
        t : float
            Time at which ``values`` hold (the start of the coming step).
        values : ndarray, shape (n_inputs,)
            Input values at ``t``.
        derivatives : ndarray, shape (k, n_inputs)
            Time derivatives of the inputs at ``t`` (row j is the (j+1)-th derivative),
            ``k <= input_derivative_order``; derivatives beyond ``k`` are zero.
            The arrays belong to the master: copy them if they must outlive the call.
        """

    @abstractmethod
    def get_outputs(self) -> np.ndarray:
        """Return the outputs, shape (n_outputs,), at the subsystem's current time."""

    @abstractmethod
    def do_step(self, t: float, h: float) -> float | None:
        """Advance from ``t`` to ``t + h`` with the inputs last set.

        Afterwards :meth:`get_outputs` gives the outputs at ``t + h``; an output with
        direct feedthrough uses the input polynomial evaluated at ``t + h``.

        Returns
        -------
        float or None
            None if the whole step was taken; otherwise the time actually reached
            (a step that ended early is reported by the master as a time-stamp
            mismatch). Raise an exception if the step failed.

        Parameters
        ----------
        t : float
            Time (s).
        h : float
            Step (s).
        """

    def get_time(self) -> float | None:
        """The subsystem's own simulation time, or None if it cannot tell.

        Called after :meth:`setup` and after every communication step; the master
        compares it with the communication point and reports a difference (a stuck or
        runaway subsystem) as a ``time_mismatch``. The default returns None: the master
        then stamps the outputs itself. Adapters that know their time override it.
        """
        return None

    def get_output_derivatives(self, order: int) -> np.ndarray:
        """Return the first ``order`` time derivatives of the outputs.

        Only called when ``order <= output_derivative_order``.

        Returns
        -------
        ndarray, shape (order, n_outputs)

        Parameters
        ----------
        order : int
            Number of derivative orders.
        """
        raise NotImplementedError(
            f"subsystem {self._name!r} declares output_derivative_order="
            f"{self.output_derivative_order} but does not implement get_output_derivatives")

    def save_state(self) -> Any:
        """Return an opaque copy of the full state (for rollback). Optional."""
        raise NotImplementedError(f"subsystem {self._name!r} cannot save its state")

    def restore_state(self, state: Any) -> None:
        """Return to a state produced by :meth:`save_state`. Optional.

        Parameters
        ----------
        state : object
            A state from :meth:`save_state`.
        """
        raise NotImplementedError(f"subsystem {self._name!r} cannot restore a state")

    def terminate(self) -> None:
        """Release resources at the end of a run (also after an abort)."""


def terminate_all(subs: Sequence[Subsystem]) -> None:
    """Call every subsystem's ``terminate``, even when one of them raises.

    A ``terminate`` that raises does not stop the others; it is reported as a
    :class:`~bondgraph.errors.BondGraphWarning` naming the subsystem and the error.

    Parameters
    ----------
    subs : sequence of Subsystem

    Warns
    -----
    BondGraphWarning
        For each ``terminate`` that raised.

    Examples
    --------
    >>> import warnings
    >>> from bondgraph.cosim import examples
    >>> class Stubborn:
    ...     name = "stubborn"
    ...     def terminate(self):
    ...         raise OSError("file busy")
    >>> spring = examples.b1_spring()
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     terminate_all([Stubborn(), spring])
    >>> str(caught[0].message)
    "subsystem 'stubborn': terminate() raised OSError: file busy"
    """
    for s in subs:
        try:
            s.terminate()
        except Exception as exc:  # noqa: BLE001 - termination must reach every subsystem
            warnings.warn(f"subsystem {s.name!r}: terminate() raised {type(exc).__name__}: "
                          f"{exc}", BondGraphWarning, stacklevel=2)
