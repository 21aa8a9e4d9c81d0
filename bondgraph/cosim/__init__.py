"""Co-simulation middleware: couple solvers that each run on their own.

Subsystems (FMUs, Python objects, state-space or ODE models) exchange time-stamped
signals through validated relations (units compared with pint); a time manager steps
them (Jacobi or Gauss-Seidel, multi-rate); a polynomial glue extrapolates and
interpolates the coupling signals; an error catcher watches the times the subsystems
report, non-finite values, failed steps, the energy the coupling creates on power bonds
and the growth of the exchanged signals.

Examples
--------
>>> from bondgraph.cosim import examples, cosimulate
>>> mass, spring = examples.b1_subsystems()
>>> res = cosimulate([mass, spring], examples.B1_RELATIONS, step=1e-4, end=0.05)
>>> err = abs(res["mass.x"] - examples.b1_reference(res.time)).max()
>>> bool(err < 2e-6)
True
"""

from .config import CosimSetup, build_setup, load_config
from .catcher import KINDS, LEVELS, CosimulationWarning, ErrorCatcher, ErrorPolicy, Event
from .divergence import DivergenceMonitor, DivergenceWatch
from .export import export_fmu
from .fmi import FmuSubsystem, fmu_ports
from .glue import Glue, evaluate, extrapolate, taylor_matrix
from .linear import StateSpaceSubsystem
from .live import LiveCurves
from .master import Cosimulation, cosimulate
from .model import ModelSubsystem
from .ode import OdeSubsystem
from .packages import InputPackage, OutputPackage, check_times
from .python import PythonSubsystem
from .relations import PowerBond, Relation, Relations
from .results import CosimResults
from .stepcontrol import StepDoubling
from .subsystem import Port, Subsystem
from .timing import TimeManager

__all__ = [
    "ModelSubsystem",
    "Subsystem", "Port", "PythonSubsystem", "StateSpaceSubsystem", "OdeSubsystem",
    "FmuSubsystem", "fmu_ports", "export_fmu",
    "Relation", "Relations", "PowerBond",
    "TimeManager", "Glue", "extrapolate", "evaluate", "taylor_matrix",
    "InputPackage", "OutputPackage", "check_times",
    "ErrorPolicy", "DivergenceMonitor", "DivergenceWatch", "ErrorCatcher", "Event",
    "CosimulationWarning",
    "KINDS", "LEVELS",
    "Cosimulation", "cosimulate", "CosimResults", "LiveCurves",
    "load_config", "build_setup", "CosimSetup", "StepDoubling",
]
