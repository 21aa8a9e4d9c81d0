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


@notebook("first_machine_in_python.ipynb")
def first_machine():
    return cells(
        ("md", """
# 0 · Your own machine in Python

This notebook builds a machine the toolkit has never seen — the arm of a compact wheel
loader: a **lift arm** pinned to the chassis and raised by two lift cylinders, and a
**bucket** on its tip turned by a tilt cylinder — from the three element templates, in
about twenty lines. It then does what an engineer does with a new machine:

1. check that its causality is sound (the causal report);
2. ask for a motion past a cylinder's stroke — and be refused, with the cylinder, the time
   and the limit named;
3. push it with forces into its end stops;
4. attach a hydraulic circuit in a few lines, by function name, and run a work cycle with
   the real hydraulics;
5. read the report, save the machine as a description file and read it back;
6. plot what the bucket tip does.

The numbers are illustrative (a 1.4 t arm and bucket), not a product's data.
"""),
        ("code", """
import tempfile
from pathlib import Path

import numpy as np
import matplotlib.pyplot as plt

from IPython.display import display

from bondgraph import AssemblyError
from components import MainBody, Cylinder
from mechanisms import Mechanism
from mechanisms.machine import Machine, Cycle
from mechanisms.machine.plots import plot_trajectory, plot_timeseries
"""),
        ("md", """
## The linkage from templates

Every hinge point of a part carries a **causal port class** (Li & Wang, Tongji University):
a body's root `Rt` (on the chassis or on another part's load point), the point `Pd` where a
cylinder pushes it, and its load points `Li` (where other parts hang, or a free tool tip).
A cylinder has its root `Rt` and its rod eye `Pr`, and its extension interface `I` is what
the hydraulics drive. The connection rules — an `Rt` goes on the chassis or on an `Li`, a
`Pd` takes a `Pr` — make the causal strokes chain through the machine, so no stiff virtual
joint is needed. Values carry their units; bare numbers are SI.

The cylinders also carry their hydraulic data (bore, rod, how many work in parallel) and
the **function** they serve: read-outs, cycle columns and valves are named by it.
"""),
        ("code", """
mech = Mechanism("loader")
mech.add(MainBody("arm", mass="900 kg", inertia="400 kg*m^2", cog=("1.1 m", "0 m"),
                  points={"O": ("Rt", "0 m", "0 m"),       # pivot on the chassis
                          "P": ("Pd", "0.8 m", "-0.3 m"),  # where the lift cylinders push
                          "C": ("Li", "1.2 m", "0.3 m"),   # tilt-cylinder base
                          "T": ("Li", "2.2 m", "0 m")}))   # bucket pin
mech.add(MainBody("bucket", mass="500 kg", inertia="80 kg*m^2", cog=("0.3 m", "-0.2 m"),
                  points={"T": ("Rt", "0 m", "0 m"), "N": ("Pd", "0 m", "0.4 m"),
                          "Q": ("Li", "0.7 m", "-0.5 m")}))   # the cutting edge, free
mech.add(Cylinder("lift_cyl", function="lift", count=2, retracted="1.0 m", stroke="0.8 m",
                  bore="100 mm", rod="60 mm", m_rod="30 kg",
                  friction={"coulomb": "500 N", "viscous": "3000 N*s/m"}))
mech.add(Cylinder("tilt_cyl", function="tilt", retracted="0.8 m", stroke="0.45 m",
                  bore="90 mm", rod="50 mm", m_rod="12 kg"))
mech.fix("arm", "O", at=("0 m", "0 m"))
mech.fix("lift_cyl", "A", at=("0.6 m", "-1.2 m"))
mech.connect("arm", "P", "lift_cyl", "B")      # Pd – Pr: the cylinder pushes the arm
mech.connect("arm", "T", "bucket", "T")        # Li – Rt: the bucket hangs on the arm
mech.connect("arm", "C", "tilt_cyl", "A")      # Li – Rt
mech.connect("bucket", "N", "tilt_cyl", "B")   # Pd – Pr
"""),
        ("md", """
## A machine, and its causal report

`Machine.from_mechanism` turns the linkage into a **machine**: the same object a machine
file gives, with its start pose (one target per cylinder: a length or an angle), its
read-outs (`tip_x`, `tip_y`, the angles) and the ground. Building it assembles the bond
graph, assigns causality, derives the equations and compiles them. With the cylinder
lengths prescribed, every inertia is in derivative causality: the model is the machine's
inverse dynamics, and the report says which storage element is forced along which path.

A machine shows itself: one line (parts, functions, mobility, mode) and its start pose,
each hinge point labelled with its port classes and each cylinder with the share of its
stroke in use. The causal report shows as tables.
"""),
        ("code", """
loader = Machine.from_mechanism(
    mech, start={"lift_cyl": "1.2 m", "tilt_cyl": "1.0 m"},
    outputs={"points": {"tip": "bucket.Q"}, "angles": {"arm": "arm", "tilt": "bucket - arm"}},
    ground="-1.5 m")
display(loader)
display(loader.report)
"""),
        ("md", """
## Pose it by hand

`loader.explore()` gives one slider per function, each within its cylinder's stroke. Moving
one redraws the machine and shows the tip's coordinates, the cylinder forces and chamber
pressures that hold the pose at rest (from the bond graph's statics), and the margins to
each stroke end and to the ground; **use as start pose** writes the pose into the
machine's `[start]` (which `save` then writes to a file). Here the lift slider is set from
code; in a live notebook, drag it. (A notebook executed without a browser cannot render
the widget: the snapshot below it is the same table and drawing.)
"""),
        ("code", """
explorer = loader.explore()
explorer.sliders["lift"].value = 1.5
explorer
"""),
        ("md", """
## A motion past a stroke is refused

A lengths cycle is a table by function. It is interpolated by a C² spline that starts and
ends at rest, and *before* anything runs it is sampled densely — between the table's rows
too, where a spline can overshoot — and checked against every stroke and against
reachability. Asking the lift cylinders for 1.9 m (their stroke ends at 1.8 m):
"""),
        ("code", """
too_far = Cycle("extensions", [0, 2, 4], {"lift": [1.2, 1.9, 1.2], "tilt": [1.0, 1.0, 1.0]},
                loader.functions, source="too far")
try:
    loader.run(too_far)
except AssemblyError as err:
    print(err)
"""),
        ("md", """
Within the strokes the run goes through: raise the arm while curling the bucket back, then
tip it out and lower. The forces the cylinders need come out of the inverse dynamics.
"""),
        ("code", """
cycle = Cycle("extensions", [0, 1.5, 3, 4.5, 6],
              {"lift": [1.2, 1.2, 1.6, 1.6, 1.2], "tilt": [1.0, 0.88, 0.88, 1.12, 1.0]},
              loader.functions, source="raise, curl, tip, lower")
run = loader.run(cycle, progress=False)
tab = run.table()
for f in loader.functions:
    print(f"{f}: largest force needed {np.max(np.abs(tab[f + '_force'])) / 1e3:.1f} kN, "
          f"holding force at the start {tab[f + '_force'][0] / 1e3:.1f} kN")
print(f"loop closure over the run: {run.loop_closure():.1e} m")
"""),
        ("md", """
## Forces into the end stops

In mode `forces` the cycle prescribes the cylinder forces and the machine moves as they
make it. Every cylinder has its **end stops** (a stiff spring–damper past each end of the
stroke; the defaults are documented on `Cylinder`, and `Machine(..., end_stops=False)`
switches them off). Pushing the lift cylinders with 80 kN — far more than the arm needs —
drives them into their outer stops; the run locates each contact and says how deep the
stop was pressed.
"""),
        ("code", """
pushing = loader.with_mode("forces")
hold_tilt = tab["tilt_force"][0]            # what holds the bucket at the start
frun = pushing.run(Cycle("forces", [0, 2], {"lift": [80e3, 80e3], "tilt": [hold_tilt, hold_tilt]},
                         loader.functions, source="lift pushed hard"), progress=False)
for contact in frun.contacts:
    print(contact)
"""),
        ("md", """
## The hydraulics, attached by function name

A circuit is a table written as in a machine file: the oil, the power unit (here a
fixed-displacement pump with its relief valve) and one closed-centre valve per function —
values with units, no internal state names. The start state that holds the start pose
(the chamber pressures carrying the arm's weight) is found by the machine when the run
starts. The valve commands run from −1 to 1 (positive: pressure to the cap side).
"""),
        ("code", """
hydraulic = loader.with_circuit({
    "type": "fixed",
    "oil": {"density": "870 kg/m^3", "bulk_modulus": "1.4 GPa"},
    "power_unit": {"pump_displacement": "60 cm^3/rev", "pump_speed": "2000 rpm",
                   "relief_crack": "250 bar", "relief_full": "260 bar", "relief_flow": "300 L/min"},
    "valves": {"lift": {"flow": "120 L/min", "dp": "10 bar"},
               "tilt": {"flow": "80 L/min", "dp": "10 bar"}},
})
commands = Cycle("valves", [0, 0.5, 1.0, 2.0, 2.5, 3.5, 4.0, 5.0, 5.5, 7],
                 {"lift": [0, 0, 1, 1, 0, 0, 0, -0.6, 0, 0],
                  "tilt": [0, -0.8, -0.8, 0, 0, 0.8, 0.8, 0, 0, 0]},
                 loader.functions, source="curl, raise, tip, lower")
vrun = hydraulic.run(commands, progress=False, live=["lift_cap_pressure", "tip_y"])   # curves as it runs
start = hydraulic.start_state()
print(f"start: lift cap side {vrun.table()['lift_cap_pressure'][0] / 1e5:.1f} bar holds the arm")
fig = plot_timeseries(vrun)
plt.show()
"""),
        ("md", """
## The report

The run's report flags what an engineer must look at — end-stop contacts, pressures above
the relief setting or below the cavitation floor, points below the ground, lightly damped
oil-column modes — and splits the energy: pump work into relief and throttling losses,
friction, potential and kinetic energy and oil compression. The split closes on the
solver's own integrals.
"""),
        ("code", """
print(vrun.report())
"""),
        ("md", """
## Saved as a description file, read back

`Machine.save` writes the machine as a description file — the format the command line
(`hydrobond run loader.toml`) and colleagues without Python read. Reading it back builds the
same equations; the same commands give the same tip path.
"""),
        ("code", """
folder = Path(tempfile.mkdtemp())
path = hydraulic.save(folder / "loader.toml")
print("\\n".join(path.read_text().splitlines()[:24]), "\\n...")
again = Machine.from_file(path, mode="valves")
tab_again = again.run(commands, progress=False).table()
gap = max(np.max(np.abs(tab_again[k] - vrun.table()[k])) for k in ("tip_x", "tip_y"))
print(f"largest tip difference after the round trip: {gap:.1e} m")
"""),
        ("md", """
## What the bucket tip does

The tip's path in the machine's plane with the first and last postures; crosses mark where
an end-stop contact began.
"""),
        ("code", """
fig = plot_trajectory(vrun)
plt.show()
"""),
    )


