"""The machine description file: TOML with units → a checked :class:`MachineDescription`.

One file describes one planar hydraulic linkage. Every value carries its unit;
unknown keys, missing keys, wrong dimensions and values out of range are all
reported at once, each with its key and its line in the file. The format
(sections in any order; see ``mechanisms/data/*.toml`` for complete machines)::

    [machine]                      # name, gravity, ground level, default cycle, sources
    name = "excavator"
    gravity = "9.81 m/s^2"
    ground = "-1.70 m"             # optional: y of the ground (plots, "tip below ground")
    default_cycle = "dig_lift_dump"
    kind = "excavator"             # optional: excavator (default) | loader | crane (the standards)

    [boom]                         # a part: any other table with a `type`
    type = "body"                  # body | lever | cylinder
    mass = "1307 kg"
    inertia = "8060 kg*m^2"        # about the centre of gravity
    cog = ["3.44 m", "0.65 m"]     # in the part frame
    points.C = ["Rt", "0 m", "0 m"]    # hinge points: causal port class, x, y (part frame)
    points.B = ["Pd", "2.85 m", "1.18 m"]

    [boom_cylinder]
    type = "cylinder"
    function = "boom"              # read-outs are named by function: boom_force, boom_cap_pressure
    count = 2                      # identical cylinders in parallel (one part, doubled areas)
    bore = "135 mm"
    rod = "50 mm"
    stroke = "1.25 m"
    retracted = "2.48 m"           # pin to pin
    rod_mass = "10 kg"             # per cylinder; barrel_mass, rod_cog, barrel_cog optional
    end_stop.stiffness = "1e9 N/m" # end stops act in every mode (forces and valves)

    [chassis]                      # parts' Rt points pinned to the chassis, world frame:
    "boom.C" = ["-0.164 m", "1.428 m"] # x forward (toward the tool: reach, radii), y up

    [hinges]                       # "part.point" = "part.point"
    "boom_cylinder.B" = "boom.B"

    [outputs]
    points.tip = "bucket.Q"        # → tip_x, tip_y
    angles.arm = "arm - boom"      # → arm_angle (relative); default: every body, absolute

    [start]                        # one target per cylinder: a cylinder length or an angle
    boom = "50 deg"
    guess.rocker = "8 deg"         # the assembly branch

    [payloads.soil]                # optional point masses on bodies (run-time parameters)
    part = "bucket"
    at = ["0.5 m", "-0.5 m"]
    mass = "0 kg"

    [limits]                       # optional joint ranges of [outputs.angles] / parts
    boom = ["-20 deg", "60 deg"]

    [circuit]                      # optional: the hydraulic circuit (mode "valves")
    type = "fixed"                 # a registered circuit builder (mechanisms.machine.circuits)

    [base]                         # optional: the base machine, for tipping (needs ground)
    tipping_line = "1.83 m"        # x of the front tipping line at ground level
    rear_tipping_line = "-1.83 m"  # optional: x of the rear tipping line
    side_tipping_line = "1.30 m"   # optional: swing axis to the side tipping line (over-side lift)
    track_height = "0.92 m"        # optional: crawler tracks (drawn and checked in the chart)
    [base.masses.counterweight]    # any number of named masses of the base, world frame
    mass = "3800 kg"
    cog = ["-2.35 m", "0.15 m"]
    [base.masses.undercarriage]
    mass = "7600 kg"
    cog = ["0 m", "-1.25 m"]
    swings = false                 # stays put when the upper structure swings (over-side lift)

    [cycles.dig_lift_dump]         # named cycles: CSV files next to the machine file
    extensions = "dig_lift_dump_lengths.csv"
    valves = "dig_lift_dump_valves.csv"

Masses, inertias, bores, rod diameters, payload masses and gravity are
*run-time parameters* of a compiled model (:data:`RUNTIME_KEYS`): changing them
reuses the compiled code. Geometry (points, centres of gravity, strokes) and
everything else rebuilds.

Examples
--------
>>> d = MachineDescription.load(DATA / "excavator.toml")
>>> d.name, d.functions, d.cylinder_of["arm"]
('excavator', ('boom', 'arm', 'bucket'), 'arm_cylinder')
>>> d.values["boom.mass"], d.parts["boom"].points["B"]
(1307.0, ('Pd', (2.85, 1.18)))
>>> MachineDescription.load(DATA / "excavator.toml", overrides={"bucket.mas": "9 kg"})
Traceback (most recent call last):
...
bondgraph.errors.ParameterError: machine file excavator.toml: 1 problem
  - 'bucket.mas' (override): unknown key; did you mean 'bucket.mass'?
"""

from __future__ import annotations

import copy
import difflib
import math
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

from bondgraph.errors import BondGraphError, ParameterError, UnknownNameError
from components.cylinder_keys import END_STOP_KEYS, FRICTION_KEYS

from .quantities import to_si
from .tomlfile import TomlFile

__all__ = ["MachineDescription", "PartSpec", "DATA", "RESERVED", "RUNTIME_KEYS", "PORT_CLASSES",
           "MODES", "KINDS"]

#: the folder of the shipped machine files and their cycles (``excavator.toml``, ...)
DATA = Path(str(resources.files("mechanisms") / "data"))
MODES = ("extensions", "forces", "valves")
RESERVED = ("machine", "chassis", "hinges", "outputs", "start", "limits", "payloads", "circuit",
            "cycles", "base", "soil", "swing", "travel")
#: port classes as written in files (matched exactly; see :func:`_port_class`)
PORT_CLASSES = ("Rt", "Pd", "Li")
#: key suffixes (per part type) that are run-time parameters of the compiled model
RUNTIME_KEYS = {"body": ("mass", "inertia"), "lever": ("mass", "inertia"),
                "cylinder": ("rod_mass", "barrel_mass", "rod_inertia", "barrel_inertia", "bore", "rod"),
                "payload": ("mass",), "machine": ("gravity",)}
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


# --------------------------------------------------------------------------- schema
@dataclass(frozen=True)
class Key:
    """One key of a section: how to read it and what is expected."""

    name: str
    kind: str = "quantity"     # quantity | point | int | number | text | name | table | bool
    unit: str = ""
    required: bool = True
    default: Any = None
    check: str | None = None   # positive | nonneg | ge1
    doc: str = ""


_MACHINE = [
    Key("name", "name", doc="model name (letters, digits, _)"),
    Key("title", "text", required=False, doc="a title for plots and reports"),
    Key("description", "text", required=False, doc="free text: what the machine is"),
    Key("source", "text", required=False, doc="where the data come from"),
    Key("gravity", unit="m/s^2", check="nonneg", doc="acceleration of gravity along −y"),
    Key("ground", unit="m", required=False, doc="y of the ground level in the machine frame"),
    Key("default_cycle", "name", required=False, doc="the [cycles] entry a run uses by default"),
    Key("extends", "text", required=False,
        doc="another machine file (relative to this one) to start from: its tables, with this file's "
            "laid over them key by key"),
    Key("kind", "name", required=False, default="excavator",
        doc="what the machine is, for the design studies' standards: excavator (ISO 7135 working "
            "range, ISO 6015 tool forces, ISO 10567 lift capacity), loader (ISO 7131 dump height and "
            "reach, ISO 14397-2 breakout forces) or crane (working range and lift capacity only)"),
]
#: the values of ``[machine] kind``
KINDS = ("excavator", "loader", "crane")
_BODY = [
    Key("type", "text", doc='"body": a rigid part with one Rt, one Pd and any number of Li'),
    Key("mass", unit="kg", check="nonneg", doc="mass of the part"),
    Key("inertia", unit="kg*m^2", check="nonneg", doc="about the centre of gravity"),
    Key("cog", "point", unit="m", doc="centre of gravity [x, y] in the part frame"),
    Key("points", "table", doc="hinge points: NAME = [class, x, y], class Rt, Pd or Li, part frame"),
    Key("note", "text", required=False, doc="free text (sources, estimates)"),
]
_LEVER = [
    Key("type", "text", doc='"lever": a two-pin link, Rt at its root and Pr at its tip'),
    Key("length", unit="m", check="positive", doc="pin-to-pin length"),
    Key("mass", unit="kg", check="nonneg", doc="mass of the link"),
    Key("inertia", unit="kg*m^2", required=False, check="nonneg", doc="default m·L²/12"),
    Key("cog", "point", unit="m", required=False, doc="default mid-length"),
    Key("root", "name", required=False, default="R", doc="name of the root point (Rt)"),
    Key("tip", "name", required=False, default="P", doc="name of the tip point (Pr)"),
    Key("note", "text", required=False, doc="free text (sources, estimates)"),
]
_CHECK_WORD = {">0": "positive", ">=0": "nonneg"}
#: a cylinder's friction and end-stop tables: the keys the template takes (one schema)
_FRICTION = [Key(k, unit=u, required=False, default=d, check=_CHECK_WORD[r], doc=doc)
             for k, (u, r, d, doc) in FRICTION_KEYS.items()]
