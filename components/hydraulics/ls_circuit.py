"""A load-sensing circuit: LS power unit, compensated valve sections, LS network; from a table.

:class:`LSCircuit` is a :class:`~components.hydraulics.HydraulicCircuit` on an
:class:`LSPowerUnit` whose drives use :class:`CompensatedValve` sections; it
owns the :class:`LoadSenseNetwork` that passes the highest load pressure to
the pump controller and to post-compensators. :func:`ls_circuit_from_params`
builds one from a parameter table with units, with the same call as
:func:`~components.hydraulics.circuit_from_params` (a circuit builder picks
either by the circuit's type)::

    [oil]              # OIL_SCHEMA
    [power_unit]       # LS_POWER_UNIT_SCHEMA: pump_displacement, pump_speed, margin, ...
    [load_sensing]     # LS_SCHEMA: compensation = "pre" | "post", shuttle_band, ...
    [drives.<name>]    # DRIVE_SCHEMA, as for the fixed circuit

Examples
--------
>>> import sympy as sp
>>> from bondgraph import Input
>>> table = {"oil": {"density": "870 kg/m^3", "bulk_modulus": "1.4 GPa"},
...          "power_unit": {"pump_displacement": "500 cm^3/rev", "pump_speed": "150 rad/s",
...                         "margin": "3 bar", "time_constant": "10 ms"},
...          "load_sensing": {"compensation": "post"},
...          "drives": {"lift": {"bore": "80 mm", "rod": "40 mm", "stroke": "500 mm",
...                              "valve_flow": "0.01 m^3/s", "valve_dp": "3 bar"}}}
>>> circuit = ls_circuit_from_params(table, lengths={"lift": sp.Symbol("s")},
...                                  commands={"lift": Input("lift.cmd")})
>>> sorted(circuit.ports), circuit.drives["lift"].valve.compensator.kind
(['lift.I'], 'post')
>>> ls_circuit_from_params({**table, "load_sensing": {"compensation": "middle"}},
...                        lengths={"lift": sp.Symbol("s")}, commands={"lift": 0.0})
Traceback (most recent call last):
...
bondgraph.errors.ParameterError: hydraulic parameters: 1 problem
  - load_sensing: 'compensation': found 'middle', expected 'pre' (classic LS) or 'post' (LUDV, flow sharing)
"""

from __future__ import annotations

from typing import Any, Mapping

import sympy as sp

from bondgraph.errors import ParameterError
from bondgraph.units import ParamSchema, ParamSpec

from .compensator import CompensatedValve, Compensator, _what
from .drive import HydraulicCircuit, HydraulicDrive
from .oil import Oil
from .params import _common_tables, _load, _relief, drive_from_si
from .pump_ls import LS_POWER_UNIT_SCHEMA, LSPowerUnit, LSPump
from .shuttle import HybridShuttle, LoadSenseNetwork, SmoothShuttle

__all__ = ["LSCircuit", "LS_SCHEMA", "ls_circuit_from_params", "ls_power_unit_from_si"]

_S = ParamSpec

#: ``[load_sensing]`` table: compensators, taps and shuttles of every section
#: (``compensation`` is text: ``"pre"`` or ``"post"``).
LS_SCHEMA = ParamSchema("load_sensing", [
    _S("compensator_setting", "Pa", "pre: metering drop Δp_c; post: spring offset",
       required=False),
    _S("compensator_time_constant", "s", "compensator spool lag (none: quasi-static)",
       required=False, positive=True),
    _S("shuttle_band", "Pa", "smooth-maximum band of the shuttle valves", required=False,
       default="0.5 bar", positive=True),
    _S("tap_volume", "m^3", "LS tap gallery volume", required=False, default="5 cm^3",
       positive=True),
    _S("tap_time_constant", "s", "LS tap lag (damping orifice)", required=False, default="2 ms",
       positive=True),
    _S("ls_opening", "", "spool travel over which the LS port opens", required=False,
       default=0.05, positive=True, maximum=1.0),
])

_TOP = ("oil", "power_unit", "load_sensing", "drives")


