"""mxnet.init (also mxnet.initializer): parameter initializers. Subclass Initializer and define
``_init_weight(self, name, arr)`` for your own."""
from ._core.init import Initializer, Uniform, Normal, Constant, Zero, One, Xavier, MSRAPrelu, create

Zeros, Ones = Zero, One