_END_STOP = [Key(k, unit=u, required=False, default=d, check=_CHECK_WORD[r], doc=doc)
             for k, (u, r, d, doc) in END_STOP_KEYS.items()]
_CYLINDER = [
    Key("type", "text", doc='"cylinder": a hydraulic cylinder, Rt at its base, Pr at its rod eye, '
                            "I its extension"),
    Key("function", "name", doc="the function it serves (boom, arm, ...): names read-outs and "
                                "cycle columns"),
    Key("count", "int", required=False, default=1, check="ge1",
        doc="identical cylinders in parallel (one part, areas × count)"),
    Key("bore", unit="m", check="positive", doc="piston diameter"),
    Key("rod", unit="m", check="positive", doc="rod diameter (less than the bore)"),
    Key("stroke", unit="m", check="positive", doc="stroke"),
    Key("retracted", unit="m", check="positive", doc="pin-to-pin length fully retracted"),
    Key("rod_mass", unit="kg", required=False, default=0.0, check="nonneg", doc="per cylinder"),
    Key("barrel_mass", unit="kg", required=False, default=0.0, check="nonneg", doc="per cylinder"),
    Key("rod_cog", unit="m", required=False, doc="behind the rod eye; default retracted/4"),
    Key("barrel_cog", unit="m", required=False, doc="from the base pin; default retracted/4"),
    Key("rod_inertia", unit="kg*m^2", required=False, default=0.0, check="nonneg",
        doc="rod about its centre of gravity, per cylinder"),
    Key("barrel_inertia", unit="kg*m^2", required=False, default=0.0, check="nonneg",
        doc="barrel about its centre of gravity, per cylinder"),
    Key("root", "name", required=False, default="A", doc="name of the base pin (Rt)"),
    Key("tip", "name", required=False, default="B", doc="name of the rod eye (Pr)"),
    Key("dead_volume_cap", unit="m^3", required=False, default=5e-5, check="positive",
        doc="cap-side oil volume at full retraction (mode valves)"),
    Key("dead_volume_rod", unit="m^3", required=False, default=5e-5, check="positive",
        doc="rod-side oil volume at full extension (mode valves)"),
    Key("leakage_internal", unit="m^3/s/Pa", required=False, default=0.0, check="nonneg",
        doc="cap ↔ rod leakage conductance (mode valves)"),
    Key("leakage_external", unit="m^3/s/Pa", required=False, default=0.0, check="nonneg",
        doc="each chamber → tank leakage conductance (mode valves)"),
    Key("friction", "table", required=False, doc="friction sub-table (mode valves)"),
    Key("end_stop", "table", required=False, doc="end-stop sub-table (modes forces and valves)"),
    Key("note", "text", required=False, doc="free text (sources, estimates)"),
]
_PAYLOAD = [Key("part", "name", doc="the body that carries it"),
            Key("at", "point", unit="m", doc="position [x, y] in that body's frame"),
            Key("mass", unit="kg", check="nonneg", doc="point mass (a run-time parameter)")]
_BASE = [
    Key("tipping_line", unit="m", doc="x of the front tipping line, at ground level"),
    Key("rear_tipping_line", unit="m", required=False, doc="x of the rear tipping line"),
    Key("side_tipping_line", unit="m", required=False, check="positive",
        doc="distance from the swing axis to the side tipping line, at ground level (a crawler: "
            "half the track gauge), for the lift capacity over the side"),
    Key("track_height", unit="m", required=False, check="positive",
        doc="height of the crawler tracks (the undercarriage drawn, and kept clear of, in the "
            "working-range chart: tracks from the rear to the front tipping line)"),
    Key("masses", "table", doc="named masses of the base machine: mass and cog (world frame)"),
    Key("note", "text", required=False, doc="free text (sources, estimates)"),
]
_BASE_MASS = [Key("mass", unit="kg", check="nonneg", doc="mass"),
              Key("cog", "point", unit="m", doc="centre of gravity [x, y], world frame"),
              Key("swings", "bool", required=False, default=True,
                  doc="false for a mass that stays with the undercarriage when the upper structure "
                      "swings (the tracks): over the side it is taken on the machine's centreline"),
              Key("note", "text", required=False, doc="free text (sources, estimates)")]
