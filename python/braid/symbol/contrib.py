"""mxnet.symbol.contrib: the operators named `_contrib_<name>`, as `<name>`, the log-uniform
candidate sampler rand_zipfian and the control flow foreach, while_loop and cond."""
import math

from ..ndarray.contrib import zipfian_counts
from . import random as _random
from ._namespace import operator_getattr
from .control_flow import foreach, while_loop, cond  # noqa: F401

__all__ = ["rand_zipfian", "foreach", "while_loop", "cond"]

__getattr__ = operator_getattr(globals(), "symbol.contrib", "_contrib_")


def rand_zipfian(true_classes, num_sampled, range_max):
    """mx.nd.contrib.rand_zipfian as a graph: (sampled classes, expected counts of the true
    classes, expected counts of the samples)."""
    log_range = math.log(range_max + 1)
    draws = _random.uniform(0, log_range, shape=(num_sampled,), dtype="float64")
    sampled = (draws.exp() - 1).astype("int64") % range_max
    expected_true = zipfian_counts(true_classes.astype("float64"), num_sampled, log_range)
    return sampled, expected_true, zipfian_counts(sampled.astype("float64"), num_sampled, log_range)
