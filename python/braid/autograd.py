"""mxnet.autograd: record operations on arrays with attached gradients and differentiate them."""
from ._core import autograd as _ag
from ._core import NDArray

__all__ = ["Function", "record", "pause", "train_mode", "predict_mode", "is_recording", "is_training",
           "set_recording", "set_training", "backward", "grad", "mark_variables", "get_symbol"]

is_recording = _ag.is_recording
is_training = _ag.is_training
set_recording = _ag.set_recording
set_training = _ag.set_training


class _Scope:
    def __init__(self, recording, training):
        self._recording, self._training = recording, training

    def __enter__(self):
        self._prev = (_ag.is_recording(), _ag.is_training())
        if self._recording is not None:
            _ag.set_recording(self._recording)
        if self._training is not None:
            _ag.set_training(self._training)
        return self

    def __exit__(self, *exc):
        _ag.set_recording(self._prev[0])
        _ag.set_training(self._prev[1])


def record(train_mode=True):
    """``with autograd.record():`` records operations for backward, in training mode by default."""
    return _Scope(True, train_mode)


def pause(train_mode=False):
    """``with autograd.pause():`` stops recording, in predict mode by default."""
    return _Scope(False, train_mode)


def train_mode():
    return _Scope(None, True)


def predict_mode():
    return _Scope(None, False)


def _as_list(x):
    return [x] if isinstance(x, NDArray) else list(x)


def backward(heads, head_grads=None, retain_graph=False, train_mode=True):
    heads = _as_list(heads)
    grads = [None] * len(heads) if head_grads is None else _as_list(head_grads)
    _ag.backward(heads, grads, retain_graph, train_mode)


def grad(heads, variables, head_grads=None, retain_graph=None, create_graph=False, train_mode=True):
    """The gradients of ``heads`` with respect to ``variables``, returned as new arrays. With
    ``create_graph`` they are recorded, so they can be differentiated again; the graph is then
    retained unless ``retain_graph`` says otherwise, as in MXNet."""
    if retain_graph is None:
        retain_graph = create_graph
    heads = _as_list(heads)
    grads = [None] * len(heads) if head_grads is None else _as_list(head_grads)
    # A list also for one variable: what MXNet 1.x returns (its single-array case is never taken).
    return _ag.grad(heads, _as_list(variables), grads, bool(retain_graph), train_mode, bool(create_graph))


def mark_variables(variables, gradients, grad_reqs="write"):
    variables, gradients = _as_list(variables), _as_list(gradients)
    reqs = [grad_reqs] * len(variables) if isinstance(grad_reqs, str) else list(grad_reqs)
    for v, g, r in zip(variables, gradients, reqs):
        _ag.mark_variables([v], [g], r)


def get_symbol(x):
    """The recorded computation behind ``x`` as a Symbol: variables var<i> for the arrays with
    attached gradients, null<i> for other arrays the operators read (one counter), node_<i> per
    operator."""
    return _ag.get_symbol(x)


class Function:
    """A differentiable function of your own (MXNet's autograd.Function): define forward(*inputs)
    and backward(*output_grads), which returns one gradient per input; save what backward needs
    with save_for_backward. forward runs without recording; the call records one node whose
    backward is yours (python/tests/test_autograd.py has MXNet's sigmoid example)."""

    def __init__(self):
        self._saved_tensors = ()

    def save_for_backward(self, *args):
        self._saved_tensors = args

    @property
    def saved_tensors(self):
        return self._saved_tensors

    def __call__(self, *inputs):
        previous = _ag.set_recording(False)
        try:
            outputs = self.forward(*inputs)
        finally:
            _ag.set_recording(previous)
        single = isinstance(outputs, NDArray)
        outs = [outputs] if single else list(outputs)
        _ag.record_custom_function(list(inputs), outs, self.backward)
        return outputs

    def forward(self, *inputs):
        raise NotImplementedError("%s must define forward(self, *inputs)" % type(self).__name__)

    def backward(self, *output_grads):
        raise NotImplementedError("%s must define backward(self, *output_grads), returning one gradient per input"
                                  % type(self).__name__)
