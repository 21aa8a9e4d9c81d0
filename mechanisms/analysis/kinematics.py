"""Position analysis of a whole stroke box at once: batched Newton on the loop closure.

:meth:`Mechanism.solve_pose <mechanisms.Mechanism.solve_pose>` closes every loop of one
pose with a general least-squares solver; a working-range chart needs 10⁵ poses.
:class:`BoxKinematics` takes the same mechanism and solves all of them together:

1. **Unknowns and rows.** With every cylinder length given, the unknowns are the
   angles of the parts (bodies, levers, cylinders); each root-chain position follows
   from its parents. The loop-closure rows are the Pd–Pr hinges (two rows each: the
   cylinder or lever tip meets the point it pushes).
2. **Blocks.** A maximum matching of rows to angles and the strongly connected
   components of the dependency graph (networkx) split the rows into the smallest
   blocks that can be solved one after the other — the boom's triangle, the arm's
   triangle, the bucket's four-bar...
3. **Frames.** A block whose parts all hang off one part ``B`` (or off the chassis) is
   invariant under ``B``'s motion: solved in ``B``'s frame, its angles relative to ``B``
   depend on its own cylinders' lengths only. A 50 × 50 × 50 stroke box then costs 50
   small solves per block instead of 125 000; blocks attached to several parts are
   solved in the world frame over the product of the lengths they depend on.
4. **Continuation.** Each block is solved on its grid by Newton steps (analytic
   Jacobian, batched over the grid slice) marching outward from a seed pose, with a
   linear predictor from the two previous grid points; the seed is the start pose
   carried to the grid by :meth:`Mechanism.track`, so the assembly branch is the start
   pose's. A point that does not converge, or converges more than ``jump`` rad away from
   its prediction (another branch, a toggle), is NaN and named by :meth:`BoxGrid.failed`.

Nothing here knows a machine: the same code runs a backhoe's four-bar or a loader's
Z-bar.

Examples
--------
>>> import numpy as np
>>> from mechanisms.machine import Machine, DATA
>>> m = Machine.from_file(DATA / "excavator.toml", mode="extensions")
>>> kin = BoxKinematics(m.mechanism, m.start_pose)
>>> [(b.unknowns, b.base, b.inputs) for b in kin.blocks]    # doctest: +NORMALIZE_WHITESPACE
[(['boom', 'boom_cylinder'], None, ['boom_cylinder']),
 (['arm', 'arm_cylinder'], 'boom', ['arm_cylinder']),
 (['rocker', 'bucket_cylinder'], 'arm', ['bucket_cylinder']),
 (['bucket', 'link'], 'arm', ['bucket_cylinder'])]
>>> grid = kin.solve_grid({"boom_cylinder": np.linspace(2.48, 3.73, 4),
...                        "arm_cylinder": np.linspace(2.26, 3.9, 5),
...                        "bucket_cylinder": np.linspace(2.3, 3.2, 6)})
>>> grid.shape, bool(grid.ok.all())
((4, 5, 6), True)
>>> x, y = grid.point("bucket", "Q")
>>> path = {c: np.linspace(m.start_pose.length(c), grid.axes[c][0], 40) for c in grid.axes}
>>> q = m.mechanism.track(path, m.start_pose)[-1].points()["bucket/Q"]   # one pose at a time
>>> bool(np.hypot(x[0, 0, 0] - q[0], y[0, 0, 0] - q[1]) < 1e-8)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import networkx as nx
import numpy as np

from bondgraph.errors import AssemblyError, ParameterError
from components import Cylinder, Lever, MainBody
from components.ports import PortClass

from .progress import grid_bar

__all__ = ["BoxKinematics", "BoxGrid", "Block", "limit_margins", "TOL"]

#: Newton tolerance on the loop-closure rows (m)
TOL = 1e-11

try:    # the gufuncs np.linalg.det and np.linalg.solve call, without their per-call checks (same numbers)
    from numpy.linalg import _umath_linalg as _gufuncs

    def _det(J: np.ndarray) -> np.ndarray:
        return _gufuncs.det(J, signature="d->d")

    def _solve(J: np.ndarray, r: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):     # only regular matrices reach it (their determinant checked)
            return _gufuncs.solve(J, r, signature="dd->d")

    _probe = np.eye(2)[None]                # a NumPy whose gufuncs take other arguments falls back
    if _det(_probe)[0] != 1.0 or not np.array_equal(_solve(_probe, np.ones((1, 2, 1))), np.ones((1, 2, 1))):
        raise ImportError("numpy.linalg._umath_linalg differs")
except (ImportError, AttributeError, TypeError, ValueError):    # pragma: no cover  (another NumPy)
    _det, _solve = np.linalg.det, np.linalg.solve


@dataclass
class Block:
    """Rows solved together: their unknown angles, the frame they are solved in, and
    the cylinder lengths their solution depends on.

    Attributes
    ----------
    unknowns : list of str
        Parts whose angle the block solves, in tree order.
    hinges : list of (HingePoint, HingePoint)
        The Pd–Pr hinges closed here.
    base : str or None
        The part whose frame the block is solved in (None: the chassis).
    attach : list
        Outside parts the rows touch.
    inputs : list of str
        Cylinders the solution depends on.
    cylinders : list of str
        The block's own cylinders.

    Examples
    --------
    The excavator's boom triangle is solved in the world frame from the boom cylinder
    alone; the arm's in the boom's frame:

    >>> from mechanisms.machine import DATA
    >>> from mechanisms.analysis import Study
    >>> blocks = Study(DATA / "excavator.toml").kinematics.blocks
    >>> [(b.unknowns[0], b.base, b.inputs) for b in blocks[:2]]
    [('boom', None, ['boom_cylinder']), ('arm', 'boom', ['arm_cylinder'])]
    """

    unknowns: list[str]                     # parts whose angle the block solves, tree order
    hinges: list[tuple]                     # the Pd–Pr hinges (Pd, Pr) closed here
    base: str | None = None                 # frame part (None: the chassis, world frame)
    attach: list = field(default_factory=list)          # outside parts the rows touch
    inputs: list[str] = field(default_factory=list)     # cylinders it depends on (global order)
    cylinders: list[str] = field(default_factory=list)  # own cylinders


def limit_margins(angles: Mapping[str, np.ndarray], limits: Mapping[str, tuple]) -> dict[str, tuple]:
    """``name → (angle − low, high − angle)`` (rad) of each joint range ``name → (low, high,
    (part, reference part or None))`` at absolute part angles: both ≥ 0 inside the range.

    Parameters
    ----------
    angles : mapping
        Part → absolute angle (rad, arrays).
    limits : mapping
        Joint name → ``(low, high, (part, reference part or None))``.

    Returns
    -------
    dict

    Examples
    --------
    An elbow range −2 … 0 rad of the arm relative to the boom, at +0.3 rad: 0.3 rad out:

    >>> import numpy as np
    >>> limit_margins({"arm": np.array([0.5]), "boom": np.array([0.2])},
    ...               {"elbow": (-2.0, 0.0, ("arm", "boom"))})
    {'elbow': (array([2.3]), array([-0.3]))}
    """
    out = {}
    for name, (lo, hi, (part, ref)) in limits.items():
        a = angles[part] - (angles[ref] if ref else 0.0)
        out[name] = (a - lo, hi - a)
    return out


class BoxGrid:
    """Solved poses on a grid of cylinder lengths (see :meth:`BoxKinematics.solve_grid`).

    Arrays broadcast to :attr:`shape` (one axis per cylinder, in :attr:`cylinders` order):
    a part's angle that depends on one length only is stored with size-1 axes.

    Attributes
    ----------
    kinematics : BoxKinematics
    axes : dict
        Cylinder → its lengths (m).
    angles : dict
        Part → absolute angle (rad), broadcastable to :attr:`shape`.
    ok : ndarray of bool
        Poses that assembled (and respect the joint limits given to the solve).

    Examples
    --------
    Every hinge the grid closes meets to rounding at every pose:

    >>> import numpy as np
    >>> from mechanisms.machine import DATA
    >>> from mechanisms.analysis import Study
    >>> study = Study(DATA / "excavator.toml")
    >>> grid = study.grid(4)
    >>> grid.shape, grid.cylinders[0], grid.failed()
    ((4, 4, 4), 'boom_cylinder', [])
    >>> pts = grid.points()
    >>> gaps = [np.hypot(*(np.broadcast_to(pts[f"{a.part}/{a.name}"][i] - pts[f"{b.part}/{b.name}"][i],
    ...                                    grid.shape) for i in (0, 1))).max()
    ...         for a, b in study.kinematics.hinges]
    >>> bool(max(gaps) < 1e-9)
    True
    """

    def __init__(self, kinematics: "BoxKinematics", axes: dict[str, np.ndarray],
                 angles: dict[str, np.ndarray], ok: np.ndarray):
        self.kinematics = kinematics
        self.axes = axes
        self.angles = angles
        self.ok = ok
        self.limits: dict[str, tuple] = {}     # the joint ranges the grid was solved with
        self._points: dict | None = None
        self._of_part: dict[str, dict] = {}        # part → its and its ancestors' points (:meth:`point`)

    @property
    def cylinders(self) -> list[str]:
        """The cylinders, in the order of the grid's axes."""
        return list(self.axes)

    @property
    def shape(self) -> tuple[int, ...]:
        """Lengths per axis."""
        return tuple(len(v) for v in self.axes.values())

    def lengths(self) -> dict[str, np.ndarray]:
        """Each cylinder's length as an array broadcastable to :attr:`shape`.

        Returns
        -------
        dict
        """
        n = len(self.axes)
        out = {}
        for i, (c, v) in enumerate(self.axes.items()):
            shp = [1] * n
            shp[i] = len(v)
            out[c] = np.asarray(v, dtype=float).reshape(shp)
        return out

    def points(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """World position of every hinge point (``"part/point"``), full-grid arrays.

        Returns
        -------
        dict
            ``"part/point"`` → ``(x, y)`` (m), broadcastable to :attr:`shape`.
        """
        if self._points is None:
            _, pts = self.kinematics.forward(self.angles, self.lengths(), shape=self.shape)
            self._points = pts
        return self._points

    def point(self, part: str, point: str) -> tuple[np.ndarray, np.ndarray]:
        """One point's world position on the full grid (NaN where not assembled).

        Parameters
        ----------
        part, point : str

        Returns
        -------
        (ndarray, ndarray)
        """
        if self._points is not None:
            x, y = self._points[f"{part}/{point}"]
        else:   # only the part's chain, not every part on the full grid (the same numbers)
            if part not in self._of_part:
                self._of_part[part] = self.kinematics.forward(self.angles, self.lengths(), shape=self.shape,
                                                              parts=[part])[1]
            x, y = self._of_part[part][f"{part}/{point}"]
        x = np.where(self.ok, np.broadcast_to(x, self.shape), np.nan)
        y = np.where(self.ok, np.broadcast_to(y, self.shape), np.nan)
        return x, y

    def failed(self) -> list[str]:
        """Grid points that did not assemble, described (first few).

        Returns
        -------
        list of str
        """
        bad = np.argwhere(~self.ok)
        out = []
        for idx in bad[:5]:
            at = ", ".join(f"{c} {self.axes[c][i]:.4f} m" for c, i in zip(self.axes, idx))
            out.append(f"no pose at {at}")
        if len(bad) > 5:
            out.append(f"... and {len(bad) - 5} more of {self.ok.size} grid points")
        return out

    def flat_lengths(self) -> dict[str, np.ndarray]:
        """Each cylinder's length at every grid point, flattened (C order).

        Returns
        -------
        dict
        """
        return {c: np.broadcast_to(v, self.shape).ravel() for c, v in self.lengths().items()}


class BoxKinematics:
    """Batched position analysis of a mechanism whose cylinders' lengths are given.

    Parameters
    ----------
    mechanism : Mechanism
    start : Pose
        A pose on the assembly branch wanted (the machine's start pose).

    Raises
    ------
    AssemblyError
        The loop-closure rows cannot be matched to the part angles (a mechanism that
        cylinder lengths alone do not place).

    Examples
    --------
    See the module; scattered poses solved from a grid agree with it:

    >>> import numpy as np
    >>> from mechanisms.machine import DATA
    >>> from mechanisms.analysis import Study
    >>> study = Study(DATA / "excavator.toml")
    >>> kin, grid = study.kinematics, study.grid(5)
    >>> angles, ok = kin.solve({c: [grid.axes[c][2]] for c in grid.cylinders}, near=grid)
    >>> bool(ok[0]), bool(abs(angles["bucket"][0] - np.broadcast_to(grid.angles["bucket"], grid.shape)[2, 2, 2]) < 1e-10)
    (True, True)
    """

    def __init__(self, mechanism, start):
        self.mechanism = mech = mechanism
        self.start = start
        self.order = mech._tree_order()
        self.parts = mech.parts
        self.parent = {n: mech._parent(mech.parts[n]) for n in self.order}
        self.cylinders = [n for n in self.order if isinstance(mech.parts[n], Cylinder)]
        self.hinges = [(a, b) if a.cls is PortClass.PD else (b, a) for a, b in mech.hinges
                       if {a.cls, b.cls} == {PortClass.PD, PortClass.PR}]
        self._layouts: dict[int, tuple] = {}      # block → its structure (:meth:`_layout`)
        self.blocks = self._blocks()
        self._block_of = {u: b for b in self.blocks for u in b.unknowns}
        for b in self.blocks:
            self._frame(b)

    # ------------------------------------------------------------------ structure
    def _chain(self, part: str, point: str) -> list[tuple[str, str]]:
        """``(part, exit point)`` of every part whose angle moves the point, upwards."""
        out = []
        q, p = part, point
        while True:
            if p != self.parts[q].root.name:
                out.append((q, p))
            parent = self.parent[q]
            if parent is None:
                return out
            q, p = parent

    def _ancestors(self, part: str | None) -> list[str | None]:
        """``part`` and every part up its root chain, then ``None`` (the chassis)."""
        out = []
        q = part
        while q is not None:
            out.append(q)
            parent = self.parent[q]
            q = parent[0] if parent else None
        return out + [None]

    def _blocks(self) -> list[Block]:
        rows = []
        for h in self.hinges:
            inc = {q for q, _ in self._chain(h[0].part, h[0].name)} | \
                  {q for q, _ in self._chain(h[1].part, h[1].name)}
            rows += [(h, 0, inc), (h, 1, inc)]
        unknowns = list(self.order)
        G = nx.Graph()
        G.add_nodes_from(range(len(rows)), bipartite=0)
        G.add_nodes_from(unknowns, bipartite=1)
        for i, (_, _, inc) in enumerate(rows):
            G.add_edges_from((i, u) for u in inc)
        match = nx.bipartite.hopcroft_karp_matching(G, top_nodes=range(len(rows))) if rows else {}
        unmatched = [u for u in unknowns if u not in match]
        if len(rows) != len(unknowns) or unmatched:
            raise AssemblyError(
                f"{self.mechanism.name}: the cylinder lengths do not place every part: "
                f"{len(rows)} loop-closure rows (two per Pd–Pr hinge) for {len(unknowns)} part angles"
                + (f"; no row places {', '.join(unmatched)}" if unmatched else ""),
                subject="position analysis")
        D = nx.DiGraph()
        D.add_nodes_from(unknowns)
        for u in unknowns:
            _, _, inc = rows[match[u]]
            D.add_edges_from((v, u) for v in inc if v != u)
        C = nx.condensation(D)
        pos = {n: i for i, n in enumerate(self.order)}
        blocks = []
        for c in nx.topological_sort(C):
            members = sorted(C.nodes[c]["members"], key=pos.get)
            hs = []
            for u in members:
                h = rows[match[u]][0]
                if h not in hs:
                    hs.append(h)
            blocks.append(Block(members, hs))
        return blocks

    def _frame(self, b: Block) -> None:
        """The block's frame (the lowest common ancestor of the outside parts its rows
        touch) and the cylinder lengths its relative solution depends on."""
        members = set(b.unknowns)
        attach = set()
        for h in b.hinges:
            for hp in h:
                q = hp.part
                while q in members:
                    parent = self.parent[q]
                    q = parent[0] if parent else None
                    if q is None:
                        break
                attach.add(q)
        b.attach = sorted(attach, key=lambda q: "" if q is None else q)
        b.cylinders = [u for u in b.unknowns if u in self.cylinders]
        chains = [self._ancestors(a) for a in attach]
        common = [q for q in chains[0] if all(q in c for c in chains[1:])] if chains else [None]
        base = common[0]
        while base is not None and (base in members or isinstance(self.parts[base], Cylinder)):
            parent = self.parent[base]
            base = parent[0] if parent else None
        b.base = base
        deps = set(b.cylinders)
        for a in attach:
            deps |= self._deps(a, base)
        b.inputs = [c for c in self.cylinders if c in deps]

    def _deps(self, q: str | None, frame: str | None) -> set[str]:
        """Cylinders whose lengths place part ``q`` relative to ``frame``."""
        if q == frame or q is None:
            return set()
        b = self._block_of[q]
        out = set(b.inputs)
        if frame in b.unknowns:
            return out
        return out | self._deps(b.base, frame) if b.base is not None or frame is not None else out

    def _angle(self, q: str | None, frame: str | None, rel: Mapping[str, np.ndarray]):
        """Angle of part ``q`` relative to ``frame`` (``None``: absolute) from the blocks'
        relative solutions ``rel``."""
        if q == frame:
            return 0.0
        if q is None:
            return -self._angle(frame, None, rel)
        b = self._block_of[q]
        if frame in b.unknowns:
            return rel[q] - rel[frame]
        if b.base is None:
            return rel[q] - (self._angle(frame, None, rel) if frame is not None else 0.0)
        return rel[q] + self._angle(b.base, frame, rel)

    # ------------------------------------------------------------------ forward kinematics
    def _pose(self, name: str, root_xy, angle, length=None):
        part = self.parts[name]
        if isinstance(part, MainBody):
            return part.pose_from_states(root_xy, {"theta": angle})
        if isinstance(part, Cylinder):
            return part.pose_from_states(root_xy, {"phi": angle, "s": length})
        return part.pose_from_states(root_xy, {"phi": angle})

    def forward(self, angles: Mapping[str, np.ndarray], lengths: Mapping[str, np.ndarray], *,
                shape: tuple | None = None, parts: Sequence[str] | None = None,
                points: Sequence[str] | None = None):
        """Poses and world points of the parts (default all) from absolute angles.

        Returns ``(poses, points)``: ``poses[part]`` is the part's pose tuple,
        ``points["part/point"] = (x, y)``. Arrays broadcast together.

        Parameters
        ----------
        angles, lengths : mapping
            Part → absolute angle (rad); cylinder → length (m).
        shape : tuple, optional
        parts : sequence of str, optional
            Only these parts (and their ancestors).
        points : sequence of str, optional
            Only these points (``"part/point"``; their parts and ancestors, whose points are
            computed only where the next part hangs): the same numbers, less work.

        Returns
        -------
        (dict, dict)

        Examples
        --------
        >>> import numpy as np
        >>> from mechanisms.machine import DATA
        >>> from mechanisms.analysis import Study
        >>> study = Study(DATA / "excavator.toml")
        >>> kin, grid = study.kinematics, study.grid(5)
        >>> _, every = kin.forward(grid.angles, grid.lengths())
        >>> _, one = kin.forward(grid.angles, grid.lengths(), points=["bucket/Q"])
        >>> bool(np.array_equal(one["bucket/Q"][0], every["bucket/Q"][0]))
        True
        """
        need = set(self.order)
        names: dict[str, list[str]] = {}
        if points is not None:
            for key in points:
                q, _, pn = key.partition("/")
                names.setdefault(q, []).append(pn)
            parts = list(names) + list(parts or [])
            for q in reversed(self.order):      # each part's point its child hangs on
                if q in names and self.parent[q] is not None:
                    pq, pp = self.parent[q]
                    if pp not in names.setdefault(pq, []):
                        names[pq].append(pp)
        if parts is not None:
            need = {q for p in parts for q in self._ancestors(p) if q is not None}
        poses, world, points = {}, {}, {}
        for name in self.order:
            if name not in need:
                continue
            parent = self.parent[name]
            if parent is None:
                root = self.mechanism.fixed[(name, self.parts[name].root.name)]
            else:
                root = world[parent[0]][parent[1]]
            pose = self._pose(name, root, angles[name], lengths.get(name))
            poses[name] = pose
            world[name] = self.parts[name].world_points(pose, names.get(name))
            for pn, xy in world[name].items():
                points[f"{name}/{pn}"] = xy
        return poses, points

    def _frame_points(self, b: Block, rel: Mapping[str, np.ndarray], lengths) -> dict:
        """Points of the block's outside parts, in the block's frame (its base at rest at
        the origin, or the world)."""
        F = b.base
        out: dict[tuple[str, str], tuple] = {}
        world: dict[str, dict] = {}
        used = self._layout(b)[2]       # the points the block reads, per outside part
        if F is not None:
            world[F] = self.parts[F].world_points((0.0, 0.0, 0.0), used.get(F))
        need = set()
        for a in b.attach:
            for q in self._ancestors(a):
                if q == F or q is None:
                    break
                need.add(q)
        for name in self.order:
            if name not in need:
                continue
            parent = self.parent[name]
            root = (self.mechanism.fixed[(name, self.parts[name].root.name)] if parent is None
                    else world[parent[0]][parent[1]])
            pose = self._pose(name, root, self._angle(name, F, rel), lengths.get(name))
            world[name] = self.parts[name].world_points(pose, used.get(name))
        for name, pts in world.items():
            for pn, xy in pts.items():
                out[(name, pn)] = xy
        return out

    # ------------------------------------------------------------------ one block
    def _layout(self, b: Block) -> tuple[list, list, dict]:
        """The block's fixed structure, worked out once: per member ``(name, part, root key or
        fixed root, the member's points the block reads)``; per hinge ``(Pd key, Pr key,
        [(sign, column, exit key, member), ...])``, the Jacobian's terms in the order
        :meth:`_residual` adds them; outside part → the points of it the block reads (its
        frame points, :meth:`_frame_points`). Only the points read are computed: each by the
        part's own formula, the same numbers as all of them."""
        lay = self._layouts.get(id(b))
        if lay is not None and lay[0] is b:
            return lay[1], lay[2], lay[3]
        col = {u: i for i, u in enumerate(b.unknowns)}
        rows = []
        for pd, pr in b.hinges:
            terms = []
            for hp, sign in ((pd, 1.0), (pr, -1.0)):
                for q, exit_pt in self._chain(hp.part, hp.name):
                    if q not in col:
                        break
                    terms.append((sign, col[q], (q, exit_pt), q))
            rows.append(((pd.part, pd.name), (pr.part, pr.name), terms))
        read = [k for pd_key, pr_key, terms in rows for k in (pd_key, pr_key, *(t[2] for t in terms))]
        read += [self.parent[u] for u in b.unknowns if self.parent[u] is not None]
        used: dict[str, list[str]] = {}
        for q, pt in read:
            if pt not in used.setdefault(q, []):
                used[q].append(pt)
        # outside parts: their points the block reads, and the points their children in the frame hang on
        outside = [q for q in self.order if q not in col]
        for q in reversed(outside):
            parent = self.parent[q]
            if q in used and parent is not None and parent[0] not in col and parent[1] not in used.setdefault(
                    parent[0], []):
                used[parent[0]].append(parent[1])
        members = []
        for name in b.unknowns:
            parent = self.parent[name]
            root = (("fixed", self.mechanism.fixed[(name, self.parts[name].root.name)]) if parent is None
                    else ("point", parent))
            members.append((name, self.parts[name], root, used.get(name, [])))
        frame_used = {q: v for q, v in used.items() if q not in col}
        self._layouts[id(b)] = (b, members, rows, frame_used)
        return members, rows, frame_used

    def _block_points(self, b: Block, a: np.ndarray, lengths: Mapping[str, np.ndarray],
                      frame: Mapping[tuple[str, str], tuple]) -> tuple[dict, dict]:
        """Points and roots of the members in the block's frame: ``(points, roots)``."""
        pts: dict[tuple[str, str], tuple] = dict(frame)
        roots = {}
        members = self._layout(b)[0]
        for k, (name, part, (kind, where), used) in enumerate(members):
            root = where if kind == "fixed" else pts[where]
            roots[name] = root
            pose = self._pose(name, root, a[:, k], lengths.get(name))
            for pn, xy in part.world_points(pose, used).items():
                pts[(name, pn)] = xy
        return pts, roots

    def _residual(self, b: Block, a: np.ndarray, lengths, frame, jac: bool = True):
        """The loop-closure rows at the angles ``a`` (M × k) and their Jacobian (M × k × k).

        Entry ``(2i, c)`` of the Jacobian is ``−Σ sign·(y_exit − y_root)`` and ``(2i+1, c)``
        is ``Σ sign·(x_exit − x_root)`` over the hinge's terms in column ``c``, summed from
        zero in the terms' order. With ``sign = ±1`` each term is one difference, written
        the way round that carries its sign (``−(y − y₀)`` is ``y₀ − y`` exactly), so the
        entries are those numbers bit for bit, each written once."""
        pts, roots = self._block_points(b, a, lengths, frame)
        M, k = a.shape
        rows = self._layout(b)[1]
        r = np.empty((M, k))
        for i, (pd_key, pr_key, _) in enumerate(rows):
            xa, ya = pts[pd_key]
            xb, yb = pts[pr_key]
            r[:, 2 * i] = xa - xb
            r[:, 2 * i + 1] = ya - yb
        if not jac:
            return r, None
        entries: dict[tuple[int, int], np.ndarray] = {}
        for i, (_, _, terms) in enumerate(rows):
            for sign, c, exit_key, q in terms:
                ex, ey = pts[exit_key]
                ox, oy = roots[q]
                for at, v in (((2 * i, c), oy - ey if sign > 0 else ey - oy),
                              ((2 * i + 1, c), ex - ox if sign > 0 else ox - ex)):
                    entries[at] = entries[at] + v if at in entries else v
        J = np.empty((M, k, k))
        for i in range(k):
            for c in range(k):
                J[:, i, c] = entries.get((i, c), 0.0)
        return r, J

    def _newton(self, b: Block, a0: np.ndarray, lengths, frame, *, jump: float,
                iters: int = 25, max_step: float = 0.5) -> np.ndarray:
        """Batched Newton from ``a0`` (M × k); rows that fail are NaN."""
        a = np.array(a0, dtype=float)
        alive = np.all(np.isfinite(a), axis=1)
        settled = False
        for _ in range(iters):
            # the dead rows at zero (none dead: the angles themselves, which the residual only reads)
            r, J = self._residual(b, a if alive.all() else np.where(alive[:, None], a, 0.0), lengths, frame)
            err = np.abs(r).max(axis=1)
            todo = alive & ~(err < TOL)
            every = todo.size > 0 and todo.all()     # the usual step: every row moves (no copies, the same numbers)
            if not every and not todo.any():
                settled = True      # r is the residual at the final a (and alive): no second evaluation
                break
            Jt, rt = (J, r) if every else (J[todo], r[todo])
            det = _det(Jt)
            good = np.isfinite(det) & (np.abs(det) > 1e-14)
            if every and good.all():
                da = _solve(J, -r[..., None])[..., 0]
                step = np.abs(da).max(axis=1)
                if not (step <= max_step).all():    # else every factor is 1.0: da as it is
                    da *= np.minimum(1.0, max_step / np.maximum(step, 1e-300))[:, None]
                a += da
                continue
            idx = np.flatnonzero(todo)
            alive[idx[~good]] = False
            if not good.any():
                continue
            da = _solve(Jt[good], -rt[good][..., None])[..., 0]
            step = np.max(np.abs(da), axis=1)
            da *= np.minimum(1.0, max_step / np.maximum(step, 1e-300))[:, None]
            a[idx[good]] += da
        if not settled:
            r, _ = self._residual(b, np.where(alive[:, None], a, 0.0), lengths, frame, jac=False)
        ok = alive & (np.max(np.abs(r), axis=1) < 1e-9) & (np.max(np.abs(a - a0), axis=1) <= jump)
        a[~ok] = np.nan
        return a

    def _relative(self, b: Block, pose) -> np.ndarray:
        base = 0.0 if b.base is None else pose.angle(b.base)
        return np.array([pose.angle(u) - base for u in b.unknowns])

    # ------------------------------------------------------------------ grids
    def seed(self, targets: Mapping[str, float]):
        """The start pose carried to ``targets`` (all cylinders) by continuation.

        Parameters
        ----------
        targets : mapping
            Cylinder → length (m).

        Returns
        -------
        Pose

        Raises
        ------
        AssemblyError
            The continuation cannot reach them.
        """
        s0 = {c: self.start.length(c) for c in self.cylinders}
        path = {c: np.linspace(s0[c], float(targets[c]), 25) for c in self.cylinders}
        return self.mechanism.track(path, self.start)[-1]

    def solve_grid(self, axes: Mapping[str, Sequence[float]], *, jump: float = 0.6,
                   limits: Mapping[str, tuple] | None = None, min_steps: int = 41) -> BoxGrid:
        """Solve every pose of the grid ``axes`` (cylinder → increasing lengths, m).

        Parameters
        ----------
        axes : dict
            One entry per cylinder (all of them), in any order.
        jump : float
            Largest change of any angle (rad) between a grid point and its prediction from
            its neighbours: beyond it the point is taken as another branch and refused.
        limits : dict, optional
            ``name → (low, high, (part, reference part or None))``: joint ranges; poses
            outside are not ``ok``.
        min_steps : int
            The continuation marches on at least this many lengths per axis (a coarser
            grid is sampled from them).

        Returns
        -------
        BoxGrid

        Raises
        ------
        ParameterError
            Missing or unknown cylinders, lengths not increasing or outside the strokes.
        AssemblyError
            The seed pose cannot be reached from the start pose.

        Examples
        --------
        >>> from mechanisms.machine import DATA
        >>> from mechanisms.analysis import Study
        >>> Study(DATA / "excavator.toml").kinematics.solve_grid({"boom_cylinder": [2.0, 3.0]})
        Traceback (most recent call last):
        ...
        bondgraph.errors.ParameterError: stroke grid: 2 problems
          - grid axes: missing 'arm_cylinder', 'bucket_cylinder' (one axis per cylinder)
          - grid axis 'boom_cylinder': 2 … 3 m leaves the stroke 2.48 … 3.73 m
        """
        ax = self._check_axes(axes)
        shape = tuple(len(v) for v in ax.values())
        # march on axes at least `min_steps` fine (a coarse grid is sampled from them)
        fine = {c: np.union1d(v, np.linspace(v[0], v[-1], min_steps)) if 1 < len(v) < min_steps else v
                for c, v in ax.items()}
        pick = {c: np.searchsorted(fine[c], v) for c, v in ax.items()}
        i0 = {c: int(np.argmin(np.abs(v - self.start.length(c)))) for c, v in fine.items()}
        seed = self.seed({c: fine[c][i0[c]] for c in self.cylinders})
        full_len = BoxGrid(self, fine, {}, np.ones(1, bool)).lengths()
        rel_fine: dict[str, np.ndarray] = {}
        shapes = [tuple(len(fine[c]) if c in b.inputs else 1 for c in self.cylinders) for b in self.blocks]
        bar = grid_bar(sum(int(np.prod(shp)) for shp in shapes))
        try:
            for b, shp in zip(self.blocks, shapes):
                sol = self._march(b, shp, i0, seed, full_len, rel_fine, jump, tick=bar.update)
                for k, u in enumerate(b.unknowns):
                    rel_fine[u] = sol[..., k]
        finally:
            bar.close()
        rel = {}
        for u, v in rel_fine.items():
            for i, c in enumerate(self.cylinders):
                if v.shape[i] > 1:
                    v = np.take(v, pick[c], axis=i)
            rel[u] = v
        abs_angles = {u: np.asarray(self._angle(u, None, rel)) for u in self.order}
        ok = np.ones(shape, bool)
        for v in abs_angles.values():
            ok &= np.isfinite(np.broadcast_to(v, shape))
        for name, (lo, hi, (part, ref)) in (limits or {}).items():
            ang = abs_angles[part] - (abs_angles[ref] if ref else 0.0)
            ok &= np.broadcast_to((ang >= lo - 1e-12) & (ang <= hi + 1e-12), shape)
        grid = BoxGrid(self, ax, abs_angles, ok)
        grid.relative = rel
        grid.limits = dict(limits or {})
        return grid

    def _check_axes(self, axes) -> dict[str, np.ndarray]:
        problems = []
        unknown = [c for c in axes if c not in self.cylinders]
        missing = [c for c in self.cylinders if c not in axes]
        if unknown:
            problems.append(f"grid axes {', '.join(map(repr, unknown))}: not cylinders of "
                            f"{self.mechanism.name!r} ({', '.join(self.cylinders)})")
        if missing:
            problems.append(f"grid axes: missing {', '.join(map(repr, missing))} (one axis per cylinder)")
        out = {}
        for c in self.cylinders:
            if c not in axes:
                continue
            v = np.asarray(axes[c], dtype=float).ravel()
            if v.size < 1 or not np.all(np.isfinite(v)) or (v.size > 1 and not np.all(np.diff(v) > 0)):
                problems.append(f"grid axis {c!r}: expected finite, increasing lengths (m), found "
                                f"{np.array2string(v[:6], precision=4)}")
                continue
            lo, hi = self.parts[c].length_limits
            if v[0] < lo - 1e-9 or v[-1] > hi + 1e-9:
                problems.append(f"grid axis {c!r}: {v[0]:.4g} … {v[-1]:.4g} m leaves the stroke "
                                f"{lo:.4g} … {hi:.4g} m")
            out[c] = v
        if problems:
            raise ParameterError(problems, subject="stroke grid")
        return out

    def _march(self, b, shp, i0, seed, full_len, rel, jump, tick=None) -> np.ndarray:
        """A block's relative angles on its grid ``shp``, by continuation from the seed."""
        k = len(b.unknowns)
        sol = np.full(shp + (k,), np.nan)
        own = {c: np.broadcast_to(full_len[c], shp) for c in b.cylinders}
        lens = {c: np.broadcast_to(full_len[c], shp) for c in b.inputs}
        frame_all = {key: (np.broadcast_to(x, shp), np.broadcast_to(y, shp))
                     for key, (x, y) in self._frame_points(b, rel, lens).items()}

        def take(idx):
            ln = {c: np.asarray(v[idx], dtype=float).reshape(-1) for c, v in own.items()}
            return ln, {key: (np.asarray(x[idx]).reshape(-1), np.asarray(y[idx]).reshape(-1))
                        for key, (x, y) in frame_all.items()}

        dims = [i for i in range(len(shp)) if shp[i] > 1]
        start = tuple(i0[c] if shp[i] > 1 else 0 for i, c in enumerate(self.cylinders))
        here = tuple(slice(i, i + 1) for i in start)
        ln, frame = take(here)
        # polish the seed (an exact pose, but in another solver's numbers)
        sol[here] = self._newton(b, self._relative(b, seed)[None, :], ln, frame,
                                 jump=jump).reshape(sol[here].shape)
        for d_pos, d in enumerate(dims):
            for step in (1, -1):
                stop = shp[d] if step > 0 else -1
                for j in range(start[d] + step, stop, step):
                    idx = [slice(None) if i in dims[:d_pos] else slice(start[i], start[i] + 1)
                           for i in range(len(shp))]
                    idx[d] = slice(j, j + 1)
                    prev = list(idx)
                    prev[d] = slice(j - step, j - step + 1)
                    pred = sol[tuple(prev)]
                    if 0 <= j - 2 * step < shp[d]:
                        prev[d] = slice(j - 2 * step, j - 2 * step + 1)
                        lin = 2 * pred - sol[tuple(prev)]
                        pred = np.where(np.isfinite(lin), lin, pred)
                    ln, frame = take(tuple(idx))
                    res = self._newton(b, pred.reshape(-1, k), ln, frame, jump=jump)
                    if self.cylinders[d] in own:
                        prev[d] = slice(j - step, j - step + 1)
                        res = self._substeps(b, res, sol[tuple(prev)].reshape(-1, k), take(tuple(prev))[0],
                                             ln, frame, jump)
                    sol[tuple(idx)] = res.reshape(sol[tuple(idx)].shape)
                    if tick is not None:
                        tick(int(res.shape[0]))
        return sol

    def _substeps(self, b, res, a_prev, ln_prev, ln, frame, jump, n: int = 8) -> np.ndarray:
        """Retry the points a grid step lost in ``n`` smaller steps of the block's own lengths."""
        redo = ~np.all(np.isfinite(res), axis=1) & np.all(np.isfinite(a_prev), axis=1)
        if not redo.any():
            return res
        a = a_prev[redo]
        sub_frame = {key: (x[redo], y[redo]) for key, (x, y) in frame.items()}
        for t in np.linspace(0.0, 1.0, n + 1)[1:]:
            lt = {c: (1 - t) * ln_prev[c][redo] + t * ln[c][redo] for c in ln}
            a = self._newton(b, a, lt, sub_frame, jump=jump / 2)
        res = res.copy()
        res[redo] = a
        return res

    # ------------------------------------------------------------------ scattered points
    def solve(self, lengths: Mapping[str, np.ndarray], near: BoxGrid | None = None, *,
              jump: float = 0.6, limits: bool = True,
              memo: dict | None = None) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Absolute part angles at scattered cylinder lengths (M points).

        Each block is solved by Newton from the nearest point of ``near`` (a solved grid)
        or, without one, from the start pose (no branch guard). Returns ``(angles, ok)``;
        a pose outside the joint ranges ``near`` was solved with is not ``ok`` unless
        ``limits=False`` (an optimiser that keeps them as constraints, :func:`limit_margins`).

        Parameters
        ----------
        lengths : mapping
            Cylinder → M lengths (m).
        near : BoxGrid, optional
        jump : float
            As for :meth:`solve_grid`.
        limits : bool
        memo : dict, optional
            Kept by the caller over many calls (an optimiser's probes): a block met again with
            the same start, lengths and frame points, bit for bit, takes the solution it had
            (Newton is a function of those alone: the same numbers, not solved again).

        Returns
        -------
        (dict, ndarray of bool)
        """
        L = {c: np.atleast_1d(np.asarray(lengths[c], dtype=float)) for c in self.cylinders}
        M = max(len(v) for v in L.values())
        L = {c: v.copy() if v.shape == (M,) else np.broadcast_to(v, (M,)).copy() for c, v in L.items()}
        if near is not None:
            idx = tuple(np.argmin(np.abs(near.axes[c][:, None] - L[c][None, :]), axis=0)
                        for c in near.cylinders)
            first = np.zeros(M, dtype=np.intp)

            def nearest(v):
                """The grid's value at the nearest node (an axis of size 1: its one entry)."""
                if np.ndim(v) != len(idx):
                    return np.broadcast_to(v, near.shape)[idx]
                return v[tuple(i if n > 1 else first for i, n in zip(idx, v.shape))]
        rel: dict[str, np.ndarray] = {}
        ok = np.ones(M, bool)
        for b in self.blocks:
            if near is not None:
                a0 = np.stack([nearest(near.relative[u]) for u in b.unknowns], axis=1)
            else:
                a0 = np.tile(self._relative(b, self.start), (M, 1))
            frame = self._frame_points(b, rel, L)
            j = jump if near is not None else math.pi
            key = None
            if memo is not None:
                key = (id(b), j, a0.shape, a0.tobytes(), *(L[c].tobytes() for c in b.cylinders),
                       *(np.asarray(v).tobytes() for xy in frame.values() for v in xy))
                sol = memo.get(key)
            if key is None or sol is None:
                sol = self._newton(b, a0, L, frame, jump=j)
                if key is not None:
                    sol.setflags(write=False)
                    memo[key] = sol
            for k, u in enumerate(b.unknowns):
                rel[u] = sol[:, k]
            ok &= np.all(np.isfinite(sol), axis=1)
        ang = {}
        for u in self.order:
            v = np.asarray(self._angle(u, None, rel), dtype=float)
            ang[u] = v if v.shape == (M,) else np.broadcast_to(v, (M,))
        if limits and near is not None:
            for below, above in limit_margins(ang, near.limits).values():
                ok &= (below >= -1e-12) & (above >= -1e-12)
        return ang, ok

    # ------------------------------------------------------------------ model states
    def states(self, model, angles: Mapping[str, np.ndarray], lengths: Mapping[str, np.ndarray],
               shape: tuple | None = None) -> np.ndarray:
        """Rows of the model's state vector (displacement states; others at their initial
        values) for poses given by absolute angles and lengths, flattened.

        Parameters
        ----------
        model : Model
            The mechanism's built model.
        angles, lengths : mapping
        shape : tuple, optional

        Returns
        -------
        ndarray, shape (N, n_states)
        """
        names = model.state_names
        x0 = model.initial_state()
        shape = shape or np.broadcast_shapes(*(np.shape(v) for v in angles.values()))
        N = int(np.prod(shape))
        X = np.tile(x0, (N, 1))
        rows = X.reshape(tuple(shape) + (len(x0),))     # X's rows over ``shape`` (a view)
        root = self.mechanism.name
        for name in self.order:
            part = self.parts[name]
            for coord, local in part.coordinate_states.items():
                key = f"{root}/{name}/{local}"
                if key not in names:
                    continue
                val = lengths[name] if coord == "s" else angles[name]
                rows[..., names.index(key)] = val      # broadcast over ``shape``
        return X
