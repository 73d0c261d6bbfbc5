"""Braid with MXNet's Python API: ``import braid as mx`` runs MXNet 1.x programs."""
import sys as _sys

# Before _core starts OpenMP: on a machine whose every core is busy, OpenMP waits passively
# (docs/engine.md, "Busy machines").
from . import _cpu_share
_cpu_busy, _passive = _cpu_share.prepare_wait_policy()
if _passive:
    import os as _os
    _os.environ["OMP_WAIT_POLICY"] = "PASSIVE"  # os.environ too (the C environment has it), for subprocesses
from . import _core  # noqa: E402
_core._use_cpu_measurement(_cpu_busy)

from . import base
from .base import MXNetError
from . import util
from .util import np_shape, is_np_shape, set_np_shape, np_array, is_np_array, set_np_array, use_np_shape
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
from . import name
from . import attribute
from .attribute import AttrScope
from . import symbol
from . import symbol as sym
from . import io
from . import module
from . import module as mod
from . import model
from . import callback
from . import metric
from . import rnn
from . import onnx
from . import lr_scheduler
from . import kvstore
from . import kvstore as kv
from . import runtime
from . import profiler
from . import recordio
from . import image
from . import image as img
from . import engine
from . import operator
from . import numpy
from . import numpy as np
from . import numpy_extension
from . import numpy_extension as npx
from . import contrib
from . import monitor
from . import monitor as mon
from . import visualization
from . import visualization as viz



def _serve_if_server():
    """A process started by `braid launch` (or MXNet's launcher) as the scheduler or a server runs
    that role here and exits when the job ends, as `import mxnet` does: the same script serves
    every role."""
    if _core.kvstore.is_server_process():
        _sys.exit(_core.kvstore.run_server())


# Imported as `mxnet`, the alias serves once that name is this package: a module the servers import
# to rebuild a worker's optimizer may `import mxnet` itself.
if getattr(_sys.modules.get("mxnet"), "__name__", None) != "mxnet":
    _serve_if_server()
