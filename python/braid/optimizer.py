"""mxnet.optimizer: optimizers by name (``create('sgd', learning_rate=0.1)``), implemented in C++."""
from ._core.optimizer import Optimizer, create as _create, _set_lr_scheduler


def create(name, lr_scheduler=None, **kwargs):
    """An optimizer by name with MXNet's hyper-parameters (learning_rate, wd, momentum, ...)."""
    opt = _create(name, **kwargs)
    if lr_scheduler is not None:
        _set_lr_scheduler(opt, lr_scheduler)
    return opt

__all__ = ["Optimizer", "create"]
