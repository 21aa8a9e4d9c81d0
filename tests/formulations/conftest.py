"""Shared references for the formulation tests: Kane solutions on the comparison cases.

Every reference here comes from ``tests/reference`` (``sympy.physics.mechanics``,
closed forms); nothing is a number from our own runs.
"""

from __future__ import annotations

import numpy as np
import pytest

import reference as ref
from mechanisms.formulations.cases import (BOOM_CYLINDER_MASSES, FOUR_BAR_CYLINDER_MASSES,
                                           boom_case, four_bar_case)

T_GRID = np.linspace(0.0, 2.0, 101)


def _vec(fn):
    return lambda t: np.array([fn(float(x)) for x in np.atleast_1d(t)])


def boom_geometry(massive: bool) -> "ref.BoomCylinder":
    if not massive:
        return ref.OPENHYDRAULICS_BOOM_MASSLESS_CYLINDER
    m = BOOM_CYLINDER_MASSES
    return ref.BoomCylinder(m1=m["m_barrel"], d1=m["d_barrel"], J1=m["J_barrel"], m2=m["m_rod"],
                            d2=m["d_rod"], J2=m["J_rod"])


def four_bar_geometry(massive: bool) -> "ref.FourBarCylinder":
    if not massive:
        return ref.FourBarCylinder(m1=0.0, J1=0.0, m2=0.0, J2=0.0)
    m = FOUR_BAR_CYLINDER_MASSES
    return ref.FourBarCylinder(m1=m["m_barrel"], d1=m["d_barrel"], J1=m["J_barrel"],
                               m2=m["m_rod"], d2=m["d_rod"], J2=m["J_rod"])


@pytest.fixture(scope="session")
def inverse_references():
    """Kane inverse dynamics of the four comparison cases on their own length splines."""
    out = {}
    for machine in ("boom", "four-bar"):
        for massive in (False, True):
            case = boom_case(massive) if machine == "boom" else four_bar_case(massive)
            (cyl, s), = case.lengths.items()
            args = (_vec(s.value), _vec(s.derivative), _vec(s.second_derivative), T_GRID)
            if machine == "boom":
                r = ref.boom_cylinder_inverse(boom_geometry(massive), *args)
                angles = {"boom": r["theta"], "boom_cyl": r["phi"]}
                arm = ref.boom_kinematics(boom_geometry(massive), r["length"])["ds_dtheta"]
            else:
                r = ref.fourbar_cylinder_inverse(four_bar_geometry(massive), *args)
                angles = {"crank": r["theta_a"], "coupler": r["theta_b"], "rocker": r["theta_c"],
                          "cyl": r["phi"]}
                arm = ref.fourbar_kinematics(four_bar_geometry(massive), r["length"])["ds_dtheta_a"]
            out[(machine, massive)] = dict(case=case, cyl=cyl, angles=angles, F=r["F"],
                                           arm=float(np.min(np.abs(arm))))
    return out
