"""Export of built models to other tools.

* :mod:`bondgraph.export.modelica` — Modelica source text of a bond graph,
  one block of equations per element, acausal, named after the parts.
* :mod:`bondgraph.export.fmu` — a standalone FMI 2.0 FMU of a built model: its generated
  C equations, model exchange and co-simulation (CVODE bundled), no Python inside.

Examples
--------
>>> from bondgraph import BondGraph, Se, One, I
>>> from bondgraph.export import to_modelica
>>> bg = BondGraph("push")
>>> _ = bg.add(Se("F", 2.0), One("v"), I("m", 4.0))
>>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
>>> to_modelica(bg).n_equations   # e_F, f_F, e_m, f_m
4
"""

from .fmu import export_standalone_fmu
from .modelica import ModelicaModel, ModelicaWriter, modelica_identifier, simulate_rumoca, to_modelica

# the argument checks every exporter shares (class_name_problem, formula_problem) stay in
# bondgraph.export.modelica: plumbing, not the package's surface
__all__ = ["to_modelica", "ModelicaModel", "ModelicaWriter", "modelica_identifier",
           "simulate_rumoca", "export_standalone_fmu"]
