"""gluon.contrib: contributed layers (MXNet's layout)."""
from . import nn

__all__ = ["nn"]
