"""A lever through its dead centre, shared by the branch tests and the bad-input catalogue."""

from components import Cylinder, MainBody
from mechanisms import Mechanism


def dead_centre_lever() -> Mechanism:
    """A body on a pivot at the origin, its Pd one metre out on x, pushed by a cylinder whose
    base is at (2, 0): at the body angle 0 the cylinder's line passes through the pivot."""
    mech = Mechanism("lever", gravity=0.0)
    mech.add(MainBody("arm", mass=10.0, inertia=1.0, cog=(0.5, 0.0), gravity=0.0,
                      points={"O": ("Rt", (0, 0)), "P": ("Pd", (1.0, 0.0))}))
    mech.add(Cylinder("cyl", retracted=0.9, stroke=2.0, gravity=0.0))
    mech.fix("arm", "O", at=(0.0, 0.0))
    mech.fix("cyl", "A", at=(2.0, 0.0))
    mech.connect("arm", "P", "cyl", "B")
    mech.drive_force("cyl")
    return mech
