"""mxnet.numpy_extension (``mx.npx``): the switches of MXNet's NumPy mode and the neural-network
operators under their ``npx`` names.

``npx.set_np()`` / ``npx.reset_np()`` / ``npx.is_np_shape()`` / ``npx.is_np_array()`` are
``mx.util``'s switches; ``npx.cpu``, ``npx.gpu``, ``npx.num_gpus``, ``npx.waitall``, ``npx.seed``,
``npx.save`` and ``npx.load`` are what ``mx`` has under those names. The operators are Braid's
registered operators under MXNet's ``npx`` names (``npx.relu(x)`` is ``Activation(x,
act_type='relu')``, ``npx.convolution`` is ``Convolution``, ...); they take and give Braid NDArrays.
They give mx.np arrays. A name MXNet's ``npx`` has and Braid lacks raises AttributeError naming it.
"""
from .. import _core, _signatures
from ..context import Context, cpu, gpu, cpu_pinned, current_context, num_gpus  # noqa: F401
from ..ndarray import NDArray, waitall
from ..ndarray.utils import save, load as _load
from ..random import seed
from .. import ndarray as _nd
from ..util import is_np_shape, is_np_array, set_np, reset_np, use_np, use_np_shape, use_np_array
from ..numpy.multiarray import as_np as _as_np
from . import random

_nd.npx = __import__("sys").modules[__name__]  # F.npx in a HybridBlock's hybrid_forward (F is mx.nd)

# npx name -> the registered operator it runs (MXNet registers these as aliases named _npx_<name>).
_OPERATORS = {
    "activation": "Activation", "arange_like": "_contrib_arange_like", "batch_dot": "batch_dot",
    "batch_flatten": "Flatten", "batch_norm": "BatchNorm", "cast": "Cast", "convolution": "Convolution",
    "deconvolution": "Deconvolution", "dropout": "Dropout", "embedding": "Embedding", "erf": "erf",
    "erfinv": "erfinv", "fully_connected": "FullyConnected", "gamma": "gamma", "gammaln": "gammaln",
    "gather_nd": "gather_nd", "layer_norm": "LayerNorm", "leaky_relu": "LeakyReLU",
    "log_softmax": "log_softmax", "multibox_detection": "_contrib_MultiBoxDetection",
    "multibox_prior": "_contrib_MultiBoxPrior", "multibox_target": "_contrib_MultiBoxTarget",
    "one_hot": "one_hot", "pick": "pick", "pooling": "Pooling", "reshape_like": "reshape_like",
    "rnn": "RNN", "roi_pooling": "ROIPooling", "sequence_mask": "SequenceMask", "shape_array": "shape_array",
    "slice": "slice", "smooth_l1": "smooth_l1", "softmax": "softmax", "topk": "topk",
}


def relu(data, **kwargs):
    """max(data, 0) (MXNet's ``_npx_relu``)."""
    return _as_np(_core.invoke("relu", [data], kwargs))


def sigmoid(data, **kwargs):
    """1 / (1 + exp(-data)) (MXNet's ``_npx_sigmoid``)."""
    return _as_np(_core.invoke("sigmoid", [data], kwargs))


def reshape(a, newshape, reverse=False, order="C"):
    """``a`` in ``newshape``, whose sizes may be MXNet's codes: -1 inferred, -2 copied, -3 a size-1
    axis dropped, -4 the remaining axes copied, -5 two axes merged, -6 one axis split in the two
    sizes that follow; ``reverse`` reads them from the right."""
    return _as_np(_core.invoke("_npx_reshape", [a], {"newshape": tuple(newshape), "reverse": reverse,
                                                      "order": order}))


def load(file):
    """The arrays saved in ``file`` (a list, or a dict by name), as mx.np arrays."""
    loaded = _load(file)
    if isinstance(loaded, dict):
        return {k: _as_np(v) for k, v in loaded.items()}
    return _as_np(loaded)


def _invoke_np(op, inputs, attrs):
    return _as_np(_core.invoke(op, inputs, attrs))


def __getattr__(name):
    op = _OPERATORS.get(name)
    if op is None or not _core.operator_exists(op):
        raise AttributeError("module 'mxnet.numpy_extension' has no attribute '%s' (Braid's npx has: %s)"
                             % (name, ", ".join(sorted(n for n in _OPERATORS if _core.operator_exists(_OPERATORS[n])))))
    fn = _signatures.operator_function(op, NDArray, _invoke_np, "numpy_extension")
    fn.__name__ = name
    globals()[name] = fn
    return fn
