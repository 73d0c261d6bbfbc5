"""SqueezeNet 1.0 and 1.1 ("SqueezeNet: AlexNet-level accuracy with 50x fewer parameters"), with
MXNet's block structure and parameter names."""
from ....context import cpu
from ...._core.gluon import model_zoo as _z
from ..model_store import DEFAULT_ROOT, load_pretrained

__all__ = ["SqueezeNet", "get_squeezenet", "squeezenet1_0", "squeezenet1_1"]


SqueezeNet = _z.SqueezeNet


def get_squeezenet(version, pretrained=False, ctx=cpu(), root=DEFAULT_ROOT, **kwargs):
    """SqueezeNet ``version`` ('1.0' or '1.1'); ``pretrained`` loads MXNet's parameters."""
    return load_pretrained(SqueezeNet(version, **kwargs), "squeezenet%s" % version, pretrained, ctx, root)


def squeezenet1_0(**kwargs):
    """SqueezeNet 1.0 (see get_squeezenet for the arguments)."""
    return get_squeezenet("1.0", **kwargs)


def squeezenet1_1(**kwargs):
    """SqueezeNet 1.1 (see get_squeezenet for the arguments)."""
    return get_squeezenet("1.1", **kwargs)
