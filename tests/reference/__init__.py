"""Independent reference solutions for the hydrobond test-suite.

Everything here is derived from first principles with machinery the toolkit
does not use -- ``sympy.physics.mechanics`` (Kane's method with holonomic
loop-closure constraints), closed-form analytic solutions, matrix
exponentials and plain ODEs integrated with :func:`scipy.integrate.solve_ivp`
(``DOP853``, ``rtol <= 1e-12``).  Nothing is imported from ``bondgraph``,
``components`` or ``mechanisms``.

Common conventions: SI units; planar world frame with x horizontal
(forward), y up, gravity along ``-y``; angles counter-clockwise positive
(pendulum angles from the downward vertical, all others from world x);
hydraulic actuator forces positive when pushing (extending the cylinder).

Modules
-------
linear      mass-spring-damper (closed form), DC motor, lever (expm)
pendulum    single (point / rod) and double pendulum (Kane, Lagrange)
boom        boom lifted by one cylinder (Kane inverse/forward, law of cosines)
fourbar     cylinder-driven four-bar (Kane inverse/forward, closed form)
hydraulic   lifted-mass single-chamber cylinder with a flow step
excavator   OpenHydraulics excavator kinematics and static boom force
"""

from .boom import (
    OPENHYDRAULICS_BOOM,
    OPENHYDRAULICS_BOOM_MASSLESS_CYLINDER,
    BoomCylinder,
    boom_cylinder_forward,
    boom_cylinder_inverse,
    boom_kinematics,
    boom_lagrange_force,
    boom_length_from_theta,
    boom_static_force,
    boom_theta_from_length,
)
from .excavator import (
    OPENHYDRAULICS_EXCAVATOR,
    ExcavatorGeometry,
    excavator_cylinder_lengths,
    excavator_gravity_moment,
    excavator_points,
    excavator_static_boom_force,
)
from .fourbar import (
    DEFAULT_FOURBAR,
    FourBarCylinder,
    fourbar_angles,
    fourbar_crank_from_length,
    fourbar_cylinder_forward,
    fourbar_cylinder_inverse,
    fourbar_kinematics,
    fourbar_lagrange_force,
    fourbar_length_from_crank,
    fourbar_static_force,
)
from .hydraulic import lifted_mass_cylinder
from .linear import dc_motor, lever, linear_step_response, mass_spring_damper
from .pendulum import (
    double_pendulum_kane,
    double_pendulum_lagrange,
    equivalent_length,
    pendulum_period_exact,
    pendulum_period_small_angle,
    rod_pendulum_kane,
)

__all__ = [
    "BoomCylinder",
    "OPENHYDRAULICS_BOOM",
    "OPENHYDRAULICS_BOOM_MASSLESS_CYLINDER",
    "boom_cylinder_forward",
    "boom_cylinder_inverse",
    "boom_kinematics",
    "boom_lagrange_force",
    "boom_length_from_theta",
    "boom_static_force",
    "boom_theta_from_length",
    "ExcavatorGeometry",
    "OPENHYDRAULICS_EXCAVATOR",
    "excavator_cylinder_lengths",
    "excavator_gravity_moment",
    "excavator_points",
    "excavator_static_boom_force",
    "DEFAULT_FOURBAR",
    "FourBarCylinder",
    "fourbar_angles",
    "fourbar_crank_from_length",
    "fourbar_cylinder_forward",
    "fourbar_cylinder_inverse",
    "fourbar_kinematics",
    "fourbar_lagrange_force",
    "fourbar_length_from_crank",
    "fourbar_static_force",
    "lifted_mass_cylinder",
    "dc_motor",
    "lever",
    "linear_step_response",
    "mass_spring_damper",
    "double_pendulum_kane",
    "double_pendulum_lagrange",
    "equivalent_length",
    "pendulum_period_exact",
    "pendulum_period_small_angle",
    "rod_pendulum_kane",
]