@notebook("excavator_1_build.ipynb")
def build():
    return cells(
        ("md", """
# 1 · Building the excavator from templates, by hand

A backhoe excavator's front is a *linear-actuator revolute-joint mechanism*: rigid bodies
on pins, moved by hydraulic cylinders. Here we assemble the whole front — boom, arm,
bucket, the bucket's four-bar linkage and three cylinders — from three templates,
`MainBody`, `Lever` and `Cylinder`, whose hinge points carry the causal port classes of
Li & Wang (Tongji University): `Rt` (root), `Pd` (pushed point), `Li` (load point), `Pr`
(force-output point) and the cylinder's extension interface `I`. The connection rules
make the causal strokes chain through the machine: no stiff virtual joints, no Lagrange
multipliers, and the equations of motion come from the assembled bond graph.

At the end we check that the machine built by hand *is* the ready-made one that
`mechanisms/data/excavator.toml` describes (same poses, same forces).
"""),
        ("code", """
import math
import numpy as np
import matplotlib.pyplot as plt
from components import MainBody, Lever, Cylinder
from mechanisms import Mechanism, MechanismModel
from mechanisms.drawing import draw_causal_diagram
from bondgraph import ConnectionRuleError

g = 9.81   # every number below is from docs/reference/excavator_data.md section B (SI units)
"""),
        ("md", """
## The first two links

A body declares its hinge points in its own frame, each with a port class. The boom's
root `C` sits on the chassis, the boom cylinder pushes at `Pd` `B`, and the arm cylinder
base `D` and the arm pin `F` are load points `Li`. The two boom cylinders work in
parallel: one cylinder part carries both (their rods weigh 2 × 10 kg).
"""),
        ("code", """
mech = Mechanism("front")
mech.add(MainBody("boom", mass=1307.0, inertia=8060.0, cog=(3.44, 0.65), gravity=g,
                  points={"C": ("Rt", (0, 0)), "B": ("Pd", (2.85, 1.18)),
                          "D": ("Li", (4.22, 1.33)), "F": ("Li", (7.11, 0.0))}))
mech.add(Cylinder("boom_cylinder", retracted=2.48, stroke=1.25, m_rod=20.0, d_rod=1.24, gravity=g))
mech.add(MainBody("arm", mass=700.5, inertia=2191.0, cog=(1.176, 0.296), gravity=g,
                  points={"F": ("Rt", (0, 0)), "E": ("Pd", (-0.92, 0.217)), "G": ("Li", (0.49, 0.96)),
                          "H": ("Li", (2.97, 0.13)), "K": ("Li", (3.654, 0.0))}))
mech.add(Cylinder("arm_cylinder", retracted=2.26, stroke=1.64, m_rod=10.0, d_rod=1.13, gravity=g))
mech.fix("boom", "C", at=(-0.164, 1.428))
mech.fix("boom_cylinder", "A", at=(0.655, 0.703))
mech.connect("boom", "B", "boom_cylinder", "B")     # Pd – Pr
mech.connect("boom", "F", "arm", "F")               # Li – Rt
mech.connect("boom", "D", "arm_cylinder", "A")      # Li – Rt
"""),
        ("md", """
## A connection that breaks the rules

Hinging the arm cylinder's rod eye (`Pr`) to the arm's load point `K` (`Li`) would leave
the cylinder's output point without a body to push: the rules say *a Pd connects to a Pr*.
The error names both parts, both ports and the rule.
"""),
        ("code", """
try:
    mech.connect("arm", "K", "arm_cylinder", "B")
except ConnectionRuleError as err:
    print(err)
"""),
        ("md", """
Checking the machine lists every violation at once — here the arm cylinder is neither
connected at its rod eye nor driven:
"""),
        ("code", """
try:
    mech.check()
except ConnectionRuleError as err:
    print(err)
"""),
        ("md", """
## The bucket and its four-bar linkage

The bucket cylinder does not push the bucket directly: it pushes the **rocker**, which
turns about its pivot `H` on the arm, and a short **link** carries the motion on to the
bucket. Two rules decide the templates:

* the rocker receives the bucket cylinder's push (a `Pd`) *and* carries the link's root
  (an `Li`) at the same point: it must be a **main body**, with `Pd` `J` and `Li` `J2`
  declared at one position (a lever has no `Li`);
* the link has a root and an output point: a **lever**, whose `Pr` pushes the bucket's
  `Pd` `N`.
"""),
        ("code", """
L_rocker, L_link = math.hypot(0.62, 0.36), math.hypot(0.67, 0.07)     # 0.717 m, 0.674 m
mech.connect("arm", "E", "arm_cylinder", "B")
mech.add(MainBody("bucket", mass=700.0, inertia=150.0, cog=(0.35, -0.60), gravity=g,
                  points={"K": ("Rt", (0, 0)), "N": ("Pd", (0.52, 0.07)), "Q": ("Li", (-0.075, -1.368))}))
mech.add(MainBody("rocker", mass=60.0, inertia=60.0 * 0.717**2 / 12, cog=(0.717 / 2, 0.0), gravity=g,
                  points={"H": ("Rt", (0, 0)), "J": ("Pd", (0.717, 0.0)), "J2": ("Li", (0.717, 0.0))}))
mech.add(Lever("link", length=0.674, mass=50.0, gravity=g, root="J", tip="N"))
mech.add(Cylinder("bucket_cylinder", retracted=2.30, stroke=0.90, m_rod=5.0, d_rod=1.15, gravity=g))
mech.connect("arm", "K", "bucket", "K")
mech.connect("arm", "H", "rocker", "H")
mech.connect("arm", "G", "bucket_cylinder", "A")
mech.connect("rocker", "J", "bucket_cylinder", "B")   # the cylinder pushes the rocker (Pd – Pr)
mech.connect("rocker", "J2", "link", "J")             # the rocker carries the link (Li – Rt)
mech.connect("bucket", "N", "link", "N")              # the link pushes the bucket (Pd – Pr)
for c in ("boom_cylinder", "arm_cylinder", "bucket_cylinder"):
    mech.drive_extension(c)                           # prescribed lengths: inverse dynamics
mech.check()
sorted(mech.parts)
"""),
        ("md", """
## The start pose

Position analysis closes every loop. The dig cycle starts at θ1 = 50° (boom, absolute),
θ2 = −80° (arm, relative to the boom) and θ3 = 20° (bucket, relative to the arm); the
four-bar has two assembly branches, and the guessed rocker and link angles pick the one
of the real machine. The cylinder lengths are the published 3.668 / 2.969 / 3.066 m.
"""),
        ("code", """
t1, t2, t3 = np.radians([50, -80, 20])
pose = mech.solve_pose({"boom": t1, "arm": t1 + t2, "bucket": t1 + t2 + t3},
                       guess={"rocker": math.radians(8), "link": math.radians(-60)})
{c: round(pose.length(c), 3) for c in ("boom_cylinder", "arm_cylinder", "bucket_cylinder")}
"""),
        ("md", """
## Causality

Building the model assembles the global bond graph, assigns causality (SCAP, fixed ports
first), derives the equations along the causal graph and compiles them. With every
cylinder's length prescribed there is no independent mechanical state left: every
inertia is in derivative causality, forced along the path the report prints — the
model is the machine's inverse dynamics.
"""),
        ("code", """
mm = MechanismModel.build(mech)
print(mm.model.report.summary())
print("\\n".join(str(mm.model.report).splitlines()[1:8]))
print("...")
print(mm.model.equations)
"""),
        ("md", """
## The same machine as the ready-made one

`mechanisms/data/excavator.toml` describes this excavator in the machine file format
(every value with its unit, sources and estimates marked), and
`mechanisms.excavator.Excavator` builds it with the same templates. Both give the same
start pose and, along the first two seconds of the dig cycle, the same cylinder forces.
"""),
        ("code", """
from mechanisms.excavator import Excavator, Cycle

ready = Excavator(mode="extensions")
print("largest hinge distance between the two start poses:",
      max(math.dist(pose.points()[k], ready.start_pose.points()[k]) for k in pose.points()), "m")
cycle = Cycle.default("extensions")
t = np.linspace(0, 2, 201)
theirs = ready.run(cycle, t_end=2.0, t_eval=t, rtol=1e-10, atol=1e-12, progress=False).table()
lengths = {ready.cylinder_of[f]: s for f, s in cycle.signals().items()}
ours = mm.simulate_extensions(lengths, (0, 2), guess={n: pose.angle(n) for n in ("boom", "arm", "bucket", "rocker", "link")},
                              t_eval=t, rtol=1e-10, atol=1e-12, progress=False)
for f, c in ready.cylinder_of.items():
    F = mm.cylinder_force(ours, c)
    print(f"{f:>6}: largest force difference {np.max(np.abs(F - theirs[f + '_force'])):.2e} N "
          f"(forces up to {np.max(np.abs(F)) / 1e3:.0f} kN)")
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
        ("md", """
## What the hand-built bucket tip does

The whole 10 s dig–lift–dump cycle on the machine built by hand: the cylinder lengths of
the cycle prescribed, the postures at the start and the end, and the path of the bucket
tip `Q` — the free load point of the bucket. (`MechanismModel.plot_trajectory` draws any
run of a mechanism; `Machine.from_mechanism` makes the hand-built front a machine with the
ready-made one's plots, reports and analyses.)
"""),
        ("code", """
full = mm.simulate_extensions(lengths, (cycle.start, cycle.end), guess={n: pose.angle(n) for n in pose.values},
                              progress=False)
fig = mm.plot_trajectory(full, points=["bucket/Q"])
x, y = mm.positions(full)["bucket/Q"]
print(f"tip reach {x.min():.2f} … {x.max():.2f} m, height {y.min():.2f} … {y.max():.2f} m "
      f"(frame origin on the swing axis, 1.70 m above ground)")
plt.show()
"""),
    )


@notebook("excavator_2_dig_cycle.ipynb")
def dig():
    return cells(
        ("md", """
# 2 · A dig–lift–dump cycle with real hydraulics

The excavator of notebook 1, now driven the way an operator drives it: three proportional
closed-centre 4/3 valves fed by a fixed-displacement pump (500 cm³/rev at 150 rad/s) with a
relief valve cracking at 300 bar. The valve commands come from a table
(`mechanisms/data/dig_lift_dump_valves.csv`): reach, dig, curl, lift, dump, in 10 s.
The run starts from static equilibrium (the chamber pressures that hold the front at rest).
"""),
        ("code", """
import numpy as np
import matplotlib.pyplot as plt
from mechanisms.excavator import Excavator, Cycle
from mechanisms.excavator.plots import plot_trajectory, plot_timeseries
from mechanisms.excavator.report import text_report

exc = Excavator(mode="valves")
cycle = Cycle.default("valves")
run = exc.run(cycle)
print(text_report(run))
"""),
        ("md", """
The report checks the physics on the way: the loops of the linkage stay closed (the gap
between the two sides of every `Pd`–`Pr` hinge), and the energy balance closes — pump and
gravity work equal the change of stored energy (kinetic and oil compression) plus what the
valves, the relief and friction dissipated, plus the small work term of the lumped
chamber law. No chamber falls below the cavitation floor: the make-up check valves refill
the side that the overrunning load would otherwise empty.

## Pressures and forces
"""),
        ("code", """
fig = plot_timeseries(run)
plt.show()
"""),
        ("md", """
## What the relief valve did

With closed-centre valves and a fixed pump, every litre the cylinders do not take goes over
the relief valve at its setting. The relief opens whenever the operator holds the levers
still or moves slowly — and that is where most of the cycle's energy goes.
"""),
        ("code", """
tab = run.table()
t = tab["time"]
fig, (a1, a2) = plt.subplots(2, 1, figsize=(8, 5), sharex=True)
a1.plot(t, tab["pump_pressure"] / 1e5, label="pump outlet")
a1.axhline(300, color="k", ls=":", label="relief cracks")
a1.set_ylabel("pressure [bar]"); a1.legend(); a1.grid(alpha=0.3)
a2.plot(t, tab["pump_flow"] * 6e4, label="pump")
a2.plot(t, tab["relief_flow"] * 6e4, label="through the relief valve")
a2.set_ylabel("flow [L/min]"); a2.set_xlabel("time [s]"); a2.legend(); a2.grid(alpha=0.3)
plt.show()
work = np.trapezoid(tab["pump_power"], t)
lost = np.trapezoid(tab["relief_flow"] * tab["pump_pressure"], t)
print(f"pump work {work/1e3:.0f} kJ; relief {lost/1e3:.0f} kJ ({100*lost/work:.0f} %)")
"""),
        ("md", """
## The bucket tip

The path of the bucket tip Q in the machine's plane, with the initial and final postures —
the picture of the source paper's Fig. 8 and 9. The dashed line is the ground (the frame's
origin is on the swing axis, 1.70 m above it).
"""),
        ("code", """
fig = plot_trajectory(run)
plt.show()
"""),
    )


@notebook("excavator_3_boom_bore.ipynb")
def bore():
    return cells(
        ("md", """
# 3 · A design question: how big should the boom cylinders be?

A bigger bore lifts the same load at lower pressure, but needs more oil per centimetre of
stroke. We run the same operator commands on machines whose boom cylinders differ only in
bore, and compare the **time to lift** (from the end of the dig until the boom cylinders
reach 3.6 m) and the **peak boom pressure**.

Bores, like masses and inertias, are *run-time parameters* of the compiled model:
`Machine.set` changes them without deriving or compiling anything again, so the sweep
costs only the runs. The progress bar follows the sweep.
"""),
        ("code", """
import time
import numpy as np
import matplotlib.pyplot as plt
from tqdm.auto import tqdm
from mechanisms.excavator import Excavator, Cycle

exc = Excavator(mode="valves")
cycle = Cycle.default("valves")
bores = [120, 135, 150, 165]   # mm; the reference machine has 135
rows = []
for bore in tqdm(bores, desc="boom bore sweep"):
    t0 = time.perf_counter()
    how = exc.set({"boom_cylinder.bore": f"{bore} mm"})     # "parameters": no rebuild
    tab = exc.run(cycle, progress=False).table()
    t, L = tab["time"], tab["boom_length"]
    start = t[np.argmin(np.where(t > 3.0, L, np.inf))]           # end of the dig: lowest boom
    up = t[(t > start) & (L >= 3.6)]
    lift_time = (up[0] - start) if up.size else np.nan
    rows.append((bore, lift_time, tab["boom_cap_pressure"].max() / 1e5, L.max()))
    print(f"bore {bore:3d} mm ({how}, {time.perf_counter() - t0:.2f} s): lift in {lift_time:.2f} s, "
          f"peak cap pressure {rows[-1][2]:.0f} bar, highest boom length {rows[-1][3]:.3f} m")
"""),
        ("md", """
What decides the outcome is *what limits the lift*. A proportional valve meters
`Q = Q_N·x·√(Δp/Δp_N)`: with the same spool opening, a bigger bore lowers the load pressure,
so the drop across the metering edge grows (the pump side sits near the relief setting) and
more oil passes — the lift gets faster *and* the pressure falls, as long as the valve limits
the flow. Once the pump's fixed flow is the limit, more area only means a slower stroke:
the gain flattens out. The printout above shows which regime each bore is in; the plot
below shows the trade.
"""),
        ("code", """
bore_mm, lift, peak, _ = np.array(rows).T
fig, ax1 = plt.subplots(figsize=(7, 4))
ax1.plot(bore_mm, lift, "o-", color="tab:blue")
ax1.set_xlabel("boom cylinder bore [mm]")
ax1.set_ylabel("time to lift [s]", color="tab:blue")
ax2 = ax1.twinx()
ax2.plot(bore_mm, peak, "s--", color="tab:red")
ax2.set_ylabel("peak boom cap pressure [bar]", color="tab:red")
ax1.axvline(135, color="0.6", ls=":")
ax1.set_title("boom bore: lift time against peak pressure (same operator commands)")
ax1.grid(alpha=0.3)
plt.show()
"""),
    )


@notebook("wheel_loader.ipynb")
def loader():
    return cells(
        ("md", """
# A wheel loader from its description file: load, carry, dump

Nothing in the toolkit knows what a wheel loader is. `mechanisms/data/wheel_loader.toml`
describes one — a boom on two lift cylinders, a Z-bar bell crank turned by the tilt
cylinder, the link and the bucket, a 5 t load in the bucket, a fixed pump with a relief
valve and two closed-centre valves — every value with its unit, estimates marked. The
generic machine layer builds it from the same templates as the excavator, checks the
connection rules and its mobility, and runs it.
"""),
        ("code", """
import matplotlib.pyplot as plt
from mechanisms.machine import Machine, DATA
from mechanisms.machine.check import check_text

loader = Machine.from_file(DATA / "wheel_loader.toml", mode="valves")
print(loader.description.summary())
print(check_text(loader).splitlines()[0])
"""),
        ("md", """
## The working range first

Where can the cutting edge go? The ISO 7135 working range of the file's first output
point, from every pose of the stroke box, with the machine drawn at each extreme posture:
"""),
        ("code", """
from mechanisms.analysis import working_range

wr = working_range(loader, n=30)
print(", ".join(f"{k.replace('_', ' ')} {v:.2f} m" for k, v in wr.summary().items()))
fig = wr.plot()
plt.show()
"""),
        ("md", """
## Rated by the loader standards

The file says `[machine] kind = "loader"`, so the design studies apply the loader
standards, not the excavator's: the working range above gives the ISO 7131 dump height
and dump reach at a 45° dump angle with the bucket pin at its highest — this bucket turns
only 37.3° down at full lift, so both are measured there and flagged — and
`breakout_forces` gives the ISO 14397-2 breakout forces: vertical, 100 mm behind the
cutting edge, the bucket floor level on the ground, from the lift cylinders and from the
tilt cylinder (the other function holding, within its own relief). The 5 t load of the
file's `[payloads]` is left out: a breakout starts with the bucket empty. (An ISO 6015
"tool force" is refused for a loader, by name.)
"""),
        ("code", """
from mechanisms.analysis import breakout_forces

print(wr.table_text())
print()
print(breakout_forces(loader, n=30).table_text())
"""),
        ("md", """
A lengths cycle is checked against every stroke and against reachability before it runs.
Asking for a tilt length beyond the tilt cylinder's stroke is refused with the time and
the value:
"""),
        ("code", """
from bondgraph import AssemblyError
from mechanisms.machine import Cycle

ext = Machine.from_file(DATA / "wheel_loader.toml", mode="extensions")
too_far = Cycle("extensions", [0, 2, 4], {"lift": [1.2543, 1.6, 1.8], "tilt": [1.0688, 1.30, 1.42]},
                ext.functions)
try:
    ext.run(too_far, progress=False)
except AssemblyError as err:
    print(err)
"""),
        ("md", """
## Load, carry, dump with the valves

The default cycle of the file is a table of spool commands (recorded from an operator
model tracking a load–carry–dump path): roll the bucket back into the pile, lift while
carrying, dump at height, lower and level the bucket. The run starts from the static
equilibrium that holds the loaded machine at rest.
"""),
        ("code", """
run = loader.run(progress=False)
print(run.report())
"""),
        ("md", """
The report says what an engineer must look at: the stroke each cylinder used, the
pressures, any end-stop contact, pressures above the relief setting or below the
cavitation floor, lightly damped oscillation, and where the pump's energy went — most of
it throttled in the valves, since a fixed pump feeds closed-centre valves at the pressure
the heaviest function needs.

## Pressures and forces
"""),
        ("code", """
from mechanisms.machine.plots import plot_timeseries, plot_trajectory

fig = plot_timeseries(run)
plt.show()
"""),
        ("md", """
## The bucket's path

The cutting edge and the bucket pin in the machine's plane, with the loading posture
and the final one. The Z-bar keeps the bucket nearly level while the boom lifts.
"""),
        ("code", """
fig = plot_trajectory(run)
plt.show()
"""),
    )


@notebook("excavator_4_load_sensing.ipynb")
def load_sensing():
    return cells(
        ("md", """
# 4 · Fixed pump or load-sensing?

The reference excavator's file describes two circuits on the same oil, pump size, relief
valve and valve sections:

* **fixed** — a 500 cm³/rev pump turning at 150 rad/s (716 L/min) against a 300 bar relief
  valve, closed-centre proportional valves. Simple, and wasteful: the pump delivers its whole
  flow all the time, at whatever pressure pushes it through the valves — or over the relief.
* **load-sensing** — the circuit of OpenHydraulics' excavator (`PowerUnit.mo`,
  `LSValveUnit.mo`) and of most machines in the field: a variable pump whose controller holds
  its outlet a margin (3 bar) above the highest load pressure, which shuttle valves pick from
  the valve sections; post-compensated sections (LUDV) share the flow when the pump runs out.