_PART_KEYS = {"body": _BODY, "lever": _LEVER, "cylinder": _CYLINDER}
#: ``[soil]``: the soil the cutting edge meets (components.soil, components.soil_tool)
_SOIL = [
    Key("preset", "text", required=False,
        doc="a named soil (loose_sand, dense_clay, gravel); the property keys below override it"),
    Key("unit_weight", unit="N/m^3", required=False, check="positive", doc="unit weight γ of the soil"),
    Key("cohesion", unit="Pa", required=False, check="nonneg", doc="cohesion c"),
    Key("friction_angle", unit="rad", required=False, check="positive", doc="internal friction angle φ"),
    Key("tool_friction_angle", unit="rad", required=False, check="nonneg", doc="soil–tool friction angle δ"),
    Key("adhesion", unit="Pa", required=False, check="nonneg", doc="soil–tool adhesion c_a"),
    Key("surcharge", unit="Pa", required=False, check="nonneg", doc="surcharge q on the soil surface"),
    Key("swell", "number", required=False, doc="loose over bank volume of the cut soil (≥ 1)"),
    Key("edge", "text", doc="the cutting edge: a free point of a body, \"part.point\" (\"bucket.Q\")"),
    Key("face", unit="rad", doc="direction of the tool's face from the edge into the bucket, in that "
                                "body's frame"),
    Key("width", unit="m", check="positive", doc="cutting width (the bucket's)"),
    Key("capacity", unit="m^3", check="positive", doc="heaped capacity of the bucket"),
    Key("dump_angle", unit="rad", required=False,
        doc="the face's world angle above which the payload leaves, once the edge is clear of the ground "
            "(default 60 deg: a backhoe bucket curled open)"),
    Key("ground", "text", required=False, doc="(a list of points [[x, y], ...] with units) the "
                                              "ground profile the edge cuts; default [machine] ground"),
]
#: ``[swing]``: the upper structure on its slew bearing (components.Turntable, mechanisms.with_swing)
_SWING = [
    Key("inertia", unit="kg*m^2", check="nonneg",
        doc="the upper structure about the swing axis, without the front (whose inertia follows its pose)"),
    Key("gear_ratio", "number", check="positive", doc="reduction i = motor speed / swing rate"),
    Key("viscous", unit="N*m*s/rad", required=False, default=0.0, check="nonneg",
        doc="slew-bearing viscous friction c about the swing axis"),
    Key("coulomb", unit="N*m", required=False, default=0.0, check="nonneg",
        doc="slew-bearing Coulomb friction torque T_C (smooth: T_C·tanh(φ̇/ω_C))"),
    Key("coulomb_rate", unit="rad/s", required=False, default=0.01, check="positive",
        doc="the swing rate ω_C over which the Coulomb torque builds up"),
    Key("brake", unit="N*m*s/rad", required=False, check="nonneg",
        doc="swing brake resistance when engaged (default: no brake); engaged by the input swing.brake, "
            "which the machine's cycle runs hold released (0): set it from Python"),
    Key("motor_inertia", unit="kg*m^2", required=False, default=0.0, check="nonneg",
        doc="the swing motor shaft's inertia (motor side of the gear)"),
    Key("axis_x", unit="m", required=False, default=0.0,
        doc="where the swing axis crosses the front's plane: its x in the machine frame"),
    Key("motor_displacement", unit="m^3/rev", required=False, check="positive",
        doc="the swing motor's displacement (mode valves: the motor on the circuit's swing section, "
            "[circuit.valves.swing]; required there)"),
    Key("motor_volume", unit="m^3", required=False, default=2e-3, check="positive",
        doc="oil on each side of the swing motor, its ports and lines to the valve"),
    Key("motor_leakage", unit="m^3/(s*Pa)", required=False, default=0.0, check="nonneg",
        doc="the swing motor's internal leakage from port A to port B"),
    Key("crossover_crack", unit="Pa", required=False, check="positive",
        doc="cracking pressure of the swing motor's crossover relief valves (both ways; mode valves)"),
    Key("crossover_full", unit="Pa", required=False, check="positive",
        doc="their fully open pressure (above crossover_crack)"),
    Key("crossover_flow", unit="m^3/s", required=False, check="positive",
        doc="their flow when fully open"),
    Key("tensors", "table", required=False,
        doc="in-plane inertia tensors about parts' centres of gravity, PART = [[J_xx, J_xy], [J_xy, J_yy]] "
            "with units, in the part's frame; a part without one is taken as slender along its pin line"),
    Key("note", "text", required=False, doc="free text (sources, estimates)"),
]
#: ``[travel]``: the chassis on its wheels (mechanisms.travel.Carrier, mechanisms.with_travel)
_TRAVEL = [
    Key("mass", unit="kg", check="positive",
        doc="the chassis on its wheels without the front's parts (their masses travel with it)"),
    Key("rolling", "number", required=False, default=0.0, check="nonneg",
        doc="rolling-resistance coefficient C_rr: resistance = C_rr × the machine's weight on its wheels"),
    Key("rolling_speed", unit="m/s", required=False, default=0.02, check="positive",
        doc="the speed over which the rolling resistance builds up (smooth: tanh(v/v_r))"),
    Key("speed", unit="m/s", required=False, default=0.0,
        doc="the travel speed at the start of a run of mode forces (mode extensions: the cycle's column)"),
    Key("tractive_max", unit="N", required=False, check="positive",
        doc="the traction limit μ·W the report holds the tractive force against (default: none)"),
    Key("note", "text", required=False, doc="free text (sources, estimates)"),
]


@dataclass
class PartSpec:
    """A part of the file: its type, SI values and hinge points ``name → (class, (x, y))``."""

    name: str
    type: str
    values: dict[str, Any]
    points: dict[str, tuple[str, tuple[float, float]]] = field(default_factory=dict)


