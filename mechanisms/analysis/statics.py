"""Statics of a machine at many poses, read from its bond graph.

The machine built for mode ``extensions`` is a bond graph whose inputs are the
cylinders' extension rates. At a pose (its displacement states) the compiled model
gives, in one batched call per question (:func:`bondgraph.batch.evaluate_many`):

* with every rate zero: the **holding forces** — the effort on each cylinder's drive
  bond, the force that holds the front against gravity (+ pushing) — and the
  **chassis reactions**, the efforts on the zero-velocity sources that pin the front
  to the chassis (from which the front's force and moment on the base machine);
* with one cylinder's rate at 1 m/s: the **velocity of any point** per unit extension
  rate, the flows on the bonds at that point's ports.

Each call computes only the outputs it reads (``evaluate_many(..., outputs=...)``, code
made for them from the model's: :mod:`bondgraph.selective`, the same numbers). The holding
forces and reactions read the linkage's blocks (all of them on the shipped machines); a
point's velocity may read none, so a pose where the first call fails (a singular block)
is NaN in every array, as a full evaluation of the model gives.

The virtual-work relations that turn these into tool forces and lift capacities
(:mod:`.digging`, :mod:`.lifting`) are written once, for any machine: a
force ``F`` at point ``P`` needs ``−F·∂P/∂s_i`` more from cylinder ``i``.

Examples
--------
>>> import numpy as np
>>> from mechanisms.machine import Machine, DATA
>>> m = Machine.from_file(DATA / "excavator.toml", mode="extensions")
>>> st = FrontStatics(m)
>>> X = m.model.model.initial_state(m.start_pose.states())[None, :]
>>> res = st.evaluate(X, points=[("bucket", "Q")])
>>> round(float(res.holding["boom"][0]))                   # N, the boom cylinders push
149242
>>> round(float(res.force_y[0]))                           # the front's weight on the chassis, N
-27983
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from bondgraph.batch import evaluate_many
from bondgraph.errors import ParameterError

__all__ = ["FrontStatics", "StaticsAt", "cylinder_force_limits"]


@dataclass
class StaticsAt:
    """What :meth:`FrontStatics.evaluate` returns (arrays over the poses, SI units).

    Attributes
    ----------
    holding : dict
        Function → cylinder force that holds the pose at rest (N, + pushing).
    force_x, force_y : ndarray
        Net force of the front on the chassis (N).
    moment : ndarray
        Moment of the front's forces on the chassis about the world origin (N·m,
        counter-clockwise positive).
    velocity : dict
        ``(part, point)`` → function → ``(vx, vy)``: the point's velocity per unit
        extension rate of that function's cylinder, the others held (m per m).

    Examples
    --------
    >>> import numpy as np
    >>> st = StaticsAt({"lift": np.array([1e4])}, np.array([0.0]), np.array([-2e4]),
    ...                np.array([-3e4]))
    >>> st.moment_about(1.5, 0.0)          # −3e4 − 1.5·(−2e4)
    array([0.])
    """

    holding: dict[str, np.ndarray]
    force_x: np.ndarray
    force_y: np.ndarray
    moment: np.ndarray
    velocity: dict[tuple[str, str], dict[str, tuple[np.ndarray, np.ndarray]]] = field(default_factory=dict)

    def moment_about(self, x: float, y: float) -> np.ndarray:
        """Moment (N·m, counter-clockwise positive) of the front's forces on the chassis
        about the point ``(x, y)``.

        Parameters
        ----------
        x, y : float

        Returns
        -------
        ndarray
        """
        return self.moment - (x * self.force_y - y * self.force_x)


class FrontStatics:
    """Holding forces, chassis reactions and point velocities from a machine's bond graph.

    Parameters
    ----------
    machine : Machine
        Built for mode ``extensions`` (causal formulation): its inputs are the rates.

    Raises
    ------
    ParameterError
        A machine of another mode or formulation.

    Examples
    --------
    At rest the front rests on the chassis with its whole weight — the masses of the
    levers and of the cylinders' rods (two boom cylinders) in the file:

    >>> import numpy as np
    >>> from mechanisms.machine import DATA
    >>> from mechanisms.analysis import Study
    >>> study = Study(DATA / "excavator.toml")
    >>> st = study.statics
    >>> m = st.machine
    >>> X = m.model.model.initial_state(m.start_pose.states())[None, :]
    >>> res = st.evaluate(X)
    >>> parts = [p.values for p in study.description.parts.values()]
    >>> mass = sum(v["mass"] if v.get("mass") is not None else v["count"] * (v["rod_mass"] + v["barrel_mass"])
    ...            for v in parts)
    >>> mass, bool(abs(res.force_y[0] + mass * 9.81) < 1e-6 * mass * 9.81)
    (2852.5, True)
    >>> st.evaluate(X, functions=["stick"])
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: statics of the front: 1 problem
      - function 'stick': not a function of 'excavator' (boom, arm, bucket)
    """

    def __init__(self, machine):
        if machine.mode != "extensions" or machine.formulation != "causal":
            raise ParameterError(f"statics need the machine built for mode 'extensions' (causal); "
                                 f"found mode {machine.mode!r}, formulation {machine.formulation!r}")
        self.machine = machine
        mm = machine.model
        self.model = mm.model
        self.root = machine.mechanism.name
        inputs = self.model.input_names
        self.rate_index = {f: inputs.index(f"{c}.rate") for f, c in machine.cylinder_of.items()}
        self.drive = {f: f"e[{mm.drive_bond(c)}]" for f, c in machine.cylinder_of.items()}
        g = self.model.graph
        self._point_outputs: dict[tuple[str, str], tuple[str, str]] = {}
        self.pins = []   # (x, y, axis, output name)
        for (part, pt), at in machine.mechanism.fixed.items():
            for ax in ("x", "y"):
                src = f"{self.root}/h_{part}_{pt}_fix_{ax}"
                k = next(k for u, v, k in g.out_edges(src, keys=True))
                self.pins.append((at[0], at[1], ax, f"e[{k}]"))

    def point_outputs(self, part: str, point: str) -> tuple[str, str]:
        """Names of the outputs carrying a point's x and y velocity (flows at its ports).

        Parameters
        ----------
        part, point : str

        Returns
        -------
        (str, str)

        Raises
        ------
        ParameterError
            Not a point of the machine (its points are listed).
        """
        key = (part, point)
        if key not in self._point_outputs:
            self._point_outputs[key] = self._find_point_outputs(part, point)
        return self._point_outputs[key]

    def _find_point_outputs(self, part: str, point: str) -> tuple[str, str]:
        mech = self.machine.mechanism
        if part not in mech.parts or point not in mech.parts[part].points:
            known = ", ".join(f"{p}.{q}" for p, P in mech.parts.items() for q in P.points)
            raise ParameterError(f"point {part}.{point}: not a point of {self.root!r} ({known})")
        g = self.model.graph
        out = []
        for ax in ("x", "y"):
            target = f"{self.root}/{part}/{mech.parts[part].ports[f'{point}.{ax}'].target}"
            inside = f"{self.root}/{part}/"
            k = next((k for u, v, k in g.edges(keys=True)
                      if (u == target and not v.startswith(inside)) or (v == target and not u.startswith(inside))),
                     None)
            if k is None:
                raise ParameterError(f"point {part}.{point}: no bond at its {ax} port")
            out.append(f"f[{k}]")
        return out[0], out[1]

    def evaluate(self, X: np.ndarray, points: Sequence[tuple[str, str]] = (),
                 functions: Sequence[str] | None = None) -> StaticsAt:
        """Holding forces, chassis reactions and, for ``points``, velocities per unit rate
        of each function in ``functions`` (default all), at the states ``X`` (N rows).

        Parameters
        ----------
        X : ndarray, shape (N, n_states)
            States of the poses (:meth:`~.kinematics.BoxKinematics.states`).
        points : sequence of (str, str)
        functions : sequence of str, optional

        Returns
        -------
        StaticsAt

        Raises
        ------
        ParameterError
            An unknown function, a point that is not a ``(part, point)`` pair or not a point
            of the machine.
        """
        functions = list(self.machine.functions if functions is None else functions)
        problems = [f"function {f!r}: not a function of {self.root!r} ({', '.join(self.machine.functions)})"
                    for f in functions if f not in self.rate_index]
        problems += [f"point {p!r}: expected a (part, point) pair such as ('bucket', 'Q')"
                     for p in points if not (isinstance(p, tuple) and len(p) == 2
                                             and all(isinstance(x, str) for x in p))]
        if problems:
            raise ParameterError(problems, subject="statics of the front")
        sysm = self.model.system
        sel = list(self.drive.values()) + [p[3] for p in self.pins]
        Y, status = evaluate_many(sysm, X, outputs=sel, status=True)
        failed = status != 0        # the linkage cannot be solved at this pose: NaN everywhere
        nf = len(self.drive)
        holding = {f: Y[:, i] for i, f in enumerate(self.drive)}
        fx = np.zeros(len(X))
        fy = np.zeros(len(X))
        mz = np.zeros(len(X))
        for j, (x, y, ax, _) in enumerate(self.pins):
            f_on_chassis = -Y[:, nf + j]      # the source's effort is the chassis's force on the front
            if ax == "x":
                fx += f_on_chassis
                mz -= y * f_on_chassis
            else:
                fy += f_on_chassis
                mz += x * f_on_chassis
        res = StaticsAt(holding, fx, fy, mz)
        if points:
            names = {p: self.point_outputs(*p) for p in points}
            flat = [n for pair in names.values() for n in pair]
            for f in functions:
                u = np.zeros(len(self.model.input_names))
                u[self.rate_index[f]] = 1.0
                V = evaluate_many(sysm, X, u, None, outputs=flat)
                V[failed] = np.nan
                for i, p in enumerate(points):
                    res.velocity.setdefault(p, {})[f] = (V[:, 2 * i], V[:, 2 * i + 1])
        return res


def cylinder_force_limits(areas: tuple[float, float], relief: float, tank: float = 0.0) -> tuple[float, float]:
    """Largest pushing and pulling force of a cylinder (N, both ≥ 0 when possible).

    Pushing: the cap side at the relief pressure, the rod side at tank pressure
    (``p_r·A_cap − p_t·A_rod``); pulling: the rod side at relief, the cap side at tank
    (``p_r·A_rod − p_t·A_cap``). ``areas`` are ``(A_cap, A_rod)`` of all the function's
    cylinders together.

    Parameters
    ----------
    areas : (float, float)
        m².
    relief, tank : float
        Pa.

    Returns
    -------
    (float, float)
        N.

    Examples
    --------
    >>> cylinder_force_limits((0.01, 0.006), 300e5)
    (300000.0, 180000.0)
    """
    a_cap, a_rod = areas
    return relief * a_cap - tank * a_rod, relief * a_rod - tank * a_cap
