"""mxnet.module (``mod``): the symbolic training API, Module (implemented in C++)."""
from ._core.module import Module

BaseModule = Module
__all__ = ["Module", "BaseModule"]
