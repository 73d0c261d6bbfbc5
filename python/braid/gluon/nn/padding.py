"""Padding layers written with the pad operator."""
import numbers

from ..block import HybridBlock

__all__ = ["ReflectionPad2D"]


class ReflectionPad2D(HybridBlock):
    """Pads the two spatial axes of (N, C, H, W) data with their reflection about the edges:
    ``padding`` is one count for every side or MXNet's 8-tuple pad_width (the first four 0)."""

    def __init__(self, padding=0, **kwargs):
        super().__init__(**kwargs)
        if isinstance(padding, numbers.Integral):
            padding = (0, 0, 0, 0, padding, padding, padding, padding)
        if len(padding) != 8:
            raise ValueError("ReflectionPad2D: padding must be an int or 8 values (pad_width), got %r" % (padding,))
        self._padding = tuple(padding)

    def hybrid_forward(self, F, x):
        return F.pad(x, mode="reflect", pad_width=self._padding)

    def __repr__(self):
        return "ReflectionPad2D(padding=%r)" % (self._padding,)
