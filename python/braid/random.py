"""mxnet.random: the samplers of mxnet.ndarray.random, and seeding the generators of every context
or of one."""
import numbers

import numpy

from . import _core
from .ndarray.random import *  # noqa: F401,F403 (MXNet's mx.random.uniform etc.)
from .ndarray.random import __all__ as _samplers


def seed(seed_state, ctx="all"):
    """Reseeds the generators: of every context (a stream per device), or with `ctx` only that
    context's, with a stream that does not depend on its device id."""
    if not isinstance(seed_state, (numbers.Integral, numpy.integer)):
        raise ValueError("seed_state must be int")
    seed_state = int(seed_state) & ((1 << 64) - 1)
    if isinstance(ctx, str) and ctx == "all":
        _core.seed(seed_state)
    else:
        _core.seed_context(seed_state, ctx)


__all__ = ["seed"] + list(_samplers)
