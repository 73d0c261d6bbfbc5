"""mxnet.optimizer: optimizers by name (``create('sgd', learning_rate=0.1)``), implemented in C++,
and your own: subclass Optimizer, define create_state(index, weight) and update(index, weight,
grad, state), and decorate the class with @register."""
from ._core.optimizer import Optimizer, create as _create, _set_lr_scheduler

__all__ = ["Optimizer", "create", "register"]

_registry = {}


def register(klass):
    """Makes ``create(klass.__name__.lower())`` (and Trainer(..., 'name')) build this class."""
    _registry[klass.__name__.lower()] = klass
    return klass


Optimizer.register = staticmethod(register)


def create(name, lr_scheduler=None, **kwargs):
    """An optimizer by name with MXNet's hyper-parameters (learning_rate, wd, momentum, ...)."""
    key = name.lower()
    if key in _registry:
        opt = _registry[key](**kwargs)
        opt._set_name(key)
    else:
        opt = _create(name, **kwargs)
    if lr_scheduler is not None:
        _set_lr_scheduler(opt, lr_scheduler)
    return opt


def is_registered_in_python(name):
    return isinstance(name, str) and name.lower() in _registry
