"""mx.contrib.autograd: MXNet's first autograd interface (train_section, mark_variables,
compute_gradient, grad_and_loss), kept for programs written against it; the same machinery as
mx.autograd."""
import functools

from .. import autograd as _autograd
from ..ndarray import NDArray, zeros_like

__all__ = ["set_is_training", "TrainingStateScope", "train_section", "test_section", "mark_variables", "backward",
           "compute_gradient", "grad_and_loss", "grad"]

mark_variables = _autograd.mark_variables


def set_is_training(is_train):
    """Turns recording and training mode on or off together; returns the previous setting."""
    previous = _autograd.set_recording(is_train)
    _autograd.set_training(is_train)
    return bool(previous)


class TrainingStateScope:
    """Recording and training mode both on (``enter_state`` True) or off inside the block."""

    def __init__(self, enter_state):
        self._enter_state = enter_state
        self._previous = None

    def __enter__(self):
        self._previous = set_is_training(self._enter_state)

    def __exit__(self, *exc):
        if self._previous != self._enter_state:
            set_is_training(self._previous)


def train_section():
    """``with train_section():`` records, in training mode."""
    return TrainingStateScope(True)


def test_section():
    """``with test_section():`` neither records nor trains."""
    return TrainingStateScope(False)


def backward(outputs, out_grads=None, retain_graph=False):
    """Back-propagates from ``outputs`` (an NDArray or a list) into the marked variables."""
    _autograd.backward(outputs, out_grads, retain_graph=retain_graph)


def compute_gradient(outputs):
    """``backward(outputs)``, MXNet's older name."""
    backward(outputs)


def grad_and_loss(func, argnum=None):
    """A function returning (gradients of ``func`` with respect to its arguments, or those at
    ``argnum``; ``func``'s value)."""
    @functools.wraps(func)
    def wrapped(*args):
        variables = args
        if argnum is not None:
            variables = [args[i] for i in (argnum if isinstance(argnum, list) else [argnum])]
        for x in variables:
            if not isinstance(x, NDArray):
                raise TypeError("grad_and_loss: the differentiated arguments must be NDArrays, got %s" % type(x))
        grads = [zeros_like(x) for x in variables]
        mark_variables(variables, grads)
        with train_section():
            outputs = func(*args)
        compute_gradient([outputs] if isinstance(outputs, NDArray) else outputs)
        return grads, outputs
    return wrapped


def grad(func, argnum=None):
    """A function returning the gradients of ``func`` with respect to its arguments."""
    with_loss = grad_and_loss(func, argnum)

    @functools.wraps(with_loss)
    def wrapped(*args):
        return with_loss(*args)[0]
    return wrapped