class LSCircuit(HydraulicCircuit):
    """An LS power unit shared by compensated valve sections; exposes ``<drive>.I``.

    Parameters
    ----------
    name : str
    power_unit : LSPowerUnit
    shuttle : SmoothShuttle or HybridShuttle, optional
        How the highest load pressure is chosen (default: smooth maximum, 0.5 bar).

    Raises
    ------
    ParameterError
        Not an :class:`LSPowerUnit`.

    Notes
    -----
    A pre-compensator's setting must be below the pump margin (it needs
    ``Δp_c`` across its spool plus some drop of its own): checked when a
    section is added.

    Examples
    --------
    >>> from components.hydraulics import CompensatedValve, Compensator, LSPump, Oil
    >>> oil = Oil()
    >>> pu = LSPowerUnit("pu", oil=oil, pump=LSPump("100 cm^3/rev", "1500 rpm", "20 bar"))
    >>> hyd = LSCircuit("hyd", pu)
    >>> hyd.add_section(CompensatedValve("boom", q_nominal="60 L/min", dp_nominal="10 bar",
    ...                                  command=0.5, compensator=Compensator("post"), oil=oil))
    ('boom.A', 'boom.B')
    >>> hyd.add_section(CompensatedValve("arm", q_nominal="60 L/min", dp_nominal="10 bar",
    ...                                  command=0.5, oil=oil,
    ...                                  compensator=Compensator("pre", setting="25 bar")))
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: LS circuit 'hyd': section 'arm': pre-compensator setting 2.5e+06 Pa, expected below the pump margin 2e+06 Pa (the compensator could never regulate)
    """

    def __init__(self, name: str, power_unit: LSPowerUnit, *,
                 shuttle: SmoothShuttle | HybridShuttle | None = None):
        if not isinstance(power_unit, LSPowerUnit):
            raise ParameterError(f"LS circuit {name!r}: power_unit = {_what(power_unit)}, expected "
                                 "an LSPowerUnit (a load-sensing pump)")
        super().__init__(name, power_unit)
        self.network = LoadSenseNetwork(shuttle)
        power_unit.attach(self.network)
        self.sections: dict[str, CompensatedValve] = {}

    def _register(self, section: str, valve: Any) -> None:
        if not isinstance(valve, CompensatedValve):
            raise ParameterError(f"LS circuit {self.name!r}: section {section!r} has valve "
                                 f"{_what(valve)}, expected a CompensatedValve")
        comp = valve.compensator
        margin = self.power_unit.pump.margin
        if comp.kind == "pre" and not comp.setting < margin:
            raise ParameterError(f"LS circuit {self.name!r}: section {section!r}: pre-compensator "
                                 f"setting {comp.setting:g} Pa, expected below the pump margin "
                                 f"{margin:g} Pa (the compensator could never regulate)")
        if comp.kind == "post" and not comp.setting < margin:
            raise ParameterError(f"LS circuit {self.name!r}: section {section!r}: post-compensator "
                                 f"spring offset {comp.setting:g} Pa, expected below the pump "
                                 f"margin {margin:g} Pa (no drop would be left for the spool)")
        valve.attach(supply=self.power_unit.outlet_pressure, network=self.network)
        self.network.add(section, valve.load_pressure)
        self.sections[section] = valve

    def add_drive(self, drive: HydraulicDrive) -> str:
        """Add a drive whose valve is a :class:`CompensatedValve`; returns its ``I`` port.

        Parameters
        ----------
        drive : HydraulicDrive

        Returns
        -------
        str

        Raises
        ------
        ParameterError
            Not a drive, a valve that is not compensated, a compensator setting not below
            the pump margin.
        """
        if not isinstance(drive, HydraulicDrive):
            raise ParameterError(f"LS circuit {self.name!r}: add_drive got {_what(drive)}, expected "
                                 "a HydraulicDrive")
        self._register(drive.name, drive.valve)
        return super().add_drive(drive)

    def add_motor(self, drive) -> str:
        """Add a :class:`~components.hydraulics.SwingDrive` whose valve is a
        :class:`CompensatedValve`: one more section, its load pressure on the shuttle
        network; returns its shaft port ``"<name>.M"``.

        Parameters
        ----------
        drive : SwingDrive

        Returns
        -------
        str
        """
        self._register(getattr(drive, "name", None), getattr(drive, "valve", None))
        return super().add_motor(drive)

    def add_section(self, valve: CompensatedValve) -> tuple[str, str]:
        """Add a bare valve section named after the valve (no cylinder); returns its work
        ports ``<name>.A``, ``<name>.B``, exposed for the caller to connect (a rig's loads).

        Parameters
        ----------
        valve : CompensatedValve

        Returns
        -------
        (str, str)

        Raises
        ------
        ParameterError
            As :meth:`add_drive`, or a name already used.
        """
        name = getattr(valve, "name", None)
        if name in self.children:
            raise ParameterError(f"LS circuit {self.name!r}: a part named {name!r} exists already")
        self._register(name, valve)
        self.add(valve)
        p, t = self.power_unit.consumer(name)
        self.connect(f"{self.power_unit.name}/{p}", f"{name}/P")
        self.connect(f"{name}/T", f"{self.power_unit.name}/{t}")
        self.expose(f"{name}.A", f"{name}/A")
        self.expose(f"{name}.B", f"{name}/B")
        return f"{name}.A", f"{name}.B"

    def hybrid_model(self, bg, *, params: Mapping[str, Any] | None = None):
        """Build ``bg`` (containing this circuit) as a :class:`~bondgraph.HybridModel`
        with the shuttle mode of a :class:`HybridShuttle`.

        Parameters
        ----------
        bg : BondGraph
        params : mapping, optional

        Returns
        -------
        HybridModel
        """
        return self.network.hybrid_model(bg, params=dict(params or {}))


