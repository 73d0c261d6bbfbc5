"""gluon.Trainer (implemented in C++)."""
from .._core.gluon import Trainer

__all__ = ["Trainer"]
