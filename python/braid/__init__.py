"""Braid with MXNet's Python API: ``import braid as mx`` runs MXNet 1.x programs."""
from . import base
from .base import MXNetError
from . import context
from .context import Context, cpu, gpu, cpu_pinned, current_context, num_gpus
from . import ndarray
from . import ndarray as nd
from . import autograd
from . import random

__version__ = "0.1.0"
from . import init
from . import init as initializer
from . import optimizer
from . import gluon
from . import test_utils