`[circuit] type` chooses; `--set circuit.type=load-sensing` (or an override in Python)
switches the same file. What changes for the operator, and what does it save?
"""),
        ("code", """
import numpy as np
import matplotlib.pyplot as plt
from mechanisms.machine import Machine, DATA
from mechanisms.machine.compare import (compare_circuits, compare_runs, fuel_rate,
                                        ENGINE_EFFICIENCY, DIESEL_ENERGY_DENSITY)

FILE = DATA / "excavator.toml"
CIRCUITS = {"fixed pump": {}, "load sensing": {"circuit.type": "load-sensing"}}
print(FILE.read_text().split("[circuit.load_sensing]")[1])
"""),
        ("md", """
## The same operator commands

The file's valve cycle is a table of spool commands for the 10 s dig–lift–dump (recorded from
an operator model driving the *fixed* circuit). Both circuits get exactly these commands.
"""),
        ("code", """
same_commands = compare_circuits(FILE, CIRCUITS)
print(same_commands.text())
"""),
        ("code", """
fig = same_commands.plot()
plt.show()
"""),
        ("md", """
The load-sensing pump's pressure rides 3 bar above the highest load (the thin line) instead
of sitting at the relief setting, its displacement follows the flow the valves take, and
nothing goes over the relief. But the machine does not do the same job: a fixed-pump valve
meters more flow the more its supply stands above the load, a compensated section meters
the command times its nominal flow, whatever the load. With commands made for the fixed
pump the load-sensing excavator lowers its boom and never lifts the bucket back up — its
pump work is small partly because it does less. Energy per cycle must be compared on the
same motion.
"""),
        ("md", """
