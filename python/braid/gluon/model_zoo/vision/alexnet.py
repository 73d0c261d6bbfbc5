"""AlexNet ("One weird trick for parallelizing convolutional neural networks"), with MXNet's
block structure and parameter names."""
from ....context import cpu
from ...._core.gluon import model_zoo as _z
from ..model_store import DEFAULT_ROOT, load_pretrained

__all__ = ["AlexNet", "alexnet"]


AlexNet = _z.AlexNet


def alexnet(pretrained=False, ctx=cpu(), root=DEFAULT_ROOT, **kwargs):
    """AlexNet; ``pretrained`` loads MXNet's ImageNet parameters from ``root``."""
    return load_pretrained(AlexNet(**kwargs), "alexnet", pretrained, ctx, root)
