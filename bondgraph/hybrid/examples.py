"""Two small hybrid models for examples and tests: a bang-bang cart and a servo mass.

Examples
--------
>>> cart().modes, servo().model.input_names
({'push': 'Right'}, ['force'])
"""

from __future__ import annotations

from .guards import Above, Below
from .model import HybridModel
from .modes import Discrete, Transition

__all__ = ["cart", "servo"]


def cart(turn: float = 1.0) -> HybridModel:
    """A unit mass (states ``cart/v.x``, position, and ``cart/m.f``, momentum) pushed by
    ±2 N: the discrete ``push`` turns ``Right → Left`` above ``x = turn`` and back below
    ``x = 0``. From rest at 0 the position is ``t²`` up to ``x = turn``.

    Examples
    --------
    >>> hm = cart()
    >>> [t.describe() for t in hm.transitions]
    ['→ push=Left when cart/v.x > 1', '→ push=Right when cart/v.x < 0']
    """
    from ..elements import I, MSe, One
    from ..graph import BondGraph

    push = Discrete("push", {"Left": -1.0, "Right": 1.0}, initial="Right")
    bg = BondGraph("cart")
    bg.add(MSe("F", 2.0 * push.symbol), One("v", displacement="x"), I("m", 1.0))
    bg.connect("F", "v")
    bg.connect("v", "m")
    return HybridModel.build(bg, [push], [Transition("push", "Right", "Left", Above("cart/v.x", turn)),
                                          Transition("push", "Left", "Right", Below("cart/v.x", 0.0))])


def servo() -> HybridModel:
    """A unit mass pushed by the model input ``force`` (states ``servo/v.x``, position, and
    ``servo/m.f``, momentum), no discrete variable: for controllers.

    Examples
    --------
    >>> servo().model.state_names
    ['servo/v.x', 'servo/m.f']
    """
    from ..elements import I, Input, MSe, One
    from ..graph import BondGraph

    bg = BondGraph("servo")
    bg.add(One("v", displacement="x"), I("m", 1.0), MSe("F", Input("force")))
    bg.connect("F", "v")
    bg.connect("v", "m")
    return HybridModel.build(bg, [], [])