### And the open centre?

The file carries a third layout, read only when selected: **open centre with negative flow
control** (`[circuit.open_centre]`, estimates), its pump driven by the file's engine. Each
section has a centre bypass that is widest with the spool centred and closed at half stroke;
the bypasses in series end in a fixed orifice whose upstream pressure p_n strokes the pump back
— the stand-by flow through it holds the pump near its least displacement. The same spool
commands, with the third bar:
"""),
        ("code", """
oc_run = Machine.from_file(FILE, {"circuit.type": "open-centre"}, mode="valves").run(progress=False)
three = compare_runs({**same_commands.runs, "open centre": oc_run})
for line in three.explain():
    if "open centre" in line:
        print("-", line)
fig, (ax_e, ax_p) = plt.subplots(1, 2, figsize=(13, 4.5))
three.plot_energy(ax_e)
for s, ls in zip(three.summaries, ("-", "--", ":")):
    ax_p.plot(s.columns["time"], s.columns["pump_pressure"] / 1e5, ls, label=f"{s.label}: pump")
oc = three["open centre"].columns
ax_p.plot(oc["time"], oc["negacon_pressure"] / 1e5, "g-", lw=0.8, label="open centre: negacon p_n")
ax_p.set(xlabel="time [s]", ylabel="pressure [bar]", title="the same spool commands")
ax_p.legend(fontsize="small"); ax_p.grid(True, alpha=0.3)
fig.tight_layout()
plt.show()
"""),
        ("md", """
On these commands the open-centre pump works little too, and nothing goes over the relief: the
gallery takes what the valves do not. But its pump pressure never rises far above what the
part-open bypasses let through, so the loaded boom hardly lifts. An open-centre section meters
its flow by *bleeding off* — its work port takes oil only as its bypass nearly closes — and
commands made for closed-centre valves are far too small for it. The same task needs commands
made for each circuit.

## The same dig–lift–dump

An operator model (`TrackingOperator`, sampled at 100 Hz) drives each circuit along the
file's lengths cycle. Its feedforward is the spool opening that gives the rate the path needs,
given how that circuit meters: compensated sections hold their drop, loads that run ahead are
metered at their outlet, and a fixed pump meters through both edges from its supply pressure.
It adds feedback on each length error. Where a machine cannot keep up, the operator slows its
own clock instead of falling behind. So the machines trace the same *path*; the cycle takes
as long as each needs. An open centre has no supply pressure to read: its pump pressure is
where the pump, the centre gallery and the sections balance, and every spool moves it, so the
operator solves that balance for all spools at once. Beside each comparison: how far the tip
stayed from the reference path, and the cycle time.
"""),
        ("code", """
from mechanisms.machine.operator import TrackingOperator

reference = Machine.from_file(FILE, mode="extensions")
lengths = reference.cycle()
path = reference.run(lengths, progress=False).table()     # the path, from the kinematics alone
runs = {}
machines = {label: run.machine for label, run in same_commands.runs.items()}
machines["open centre"] = oc_run.machine
for label, m in machines.items():
    op = TrackingOperator(m, lengths)
    runs[label] = op.drive(dt=0.005, progress=False)      # ends when the operator reaches the path's end
    print(f"{label}: {op.tracking(runs[label], path).text()}")
same_task = compare_runs(runs)
print()
print(same_task.text())
"""),
        ("md", """
All three trace the path (the change of potential energy is the check; how closely each did
is printed above and stated in the comparison). The load-sensing machine needs a longer cycle. In the fastest lift its pump reaches full displacement and its
valves their flow at a 3 bar margin, so its operator slows down; the fixed pump pushes more
through the same valve with a larger drop. Energy per cycle now compares the same work. The
fixed pump still spends a third
of its work on the relief and most of the rest throttling its 300 bar down to the loads; the
load-sensing pump works at the load pressure plus the margin, and its losses are the
compensators bringing the lighter functions down to the heaviest's pressure and the
meter-out edges braking the loads that run ahead.

## Energy per cycle and fuel

Diesel per hour for the cycle repeated back to back. The load-sensing and open-centre pumps
are driven by the file's engine (`[circuit.engine]`, 110 kW): their fuel is the engine's own, from its Willans
line. The fixed pump, a teaching case at constant speed, has no engine: its pump work is
turned into diesel over an engine efficiency of 35 % (estimate) and diesel at 35.9 MJ/L
(43.0 MJ/kg, IPCC 2006 guidelines vol. 2 table 1.2, × 0.835 kg/L, EN 590).
"""),
        ("code", """
