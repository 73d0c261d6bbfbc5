"""gluon.Trainer (implemented in C++)."""
from .._core import gluon as _g
from .parameter import ParameterDict

__all__ = ["Trainer"]


def _as_parameter_dict(params):
    """A ParameterDict as given, or one holding a list (or dict) of parameters in their order."""
    if isinstance(params, ParameterDict):
        return params
    if isinstance(params, dict):
        params = list(params.values())
    if not isinstance(params, (list, tuple)):
        raise ValueError("First argument must be a list or dict of Parameters, got %s." % type(params))
    out = ParameterDict()
    for p in params:
        if not isinstance(p, _g.Parameter):
            raise ValueError("First argument must be a list or dict of Parameters, got list of %s." % type(p))
        out._add(p)
    return out


class Trainer(_g.Trainer):
    """MXNet's gluon.Trainer(params, optimizer, optimizer_params, kvstore, compression_params,
    update_on_kvstore). ``params``: a ParameterDict, or a list or dict of Parameters. An
    ``lr_scheduler`` in optimizer_params and compression_params are set on the optimizer and the
    store before the C++ Trainer takes them. The store is set up at the first step (``_kvstore``
    is None before)."""

    def __init__(self, params, optimizer, optimizer_params=None, kvstore="device", compression_params=None,
                 update_on_kvstore=None):
        from .. import optimizer as _opt
        params = _as_parameter_dict(params)
        if isinstance(optimizer, str) and (_opt.is_registered_in_python(optimizer) or
                                           (optimizer_params and "lr_scheduler" in optimizer_params)):
            optimizer, optimizer_params = _opt.create(optimizer, **dict(optimizer_params or {})), None
        self._optimizer_object = optimizer  # an optimizer defined in Python lives as long as the trainer
        if compression_params is not None:
            from .. import kvstore as _kv
            if isinstance(kvstore, str):
                kvstore = _kv.create(kvstore)
            kvstore.set_gradient_compression(compression_params)
        _g.Trainer.__init__(self, params, optimizer, optimizer_params, kvstore, None, update_on_kvstore)
        for p in params.values():
            p._set_trainer(self)

    def step(self, batch_size, ignore_stale_grad=False):
        """allreduce_grads() then update(batch_size); skipped when mixed precision's loss scaler
        (mx.contrib.amp.init_trainer) finds an overflowed gradient."""
        if self._amp_overflowed():
            return
        _g.Trainer.step(self, batch_size, ignore_stale_grad)

    def update(self, batch_size, ignore_stale_grad=False):
        """The optimizer's update of every parameter (skipped on an AMP overflow, as step)."""
        if self._amp_overflowed():
            return
        _g.Trainer.update(self, batch_size, ignore_stale_grad)

    def _amp_overflowed(self):
        scaler = getattr(self, "_amp_loss_scaler", None)
        return scaler is not None and scaler.has_overflow(self._params)

    @property
    def _optimizer(self):
        return self.optimizer

    @property
    def _kvstore(self):
        """The store in use once set up (None before, and without one)."""
        return self._core_kvstore() if self._kv_initialized else None

    @property
    def _update_on_kvstore(self):
        """Whether the store runs the optimizer (None until set up, and without a store)."""
        if not self._kv_initialized or self._core_kvstore() is None:
            return None
        return self._core_update_on_kvstore()

    def _init_kvstore(self):
        self._core_kvstore()

    @property
    def _params_to_init(self):
        """Parameters still waiting for their deferred initialization."""
        return [p for p in self._params if p._deferred]
