"""gluon.Block and gluon.HybridBlock for user-defined models.

A subclass calls ``super().__init__(**kwargs)``, assigns its layers and parameters as attributes
(they are registered as children and parameters, as in MXNet) and defines ``forward(self, x,
...)``, or for a HybridBlock ``hybrid_forward(self, F, x, ..., **params)``. The C++ core calls
``forward`` back, so ``hybridize()`` traces it into a graph that later calls run without Python.
"""
from .. import ndarray as _nd
from .._core import gluon as _g

__all__ = ["Block", "HybridBlock", "SymbolBlock"]


def _setattr(self, name, value):
    if isinstance(value, _g.Block):
        self.register_child(value, name)
    elif isinstance(value, _g.Parameter):
        self._register_attribute(name, value)
    object.__setattr__(self, name, value)


class Block(_g.Block):
    """A model or a part of one; subclasses define ``forward``."""

    def __init__(self, prefix=None, params=None):
        share = _g._share_parameters(params)  # params=: take parameters from that ParameterDict
        _g.Block.__init__(self, type(self).__name__.lower(), prefix)
        del share

    __setattr__ = _setattr


class HybridBlock(_g.HybridBlock):
    """A block whose ``hybrid_forward(F, x, ...)`` uses only operators, so that it can be hybridized.
    ``F`` is ``braid.nd``; the block's parameters arrive as keyword arguments on the data's context."""

    def __init__(self, prefix=None, params=None):
        share = _g._share_parameters(params)  # params=: take parameters from that ParameterDict
        _g.HybridBlock.__init__(self, type(self).__name__.lower(), prefix)
        del share

    __setattr__ = _setattr

    def forward(self, x, *args):
        # A parameter whose shape is not known yet goes in as the Parameter itself: the first
        # operator it reaches completes its shape and initializes it (MXNet's deferred init).
        params = {name: p if p._deferred else p.data(x.context) for name, p in self._attribute_params().items()}
        return self.hybrid_forward(_nd, x, *args, **params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError("%s must define hybrid_forward(self, F, x, ...) or forward(self, x, ...)"
                                  % type(self).__name__)


SymbolBlock = _g.SymbolBlock