fig, (ax_e, ax_f) = plt.subplots(1, 2, figsize=(12, 4.8), gridspec_kw={"width_ratios": [2, 1]})
same_task.plot_energy(ax_e)
ax_e.set_title("the same dig–lift–dump: where the pump work went per cycle")
fuel = same_task.fuel()
bars = ax_f.bar(list(fuel), list(fuel.values()), color=["tab:red", "tab:green", "tab:blue"][:len(fuel)])
ax_f.bar_label(bars, fmt="%.1f L/h")
ax_f.set_ylabel("diesel [L/h]")
ax_f.set_title(f"engine {ENGINE_EFFICIENCY:.0%}, diesel {DIESEL_ENERGY_DENSITY / 1e6:.1f} MJ/L")
ax_f.grid(True, axis="y", alpha=0.3)
fig.tight_layout()
plt.show()
"""),
    )


@notebook("excavator_5_design_study.ipynb")
def design_study():
    return cells(
        ("md", """
# 5 · A design study: where to pin the bucket cylinder, how big a boom bore

An excavator designer asks of every front: how far does it reach and how deep does it dig,
what force does the bucket break out with, what can it lift where, and what does a work
cycle cost in energy? `mechanisms.analysis` answers each for **any machine file**, from the
same bond graph the simulations use (no hand-written formulas per machine), and sweeps
them over design parameters.

We first look at the reference excavator, then move the bucket cylinder's base pin on the
arm (`arm.points.G`) and change the boom cylinders' bore, and look for the designs no other
design beats on all three counts at once: breakout force, digging depth and cycle energy.
A design that cannot run the cycle is kept in the results, with the reason.
"""),
        ("code", """
import re
import warnings
from collections import Counter

import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
from IPython.display import Markdown, display
from mechanisms.machine import DATA
from mechanisms.analysis import Study, working_range, tool_forces, lift_capacity, cycle_energy, sweep

study = Study(DATA / "excavator.toml")     # keeps what the analyses build, for reuse
"""),
        ("md", """
## Working range (ISO 7135 terms)

Every pose of the stroke box — 50 lengths per cylinder, 125 000 poses — is solved at once
by a batched Newton on the loop-closure equations; each dimension is then refined
continuously from the grid's best pose, so an extreme *inside* a stroke (the largest reach
has the boom cylinder part-way out) is found as exactly as one at a stroke end.
"""),
        ("code", """
wr = working_range(study)
print(", ".join(f"{k.replace('_', ' ')} {v:.3f} m" for k, v in wr.summary().items()),
      f"({sum(wr.timings.values()):.2f} s)")
fig = wr.plot()
plt.show()
"""),
        ("md", """
## Tool forces (ISO 6015) and lift capacity (ISO 10567)

The tool force of a cylinder is the force at the bucket lip, along the lip's own path, when
that cylinder alone works at the relief pressure (cap side at relief, rod side at tank).
The velocity ratio comes from the bond graph's flows; the tipping limit from the base
machine of the file's `[base]` section (estimates for this machine) and the front's weight
as the chassis reactions of the bond graph. The arm's force comes twice, named: by ISO 6015
(the bucket free to take its best position) and by SAE J1179 (the bucket held where its own
cylinder gives its largest moment). The bucket's force does not depend on the boom and the
arm: its tipping limit is given at its worst over their strokes. The lift table is the
smaller of 87 % of the hydraulic lift capacity and 75 % of the tipping load at each height
and radius of the bucket pin, in tonnes, over the front and over the side (the upper
structure swung over a track, half the track gauge from the swing axis).
"""),
        ("code", """
tf = tool_forces(study, n=30, functions=["arm", "bucket"]).table()
shown = pd.DataFrame({"function": tf["function"], "convention": tf["convention"],
                      "tool force [kN]": (tf["tool_force"] / 1e3).round(1), "limited by": tf["limit"],
                      "lip x [m]": tf["x"].round(2), "lip y [m]": tf["y"].round(2)})
print(shown.to_string(index=False))
print()
print(lift_capacity(study).table_text())
"""),
        ("md", """
## The front posed by hand

Before sweeping, pose the front and look: `explore()` gives one slider per function within
its stroke and shows, as the front moves, the bucket tip, the cylinder forces and chamber
pressures that hold it at rest (the same statics the lift table uses), and the margins to
each stroke end and to the ground. Here the arm is pulled in from code; in a live notebook,
drag the sliders (executed without a browser, the widget is replaced by its snapshot).
"""),
        ("code", """
explorer = study.machine("extensions").explore()
explorer.sliders["arm"].value = 2.6
explorer
"""),
        ("md", """
## Where a cycle's energy goes

The default dig–lift–dump cycle through the hydraulic circuit: a fixed-displacement pump
with a relief valve and closed-centre valves. The pump work goes mostly into the relief
and the metering edges; what reaches the linkage (the actuator work) becomes potential
energy.
"""),
        ("code", """
ce = cycle_energy(study, dt=0.005)
fig = ce.plot()
plt.show()
"""),
        ("md", """
## The sweep

The bucket-cylinder pin `G` at three places along the arm (`x` = 0.40, 0.60 and 0.80 m; the reference
machine has 0.49 m) and two across it (`y`), and two boom bores: twelve designs. (Places in between
fall on the same trend: with 0.55 and 0.70 m instead of 0.60 m the spans of force, depth and work
below are the same, the sweep a third longer.) The range is
chosen to show a real trade-off (the further out the pin, the more breakout force and the
less digging depth) and to reach past where the linkage works: at the far end a design can
no longer run the cycle, and the study must say which and why. Each point runs the three
analyses; a bore change only gives the compiled models new parameter values and keeps the
working range (it is of the geometry alone), a pin change re-assembles (the `rebuilt` column
says which). The sweep's stroke grid is coarser than above, 20 lengths per stroke (8 000
poses, shared by the tool forces and the working range): each dimension and force is refined
continuously from the grid's best pose, so the breakout forces and digging depths below are
those of a 50-length grid (within 1 mN and 1 µm on these designs; the grid only
bounds the dimensions that are not refined). The same call runs on a Dask cluster with
`client=distributed.Client(...)`, or from the shell:
`hydrobond sweep excavator --set-grid "boom_cylinder.bore=125..150 mm:2" ...`.

A design whose cycle fails raises warnings on the way (the solver meets the singular pose
before it gives up); they are collected and summarised, one line per kind.
"""),
        ("code", """
grid = {"arm.points.G.x": "0.4, 0.6, 0.8 m", "arm.points.G.y": "0.85, 1.1 m",
        "boom_cylinder.bore": "125, 150 mm"}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    df = sweep(study, grid, ["tool-forces", "working-range", "cycle-energy"],
               options={"tool-forces": {"n": 20, "functions": ["bucket"]}, "working-range": {"n": 20},
                        "cycle-energy": {"dt": 0.005}},
               processes=1)
kinds = Counter(f"{w.category.__name__}: {str(w.message).split(' (')[0][:110]}" for w in caught)
print(f"{len(caught)} warnings during the sweep" + (":" if kinds else ""))
for kind, count in kinds.most_common():
    print(f"  {count} × {kind}")


def causes(error: str) -> list[str]:
    \"\"\"The physical causes a failed point names (its last line when it names none).\"\"\"
    found = [line.split("physical cause:", 1)[1].strip() for line in error.splitlines()
             if "physical cause:" in line]
    return found or ([error.strip().splitlines()[-1].strip()] if error else [])


def why(error: str) -> str:
    \"\"\"Why a point failed, and when, in one line.\"\"\"
    when = re.search(r"failed at t = ([0-9.]+) s", error)
    return (f"cycle fails at t = {float(when.group(1)):.2f} s: " if when else "") + " + ".join(causes(error))


df["why it failed"] = df["error"].map(why)
failed = df[df["error"] != ""]
ok = df[df["error"] == ""].reset_index(drop=True)
"""),
        ("md", """
## The trade-off

Breakout force and digging depth are set by the bucket linkage alone (the boom bore does
not change them); the cycle's pump work depends on both. A design is on the **Pareto front**
when no other design has at least as much breakout force and digging depth and at most as
much pump work, and is strictly better on one of them. The table lists every design, the
failed ones with their reason; the numbers in the text below are computed from it.
"""),
        ("code", """
obj = np.column_stack([-ok["bucket_tool_force"], -ok["max_digging_depth"], ok["pump_work"]])  # all minimised
ok["pareto"] = [not any(np.all(o <= p) and np.any(o < p) for o in obj) for p in obj]
df["pareto"] = df.index.map(dict(zip(df.index[df["error"] == ""], ok["pareto"]))).fillna(False).astype(bool)
ok["pin"] = [f"G = ({x:.2f}, {y:.2f}) m" for x, y in zip(ok["arm.points.G.x"], ok["arm.points.G.y"])]

table = pd.DataFrame({
    "G.x [m]": df["arm.points.G.x"], "G.y [m]": df["arm.points.G.y"],
    "boom bore [mm]": (df["boom_cylinder.bore"] * 1e3).round(0).astype(int),
    "breakout force [kN]": (df["bucket_tool_force"] / 1e3).round(2),
    "digging depth [m]": df["max_digging_depth"].round(3),
    "pump work [MJ]": (df["pump_work"] / 1e6).round(3),
    "Pareto front": np.where(df["error"] != "", "", np.where(df["pareto"], "yes", "")),
    "rebuilt": df["rebuilt"], "why it failed": df["why it failed"]})
with pd.option_context("display.max_colwidth", None):
    display(table.style.hide(axis="index").format(precision=3, na_rep="failed"))

