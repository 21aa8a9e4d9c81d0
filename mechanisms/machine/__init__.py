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

from .circuits import CIRCUITS, Circuit, CircuitContext, register_circuit
from . import circuits_ls  # noqa: F401  (registers the "load-sensing" circuit)
from . import circuits_oc  # noqa: F401  (registers the "open-centre" circuit)
from .cycle import Cycle
from .description import DATA, MODES, MachineDescription
from .explore import Explorer
from .live import LiveRun
from .machine import FORMULATIONS, Machine
from .names import parse_sets, resolve_machine
from .run import Interrupt, MachineRun
from .strokes import Contact

__all__ = ["Machine", "MachineDescription", "MachineRun", "Cycle", "Contact", "Interrupt", "DATA",
           "MODES", "FORMULATIONS", "CIRCUITS", "Circuit", "CircuitContext", "register_circuit",
           "resolve_machine", "parse_sets", "Explorer", "LiveRun"]
