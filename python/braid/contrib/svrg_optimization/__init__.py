"""MXNet's mx.contrib.svrg_optimization: stochastic variance-reduced gradient descent (Johnson and
Zhang, 2013) for the Module API. ``SVRGModule`` trains like a Module, but every ``update_freq``
epochs it takes a snapshot of the weights and the full gradient there, and each step descends
along ``g(w) - g(snapshot) + full gradient``, whose variance shrinks as the weights settle."""
from . import svrg_module, svrg_optimizer
from .svrg_module import SVRGModule

__all__ = ["SVRGModule", "svrg_module", "svrg_optimizer"]