front = ok[ok["pareto"]]
depth = ok["max_digging_depth"]
force = ok["bucket_tool_force"] / 1e3
work = ok["pump_work"] / 1e6
bores = sorted(front["boom_cylinder.bore"].unique() * 1e3)
display(Markdown(
    f"**{len(df)} designs** ({df['arm.points.G.x'].nunique()} × {df['arm.points.G.y'].nunique()} pins × "
    f"{df['boom_cylinder.bore'].nunique()} bores): **{len(ok)} ran** all three analyses, "
    f"**{len(failed)} failed** "
    + (f"(pins {', '.join(sorted({f'({x:.2f}, {y:.2f}) m' for x, y in zip(failed['arm.points.G.x'], failed['arm.points.G.y'])}))}: "
       f"{'; '.join(sorted({causes(e)[-1] for e in failed['error']}))})" if len(failed) else "")
    + f". **{len(front)} designs are on the Pareto front**, "
    f"with boom bore {', '.join(f'{b:.0f}' for b in bores)} mm. Across the designs that ran, the breakout "
    f"force spans {force.min():.1f}–{force.max():.1f} kN ({100 * (force.max() / force.min() - 1):.1f} %), "
    f"the digging depth {depth.min():.3f}–{depth.max():.3f} m ({1e3 * (depth.max() - depth.min()):.0f} mm) "
    f"and the pump work {work.min():.3f}–{work.max():.3f} MJ ({100 * (work.max() / work.min() - 1):.1f} %): "
    "the linkage trades a few per cent of breakout force against centimetres of depth, and the pump work, "
    "most of it spent on the relief and the metering edges whatever the design, barely moves."))
"""),
        ("code", """
fig, axes = plt.subplots(1, 2, figsize=(14, 5.4), gridspec_kw={"width_ratios": [1, 1.45]},
                         layout="constrained")
pins = list(dict.fromkeys(zip(df["arm.points.G.x"], df["arm.points.G.y"])))
markers = dict(zip(pins, "osD^vP<>ph*"))
ax = axes[0]                                   # what the linkage gives (the boom bore does not change it)
for pin in pins:
    g = ok[(ok["arm.points.G.x"] == pin[0]) & (ok["arm.points.G.y"] == pin[1])]
    label = f"G = ({pin[0]:.2f}, {pin[1]:.2f}) m"
    if g.empty:                                # every design with this pin failed: named, not drawn
        ax.plot([], [], "x", color="k", label=label + ": failed (see the table)")
        continue
    r = g.iloc[0]
    on = g["pareto"].any()
    ax.plot(r["bucket_tool_force"] / 1e3, r["max_digging_depth"], markers[pin], ms=9, alpha=0.85,
            color="tab:red" if on else "tab:gray", mec="k", mew=0.5, label=label + (" (front)" if on else ""))
ax.set_xlabel("bucket breakout force (ISO 6015, hydraulic) [kN]")
ax.set_ylabel("maximum digging depth [m]")
ax.set_title("what the bucket linkage gives (red: on the Pareto front)", fontsize=10)
ax.margins(0.15)
ax.grid(alpha=0.3)
ax.legend(loc="lower left", fontsize=7.5)
ax = axes[1]                                   # what a cycle costs, per design, from zero
parts = [("relief_loss", "relief", "tab:red"), ("throttling_loss", "metering edges", "tab:orange"),
         ("friction", "friction", "tab:brown"), ("other", "other losses", "tab:gray"),
         ("actuator_work", "actuator work", "tab:green")]
bore_values = sorted(df["boom_cylinder.bore"].unique())
width = 0.8 / len(bore_values)
top = df["pump_work"].max() / 1e6
for j, bore in enumerate(bore_values):
    hatch = ["", "//", "..", "xx"][j % 4]
    for i, pin in enumerate(pins):
        xi = i + (j - (len(bore_values) - 1) / 2) * width
        row = df[(df["arm.points.G.x"] == pin[0]) & (df["arm.points.G.y"] == pin[1])
                 & (df["boom_cylinder.bore"] == bore)].iloc[0]
        if row["error"]:
            ax.text(xi, 0.02 * top, "failed", rotation=90, ha="center", va="bottom", fontsize=7, color="tab:red")
            continue
        bottom = 0.0
        for key, label, colour in parts:
            v = max(row[key], 0.0) / 1e6
            ax.bar(xi, v, width * 0.92, bottom=bottom, color=colour, hatch=hatch, edgecolor="white", lw=0)
            bottom += v
        ax.bar(xi, row["pump_work"] / 1e6, width * 0.92, fill=False, lw=2.0,
               edgecolor="tab:red" if row["pareto"] else "none")
        ax.text(xi, row["pump_work"] / 1e6, f"{row['pump_work'] / 1e6:.3f}", ha="center", va="bottom",
                fontsize=6.5, rotation=90)
for key, label, colour in parts:
    ax.bar(0, 0, color=colour, label=label)
for j, bore in enumerate(bore_values):
    ax.bar(0, 0, color="white", edgecolor="0.3", hatch=["", "//", "..", "xx"][j % 4],
           label=f"boom bore {bore * 1e3:.0f} mm")
ax.set_xticks(range(len(pins)), [f"({x:.2f}, {y:.2f})" for x, y in pins], fontsize=8)
ax.set_xlabel("bucket-cylinder pin G (x, y) [m]")
ax.set_ylim(0, 1.15 * top)
ax.set_ylabel("pump work over the dig–lift–dump cycle [MJ]")
ax.set_title("what a cycle costs, and where it goes (red edge: on the Pareto front)", fontsize=10)
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
ax.grid(alpha=0.3, axis="y")
fig.suptitle("bucket-cylinder pin and boom bore: the designs no other design beats on all three counts")
plt.show()
"""),
    )


@notebook("excavator_6_digging.ipynb")
def digging():
    return cells(
        ("md", """
# 6 · Digging for real

The earlier notebooks dig a hole in nothing: the bucket passes through the ground line and
nothing resists it. `excavator_dig.toml` is the same machine (it *extends* `excavator.toml`:
every table of that file applies, with its own laid over them) with what a real dig needs:

* **soil at the cutting edge** — gravel (γ 19 kN/m³, φ 38°, no cohesion); the cutting force is
  the fundamental earthmoving equation (Reece 1964, McKyes' factors), the edge's penetration is
  resisted up to the soil's bearing capacity, and the bite fills the bucket (the soil page of the
  guide);
* **a 0.8 m³ bucket** (heaped) that empties when it is turned open above the ground;
* **the diesel engine** behind the pump (110 kW at 2000 rpm) and the **open-centre** circuit of
  machines of this class;
* **a bite cycle**: 0.35 m deep and 2 m long in level ground, lift, dump at 3 m, return — 13 s,
  made by inverse kinematics from a tip path (`tools/make_cycles.py`).

What does the soil ask of the cylinders, how full is the bucket, and what does a cubic metre
cost in diesel?
"""),
        ("code", """
import math
import numpy as np
import matplotlib.pyplot as plt
from components.soil import draft_force, preset
from mechanisms.machine import Machine, DATA

FILE = DATA / "excavator_dig.toml"
print(FILE.read_text().split("[machine]")[1])
dig = Machine.from_file(FILE, mode="extensions")
dig
"""),
        ("md", """
## The bite, as prescribed

First the cycle's lengths are imposed (mode `extensions`): the cylinders move as the table
says, whatever it takes. The soil forces are then what the machine must overcome. The hand
check is the fundamental earthmoving equation itself, `draft_force(depth, rake, width, soil)`,
evaluated at the depth and rake computed here from the run's tip height and part angles.
"""),
        ("code", """
bite = dig.run(progress=False)
tab = bite.table()
t = tab["time"]
soil, ground, width, face = preset("gravel"), -1.70, 1.0, math.radians(60)
depth = np.maximum(ground - tab["tip_y"], 0.0)
psi = tab["boom_angle"] + tab["arm_angle"] + tab["bucket_angle"] + face     # the bucket floor, world frame
rake = np.degrees(np.arccos(np.clip(np.abs(np.cos(psi)), 0.0, math.cos(math.radians(10)))))
hand = np.where(depth > 0, draft_force(depth, rake, width, soil)[0], 0.0)
moving = np.abs(np.gradient(tab["tip_x"], t)) > 0.2
err = np.abs(np.abs(tab["cutting_force"]) - hand)[moving & (depth > 0.05)] / hand[moving & (depth > 0.05)]
print(f"cutting force against the hand FEE value while cutting: largest difference {err.max():.1e}")
print(f"deepest {depth.max():.3f} m; fill {tab['bucket_fill'].max():.3f} m³ (loose); "
      f"payload {tab['payload_mass'].max():.0f} kg; dumped {tab['moved_volume'][-1]:.3f} m³ bank")

fig, (ax_p, ax_f) = plt.subplots(1, 2, figsize=(13, 4.5))
x, y = tab["tip_x"], tab["tip_y"]
ax_p.fill_between([3.5, 9.0], ground, ground - 0.8, color="tan", alpha=0.5, label="gravel")
ax_p.plot(x, y, "k-", lw=1.2, label="bucket tip")
cut = depth > 0
ax_p.plot(x[cut], y[cut], "r-", lw=2.5, label="in the soil")
ax_p.set(xlabel="x [m]", ylabel="y [m]", title="the bite: 0.35 m deep, 2 m long", xlim=(3.5, 9.0))
ax_p.set_aspect("equal"); ax_p.legend(loc="upper right", fontsize="small"); ax_p.grid(alpha=0.3)
ax_f.plot(t, np.abs(tab["cutting_force"]) / 1e3, label="cutting force (bond graph)")
ax_f.plot(t, hand / 1e3, "k--", lw=1, label="FEE by hand at that depth and rake")
ax_f.plot(t, tab["penetration_force"] / -1e3, label="penetration force")
ax_f.set(xlabel="time [s]", ylabel="force [kN]", title="what the soil resists")
ax_v = ax_f.twinx()
ax_v.plot(t, tab["bucket_fill"], "g:", label="bucket fill")
ax_v.set_ylabel("bucket fill [m³, loose]")
ax_f.legend(loc="upper left", fontsize="small"); ax_v.legend(loc="upper right", fontsize="small")
ax_f.grid(alpha=0.3)
fig.tight_layout()
plt.show()
"""),
        ("md", """
