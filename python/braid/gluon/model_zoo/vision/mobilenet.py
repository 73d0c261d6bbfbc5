"""MobileNet ("MobileNets: Efficient Convolutional Neural Networks for Mobile Vision
Applications") and MobileNetV2 ("Inverted Residuals and Linear Bottlenecks"), width multipliers
1.0, 0.75, 0.5 and 0.25, with MXNet's block structure and parameter names."""
from ....context import cpu
from ...._core.gluon import model_zoo as _z
from ..model_store import DEFAULT_ROOT, load_pretrained

__all__ = ["MobileNet", "MobileNetV2", "get_mobilenet", "get_mobilenet_v2", "mobilenet1_0", "mobilenet0_75",
           "mobilenet0_5", "mobilenet0_25", "mobilenet_v2_1_0", "mobilenet_v2_0_75", "mobilenet_v2_0_5",
           "mobilenet_v2_0_25"]


RELU6, LinearBottleneck = _z.RELU6, _z.LinearBottleneck
MobileNet, MobileNetV2 = _z.MobileNet, _z.MobileNetV2


def _suffix(multiplier):
    """MXNet's file-name spelling of a multiplier: 1.0, 0.75, 0.5, 0.25."""
    text = "%.2f" % multiplier
    return text[:-1] if text in ("1.00", "0.50") else text


def get_mobilenet(multiplier, pretrained=False, ctx=cpu(), root=DEFAULT_ROOT, **kwargs):
    """MobileNet v1 with width ``multiplier``."""
    return load_pretrained(MobileNet(multiplier, **kwargs), "mobilenet%s" % _suffix(multiplier), pretrained, ctx,
                           root)


def get_mobilenet_v2(multiplier, pretrained=False, ctx=cpu(), root=DEFAULT_ROOT, **kwargs):
    """MobileNetV2 with width ``multiplier``."""
    return load_pretrained(MobileNetV2(multiplier, **kwargs), "mobilenetv2_%s" % _suffix(multiplier), pretrained,
                           ctx, root)


def _variant(getter, name, multiplier):
    def make(**kwargs):
        return getter(multiplier, **kwargs)
    make.__name__ = name
    make.__doc__ = "%s with width multiplier %s (see %s for the arguments)." % (name, multiplier, getter.__name__)
    return make


for _m, _name in [(1.0, "1_0"), (0.75, "0_75"), (0.5, "0_5"), (0.25, "0_25")]:
    globals()["mobilenet" + _name] = _variant(get_mobilenet, "mobilenet" + _name, _m)
    globals()["mobilenet_v2_" + _name] = _variant(get_mobilenet_v2, "mobilenet_v2_" + _name, _m)
