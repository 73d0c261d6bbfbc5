"""mxnet.ndarray.utils: saving and loading arrays as MXNet's ``.params`` files. Under NumPy shape
semantics (``with mx.np_shape():``) files are written as MXNet does then (V3: scalars kept), and
a file loads only under the semantics it was saved with, as in MXNet."""
from .. import _core, util

__all__ = ["save", "load", "load_frombuffer"]


def save(fname, data):
    """Saves an NDArray, a list of them or a dict name -> NDArray to ``fname``, atomically."""
    _core.save(fname, data, util.is_np_shape())


def load(fname):
    """A list or a dict name -> NDArray, as saved."""
    return _core.load(fname, util._np_shape.get())


def load_frombuffer(buf):
    """``load`` of a file's bytes."""
    return _core.load_frombuffer(buf, util._np_shape.get())
