"""The excavator as a :class:`~mechanisms.machine.Machine` of its description file.

:class:`Excavator` is a :class:`~mechanisms.machine.Machine` built from
``mechanisms/data/excavator.toml`` (or another file of the same machine) whose
poses can be given as the body angles (θ1, θ2, θ3): boom absolute, arm relative to
the boom, bucket relative to the arm, in rad — the angles ``boom``, ``arm`` and
``bucket`` of the file's ``[outputs.angles]``.

Examples
--------
>>> exc = Excavator(mode="extensions")
>>> run = exc.run(Cycle.default("extensions"), t_end=0.5, progress=False)
>>> tab = run.table()
>>> round(float(tab["boom_length"][0]), 3), round(float(tab["boom_angle"][0]), 4)
(3.668, 0.8727)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from bondgraph.errors import ParameterError

from ..assembly import Pose
from ..machine import DATA, Machine, MachineDescription, MachineRun
from ..machine.cycle import Cycle as _Cycle

__all__ = ["Excavator", "ExcavatorRun", "Cycle", "DEFAULT_FILE", "FUNCTIONS", "CYLINDERS",
           "pose_from_angles", "body_angles"]

DEFAULT_FILE = DATA / "excavator.toml"
FUNCTIONS = ("boom", "arm", "bucket")
CYLINDERS = ("boom_cylinder", "arm_cylinder", "bucket_cylinder")
#: a run of the excavator is a generic machine run
ExcavatorRun = MachineRun


class Cycle(_Cycle):
    """A cycle of the excavator's three functions (``boom``, ``arm``, ``bucket``).

    Parameters
    ----------
    mode : {"extensions", "forces", "valves"}
    time : sequence of float
    values : mapping
        Function → values (m, N or valve command).
    functions : sequence of str
    source : str
        Where it comes from (for messages).

    Raises
    ------
    ParameterError
        As :class:`mechanisms.machine.Cycle`.

    Examples
    --------
    >>> Cycle.default("valves").source
    'dig_lift_dump_valves.csv'
    >>> c = Cycle("extensions", [0.0, 1.0], {"boom": [3.0, 3.2], "arm": [3.0, 3.0], "bucket": [2.6, 2.6]})
    >>> c.end, c.functions
    (1.0, ('boom', 'arm', 'bucket'))
    """

    def __init__(self, mode: str, time, values: Mapping[str, Any], functions: Sequence[str] = FUNCTIONS,
                 source: str = "arrays"):
        super().__init__(mode, time, values, functions, source)

    @classmethod
    def from_csv(cls, path, mode: str, functions: Sequence[str] = FUNCTIONS) -> "Cycle":
        """Read a cycle file (a ``time`` column and one per function).

        Parameters
        ----------
        path : str or pathlib.Path
        mode : {"extensions", "forces", "valves"}
        functions : sequence of str

        Returns
        -------
        Cycle

        Raises
        ------
        ParameterError
            Errors name the file, the row and the column.

        Examples
        --------
        >>> import pathlib, tempfile
        >>> path = Cycle.default("valves").to_csv(pathlib.Path(tempfile.mkdtemp()) / "c.csv")
        >>> back = Cycle.from_csv(path, "valves")
        >>> back.end, type(back).__name__
        (10.0, 'Cycle')
        """
        c = _Cycle.from_csv(path, mode, functions)
        return cls(c.mode, c.time, c.values, c.functions, c.source)

    @classmethod
    def default(cls, mode: str) -> "Cycle":
        """The 10 s dig–lift–dump of the reference file (forces: from an inverse-dynamics run).

        Parameters
        ----------
        mode : {"extensions", "forces", "valves"}

        Returns
        -------
        Cycle
        """
        from ..machine.machine import forces_from_lengths

        desc = MachineDescription.load(DEFAULT_FILE)
        if mode == "forces":
            c = forces_from_lengths(desc, "dig_lift_dump")
        else:
            c = _Cycle.from_csv(desc.cycle_file("dig_lift_dump", mode), mode, FUNCTIONS)
        return cls(c.mode, c.time, c.values, c.functions, c.source)


class Excavator(Machine):
    """The excavator built for one mode.

    Parameters
    ----------
    params : path, optional
        A machine file of this excavator (default: the reference machine).
    overrides : dict, optional
        Dotted keys with units (``{"bucket.mass": "900 kg"}``).
    mode : {"extensions", "forces", "valves"}
    formulation : {"causal", "stiff", "cartesian"}
    formulation_options : dict, optional

    Attributes
    ----------
    build_time : float
        Seconds to read the file and build the model.

    Raises
    ------
    ParameterError
        Bad overrides, an unknown mode, a formulation that cannot take the mode.

    Examples
    --------
    >>> Excavator(mode="valves", formulation="stiff")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: formulation 'stiff' with mode 'valves': the hydraulic circuit couples to the causal graph's cylinder ports; expected formulation 'causal' (the reference formulations take modes extensions and forces)
    """

    def __init__(self, params: str | Path | None = None, overrides: Mapping[str, Any] | None = None,
                 mode: str = "valves", *, formulation: str = "causal",
                 formulation_options: Mapping[str, Any] | None = None):
        import time

        t0 = time.perf_counter()
        desc = MachineDescription.load(params or DEFAULT_FILE, overrides)
        super().__init__(desc, mode, formulation=formulation, formulation_options=formulation_options)
        self.build_time = time.perf_counter() - t0

    def pose(self, theta: tuple[float, float, float] | Mapping[str, float] | None = None) -> Pose:
        """The pose at body angles (θ1, θ2, θ3) in rad — boom absolute, arm relative to the
        boom, bucket relative to the arm — or the start pose; a mapping is passed on to
        :meth:`Machine.pose`.

        Parameters
        ----------
        theta : (float, float, float) or mapping, optional

        Returns
        -------
        Pose

        Raises
        ------
        ParameterError
            Not three angles or a mapping.
        AssemblyError
            No pose there, or a cylinder outside its stroke (named).
        """
        if theta is None or isinstance(theta, Mapping):
            return super().pose(theta)
        if isinstance(theta, (str, bytes)) or not hasattr(theta, "__len__") or len(theta) != 3:
            raise ParameterError(f"body angles {theta!r}: expected (θ1, θ2, θ3) in rad — boom absolute, arm "
                                 "relative to the boom, bucket relative to the arm — or a mapping of targets")
        t1, t2, t3 = theta
        return super().pose({"boom": t1, "arm": t2, "bucket": t3})

    def run(self, cycle=None, t_end=None, *, theta0: tuple[float, float, float] | None = None, **kw):
        """Run a cycle (default the dig–lift–dump); ``theta0`` starts modes forces/valves at
        other body angles (rad).

        Parameters
        ----------
        cycle : Cycle or str, optional
        t_end : float, optional
        theta0 : (float, float, float), optional
        **kw
            Options of :meth:`mechanisms.machine.Machine.run`.

        Returns
        -------
        MachineRun
        """
        if theta0 is not None:
            kw["start"] = self.pose(theta0)
        return super().run(cycle, t_end, **kw)


def pose_from_angles(exc: Excavator, theta1: float, theta2: float, theta3: float) -> Pose:
    """The pose at body angles: θ1 the boom's absolute angle, θ2 the arm's angle relative to
    the boom and θ3 the bucket's relative to the arm (rad, counter-clockwise positive), on
    the start pose's assembly branch of the bucket linkage.

    Parameters
    ----------
    exc : Excavator
    theta1, theta2, theta3 : float

    Returns
    -------
    Pose

    Raises
    ------
    AssemblyError
        No pose there, or a cylinder outside its stroke.

    Examples
    --------
    >>> exc = Excavator(mode="extensions")
    >>> pose = pose_from_angles(exc, 0.7, -1.2, 0.0)
    >>> [round(a, 12) for a in body_angles(pose)], [round(pose.length(c), 3) for c in CYLINDERS]
    ([0.7, -1.2, 0.0], [3.515, 2.787, 3.166])
    >>> pose_from_angles(exc, 0.7, -1.2, -1.0)
    Traceback (most recent call last):
    ...
    bondgraph.errors.AssemblyError: pose of excavator: 1 problem
      - bucket: cylinder bucket_cylinder at 3.2... m, outside its stroke 2.300 … 3.200 m
    """
    return exc.pose((theta1, theta2, theta3))


def body_angles(pose: Pose) -> tuple[float, float, float]:
    """(θ1, θ2, θ3): boom absolute, arm and bucket relative (rad), from a pose.

    Parameters
    ----------
    pose : Pose

    Returns
    -------
    (float, float, float)

    Examples
    --------
    The reference start pose: boom at 50°, arm −80° and bucket +20° relative:

    >>> import math
    >>> from mechanisms.machine import Machine
    >>> start = Machine.from_file(DEFAULT_FILE, mode="extensions").start_pose
    >>> [round(math.degrees(a), 6) for a in body_angles(start)]
    [50.0, -80.0, 20.0]
    """
    t1, ta, tb = pose.angle("boom"), pose.angle("arm"), pose.angle("bucket")
    return t1, ta - t1, tb - ta
