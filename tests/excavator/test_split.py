"""The excavator split at the cylinders' I ports, co-simulated against the monolithic model."""

import numpy as np
import pytest

from mechanisms.excavator.split import ExcavatorSplit


@pytest.fixture(scope="module")
def split():
    return ExcavatorSplit()


def tip_gap(split, cres, every=50):
    t, x, y = split.tip_path(cres, every=every)   # position analysis is per sample
    mono = split.monolithic.run(split.cycle, t_end=float(t[-1]), t_eval=t, rtol=1e-9, atol=1e-11,
                                progress=False).table()
    return float(np.max(np.hypot(x - mono["tip_x"], y - mono["tip_y"])))


def test_quadratic_glue_stays_within_5_mm_over_the_cycle(split):
    cres = split.cosimulation(1e-3, 10.0, glue="quadratic").run()
    assert cres.time[-1] == pytest.approx(10.0)
    assert tip_gap(split, cres) < 5e-3


def test_zero_order_hold_is_much_worse(split):
    q = tip_gap(split, split.cosimulation(1e-3, 3.0, glue="quadratic").run(), every=20)
    z = tip_gap(split, split.cosimulation(1e-3, 3.0, glue="zoh").run(), every=20)
    assert z > 20 * q
