"""Live curves under the Agg backend."""

import matplotlib
import numpy as np
import pytest

from bondgraph.cosim import Cosimulation, Glue, LiveCurves, TimeManager
from bondgraph.cosim import examples as ex
from bondgraph.errors import ParameterError

matplotlib.use("Agg")


def test_live_curves_follow_the_run_and_end_with_all_data(tmp_path):
    live = LiveCurves(["mass.x", "spring.x"], title="B1", interval=0.0)
    sim = Cosimulation(list(ex.b1_subsystems()), ex.B1_RELATIONS,
                       TimeManager(step=1e-3, end=0.2), Glue("quadratic"))
    res = sim.run(callback=live, callback_every=50)
    assert live.updates == 5                      # 4 during the run + the final state
    x, y = live.lines[0].get_data()
    assert np.array_equal(y, res["mass.x"]) and len(x) == 201
    assert live.axes[1].get_ylabel() == "spring.x [m]"
    lo, hi = live.axes[0].get_ylim()
    assert lo <= res["mass.x"].min() and hi >= res["mass.x"].max()
    live.fig.savefig(tmp_path / "live.png")
    assert (tmp_path / "live.png").stat().st_size > 1000
    live.close()


def test_live_curves_refuse_unknown_signals_before_the_run():
    live = LiveCurves(["mass.x", "mass.a", "pump.Q"])
    sim = Cosimulation(list(ex.b1_subsystems()), ex.B1_RELATIONS,
                       TimeManager(step=1e-3, end=0.01), Glue("zoh"))
    with pytest.raises(ParameterError) as info:
        sim.run(callback=live)
    assert [p.split(":")[0] for p in info.value.problems] == ["signal 'mass.a'",
                                                              "signal 'pump.Q'"]
    assert live.fig is None
    with pytest.raises(ParameterError, match="expected a non-empty list"):
        LiveCurves("mass.x")
