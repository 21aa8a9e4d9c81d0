"""Bond-graph core: elements, graph, causality, equations, simulation.

The flow a model takes::

    BondGraph ──assemble──▶ global graph ──assign_causality──▶ CausalReport
              ──derive──▶ Equations ──compile──▶ Model ──simulate──▶ Results

Examples
--------
>>> import bondgraph as bg
>>> m = bg.BondGraph("osc")
>>> _ = m.add(bg.One("v"), bg.I("m", 1.0, initial=1.0), bg.C.spring("k", 1.0))
>>> _ = m.connect("v", "m"); _ = m.connect("v", "k")
>>> res = bg.simulate(bg.build(m), (0, 3.141592653589793), rtol=1e-10, atol=1e-12)
>>> round(float(res["osc/m.f"][-1]), 6)
-1.0
"""

from .causality import AlgebraicLoop, CausalReport, Conflict, DerivativeStorage, assign_causality
from .codegen import CompiledSystem, compile_equations
from .elements import (C, GY, I, MGY, MR, MSe, MSf, MTF, R, TF, Element, Input, One, Se, Sf,
                       Zero, t)
from .equations import Equations, derive
from .errors import (AssemblyError, BondGraphError, BondGraphWarning, CausalityConflict,
                     CausalitySearchLimit, ConnectionRuleError, CosimulationError, EquationError,
                     ModelStructureError, ParameterError, SimulationError, SingularityWarning,
                     UnknownNameError, UserCallableError)
from .events import Flag, StateEvent
from .graph import Bond, BondGraph, Causality, Port, assemble, validate
from .laws import Law
from .hybrid import (Above, At, Below, Controller, Discrete, Exceeds, HybridModel, Transition, When,
                     simulate_hybrid)
from .linearize import LinearModel, equilibrium, linearize
from .model import Model, build
from .plotting import draw_bond_graph, plot_series
from .results import PowerBalance, Results, power_balance
from .signals import Constant, Signal, Spline, Table
from .simulate import simulate

__all__ = [
    # elements
    "Se", "Sf", "MSe", "MSf", "C", "I", "R", "MR", "TF", "MTF", "GY", "MGY", "Zero", "One",
    "Element", "Input", "t", "Law",
    # graph
    "BondGraph", "Bond", "Port", "Causality", "assemble", "validate",
    # causality
    "assign_causality", "CausalReport", "Conflict", "DerivativeStorage", "AlgebraicLoop",
    # equations and code
    "derive", "Equations", "compile_equations", "CompiledSystem",
    # model and simulation
    "build", "Model", "simulate", "Results", "power_balance", "PowerBalance", "StateEvent", "Flag",
    "Signal", "Constant", "Table", "Spline", "draw_bond_graph", "plot_series",
    # hybrid models, linearisation
    "Discrete", "Transition", "Above", "Below", "Exceeds", "At", "When", "Controller", "HybridModel",
    "simulate_hybrid", "linearize", "equilibrium", "LinearModel",
    # errors and warnings
    "BondGraphError", "ModelStructureError", "CausalityConflict", "CausalitySearchLimit",
    "ConnectionRuleError", "AssemblyError", "ParameterError", "UnknownNameError", "EquationError",
    "SimulationError", "UserCallableError", "CosimulationError", "BondGraphWarning",
    "SingularityWarning",
]
