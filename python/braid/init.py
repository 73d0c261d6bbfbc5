"""mxnet.init (also mxnet.initializer): parameter initializers. Subclass Initializer and define
``_init_weight(self, name, arr)`` for your own."""
from ._core.init import Initializer, Uniform, Normal, Constant, Zero, One, Xavier, MSRAPrelu, create

Zeros, Ones = Zero, One


class InitDesc(str):
    """A parameter's name (a str) with the attributes of its variable (``attrs``: __init__,
    __lr_mult__...) and the global initializer, as Module hands them to an initializer."""

    def __new__(cls, name, attrs=None, global_init=None):
        desc = super().__new__(cls, name)
        desc.attrs = attrs or {}
        desc.global_init = global_init
        return desc