def ls_circuit_from_params(params: Mapping[str, Any], *, lengths: Mapping[str, sp.Symbol],
                           commands: Mapping[str, Any], name: str = "hyd",
                           shuttle: SmoothShuttle | HybridShuttle | None = None) -> LSCircuit:
    """Build an :class:`LSCircuit` from a parameter table.

    Parameters
    ----------
    params : mapping
        ``{"oil": {...}, "power_unit": {...}, "load_sensing": {...}, "drives": {...}}``
        (units on every value).
    lengths, commands : mapping
        As for :func:`~components.hydraulics.circuit_from_params`.
    name : str
    shuttle : optional
        Overrides the smooth shuttle the table describes (e.g. a :class:`HybridShuttle`).

    Returns
    -------
    LSCircuit

    Raises
    ------
    ParameterError
        Every unknown, missing or ill-united key, named by its table path.

    Examples
    --------
    See the module.
    """
    problems: list[str] = []
    oil_p, pu_p, drive_p = _common_tables(params, lengths, commands, _TOP, LS_POWER_UNIT_SCHEMA,
                                          problems)
    ls_raw = params.get("load_sensing", {})
    ls_p, kind = None, None
    if "load_sensing" in params:
        if not isinstance(ls_raw, Mapping):
            problems.append(f"load_sensing: found {type(ls_raw).__name__}, expected a table")
        else:
            kind = ls_raw.get("compensation")
            if kind not in ("pre", "post"):
                problems.append(f"load_sensing: 'compensation': found {kind!r}, expected 'pre' "
                                "(classic LS) or 'post' (LUDV, flow sharing)")
            ls_p = _load(LS_SCHEMA, {k: v for k, v in ls_raw.items() if k != "compensation"},
                         "load_sensing", problems)
    oil = Oil(**oil_p) if oil_p else None
    pu = ls_power_unit_from_si(pu_p, oil, problems) if (pu_p and oil) else None
    comp = shut = None
    if ls_p is not None and kind in ("pre", "post"):
        try:
            comp = Compensator(kind, ls_p["compensator_setting"], ls_p["compensator_time_constant"])
        except ParameterError as exc:
            problems += [f"load_sensing: {p}" for p in exc.problems]
        shut = shuttle if shuttle is not None else SmoothShuttle(ls_p["shuttle_band"])
    if problems:
        raise ParameterError(problems, subject="hydraulic parameters")
    circuit = LSCircuit(name, pu, shuttle=shut)
    for dn, dp in drive_p.items():
        kw = {"compensator": comp, "oil": oil, "tap_volume": ls_p["tap_volume"],
              "tap_time_constant": ls_p["tap_time_constant"], "ls_opening": ls_p["ls_opening"]}
        circuit.add_drive(drive_from_si(dn, dp, oil, lengths[dn], commands[dn],
                                 valve_type=CompensatedValve, valve_kw=kw))
    return circuit


def ls_power_unit_from_si(p: Mapping[str, Any], oil: Oil, problems: list[str]) -> LSPowerUnit | None:
    """An :class:`LSPowerUnit` from SI values (every :data:`LS_POWER_UNIT_SCHEMA` key; ``None``
    for absent ones), starting at stand-by (the margin); problems are appended to
    ``problems`` (``None`` returned).

    Parameters
    ----------
    p : mapping
        E.g. ``LS_POWER_UNIT_SCHEMA.load(table)``.
    oil : Oil
    problems : list of str

    Returns
    -------
    LSPowerUnit or None

    Examples
    --------
    >>> p = LS_POWER_UNIT_SCHEMA.load({"pump_displacement": "100 cm^3/rev",
    ...                                "pump_speed": "1500 rpm", "margin": "20 bar"})
    >>> pu = ls_power_unit_from_si(p, Oil(), [])
    >>> pu.pump.margin, pu.children["C_P"].initial          # starts at the margin
    (2000000.0, 2000000.0)
    """
    ok, relief = _relief(p, problems)
    if not ok:
        return None
    try:
        pump = LSPump(p["pump_displacement"], p["pump_speed"], p["margin"],
                      time_constant=p["time_constant"], regulation_band=p["regulation_band"],
                      filter_time_constant=p["filter_time_constant"],
                      swash_time_constant=p["swash_time_constant"],
                      order=int(p["swash_order"]), damping=p["swash_damping"],
                      torque_limit=p["torque_limit"], power_limit=p["power_limit"],
                      cutoff=p["cutoff"], leakage=p["leakage"])
    except ParameterError as exc:
        problems += [f"power_unit: {q}" for q in exc.problems]
        return None
    return LSPowerUnit("pu", oil=oil, pump=pump, relief=relief, volume=p["volume"],
                       tank_pressure=p["tank_pressure"], initial_pressure=p["margin"])