@dataclass
class MachineDescription:
    """A checked machine description (SI values).

    Attributes
    ----------
    name, title, source : str
    path : Path or None
    gravity : float
    ground : float or None
    parts : dict of PartSpec
        In file order.
    functions : tuple of str
        One per cylinder part, in file order.
    cylinder_of : dict
        Function → cylinder part name.
    chassis : dict
        ``(part, point)`` → world position.
    hinges : list of ((part, point), (part, point))
    output_points : dict
        Output name → ``(part, point)``.
    angles : dict
        Angle name → ``(part, reference part or None)``.
    start : dict
        Target (cylinder name or angle name) → SI value.
    guess : dict
        Part → angle (rad), the assembly branch.
    limits : dict
        Angle name → (low, high) rad.
    payloads : dict
        Name → ``{"part", "at", "mass"}``.
    circuit : dict or None
        The raw ``[circuit]`` table (units kept; its builder checks it).
    cycles : dict
        Name → ``{mode: Path}``.
    base : dict or None
        ``[base]``: ``tipping_line``, ``rear_tipping_line``, ``side_tipping_line``,
        ``track_height`` (each None when not given) and ``masses`` (name → ``{"mass",
        "cog"}``), SI; None when the file has no ``[base]``.
    kind : str
        ``[machine] kind``: ``"excavator"`` (the default), ``"loader"`` or ``"crane"`` —
        which standards the design studies apply (:data:`KINDS`).
    values : dict
        Every numeric value by dotted key (SI): what ``overrides`` and ``Machine.set`` address.
    file : TomlFile

    Examples
    --------
    >>> d = MachineDescription.load(DATA / "knuckle_crane.toml")
    >>> d.functions, d.stroke_limits(d.functions[0]) == (d.values["lift_cylinder.retracted"],
    ...     d.values["lift_cylinder.retracted"] + d.values["lift_cylinder.stroke"])
    (('lift', 'fold'), True)
    """

    name: str
    title: str
    source: str
    path: Path | None
    gravity: float
    ground: float | None
    parts: dict[str, PartSpec]
    functions: tuple[str, ...]
    cylinder_of: dict[str, str]
    chassis: dict[tuple[str, str], tuple[float, float]]
    hinges: list[tuple[tuple[str, str], tuple[str, str]]]
    output_points: dict[str, tuple[str, str]]
    angles: dict[str, tuple[str, str | None]]
    start: dict[str, float]
    guess: dict[str, float]
    limits: dict[str, tuple[float, float]]
    payloads: dict[str, dict[str, Any]]
    circuit: dict[str, Any] | None
    cycles: dict[str, dict[str, Path]]
    default_cycle: str | None
    values: dict[str, Any]
    file: TomlFile
    overrides: dict[str, Any] = field(default_factory=dict)
    base: dict[str, Any] | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)
    soil: dict[str, Any] | None = None
    kind: str = "excavator"
    #: ``[swing]`` (SI values; ``tensors``: part → 2×2 tuple, kg·m²) or None
    swing: dict[str, Any] | None = None
    #: ``[travel]`` (SI values) or None
    travel: dict[str, Any] | None = None

    # ------------------------------------------------------------------ loading
    @classmethod
    def load(cls, path: str | Path, overrides: Mapping[str, Any] | None = None) -> "MachineDescription":
        """Read and check a machine file; ``overrides`` are dotted keys with units."""
        return cls.from_file(TomlFile.read(path), overrides)

    @classmethod
    def from_text(cls, text: str, overrides: Mapping[str, Any] | None = None, *,
                  name: str = "<text>", base: str | Path | None = None) -> "MachineDescription":
        """From TOML text (cycle files are looked up in ``base``)."""
        f = TomlFile.from_text(text, name=name)
        if base is not None:
            f.path = Path(base) / name
        return cls.from_file(f, overrides)

    @classmethod
    def from_file(cls, f: TomlFile, overrides: Mapping[str, Any] | None = None) -> "MachineDescription":
        """From a parsed :class:`~.tomlfile.TomlFile` (with dotted-key ``overrides``)."""
        return _Reader(f, _overrides(overrides, f)).read()

    @classmethod
    def from_mechanism(cls, mechanism, **sections: Any) -> "MachineDescription":
        """The description of a :class:`~mechanisms.Mechanism` built from templates in Python,
        with the machine's other sections as keyword arguments (values with units, as in a
        file): see :meth:`Machine.from_mechanism <mechanisms.machine.Machine.from_mechanism>`.

        Examples
        --------
        >>> from mechanisms.examples import single_boom
        >>> d = MachineDescription.from_mechanism(single_boom(bore="135 mm", rod="50 mm"),
        ...                                        start={"boom_cyl": "3.2 m"})
        >>> d.functions, d.stroke_limits("boom_cyl"), d.file.name
        (('boom_cyl',), (2.48, 3.73), "Machine.from_mechanism('boom_lift')")
        """
        from .writer import description_from_mechanism

        return description_from_mechanism(mechanism, **sections)

    # ------------------------------------------------------------------ writing, editing
    def raw_tables(self) -> dict[str, Any]:
        """The file's tables with the overrides applied, values as written (with units): a
        deep copy, the data of :meth:`to_toml`."""
        return copy.deepcopy(self.raw)

    def to_toml(self, header: str | None = None) -> str:
        """The description as machine-file text (comments are not kept; cycle file names
        as in the file). :meth:`save` writes it with the cycle files.

        Examples
        --------
        >>> d = MachineDescription.load(DATA / "excavator.toml", {"bucket.mass": "900 kg"})
        >>> again = MachineDescription.from_text(d.to_toml(), base=DATA)
        >>> again.values == d.values, again.parts["bucket"].values["mass"]
        (True, 900.0)
        """
        from .writer import to_toml

        return to_toml(self.raw, header=header)

    def save(self, path: str | Path, *, header: str | None = None, copy_cycles: bool = True) -> Path:
        """Write the description as a machine file (atomically); its cycle files are copied
        next to it (or referred to relative to it with ``copy_cycles=False``). Reading the
        file back gives the same description.
        """
        from .writer import write_description

        if header is None:
            header = (f"{self.name}: written from {self.file.label}" + (f" ({self.title})" if self.title else "")
                      + "\nValues with their units; the format: the hydrobond docs, machine-file reference.")
        return write_description(self, path, header=header, copy_cycles=copy_cycles)

    def with_sections(self, **sections: Any) -> "MachineDescription":
        """A new description with whole top-level tables replaced (``circuit={...}``,
        ``start={...}``; values with units as in a file; ``None`` removes a section).

        Raises
        ------
        ParameterError
            Every problem of the new description, by key.

        Examples
        --------
        >>> d = MachineDescription.load(DATA / "excavator.toml")
        >>> d.with_sections(base=None).base is None, d.base is not None
        (True, True)
        """
        data = self.raw_tables()
        for k, v in sections.items():
            if v is None:
                data.pop(k, None)
            else:
                from .writer import _plain

                data[k] = _plain(v)
        lines = {k: n for k, n in self.file.lines.items() if k.split(".")[0] not in sections}
        f = TomlFile(data=data, name=self.file.name, path=self.file.path, lines=lines)
        return _Reader(f, {}).read()

    def to_mechanism(self):
        """The machine's linkage as an undriven :class:`~mechanisms.Mechanism` of templates with
        numeric values (hydraulic data, ``function`` and ``count`` on the cylinders, payloads
        as point masses), for editing in Python: change parts
        (:meth:`Mechanism.replace <mechanisms.Mechanism.replace>`), then
        :meth:`Machine.from_mechanism <mechanisms.machine.Machine.from_mechanism>` with
        :meth:`sections`.

        Examples
        --------
        >>> mech = MachineDescription.load(DATA / "excavator.toml").to_mechanism()
        >>> mech.parts["boom_cylinder"].hydraulics["bore"], mech.parts["boom_cylinder"].function
        (0.135, 'boom')
        """
        from .assemble import assemble

        return assemble(self, None, symbolic=False).mechanism

    def sections(self) -> dict[str, Any]:
        """The machine's tables other than its parts, ``[chassis]``, ``[hinges]`` and
        ``[payloads]``, as keyword arguments of :meth:`from_mechanism` (values with units).

        Examples
        --------
        >>> s = MachineDescription.load(DATA / "excavator.toml").sections()
        >>> sorted(s)[:6], s["start"]["boom"]
        (['base', 'circuit', 'cycles', 'default_cycle', 'ground', 'kind'], '50 deg')
        """
        raw = self.raw_tables()
        m = raw.get("machine", {})
        out: dict[str, Any] = {k: m[k] for k in ("name", "title", "source", "default_cycle", "ground", "kind")
                               if k in m}
        for k in ("start", "outputs", "limits", "circuit", "base", "cycles", "swing", "travel"):
            if k in raw:
                out[k] = raw[k]
        if "cycles" in out:   # absolute: the files stay where they are
            for name, files in out["cycles"].items():
                for mode in list(files):
                    if mode in self.cycles.get(name, {}):
                        files[mode] = str(self.cycles[name][mode])
        return out

    # ------------------------------------------------------------------ helpers
    def where(self, key: str) -> str:
        """Where a key is: ``"excavator.toml, line 27"`` or ``"override"``."""
        if key in self.overrides:
            return "override"
        return self.file.where(key)

    @property
    def cylinders(self) -> list[str]:
        """The cylinder parts of the functions, in function order."""
        return [self.cylinder_of[f] for f in self.functions]

    def function_of(self, cylinder: str) -> str:
        """The function a cylinder part serves (an :class:`~bondgraph.errors.UnknownNameError`
        naming the cylinders if it serves none)."""
        f = next((f for f, c in self.cylinder_of.items() if c == cylinder), None)
        if f is None:
            raise UnknownNameError(f"cylinder {cylinder!r}: not the cylinder of a function of {self.name!r} "
                                   f"(cylinders {', '.join(self.cylinders)})")
        return f

    def _function_cylinder(self, function: str) -> str:
        c = self.cylinder_of.get(function) if isinstance(function, str) else None
        if c is None:
            raise UnknownNameError(f"function {function!r}: not a function of {self.name!r} "
                                   f"({', '.join(self.functions)})")
        return c

    def stroke_limits(self, function: str) -> tuple[float, float]:
        """Shortest and longest pin-to-pin length (m) of a function's cylinder."""
        v = self.parts[self._function_cylinder(function)].values
        return v["retracted"], v["retracted"] + v["stroke"]

    def areas(self, function: str) -> tuple[float, float]:
        """Cap and rod-side areas (m², all cylinders of the function together)."""
        v = self.parts[self._function_cylinder(function)].values
        n = v["count"]
        return n * math.pi * v["bore"] ** 2 / 4, n * math.pi * (v["bore"] ** 2 - v["rod"] ** 2) / 4

    def runtime_keys(self) -> list[str]:
        """Dotted keys that are run-time parameters of a compiled model."""
        out = ["machine.gravity"]
        for p in self.parts.values():
            out += [f"{p.name}.{k}" for k in RUNTIME_KEYS[p.type] if f"{p.name}.{k}" in self.values]
        out += [f"payloads.{n}.mass" for n in self.payloads]
        return out

    def with_overrides(self, overrides: Mapping[str, Any]) -> "MachineDescription":
        """The same file read again with more overrides (on top of the earlier ones)."""
        return _Reader(self.file, {**self.overrides, **_overrides(overrides, self.file)}).read()

    def cycle_file(self, name: str, mode: str) -> Path:
        """The CSV of a named cycle in a mode (errors list what exists)."""
        if name not in self.cycles:
            raise ParameterError(f"cycle {name!r}: not in {self.file.name} (cycles: "
                                 f"{', '.join(self.cycles) or 'none'})")
        files = self.cycles[name]
        if mode not in files:
            raise ParameterError(f"cycle {name!r} has no {mode!r} table in {self.file.name} "
                                 f"(it has {', '.join(files) or 'none'})")
        if not files[mode].is_file():
            key = f"cycles.{name}.{mode}"
            raise ParameterError(f"{key!r} ({self.where(key)}): {files[mode].name!r}: no such file next to "
                                 f"{self.file.name} (looked for {files[mode]})")
        return files[mode]

    def summary(self) -> str:
        """One paragraph: name, parts by type, functions, circuit."""
        kinds: dict[str, list[str]] = {}
        for p in self.parts.values():
            kinds.setdefault(p.type, []).append(p.name)
        parts = "; ".join(f"{k}: {', '.join(v)}" for k, v in kinds.items())
        circ = self.circuit.get("type") if self.circuit else "none"
        return (f"machine {self.name!r} ({self.title or 'no title'}): {parts}; functions "
                f"{', '.join(self.functions)}; circuit {circ}")


