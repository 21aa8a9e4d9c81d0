"""Plots of an excavator run: the generic ones (:mod:`mechanisms.machine.plots`).

Examples
--------
>>> plot_trajectory is __import__("mechanisms.machine.plots", fromlist=["x"]).plot_trajectory
True
"""

from ..machine.plots import animate, plot_bond_graph, plot_timeseries, plot_trajectory, posture_lines

__all__ = ["plot_trajectory", "plot_timeseries", "animate", "plot_bond_graph", "posture_lines"]
