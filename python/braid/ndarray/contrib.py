"""mxnet.ndarray.contrib: the operators named `_contrib_<name>`, as `<name>`, MXNet's Python
element tests isinf, isfinite and isnan (1 where true, 0 elsewhere, in the input's dtype), the
log-uniform candidate sampler rand_zipfian, and the control flow foreach, while_loop and cond."""
import math

from ..context import current_context
from . import random as _random
from ._namespace import operator_getattr
from . import contrib_optimizer
from .contrib_optimizer import *  # noqa: F401,F403 (adamw_update, multi_lamb_update, ...)
from .control_flow import foreach, while_loop, cond  # noqa: F401

__all__ = ["isinf", "isfinite", "isnan", "rand_zipfian", "foreach", "while_loop", "cond"] + contrib_optimizer.__all__

__getattr__ = operator_getattr(globals(), "ndarray.contrib", "_contrib_")


def isinf(data):
    """1 where an element is +inf or -inf."""
    return data.abs() == math.inf


def isfinite(data):
    """1 where an element is neither infinite nor NaN."""
    return (data == data) * (data.abs() != math.inf)


def isnan(data):
    """1 where an element is NaN."""
    return data != data


def zipfian_counts(classes, num_sampled, log_range):
    """How often each of ``classes`` (float64) is expected among ``num_sampled`` log-uniform draws:
    num_sampled * log((c + 2) / (c + 1)) / log(range_max + 1). Shared with mx.sym.contrib."""
    return ((classes + 2.0) / (classes + 1.0)).log() / log_range * num_sampled


def rand_zipfian(true_classes, num_sampled, range_max, ctx=None):
    """``num_sampled`` classes of [0, range_max) drawn from the log-uniform (Zipfian) distribution
    P(c) = log((c + 2) / (c + 1)) / log(range_max + 1), with replacement; returns (the sampled
    classes as int64, the expected count of each true class, the expected count of each sample)."""
    ctx = ctx if ctx is not None else current_context()
    log_range = math.log(range_max + 1)
    draws = _random.uniform(0, log_range, shape=(num_sampled,), dtype="float64", ctx=ctx)
    sampled = (draws.exp() - 1).astype("int64") % range_max
    expected_true = zipfian_counts(true_classes.as_in_context(ctx).astype("float64"), num_sampled, log_range)
    return sampled, expected_true, zipfian_counts(sampled.astype("float64"), num_sampled, log_range)
