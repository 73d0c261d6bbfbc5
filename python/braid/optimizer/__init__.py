"""mxnet.optimizer: optimizers by name (``create('sgd', learning_rate=0.1)``) or class
(``SGD(momentum=0.9)``), and your own: subclass Optimizer, define create_state(index, weight) and
update(index, weight, grad, state), and decorate the class with @register."""
from . import optimizer
from . import core_optimizer  # the MXNet members of the optimizers the C++ core implements
from .optimizer import Optimizer, register, create, Updater, get_updater
from .sgd import SGD, ccSGD, NAG, Signum, LARS, LBSGD, DCASGD, SGLD
from . import contrib
from .adaptive import Adam, Adamax, Nadam, AdaGrad, AdaDelta, RMSProp, Ftrl, FTML, LAMB, Test

__all__ = ["Optimizer", "register", "create", "Updater", "get_updater", "SGD", "ccSGD", "NAG", "Signum",
           "LARS", "LBSGD", "DCASGD", "SGLD", "Adam", "Adamax", "Nadam", "AdaGrad", "AdaDelta", "RMSProp",
           "Ftrl", "FTML", "LAMB", "Test"]

# Built in, these run through their class too; names registered beyond these are the user's.
_BUILTIN = frozenset(Optimizer.opt_registry)


def is_registered_in_python(name):
    """Whether `name` is an optimizer registered by the user (Trainer then builds it in Python)."""
    return isinstance(name, str) and name.lower() in Optimizer.opt_registry and name.lower() not in _BUILTIN
