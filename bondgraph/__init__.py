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

from .lazy import lazy_exports

#: each public name and the module that defines it, imported when the name is first read
_EXPORTS = {
    'AlgebraicLoop': '.causality',
    'CausalReport': '.causality',
    'Conflict': '.causality',
    'DerivativeStorage': '.causality',
    'assign_causality': '.causality',
    'CompiledSystem': '.codegen',
    'compile_equations': '.codegen',
    'C': '.elements',
    'GY': '.elements',
    'I': '.elements',
    'MGY': '.elements',
    'MR': '.elements',
    'MSe': '.elements',
    'MSf': '.elements',
    'MTF': '.elements',
    'R': '.elements',
    'TF': '.elements',
    'Element': '.elements',
    'Input': '.elements',
    'One': '.elements',
    'Se': '.elements',
    'Sf': '.elements',
    'Zero': '.elements',
    't': '.elements',
    'Equations': '.equations',
    'derive': '.equations',
    'AssemblyError': '.errors',
    'BondGraphError': '.errors',
    'BondGraphWarning': '.errors',
    'CausalityConflict': '.errors',
    'CausalitySearchLimit': '.errors',
    'ConnectionRuleError': '.errors',
    'CosimulationError': '.errors',
    'EquationError': '.errors',
    'ModelStructureError': '.errors',
    'ParameterError': '.errors',
    'SimulationError': '.errors',
    'SingularityWarning': '.errors',
    'UnknownNameError': '.errors',
    'UserCallableError': '.errors',
    'Flag': '.events',
    'StateEvent': '.events',
    'Bond': '.graph',
    'BondGraph': '.graph',
    'Causality': '.graph',
    'Port': '.graph',
    'assemble': '.graph',
    'validate': '.graph',
    'Law': '.laws',
    'Above': '.hybrid',
    'At': '.hybrid',
    'Below': '.hybrid',
    'Controller': '.hybrid',
    'Discrete': '.hybrid',
    'Exceeds': '.hybrid',
    'HybridModel': '.hybrid',
    'Transition': '.hybrid',
    'When': '.hybrid',
    'simulate_hybrid': '.hybrid',
    'LinearModel': '.linearize',
    'equilibrium': '.linearize',
    'linearize': '.linearize',
    'Model': '.model',
    'build': '.model',
    'draw_bond_graph': '.plotting',
    'plot_series': '.plotting',
    'PowerBalance': '.results',
    'Results': '.results',
    'power_balance': '.results',
    'Constant': '.signals',
    'Signal': '.signals',
    'Spline': '.signals',
    'Table': '.signals',
    'simulate': '.simulate',
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

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