# --------------------------------------------------------------------------- reader
def split_key(key: str) -> list[str]:
    """The path of a dotted key: a segment may be TOML-quoted, and the keys of ``[chassis]``
    and ``[hinges]`` are ``"part.point"`` quoted or not.

    Examples
    --------
    >>> split_key('chassis."boom.C"'), split_key("chassis.boom.C"), split_key("boom.points.B")
    (['chassis', 'boom.C'], ['chassis', 'boom.C'], ['boom', 'points', 'B'])
    """
    key = str(key)
    parts, buf, quoted = [], "", False
    for ch in key:
        if ch == '"':
            quoted = not quoted
        elif ch == "." and not quoted:
            parts.append(buf)
            buf = ""
        else:
            buf += ch
    parts.append(buf)
    if parts[0] in ("chassis", "hinges") and len(parts) > 2 and '"' not in key:
        parts = [parts[0], ".".join(parts[1:])]
    return parts


class _Reader:
    def __init__(self, f: TomlFile, overrides: dict[str, Any]):
        self.f = f
        # one spelling per key: chassis."boom.C" and chassis.boom.C are the same override
        self.overrides = {".".join(split_key(k)) if isinstance(k, str) else k: v for k, v in overrides.items()}
        self.problems: list[str] = []
        self.values: dict[str, Any] = {}

    # ---------------------------------------------------------------- messages
    def loc(self, key: str) -> str:
        return "override" if key in self.overrides else self.f.where(key)

    def bad(self, key: str, msg: str) -> None:
        self.problems.append(f"{key!r} ({self.loc(key)}): {msg}")

    # ---------------------------------------------------------------- values
    def value(self, key: str, spec: Key, raw: Any) -> Any:
        """Convert one raw value; None (and a recorded problem) if it is bad."""
        try:
            if spec.kind == "quantity":
                v = to_si(raw, spec.unit, key=key)
                return self._check(key, spec, v, raw)
            if spec.kind == "point":
                if not isinstance(raw, (list, tuple)) or len(raw) != 2:
                    self.bad(key, f"found {raw!r}, expected a point [x, y] with units, e.g. "
                                  f"[\"0.5 {spec.unit}\", \"0 {spec.unit}\"]")
                    return None
                return (to_si(raw[0], spec.unit, key=key + "[0]"), to_si(raw[1], spec.unit, key=key + "[1]"))
            if spec.kind == "int":
                if isinstance(raw, bool) or not isinstance(raw, int):
                    self.bad(key, f"found {raw!r}, expected a whole number")
                    return None
                return self._check(key, spec, raw, raw)
            if spec.kind == "number":
                if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not math.isfinite(raw):
                    self.bad(key, f"found {raw!r}, expected a plain number")
                    return None
                return self._check(key, spec, float(raw), raw)
            if spec.kind in ("text", "name"):
                if not isinstance(raw, str):
                    self.bad(key, f"found {raw!r}, expected text")
                    return None
                if spec.kind == "name" and not _NAME.match(raw):
                    self.bad(key, f"found {raw!r}, expected a name of letters, digits and '_' "
                                  "starting with a letter")
                    return None
                return raw
            if spec.kind == "bool":
                if not isinstance(raw, bool):
                    self.bad(key, f"found {raw!r}, expected true or false")
                    return None
                return raw
            if spec.kind == "table":
                if not isinstance(raw, Mapping):
                    self.bad(key, f"found {raw!r}, expected a table")
                    return None
                return raw
        except BondGraphError as exc:
            for p in exc.problems:
                self.problems.append(p.replace(": ", f" ({self.loc(key)}): ", 1) if p.startswith("'")
                                     else f"{key!r} ({self.loc(key)}): {p}")
            return None
        raise AssertionError(spec.kind)  # pragma: no cover

    def _check(self, key: str, spec: Key, v: float, raw: Any) -> float | None:
        if spec.check == "positive" and not v > 0:
            self.bad(key, f"found {raw!r}, expected a value > 0")
            return None
        if spec.check == "nonneg" and v < 0:
            self.bad(key, f"found {raw!r}, expected a value ≥ 0")
            return None
        if spec.check == "ge1" and v < 1:
            self.bad(key, f"found {raw!r}, expected a whole number ≥ 1")
            return None
        return v

    def table(self, path: str, raw: Any, keys: list[Key], *, record: bool = True) -> dict[str, Any]:
        """Read a table against its keys: unknown, missing and bad values all recorded."""
        out: dict[str, Any] = {}
        if not isinstance(raw, Mapping):
            self.bad(path, f"found {raw!r}, expected a table")
            return out
        specs = {k.name: k for k in keys}
        for k in raw:
            if k not in specs:
                close = difflib.get_close_matches(str(k), list(specs), n=1)
                self.bad(f"{path}.{k}", "unknown key" + (f"; did you mean '{path}.{close[0]}'?" if close else
                                                        f" (known: {', '.join(specs)})"))
        for s in keys:
            key = f"{path}.{s.name}"
            if s.name not in raw:
                if s.required:
                    exp = {"quantity": f"{_desc(s.unit)}", "point": f"a point [x, y] in {s.unit}",
                           "table": "a table"}.get(s.kind, s.kind)
                    self.bad(key, f"missing (expected {exp})")
                    continue
                if s.default is None:
                    continue
                out[s.name] = s.default
            else:
                v = self.value(key, s, raw[s.name])
                if v is None:
                    continue
                out[s.name] = v
            if record and s.kind in ("quantity", "point", "int", "number"):
                self.values[key] = out[s.name]
        return out

    # ---------------------------------------------------------------- overrides
    def apply_overrides(self, data: dict[str, Any]) -> dict[str, Any]:
        data = copy.deepcopy(data)
        for key, val in self.overrides.items():
            parts = split_key(key)
            node = data
            ok = True
            for p in parts[:-1]:
                nxt = node.get(p) if isinstance(node, dict) else None
                if nxt is None:   # a table the file lacks: within its sections, or a section of the format
                    if isinstance(node, dict) and (parts[0] in data or parts[0] in RESERVED):
                        nxt = node.setdefault(p, {})
                    else:
                        ok = False
                        break
                if not isinstance(nxt, dict):
                    ok = False
                    break
                node = nxt
            if not ok or not isinstance(node, dict):
                close = difflib.get_close_matches(key, sorted(self.f.lines), n=1)
                self.problems.append(f"{key!r} (override): unknown key"
                                     + (f"; did you mean {close[0]!r}?" if close else ""))
                continue
            node[parts[-1]] = val
        return data

    # ---------------------------------------------------------------- sections
    def read(self) -> MachineDescription:
        data = self.apply_overrides(self.f.data)
        for top, v in data.items():
            if top not in RESERVED and not (isinstance(v, Mapping) and "type" in v):
                if isinstance(v, Mapping):
                    self.bad(top, "a part table needs a `type` (body, lever or cylinder); "
                                  f"other top-level tables are {', '.join(RESERVED)}")
                else:
                    self.bad(top, f"unknown top-level key; expected a part table or one of "
                                  f"{', '.join(RESERVED)}")
        machine = self.table("machine", data.get("machine", {}), _MACHINE) if "machine" in data else {}
        if "machine" not in data:
            self.problems.append(f"'machine' ({self.f.name}): missing table [machine] (name, gravity)")
        self.values.pop("machine.name", None)
        gravity = machine.get("gravity", 9.81)
        parts: dict[str, PartSpec] = {}
        for top, v in data.items():
            if top in RESERVED or not isinstance(v, Mapping) or "type" not in v:
                continue
            spec = self.part(top, v)
            if spec is not None:
                parts[top] = spec
        functions, cylinder_of = [], {}
        for p in parts.values():
            if p.type == "cylinder" and "function" in p.values:
                f = p.values["function"]
                if f in cylinder_of:
                    self.bad(f"{p.name}.function", f"function {f!r} is already driven by "
                                                   f"{cylinder_of[f]!r}; one cylinder part per function "
                                                   "(use `count` for cylinders in parallel)")
                    continue
                functions.append(f)
                cylinder_of[f] = p.name
        chassis = self.chassis(data.get("chassis"), parts)
        hinges = self.hinges(data.get("hinges"), parts)
        out_points, angles = self.outputs(data.get("outputs", {}), parts)
        payloads = self.payloads(data.get("payloads", {}), parts)
        limits = self.limits(data.get("limits", {}), angles)
        start, guess = self.start(data.get("start"), parts, angles)
        cycles = self.cycles(data.get("cycles", {}))
        circuit = data.get("circuit")
        if circuit is not None and not isinstance(circuit, Mapping):
            self.bad("circuit", f"found {circuit!r}, expected a table with a `type`")
            circuit = None
        kind = machine.get("kind", "excavator")
        if kind not in KINDS:
            self.bad("machine.kind", f"found {kind!r}, expected one of {', '.join(KINDS)}")
            kind = "excavator"
        default_cycle = machine.get("default_cycle")
        if default_cycle is not None and default_cycle not in cycles:
            self.bad("machine.default_cycle", f"{default_cycle!r} is not one of the [cycles] "
                                              f"({', '.join(cycles) or 'none'})")
        base = self.base(data["base"], machine) if "base" in data else None
        soil = self.soil(data["soil"], parts, machine) if "soil" in data else None
        swing = self.swing(data["swing"], parts) if "swing" in data else None
        travel = self.table("travel", data["travel"], _TRAVEL) if "travel" in data else None
        if travel is not None and swing is not None:
            self.bad("travel", "a machine with [swing] and [travel]: the two couplings do not compose yet; "
                               "expected one of them")
        if not functions and not self.problems:
            self.problems.append(f"{self.f.name}: no cylinder parts; a machine needs at least one "
                                 "(type = \"cylinder\")")
        if self.problems:
            raise ParameterError(self.problems, subject=self.f.label)
        return MachineDescription(
            name=machine["name"], title=machine.get("title", ""), source=machine.get("source", ""),
            path=self.f.path, gravity=gravity, ground=machine.get("ground"), parts=parts,
            functions=tuple(functions), cylinder_of=cylinder_of, chassis=chassis, hinges=hinges,
            output_points=out_points, angles=angles, start=start, guess=guess, limits=limits,
            payloads=payloads, circuit=dict(circuit) if circuit is not None else None, cycles=cycles,
            default_cycle=default_cycle, values=self.values, file=self.f,
            overrides=dict(self.overrides), base=base, raw=data, kind=kind, soil=soil, swing=swing,
            travel=travel)

    def part(self, name: str, raw: Mapping[str, Any]) -> PartSpec | None:
        typ = raw.get("type")
        if not _NAME.match(name):
            self.bad(name, "a part name is letters, digits and '_' starting with a letter")
            return None
        if typ not in _PART_KEYS:
            self.bad(f"{name}.type", f"found {typ!r}, expected \"body\", \"lever\" or \"cylinder\"")
            return None
        vals = self.table(name, raw, _PART_KEYS[typ])
        vals.pop("type", None)
        spec = PartSpec(name, typ, vals)
        if typ == "body" and isinstance(raw.get("points"), Mapping):
            for pn, pv in raw["points"].items():
                key = f"{name}.points.{pn}"
                if not _NAME.match(str(pn)):
                    self.bad(key, "a point name is letters, digits and '_' starting with a letter")
                    continue
                if not isinstance(pv, (list, tuple)) or len(pv) != 3:
                    self.bad(key, f"found {pv!r}, expected [class, x, y], e.g. [\"Li\", \"0.5 m\", \"0 m\"]")
                    continue
                cls = self.port_class(key, pv[0])
                xy = self.value(key, Key(pn, "point", "m"), list(pv[1:]))
                if cls is not None and xy is not None:
                    spec.points[pn] = (cls, xy)
                    self.values[key] = xy
        if typ == "lever":
            L = vals.get("length")
            spec.points = {vals.get("root", "R"): ("Rt", (0.0, 0.0)),
                           vals.get("tip", "P"): ("Pr", (L or 0.0, 0.0))}
        if typ == "cylinder":
            spec.points = {vals.get("root", "A"): ("Rt", (0.0, 0.0)),
                           vals.get("tip", "B"): ("Pr", (vals.get("retracted", 0.0), 0.0))}
            if {"bore", "rod"} <= set(vals) and not vals["rod"] < vals["bore"]:
                self.bad(f"{name}.rod", f"{vals['rod'] * 1e3:.4g} mm, expected smaller than the bore "
                                        f"{vals['bore'] * 1e3:.4g} mm")
            for sub, keys in (("friction", _FRICTION), ("end_stop", _END_STOP)):
                if isinstance(raw.get(sub), Mapping):
                    vals[sub] = self.table(f"{name}.{sub}", raw[sub], keys)
            if "end_stop" not in raw:  # every cylinder has its end stops (documented defaults)
                vals["end_stop"] = self.table(f"{name}.end_stop", {}, _END_STOP)
            fr = vals.get("friction")
            if fr and "breakaway" in fr and fr["breakaway"] < fr.get("coulomb", 0.0):
                self.bad(f"{name}.friction.breakaway", f"{fr['breakaway']:g} N, expected ≥ the coulomb "
                                                       f"force {fr['coulomb']:g} N")
            for k in ("rod_cog", "barrel_cog"):
                if k not in vals and "retracted" in vals:
                    vals[k] = vals["retracted"] / 4
                    self.values[f"{name}.{k}"] = vals[k]
        return spec

    def port_class(self, key: str, raw: Any) -> str | None:
        if raw in PORT_CLASSES:
            return raw
        if isinstance(raw, str) and raw.lower() in {c.lower() for c in PORT_CLASSES + ("Pr", "I")}:
            right = next(c for c in PORT_CLASSES + ("Pr", "I") if c.lower() == raw.lower())
            if right in PORT_CLASSES:
                self.bad(key, f"port class {raw!r}: class names are matched exactly; did you mean {right!r}?")
            else:
                self.bad(key, f"port class {raw!r}: a body's points are Rt, Pd or Li ({right} ports "
                              "belong to cylinders and levers, which declare them themselves)")
            return None
        if raw in ("Pr", "I"):
            self.bad(key, f"port class {raw!r}: a body's points are Rt, Pd or Li ({raw} ports belong to "
                          "cylinders and levers, which declare them themselves)")
            return None
        self.bad(key, f"port class {raw!r}: expected one of {', '.join(PORT_CLASSES)}")
        return None

    def point_ref(self, key: str, raw: Any, parts: Mapping[str, PartSpec]) -> tuple[str, str] | None:
        """``"boom.B"`` → ``("boom", "B")`` if the part and point exist."""
        if not isinstance(raw, str) or raw.count(".") != 1:
            self.bad(key, f"found {raw!r}, expected \"part.point\"")
            return None
        part, point = raw.split(".")
        if part not in parts:
            close = difflib.get_close_matches(part, list(parts), n=1)
            self.bad(key, f"{raw!r}: no part {part!r}" + (f"; did you mean {close[0]!r}?" if close else
                                                          f" (parts: {', '.join(parts)})"))
            return None
        pts = parts[part].points
        if point == "I" and parts[part].type == "cylinder":
            self.bad(key, f"{raw!r}: I is the cylinder's extension interface; it is driven (force, "
                          "extension or the hydraulic circuit), not hinged (rule: a cylinder has exactly "
                          "one Rt, one Pr and one I)")
            return None
        if point not in pts:
            self.bad(key, f"{raw!r}: part {part!r} has no point {point!r} (points: "
                          f"{', '.join(f'{n} ({c})' for n, (c, _) in pts.items())})")
            return None
        return part, point

    def _point_table(self, section: str, raw: Any, parts, what: str, read) -> list:
        """``"part.point" = value`` entries of a table: ``(key, (part, point), read(key, v))``."""
        if not isinstance(raw, Mapping):
            self.bad(section, f"found {raw!r}, expected a table \"part.point\" = {what}")
            return []
        out = []
        for k, v in raw.items():
            key = f"{section}.{k}"
            ref = self.point_ref(key, k, parts)
            val = read(key, v)
            if ref is not None and val is not None:
                out.append((key, ref, val))
        return out

    def chassis(self, raw: Any, parts) -> dict[tuple[str, str], tuple[float, float]]:
        if raw is None:
            self.problems.append(f"'chassis' ({self.f.name}): missing table [chassis] (the points "
                                 "pinned to the chassis)")
            return {}
        out = {}
        for key, ref, xy in self._point_table("chassis", raw, parts, "[x, y]",
                                               lambda key, v: self.value(key, Key(key, "point", "m"), v)):
            out[ref] = xy
            self.values[key] = xy
        return out

    def hinges(self, raw: Any, parts) -> list[tuple[tuple[str, str], tuple[str, str]]]:
        if raw is None:
            return []
        return [(ref, other) for _, ref, other in self._point_table(
            "hinges", raw, parts, "\"part.point\"", lambda key, v: self.point_ref(key, v, parts))]

    def outputs(self, raw: Any, parts) -> tuple[dict, dict]:
        points: dict[str, tuple[str, str]] = {}
        angles: dict[str, tuple[str, str | None]] = {}
        if not isinstance(raw, Mapping):
            self.bad("outputs", f"found {raw!r}, expected a table with `points` and `angles`")
            return points, angles
        for k in raw:
            if k not in ("points", "angles"):
                self.bad(f"outputs.{k}", "unknown key (expected points, angles)")
        for k, v in (raw.get("points") or {}).items():
            key = f"outputs.points.{k}"
            if not _NAME.match(k):
                self.bad(key, "an output name is letters, digits and '_'")
                continue
            ref = self.point_ref(key, v, parts)
            if ref is not None:
                points[k] = ref
        ang = raw.get("angles")
        if ang is None:
            angles = {n: (n, None) for n, p in parts.items() if p.type == "body"}
        for k, v in (ang or {}).items():
            key = f"outputs.angles.{k}"
            if not _NAME.match(k):
                self.bad(key, "an angle name is letters, digits and '_'")
                continue
            toks = [t.strip() for t in str(v).split(" - ")] if isinstance(v, str) else []
            if len(toks) not in (1, 2) or any(t not in parts or parts[t].type == "cylinder" for t in toks):
                self.bad(key, f"found {v!r}, expected \"part\" (absolute) or \"part - part\" (relative), "
                              f"parts being bodies or levers ({', '.join(n for n, p in parts.items() if p.type != 'cylinder')})")
                continue
            angles[k] = (toks[0], toks[1] if len(toks) == 2 else None)
        return points, angles

    def payloads(self, raw: Any, parts) -> dict[str, dict[str, Any]]:
        out = {}
        if not isinstance(raw, Mapping):
            self.bad("payloads", f"found {raw!r}, expected tables [payloads.NAME]")
            return out
        for name, v in raw.items():
            vals = self.table(f"payloads.{name}", v, _PAYLOAD)
            part = vals.get("part")
            if part is not None and (part not in parts or parts[part].type != "body"):
                self.bad(f"payloads.{name}.part", f"{part!r}: expected a body "
                                                  f"({', '.join(n for n, p in parts.items() if p.type == 'body')})")
                continue
            if {"part", "at", "mass"} <= set(vals):
                out[name] = vals
        return out

    def limits(self, raw: Any, angles) -> dict[str, tuple[float, float]]:
        out = {}
        if not isinstance(raw, Mapping):
            self.bad("limits", f"found {raw!r}, expected a table angle = [low, high]")
            return out
        for k, v in raw.items():
            key = f"limits.{k}"
            if k not in angles:
                self.bad(key, f"no angle {k!r} (angles: {', '.join(angles)})")
                continue
            lo_hi = self.value(key, Key(k, "point", "rad"), v)
            if lo_hi is None:
                continue
            if not lo_hi[0] < lo_hi[1]:
                self.bad(key, f"found {v!r}, expected [low, high] with low < high")
                continue
            out[k] = lo_hi
            self.values[key] = lo_hi
        return out

    def start(self, raw: Any, parts, angles) -> tuple[dict[str, float], dict[str, float]]:
        start: dict[str, float] = {}
        guess: dict[str, float] = {}
        if raw is None:
            self.problems.append(f"'start' ({self.f.name}): missing table [start] (one target per "
                                 "cylinder: its length, or an angle)")
            return start, guess
        if not isinstance(raw, Mapping):
            self.bad("start", f"found {raw!r}, expected a table")
            return start, guess
        for k, v in raw.items():
            key = f"start.{k}"
            if k == "guess":
                if not isinstance(v, Mapping):
                    self.bad(key, f"found {v!r}, expected a table part = angle")
                    continue
                for pn, a in v.items():
                    gk = f"start.guess.{pn}"
                    if pn not in parts:
                        self.bad(gk, f"no part {pn!r}")
                        continue
                    val = self.value(gk, Key(pn, unit="rad"), a)
                    if val is not None:
                        guess[pn] = val
                continue
            cyls = [n for n, p in parts.items() if p.type == "cylinder"]
            n_before = len(self.problems)
            if k in parts and parts[k].type == "cylinder":
                val = self.value(key, Key(k, unit="m", check="positive"), v)
                if val is None and _is_angle(v):
                    self.problems[-1] += (f"; {k!r} is a cylinder: its target is its pin-to-pin length. An "
                                          f"angle target is given by the angle's name ({', '.join(angles)})")
            elif k in angles or (k in parts and parts[k].type != "cylinder"):
                val = self.value(key, Key(k, unit="rad"), v)
                if val is None and len(self.problems) > n_before and _is_length(v):
                    same = [c for c in cyls if parts[c].values.get("function") == k]
                    self.problems[-1] += (f"; {k!r} is an angle. A length target is given by the cylinder's "
                                          f"name ({', '.join(cyls)})"
                                          + (f": start.{same[0]} = {v!r}" if same else ""))
            else:
                self.bad(key, f"no cylinder or angle {k!r} (cylinders: "
                              f"{', '.join(n for n, p in parts.items() if p.type == 'cylinder')}; "
                              f"angles: {', '.join(angles)})")
                continue
            if val is not None:
                start[k] = val
                self.values[key] = val
        return start, guess

    def base(self, raw: Any, machine: Mapping[str, Any]) -> dict[str, Any] | None:
        """``[base]``: tipping lines and the base machine's masses (for tipping analyses)."""
        vals = self.table("base", raw, _BASE)
        masses = {}
        for name, v in (vals.get("masses") or {}).items():
            if not _NAME.match(str(name)):
                self.bad(f"base.masses.{name}", "a mass name is letters, digits and '_'")
                continue
            m = self.table(f"base.masses.{name}", v, _BASE_MASS)
            if {"mass", "cog"} <= set(m):
                m.setdefault("swings", True)
                masses[name] = m
        if isinstance(vals.get("masses"), Mapping) and not vals["masses"]:
            self.bad("base.masses", "empty: give the base machine's masses ([base.masses.NAME] "
                                    "with mass and cog)")
        if machine.get("ground") is None and "machine" in self.f.data:
            self.bad("machine.ground", "missing: [base] tipping lines lie on the ground "
                                       "(give the ground level, e.g. ground = \"-1.70 m\")")
        if {"tipping_line", "rear_tipping_line"} <= set(vals) and \
                not vals["rear_tipping_line"] < vals["tipping_line"]:
            self.bad("base.rear_tipping_line", f"{vals['rear_tipping_line']:g} m, expected behind "
                                               f"(less than) the front tipping line {vals['tipping_line']:g} m")
        return {"tipping_line": vals.get("tipping_line"), "rear_tipping_line": vals.get("rear_tipping_line"),
                "side_tipping_line": vals.get("side_tipping_line"), "track_height": vals.get("track_height"),
                "masses": masses}

    def soil(self, raw: Any, parts: Mapping[str, PartSpec], machine: Mapping[str, Any]) -> dict[str, Any] | None:
        """``[soil]``: the soil properties (a preset and overrides), the cutting edge, the bucket."""
        raw = dict(raw) if isinstance(raw, Mapping) else raw
        ground_raw = raw.pop("ground", None) if isinstance(raw, dict) else None
        vals = self.table("soil", raw, [k for k in _SOIL if k.name != "ground"])
        if not isinstance(raw, Mapping):
            return None
        from components.soil import PRESETS, SoilProperties

        props: dict[str, Any] = {}
        name = vals.get("preset")
        if name is not None:
            if name not in PRESETS:
                self.bad("soil.preset", f"{name!r}: expected one of {', '.join(PRESETS)}")
            else:
                p = PRESETS[name]
                props = {f: getattr(p, f) for f in ("unit_weight", "cohesion", "friction_angle",
                                                    "tool_friction_angle", "adhesion", "surcharge",
                                                    "swell", "subgrade_modulus")}
        for k in ("unit_weight", "cohesion", "adhesion", "surcharge", "swell"):
            if k in vals:
                props[k] = vals[k]
        for k in ("friction_angle", "tool_friction_angle"):   # the soil model reads degrees
            if k in vals:
                props[k] = math.degrees(vals[k])
        missing = [k for k in ("unit_weight", "cohesion", "friction_angle", "tool_friction_angle",
                               "adhesion", "surcharge") if k not in props]
        if missing:
            self.bad("soil", f"missing {', '.join(missing)} (give them, or a preset: "
                             f"{', '.join(PRESETS)})")
        soil = None
        if not missing:
            try:
                soil = SoilProperties(**props)
            except BondGraphError as exc:
                for q in exc.problems:
                    self.bad("soil", q)
        edge = None
        if "edge" in vals:
            edge = self.point_ref("soil.edge", vals["edge"], parts)
            if edge is not None and parts[edge[0]].type != "body":
                self.bad("soil.edge", f"{vals['edge']!r}: a point of a {parts[edge[0]].type}; the cutting "
                                      "edge is a point of a body (the bucket)")
                edge = None
        ground: Any = machine.get("ground")
        if ground_raw is not None:
            pts = []
            if not isinstance(ground_raw, (list, tuple)) or len(ground_raw) < 2:
                self.bad("soil.ground", f"found {ground_raw!r}, expected at least two points "
                                        "[[\"x m\", \"y m\"], ...]")
            else:
                spec = Key("ground", "point", unit="m")
                for i, q in enumerate(ground_raw):
                    v = self.value(f"soil.ground[{i}]", spec, q)
                    if v is not None:
                        pts.append(v)
                bad = [f"point {i + 1} (x = {pts[i + 1][0]:g} m) after x = {pts[i][0]:g} m"
                       for i in range(len(pts) - 1) if not pts[i + 1][0] > pts[i][0]]
                if bad:
                    self.bad("soil.ground", "x must increase along the profile: " + "; ".join(bad))
                ground = pts
        if ground is None:
            self.bad("soil.ground", "missing: the soil lies on the ground (give [machine] ground or a "
                                    "profile soil.ground = [[x, y], ...])")
        return {"properties": soil, "edge": edge, "face": vals.get("face"), "width": vals.get("width"),
                "capacity": vals.get("capacity"), "ground": ground, "preset": name,
                "dump_angle": vals.get("dump_angle")}

    def swing(self, raw: Any, parts: Mapping[str, PartSpec]) -> dict[str, Any]:
        """``[swing]``: the turntable's data and the parts' in-plane inertia tensors."""
        vals = self.table("swing", raw, _SWING)
        tensors = {}
        spec = Key("tensor", "point", unit="kg*m^2")
        for name, rows in (vals.get("tensors") or {}).items():
            key = f"swing.tensors.{name}"
            if name not in parts:
                self.bad(key, f"no such part (parts: {', '.join(parts)})")
            elif not isinstance(rows, (list, tuple)) or len(rows) != 2:
                self.bad(key, f"found {rows!r}, expected [[J_xx, J_xy], [J_xy, J_yy]] with units (kg*m^2)")
            else:
                t = [self.value(f"{key}[{i}]", spec, r) for i, r in enumerate(rows)]
                if None not in t:
                    tensors[name] = tuple(t)
                    self.values[key] = tensors[name]
        vals["tensors"] = tensors
        return vals

    def cycles(self, raw: Any) -> dict[str, dict[str, Path]]:
        out: dict[str, dict[str, Path]] = {}
        if not isinstance(raw, Mapping):
            self.bad("cycles", f"found {raw!r}, expected tables [cycles.NAME]")
            return out
        base = self.f.path.parent if self.f.path is not None else Path.cwd()
        for name, v in raw.items():
            key = f"cycles.{name}"
            if not _NAME.match(name) or not isinstance(v, Mapping):
                self.bad(key, "expected a table [cycles.NAME] with mode = \"file.csv\" entries")
                continue
            files = {}
            for mode, fn in v.items():
                if mode == "description":
                    continue
                if mode not in MODES:
                    self.bad(f"{key}.{mode}", f"unknown mode; expected {', '.join(MODES)} or description")
                    continue
                if not isinstance(fn, str):
                    self.bad(f"{key}.{mode}", f"found {fn!r}, expected a file name")
                    continue
                # checked when the cycle is used (a copied machine file runs with --cycle)
                files[mode] = (base / fn) if not Path(fn).is_absolute() else Path(fn)
            out[name] = files
        return out


def _is_length(raw: Any) -> bool:
    try:
        to_si(raw, "m", key="")
        return True
    except BondGraphError:
        return False


def _is_angle(raw: Any) -> bool:
    return isinstance(raw, str) and not _is_length(raw) and any(u in raw for u in ("deg", "rad", "°"))


def _desc(unit: str) -> str:
    from .quantities import describe

    return describe(unit)


def _overrides(overrides, f) -> dict[str, Any]:
    """``overrides`` as a dict; anything but a mapping of dotted keys is a ``ParameterError``."""
    if overrides is None:
        return {}
    if not isinstance(overrides, Mapping):
        raise ParameterError(f"overrides of {f.name}: found {type(overrides).__name__} {overrides!r:.60}, "
                             "expected a mapping of dotted keys to values with units, e.g. "
                             "{\"bucket.mass\": \"900 kg\"}")
    return dict(overrides)
