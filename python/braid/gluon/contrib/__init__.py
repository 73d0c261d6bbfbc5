"""gluon.contrib: contributed layers (MXNet's layout)."""
from . import nn, rnn

__all__ = ["nn", "rnn"]
