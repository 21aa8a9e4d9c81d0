"""Design studies of any machine of the description format: what it reaches, digs, lifts,
costs — and how that changes with a pin or a bore.

* :func:`working_range` — ISO 7135 dimensions, envelope and chart (:mod:`.reach`);
* :func:`tool_forces` — ISO 6015 arm- and bucket-cylinder tool forces (and the arm's SAE
  J1179 one), hydraulic and tipping limits, on a stroke grid and at the optimum
  (:mod:`.digging`);
* :func:`lift_capacity` — rated lift capacity over the front and over the side, ISO 10567
  style (:mod:`.lifting`);
* :func:`breakout_forces` — a loader's ISO 14397-2 breakout forces; its ISO 7131 dump
  height and reach at 45° come with its working range (:mod:`.loading`);
* :func:`cycle_energy` — where the pump work of a valves cycle goes (:mod:`.energy`);
* :func:`sweep` — any of them over a grid or a sample of parameters, in local
  processes (kept between sweeps; :func:`close_workers` ends them) or on a Dask cluster
  (:mod:`.sweeps`).

Statics come from the machine's bond graph (:mod:`.statics`: holding forces, chassis
reactions, velocity ratios, evaluated in batches by :func:`bondgraph.batch.evaluate_many`),
positions from a batched loop-closure solver (:mod:`.kinematics`); nothing is written
per machine. A :class:`Study` keeps what the analyses build and rebuilds only what a
change reaches.

Examples
--------
>>> from mechanisms.machine import DATA
>>> from mechanisms.analysis import Study, working_range, tool_forces
>>> study = Study(DATA / "excavator.toml")
>>> round(working_range(study, n=20).dimensions["max_reach"].value, 2)
11.79
>>> round(tool_forces(study, n=20, functions=["bucket"]).summary()["bucket_tool_force"] / 1e3, 1)
78.3
"""

from bondgraph.lazy import lazy_exports

#: each public name and the module that defines it, imported when the name is first read
_EXPORTS = {
    'CycleEnergy': '.energy',
    'cycle_energy': '.energy',
    'BoxGrid': '.kinematics',
    'BoxKinematics': '.kinematics',
    'LiftCapacity': '.lifting',
    'lift_capacity': '.lifting',
    'BreakoutForces': '.loading',
    'breakout_forces': '.loading',
    'AnalysisResult': '.result',
    'FrontStatics': '.statics',
    'cylinder_force_limits': '.statics',
    'Study': '.study',
    'ANALYSES': '.sweeps',
    'parse_values': '.sweeps',
    'run_analysis': '.sweeps',
    'sweep': '.sweeps',
    'close_workers': '.workers',
    'ToolForces': '.digging',
    'tool_forces': '.digging',
    'WorkingRange': '.reach',
    'working_range': '.reach',
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = ["Study", "working_range", "WorkingRange", "tool_forces", "ToolForces", "lift_capacity",
           "LiftCapacity", "breakout_forces", "BreakoutForces", "cycle_energy", "CycleEnergy", "sweep", "ANALYSES",
           "run_analysis", "close_workers",
           "parse_values", "AnalysisResult", "BoxKinematics", "BoxGrid", "FrontStatics",
           "cylinder_force_limits"]
