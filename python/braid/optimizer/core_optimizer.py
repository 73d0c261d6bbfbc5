"""MXNet's members of the optimizers the C++ core implements (created by name: 'sgd', 'adam'):
``param_dict`` (index -> Parameter, set by a Trainer) whose lr_mult and wd_mult are read when a
rate is asked for or a Trainer steps, and ``_get_lr`` / ``_get_wd``."""
from .._core import optimizer as _core_opt

__all__ = ["sync_param_mults"]


def sync_param_mults(optimizer, param_dict):
    """Gives the core the lr_mult and wd_mult the parameters of ``param_dict`` have now."""
    if not param_dict:
        return
    lr_mult = {i: float(p.lr_mult) for i, p in param_dict.items() if p.lr_mult != 1.0}
    wd_mult = {i: float(p.wd_mult) for i, p in param_dict.items() if p.wd_mult != 1.0}
    optimizer._core_set_index_mults(lr_mult, wd_mult)


def _get_lr(self, index):
    """The learning rate of ``index``: the scheduled rate times its multiplier."""
    sync_param_mults(self, getattr(self, "param_dict", None))
    return self._core_get_lr(index)


def _get_wd(self, index):
    """The weight decay of ``index``: wd times its multiplier."""
    sync_param_mults(self, getattr(self, "param_dict", None))
    return self._core_get_wd(index)


_core_opt.Optimizer._get_lr = _get_lr
_core_opt.Optimizer._get_wd = _get_wd
