"""Any planar hydraulic linkage from one description file: build, run, read, plot, report.

A machine is a TOML file with units (:mod:`.description`); :class:`Machine` builds
it from the templates for a driving mode and runs cycles; a run's read-outs are
named by function (``boom_force``, ``lift_cap_pressure``, ``tip_x``). Nothing here
names a particular machine: the excavator of ``mechanisms/data/excavator.toml`` is
one file among others.

Examples
--------
>>> from mechanisms.machine import Machine, DATA
>>> m = Machine.from_file(DATA / "excavator.toml", mode="extensions")
>>> run = m.run(t_end=0.2, progress=False)
>>> run.loop_closure() < 1e-6
True
"""

from bondgraph.lazy import lazy_exports

#: each public name and the module that defines it, imported when the name is first read
_EXPORTS = {
    'CIRCUITS': '.circuits',
    'Circuit': '.circuits',
    'CircuitContext': '.circuits',
    'register_circuit': '.circuits',
    'Cycle': '.cycle',
    'DATA': '.description',
    'MODES': '.description',
    'MachineDescription': '.description',
    'Explorer': '.explore',
    'LiveRun': '.live',
    'FORMULATIONS': '.machine',
    'Machine': '.machine',
    'parse_sets': '.names',
    'resolve_machine': '.names',
    'Interrupt': '.run',
    'MachineRun': '.run',
    'Contact': '.strokes',
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = ["Machine", "MachineDescription", "MachineRun", "Cycle", "Contact", "Interrupt", "DATA",
           "MODES", "FORMULATIONS", "CIRCUITS", "Circuit", "CircuitContext", "register_circuit",
           "resolve_machine", "parse_sets", "Explorer", "LiveRun"]
