"""What a block gives: under the mx.np interface (npx.set_np()) mx.np arrays, a mix of those and
legacy NDArrays being a TypeError (MXNet's check); and its inputs as the same objects."""
from .._core import NDArray


def _kinds(out, found):
    from ..numpy import ndarray
    if isinstance(out, NDArray):
        found.add(isinstance(out, ndarray))
    elif isinstance(out, (list, tuple)):
        for item in out:
            _kinds(item, found)
    return found


def checked(block, out):
    """``out``, unless it mixes mx.np arrays and legacy NDArrays (MXNet's TypeError). Outputs that
    are all legacy pass: Braid's own Python blocks (the losses) compute with legacy operators, and
    ``Block.__call__`` gives them as mx.np arrays."""
    if len(_kinds(out, set())) > 1:
        raise TypeError("%s: Block's output ndarrays must all be of type `mxnet.numpy.ndarray` under the numpy "
                        "interface, while some are legacy NDArrays (%s)" % (type(block).__name__, type(out)))
    return out


def same_objects(out, args):
    """``out`` with each array that is one of the inputs ``args`` (same memory, shape and dtype)
    given back as that input object: the core passes a forward copies of the input handles, and
    MXNet's block returns the very object it was given (``x.astype(x.dtype, copy=False)``)."""
    if isinstance(out, NDArray):
        for a in args:
            if isinstance(a, NDArray) and a.dtype == out.dtype and out._same_as(a):
                return a
        return out
    if isinstance(out, (list, tuple)):
        return type(out)(same_objects(o, args) for o in out)
    return out
