"""gluon.contrib.nn: contributed layers."""
from .basic_layers import *  # noqa: F401,F403
from . import basic_layers

__all__ = basic_layers.__all__
