"""Activation layers written with operators (the others are C++ layers, see nn/__init__.py)."""
from ..block import HybridBlock

__all__ = ["Swish"]


class Swish(HybridBlock):
    """swish(x) = x * sigmoid(beta * x) ("Searching for Activation Functions")."""

    def __init__(self, beta=1.0, **kwargs):
        super().__init__(**kwargs)
        self._beta = beta

    def hybrid_forward(self, F, x):
        return x * F.sigmoid(self._beta * x)

    def __repr__(self):
        return "Swish(beta=%s)" % self._beta
