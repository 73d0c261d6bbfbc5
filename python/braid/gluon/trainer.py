"""gluon.Trainer (implemented in C++)."""
from .._core import gluon as _g

__all__ = ["Trainer"]


class Trainer(_g.Trainer):
    """MXNet's gluon.Trainer(params, optimizer, optimizer_params, kvstore, compression_params,
    update_on_kvstore). An ``lr_scheduler`` in optimizer_params and compression_params are set on
    the optimizer and the store before the C++ Trainer takes them."""

    def __init__(self, params, optimizer, optimizer_params=None, kvstore="device", compression_params=None,
                 update_on_kvstore=None):
        from .. import optimizer as _opt
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
