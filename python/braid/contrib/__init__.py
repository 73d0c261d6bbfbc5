"""MXNet's mx.contrib: automatic mixed precision (``mx.contrib.amp``) and the contrib symbols."""
from . import amp
from ..symbol import contrib as symbol

__all__ = ["amp", "symbol"]