The bucket fills to its heaped 0.8 m³ along the 2 m drag: 1.0 m wide × 0.35 m × 2 m is
0.70 m³ of bank gravel, 0.80 m³ once loosened (swell 1.15), 1.35 t. It empties when turned
open at 3 m, and `moved_volume` counts what left it (bank m³).

How hard would a harder soil be? Dense clay (c = 50 kPa, adhesion 25 kPa) on the same path —
the lengths are still imposed, so the table shows the pressures the cylinders *would* need:
"""),
        ("code", """
clay = Machine.from_file(FILE, {"soil.preset": "dense_clay"}, mode="extensions").run(progress=False).table()
for name, table in (("gravel", tab), ("dense clay", clay)):
    need = {f: table[f"{f}_cap_pressure_required"].max() / 1e5 for f in ("boom", "arm", "bucket")}
    print(f"{name:11s} cutting force peak {np.abs(table['cutting_force']).max() / 1e3:6.1f} kN; cap pressures needed: "
          + ", ".join(f"{f} {p:.0f} bar" for f, p in need.items()))
print("relief valve: 300 bar")
"""),
        ("md", """
In clay the bucket cylinder would need more than the 300 bar relief: a real machine stalls,
and its operator takes a thinner bite. In gravel the bite is within the machine.

## With the hydraulics and the engine: the same tracked motion

Now the valves drive the machine (mode `valves`) and an operator model (`TrackingOperator`)
holds the bite's path: feedforward from how each circuit meters (the open centre by the
balance of its pump, centre gallery and sections, which every spool moves), the loads
predicted from the prescribed run above, feedback on each length error, and its own clock
slowed where the machine cannot keep up. Its tracking error is stated beside every figure
below. Three circuits on the same
oil, cylinders and valve sections: the **open centre** with negative flow control (the file's
circuit) and **load sensing**, both driven by the engine, and the **fixed pump**, a teaching
case at constant speed without an engine.
"""),
        ("code", """
from mechanisms.machine.compare import compare_runs
from mechanisms.machine.operator import TrackingOperator

lengths = dig.cycle()
CIRCUITS = {"open centre": {}, "load sensing": {"circuit.type": "load-sensing"},
            "fixed pump": {"circuit.type": "fixed"}}
runs, tracking = {}, {}
for label, over in CIRCUITS.items():
    op = TrackingOperator(Machine.from_file(FILE, over, mode="valves"), lengths)
    runs[label] = op.drive(t_max=30.0, progress=False)
    tracking[label] = runs[label].tracking          # the run carries the operator's tracking
    print(f"{label:12s}: {tracking[label].text()}")
"""),
        ("code", """
oc = runs["open centre"]
report = oc.report()
print(report[report.index("functions:"):report.index("flags:")])
"""),
        ("md", """
The report starts at the fuel. The pump's regulator has a horsepower control (470 N·m at the
shaft, `[circuit.open_centre] torque_limit`): where the lift and the bucket together would ask
more, it holds the pump's displacement under the torque the engine can give, so the engine's
speed stays on its governor line (no lugging). The fuel per bank cubic metre follows from the
bucket's dumped volume. The dig's pressures, against the relief:
"""),
        ("code", """
fig, axes = plt.subplots(1, 2, figsize=(13, 4.5))
c = oc.table()
for f in ("boom", "arm", "bucket"):
    axes[0].plot(c["time"], c[f"{f}_cap_pressure"] / 1e5, label=f"{f} cap side")
axes[0].plot(c["time"], c["pump_pressure"] / 1e5, "k-", lw=0.8, label="pump")
axes[0].axhline(300, color="r", ls="--", lw=1, label="relief (cracks)")
axes[0].set(xlabel="time [s]", ylabel="pressure [bar]", title="open centre: the bite's pressures", ylim=(-10, 330))
axes[0].legend(fontsize="small", ncol=2); axes[0].grid(alpha=0.3)
rpm = 30 / math.pi
engine = oc.machine.circuit.engine
axes[1].plot(c["engine_speed"] * rpm, c["engine_torque"], ".", ms=2, label="operating points")
w = np.linspace(1000, 2200, 121) / rpm
axes[1].plot(w * rpm, engine.full_load_value(w), "k-", label="full-load torque curve")
axes[1].set(xlabel="engine speed [rpm]", ylabel="brake torque [N·m]", title="the engine over the bite")
axes[1].legend(fontsize="small"); axes[1].grid(alpha=0.3)
fig.tight_layout()
plt.show()
"""),
        ("md", """
## Fuel per cycle and per cubic metre

Each circuit moved the same bite along the same path (tracking error beside each bar). The
engine-driven circuits' fuel is the engine's own (its Willans line); the fixed pump's is its
pump work over an engine efficiency of 35 % (an estimate, as in notebook 4): its 716 L/min
against the relief make it ten times dearer, so the bars show the two engine-driven circuits
and the title gives it. Without swing
(the front is planar) the cycle is lighter than a truck-loading cycle, whose swing takes a
large share of the energy: the figures are for digging and dumping ahead.
"""),
        ("code", """
cmp = compare_runs(runs)
per_hour = cmp.fuel()
rows = []
for s in cmp.summaries:
    litres = per_hour[s.label] * s.duration / 3600
    moved = s.columns["moved_volume"][-1]
    rows.append((s.label, s.duration, litres, moved, litres / moved, per_hour[s.label]))
    print(f"{s.label:12s}: cycle {s.duration:5.2f} s, {litres * 1e3:5.1f} mL per cycle, {moved:.3f} m³ moved, "
          f"{litres / moved:.3f} L per m³ (bank), {per_hour[s.label]:5.1f} L/h; tip within "
          f"{tracking[s.label].median * 1e3:.0f} mm of the path (median), "
          f"{tracking[s.label].p95 * 1e3:.0f} mm (95th percentile)")

engine_driven = [r for r in rows if r[0] != "fixed pump"]
fixed = next(r for r in rows if r[0] == "fixed pump")
fig, (ax_c, ax_m) = plt.subplots(1, 2, figsize=(12, 4.5))
labels = [f"{r[0]}\\n(tip ±{tracking[r[0]].median * 1e3:.0f} mm, cycle {r[1]:.1f} s)" for r in engine_driven]
b = ax_c.bar(labels, [r[2] * 1e3 for r in engine_driven], color=["tab:blue", "tab:green"])
ax_c.bar_label(b, fmt="%.1f mL")
ax_c.set(ylabel="diesel per cycle [mL]", title="one bite, dumped")
b = ax_m.bar(labels, [r[4] for r in engine_driven], color=["tab:blue", "tab:green"])
ax_m.bar_label(b, fmt="%.3f L")
ax_m.set(ylabel="diesel per bank m³ [L/m³]", title="per cubic metre moved (gravel)")
for ax in (ax_c, ax_m):
    ax.grid(axis="y", alpha=0.3)
    ax.set_ylim(0, ax.get_ylim()[1] * 1.15)
fig.suptitle("the same 0.35 m bite in gravel, engine-driven circuits (the fixed-pump teaching case: "
             f"{fixed[2] * 1e3:.0f} mL, {fixed[4]:.2f} L per m³)", fontsize=10)
fig.tight_layout()
plt.show()
"""),
    )


@notebook("excavator_7_truck_loading.ipynb")
def truck_loading():
    return cells(
        ("md", """
# 7 · Loading a truck

A real excavator's work cycle is not a bite dumped ahead: it digs, **swings about 90°** to a
truck while lifting, dumps, and swings back while lowering to the next bite. This is the
digging-and-loading work of fuel-consumption tests such as JCMAS H020 (the Japan Construction
Machinery and Construction Association's procedure for hydraulic excavators): a 90° swing each
way, about 15–20 s per cycle. Swinging the upper structure with the front extended takes a
large part of that time and energy, and its motor works against its **crossover relief
valves**: accelerating, the valve passes more oil than the motor takes and the relief spills
the rest; braking, the centred valve blocks the motor and the upper structure's momentum
pumps oil across the relief until it stops.

`excavator_truck.toml` is the digging machine of notebook 6 (gravel, 0.8 m³ bucket,
open-centre circuit behind its 110 kW diesel) on a turntable: `[swing]` gives the upper
structure's inertia, the 120:1 swing gear, the slew bearing and the swing motor (150 cm³/rev,
crossover relief at 250 bar); `[circuit.valves.swing]` the swing's valve section, one more
section on the open centre's gallery.
"""),
        ("code", """
import math
import time
import numpy as np
import matplotlib.pyplot as plt
from mechanisms.machine import Machine, DATA

FILE = DATA / "excavator_truck.toml"
text = FILE.read_text()
print(text[text.index("[swing]"):text.index("[cycles")])
truck = Machine.from_file(FILE)          # mode valves, the file's circuit, engine and soil
truck
"""),
        ("md", """
