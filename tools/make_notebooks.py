"""Write the notebooks of notebooks/ from their cell sources (outputs stripped).

Run: ``python tools/make_notebooks.py NAME`` (or no argument for all). The cell
sources live here so that notebooks stay reviewable as text.
"""

import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ROOT = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = {}


def notebook(name):
    def deco(fn):
        NOTEBOOKS[name] = fn
        return fn
    return deco


def cells(*items):
    out = []
    for kind, src in items:
        out.append(new_markdown_cell(src.strip()) if kind == "md" else new_code_cell(src.strip()))
    return out


@notebook("excavator_1_build.ipynb")
def build():
    return cells(
        ("md", """
# 1 · Building the excavator from templates

A backhoe excavator's front is a *linear-actuator revolute-joint mechanism*: rigid bodies
on pins, moved by hydraulic cylinders. Here we assemble it from three templates —
`MainBody`, `Lever`, `Cylinder` — whose hinge points carry the causal port classes of
Li & Wang (Tongji University): `Rt` (root), `Pd` (pushed point), `Li` (load point), `Pr`
(force-output point) and the cylinder's extension interface `I`. The connection rules
make the causal strokes chain through the machine: no stiff virtual joints, no Lagrange
multipliers, and the equations of motion come from the assembled bond graph.
"""),
        ("code", """
import math
import matplotlib.pyplot as plt
from components import MainBody, Lever, Cylinder
from mechanisms import Mechanism, MechanismModel
from mechanisms.excavator import load_params, excavator_mechanism, start_pose, CYLINDERS
from mechanisms.drawing import draw_causal_diagram
from bondgraph import ConnectionRuleError

p = load_params()          # mechanisms/data/excavator.toml, every value with its unit, in SI
p["boom"]
"""),
        ("md", """
## The first two links by hand

A body declares its hinge points in its own frame, each with a port class. The boom's
root `C` sits on the chassis, the boom cylinder pushes at `Pd` `B`, and the arm cylinder
base `D` and the arm pin `F` are load points `Li`.
"""),
        ("code", """
g = p["chassis"]["gravity"]
mech = Mechanism("front")
mech.add(MainBody("boom", mass=p["boom"]["mass"], inertia=p["boom"]["inertia"], cog=p["boom"]["cog"], gravity=g,
                  points={"C": ("Rt", (0, 0)), "B": ("Pd", p["boom"]["boom_cylinder_pin"]),
                          "D": ("Li", p["boom"]["arm_cylinder_base"]), "F": ("Li", p["boom"]["arm_pin"])}))
mech.add(Cylinder("boom_cyl", retracted=2.48, stroke=1.25, gravity=g))
mech.add(MainBody("arm", mass=p["arm"]["mass"], inertia=p["arm"]["inertia"], cog=p["arm"]["cog"], gravity=g,
                  points={"F": ("Rt", (0, 0)), "E": ("Pd", p["arm"]["arm_cylinder_pin"]),
                          "K": ("Li", p["arm"]["bucket_pin"])}))
mech.add(Cylinder("arm_cyl", retracted=2.26, stroke=1.64, gravity=g))
mech.fix("boom", "C", at=p["chassis"]["boom_foot"])
mech.fix("boom_cyl", "A", at=p["chassis"]["boom_cylinder_base"])
mech.connect("boom", "B", "boom_cyl", "B")     # Pd – Pr
mech.connect("boom", "F", "arm", "F")          # Li – Rt
mech.connect("boom", "D", "arm_cyl", "A")      # Li – Rt
"""),
        ("md", """
## A connection that breaks the rules

Hinging the arm cylinder's rod eye (`Pr`) to the arm's load point `K` (`Li`) would leave
the cylinder's output point without a body to push: the rules say *a Pd connects to a Pr*.
The error names both parts, both ports and the rule.
"""),
        ("code", """
try:
    mech.connect("arm", "K", "arm_cyl", "B")
except ConnectionRuleError as err:
    print(err)
"""),
        ("md", """
Assembling checks every rule again and lists every violation at once — here the arm
cylinder is neither connected at its rod eye nor driven:
"""),
        ("code", """
try:
    mech.check()
except ConnectionRuleError as err:
    print(err)
"""),
        ("md", """
## The whole machine

`excavator_mechanism` assembles the full front the same way: boom, arm, bucket, the
rocker (a body: it carries both the bucket cylinder's `Pd` and the link's root on an `Li`),
the link (a lever) and three cylinders (the boom pair as one of doubled area). At the
start pose θ = (50°, −80°, 20°) the loop closures give the published cylinder lengths.
"""),
        ("code", """
front = excavator_mechanism(p, "force")
pose = start_pose(front, p)
{c: round(pose.length(c), 3) for c in CYLINDERS}
"""),
        ("md", """
## Causality

Building the model assembles the global bond graph, assigns causality (SCAP, fixed ports
first), derives the equations along the causal graph and compiles them. The report says
which states are independent — one mechanical degree of freedom per cylinder — and which
inertias the kinematic chain forced into derivative causality, with the path that forced
them. There are no algebraic loops and no conflicts.
"""),
        ("code", """
mm = MechanismModel.build(front)
print(mm.model.report.summary())
print("\\n".join(str(mm.model.report).splitlines()[1:8]))
print("...")
print(mm.model.equations)
"""),
        ("md", """
## The bond graph, part by part

Each hinge is a pair of bonds (x and y components); the causal stroke marks the end that
receives the effort. Load points `Li` take both forces; at a `Pd`–`Pr` hinge the pushed
body takes the normal force and the actuator the axial one — the strokes chain from the
chassis to the bucket.
"""),
        ("code", """
ax = draw_causal_diagram(mm)
plt.show()
"""),
    )


def main(argv):
    names = argv or list(NOTEBOOKS)
    for name in names:
        nb = new_notebook(cells=NOTEBOOKS[name]())
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, ROOT / name)
        print("wrote", ROOT / name)


if __name__ == "__main__":
    main(sys.argv[1:])
