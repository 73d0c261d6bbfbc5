"""mxnet.optimizer.contrib: GroupAdaGrad, AdaGrad with one history value per row of a 2-D weight
(an embedding's row), through the operator contrib.group_adagrad_update."""
from .. import _core
from .. import ndarray as nd
from ..base import MXNetError
from .optimizer import Optimizer, register

__all__ = ["GroupAdaGrad"]


@register
class GroupAdaGrad(Optimizer):
    """history[r] += mean(g[r]^2); w[r] -= lr*g[r]/sqrt(history[r] + eps), g the rescaled and
    clipped gradient. Weight decay is not supported (wd must be 0), as in MXNet."""

    def __init__(self, eps=1e-5, **kwargs):
        super(GroupAdaGrad, self).__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        if len(weight.shape) != 2:
            raise MXNetError("GroupAdaGrad updates 2-D weights (one history value per row); weight %s has shape %s"
                             % (index, weight.shape))
        return _core.zeros((weight.shape[0], 1), weight.context, weight.dtype)

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        if wd != 0:
            raise MXNetError("GroupAdaGrad does not support weight decay; create it with wd=0")
        kwargs = {"epsilon": self.float_stable_eps, "rescale_grad": self.rescale_grad}
        if self.clip_gradient:
            kwargs["clip_gradient"] = self.clip_gradient
        nd.contrib.group_adagrad_update(weight, grad, state, out=weight, lr=lr, **kwargs)