## The cycle, in spool commands

`excavator_truck_valves.csv` holds four spool commands against time. The front's (boom, arm,
bucket) were recorded by a tracking controller following the bite's lengths; the swing lever
is worked as an operator works it — pushed fully at the start of each swing, held, released —
with its release times solved (`tools/make_cycles.py`) so the swing stops at 90° over the truck
and comes back to 0 on this machine's open-centre circuit. Released, the valve centres and the
crossover relief stops the swing.
"""),
        ("code", """
T = time.perf_counter()
run = truck.run(progress=False)
print(f"run: {time.perf_counter() - T:.1f} s for the {run.cycle.end:.0f} s cycle")
tab = run.table()
t, phi, cmd = tab["time"], np.degrees(tab["swing_angle"]), tab["swing_command"]
report = run.report()
print("\\n".join(line for line in report.splitlines() if line.startswith(("  swing  ", "    fuel", "    moved"))))

fig, ax = plt.subplots(figsize=(11, 3.5))
for f in ("boom", "arm", "bucket"):
    ax.plot(t, tab[f"{f}_command"], lw=1, label=f)
ax.plot(t, cmd, "k-", lw=1.8, label="swing")
ax.set(xlabel="time [s]", ylabel="spool command [-]", title="the truck-loading cycle's spool commands",
       ylim=(-1.1, 1.1))
ax.legend(ncol=4, fontsize="small"); ax.grid(alpha=0.3)
fig.tight_layout()
plt.show()
"""),
        ("md", """
## Swing angle and rate

The cycle's phases follow from the swing: **dig** until the lever is pushed, **swing out**
(lifting) until the swing stops over the truck, **dump**, **swing back** (lowering) from the
second push to the end. The swing brakes harder than it accelerates. Braking, the blocked
motor's outlet rises to the crossover setting: `i·D/2π·Δp` = 120 × 150 cm³/2π × 250 bar ≈
72 kN·m at the swing axis. Accelerating, the motor gets what the pump gives, and the
open-centre pump shares its flow with the boom lifting at the same time. Both act on an
inertia of 110 000–140 000 kg·m² that follows the front's pose (`swing_inertia`).
"""),
        ("code", """
t_out = t[np.argmax(cmd > 0)]                 # the lever pushed out
t_truck = t[np.argmax(phi)]                   # the swing stopped over the truck
t_back = t[np.argmax(cmd < 0)]                # the lever pushed back
PHASES = {"dig": (t[0], t_out), "swing out": (t_out, t_truck), "dump": (t_truck, t_back),
          "swing back": (t_back, t[-1])}
COLOURS = {"dig": "tan", "swing out": "lightblue", "dump": "lightgreen", "swing back": "lavender"}

def shade(ax):
    for name, (a, b) in PHASES.items():
        ax.axvspan(a, b, color=COLOURS[name], alpha=0.4, lw=0)
        ax.text(0.5 * (a + b), 1.0, name, transform=ax.get_xaxis_transform(), ha="center", va="bottom",
                fontsize="small")

fig, (ax_a, ax_r) = plt.subplots(2, 1, figsize=(11, 6), sharex=True)
shade(ax_a); shade(ax_r)
ax_a.plot(t, phi, "k-")
ax_a.axhline(90, color="grey", ls=":", lw=1)
ax_a.set(ylabel="swing angle [deg]", ylim=(-10, 110))
ax_a.set_title("the upper structure: 90° out, dump, back", pad=18)
ax_r.plot(t, tab["swing_rate"] * 30 / math.pi, "b-", label="upper structure")
ax_r.set(xlabel="time [s]", ylabel="swing speed [rpm]")
ax_m = ax_r.twinx()
ax_m.plot(t, tab["swing_inertia"] / 1e3, "r--", lw=1, label="inertia about the axis")
ax_m.set_ylabel("inertia [10³ kg·m²]")
ax_r.legend(loc="lower left", fontsize="small"); ax_m.legend(loc="lower right", fontsize="small")
for ax in (ax_a, ax_r):
    ax.grid(alpha=0.3)
fig.tight_layout()
plt.show()
print(f"over the truck at {t_truck:.2f} s ({phi.max():.1f}°); back at {phi[-1]:.1f}° when the cycle ends at "
      f"{t[-1]:.1f} s; top speed {np.abs(tab['swing_rate']).max() * 30 / math.pi:.1f} rpm")
"""),
        ("md", """
## The swing motor's pressures

Port A drives the swing out, port B back. Pushing the lever, the driving side rises as high
as the pump can push it while the upper structure gathers speed: about 190 bar swinging out
(the boom lifts from the same pump), up to the crossover setting for a moment swinging back.
Releasing it, the other side — now the motor's outlet, blocked by the centred valve — rises to
the crossover setting and brakes the swing; the relief passes the motor's flow across to its
inlet, which the make-up valves keep from falling below tank. Once the swing has stopped, the
oil trapped in the motor is at two pressures; the motor's internal leakage equalises them (and
damps the swing's rocking on that oil spring). The crossover relief limits the pressure
*difference* across the motor.
"""),
        ("code", """
crossover = truck.description.swing["crossover_crack"]
fig, ax = plt.subplots(figsize=(11, 4))
shade(ax)
ax.plot(t, tab["swing_pressure_A"] / 1e5, "b-", label="port A (drives the swing out)")
ax.plot(t, tab["swing_pressure_B"] / 1e5, "r-", label="port B (drives it back)")
ax.plot(t, tab["pump_pressure"] / 1e5, color="grey", lw=0.8, label="pump")
ax.axhline(crossover / 1e5, color="k", ls="--", lw=1, label=f"crossover relief cracks ({crossover / 1e5:.0f} bar)")
ax.set(xlabel="time [s]", ylabel="pressure [bar]", ylim=(-10, 320))
ax.set_title("the swing motor's ports: accelerating, braking against the crossover relief", pad=18)
ax.legend(fontsize="small", loc="upper left"); ax.grid(alpha=0.3)
fig.tight_layout()
plt.show()
dp = np.abs(tab["swing_pressure_A"] - tab["swing_pressure_B"])
print(f"peak pressures: port A {tab['swing_pressure_A'].max() / 1e5:.0f} bar, port B "
      f"{tab['swing_pressure_B'].max() / 1e5:.0f} bar; across the motor at most {dp.max() / 1e5:.0f} bar "
      f"(crossover relief {crossover / 1e5:.0f} bar cracking, {truck.description.swing['crossover_full'] / 1e5:.0f} bar full open)")
"""),
        ("md", """
## Energy per phase, and the swing's share

The energy split of the run has the swing's own rows: the crossover relief's heat (braking
*and* accelerating), the slew bearing. The pump's hydraulic work splits into what the swing
section drew (`swing_supply_power`: its supply port, net of its return) and the rest (the
front's sections, the centre bypass, the lines); the diesel is the engine's own (its Willans
line). Per phase:
"""),
        ("code", """
split = run.energy_split()
for row in ("swing crossover relief", "swing bearing", "throttling (valves)", "soil"):
    print(f"{row:24s} {split.terms[row] / 1e3:7.1f} kJ")

def energy(column, a, b):
    keep = (t >= a) & (t <= b)
    return float(np.trapezoid(tab[column][keep], t[keep]))

rows = {name: (energy("swing_supply_power", a, b), energy("pump_power", a, b), energy("fuel_rate", a, b))
        for name, (a, b) in PHASES.items()}
swing_total = energy("swing_supply_power", t[0], t[-1])
pump_total = energy("pump_power", t[0], t[-1])
fuel_total = energy("fuel_rate", t[0], t[-1])
print(f"cycle {t[-1]:.1f} s: pump work {pump_total / 1e3:.0f} kJ, of which the swing section "
      f"{swing_total / 1e3:.0f} kJ ({100 * swing_total / pump_total:.0f} %); diesel "
      f"{fuel_total * 1e6:.0f} mL; moved {tab['moved_volume'][-1]:.2f} m³ (bank)")
"""),
        ("md", """
Swinging out and back takes about half the cycle's time. Most of what the swing section
draws ends as the crossover relief's heat: at each stop the upper structure's kinetic energy
goes into the relief. Swing energy recovery and electric swing drives are built to recover
that loss. The plot the cycle is for shows where the energy goes, phase by phase.
"""),
        ("code", """
names = list(PHASES)
swing_kj = np.array([rows[n][0] for n in names]) / 1e3
other_kj = np.array([rows[n][1] - rows[n][0] for n in names]) / 1e3
fuel_ml = np.array([rows[n][2] for n in names]) * 1e6           # fuel_rate is in m³/s
fig, ax = plt.subplots(figsize=(10, 5))
ax.bar(names, other_kj, color="tab:grey", label="front, bypass and lines")
ax.bar(names, swing_kj, bottom=other_kj, color="tab:blue", label="swing section")
for i, n in enumerate(names):
    a, b = PHASES[n]
    ax.text(i, other_kj[i] + swing_kj[i], f"{fuel_ml[i]:.0f} mL diesel\\n{b - a:.1f} s", ha="center",
            va="bottom", fontsize="small")
ax.set(ylabel="pump hydraulic work [kJ]", ylim=(0, 1.25 * (other_kj + swing_kj).max()),
       title=f"truck loading: {t[-1]:.0f} s, {pump_total / 1e3:.0f} kJ of pump work, the swing "
             f"{100 * swing_total / pump_total:.0f} %, {fuel_total * 1e6:.0f} mL of diesel")
ax.legend(loc="upper left"); ax.grid(axis="y", alpha=0.3)
fig.tight_layout()
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
