"""Each template's point Jacobian (used by the assembly's Newton solve) is the derivative of its
world points: checked against central differences of :meth:`world_points`, every point, poses
away from zero so that a wrong sign or a swapped sin/cos shows."""

import numpy as np
import pytest

from components import Cylinder, Lever, MainBody


def _parts():
    body = MainBody("b", mass=100.0, inertia=10.0, cog=(0.3, 0.1),
                    points={"R": ("Rt", (0.2, -0.1)), "P": ("Pd", (1.5, 0.4)), "L": ("Li", (-0.7, 0.9))})
    lever = Lever("l", length=0.8, mass=5.0, root="R", tip="P")
    cyl = Cylinder("c", retracted=1.2, stroke=0.6, root="A", tip="B")
    return [(body, np.array([0.4, -0.3, 0.7])), (lever, np.array([1.1, 0.2, -2.1])),
            (cyl, np.array([-0.5, 0.8, 2.4, 1.5]))]


@pytest.mark.parametrize("part, pose", _parts(), ids=["body", "lever", "cylinder"])
def test_point_jacobian_is_the_derivative_of_the_world_points(part, pose):
    h = 1e-6
    for point in part.points:
        J = part.point_jacobian(tuple(pose), point)
        assert J.shape == (2, part.pose_size())
        fd = np.zeros_like(J)
        for k in range(part.pose_size()):
            dp = np.zeros_like(pose)
            dp[k] = h
            hi = np.array(part.world_points(tuple(pose + dp))[point], dtype=float)
            lo = np.array(part.world_points(tuple(pose - dp))[point], dtype=float)
            fd[:, k] = (hi - lo) / (2 * h)
        assert np.allclose(J, fd, rtol=0, atol=1e-8), (point, J, fd)
