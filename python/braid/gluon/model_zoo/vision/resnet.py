"""ResNet v1 ("Deep Residual Learning for Image Recognition") and v2 ("Identity Mappings in Deep
Residual Networks"), with MXNet's block structure and parameter names, so that MXNet's
pretrained files load. The layers are Braid's C++ model zoo."""
from ....context import cpu
from ...._core.gluon import model_zoo as _z
from ..model_store import DEFAULT_ROOT, load_pretrained

__all__ = ["ResNetV1", "ResNetV2", "BasicBlockV1", "BasicBlockV2", "BottleneckV1", "BottleneckV2", "get_resnet",
           "resnet18_v1", "resnet34_v1", "resnet50_v1", "resnet101_v1", "resnet152_v1",
           "resnet18_v2", "resnet34_v2", "resnet50_v2", "resnet101_v2", "resnet152_v2"]


def _unit_class(name, version, kind, doc):
    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        _z.ResidualUnit.__init__(self, version, kind, channels, stride, downsample, in_channels, **kwargs)
    return type(name, (_z.ResidualUnit,), {"__init__": __init__, "__doc__": doc, "_kind": kind})


BasicBlockV1 = _unit_class("BasicBlockV1", 1, _z.ResidualKind.basic,
                           "Two 3x3 convolutions with batch norm, added to the (downsampled) input, then relu.")
BottleneckV1 = _unit_class("BottleneckV1", 1, _z.ResidualKind.bottleneck,
                           "1x1, 3x3, 1x1 convolutions (a quarter of the channels inside), added to the input.")
BasicBlockV2 = _unit_class("BasicBlockV2", 2, _z.ResidualKind.basic,
                           "Pre-activation basic block: (batch norm, relu, 3x3 convolution) twice, plus the input.")
BottleneckV2 = _unit_class("BottleneckV2", 2, _z.ResidualKind.bottleneck, "Pre-activation bottleneck block.")


class ResNetV1(_z.ResNet):
    """ResNet v1: ``block`` (BasicBlockV1 or BottleneckV1) repeated ``layers[i]`` times in stage
    i with ``channels[i + 1]`` channels; ``thumbnail`` for small (32x32) images."""

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        _z.ResNet.__init__(self, 1, block._kind, layers, channels, classes, thumbnail, **kwargs)


class ResNetV2(_z.ResNet):
    """ResNet v2 (pre-activation): as ResNetV1 with BasicBlockV2 or BottleneckV2."""

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        _z.ResNet.__init__(self, 2, block._kind, layers, channels, classes, thumbnail, **kwargs)


_SPEC = {18: ("basic_block", [2, 2, 2, 2], [64, 64, 128, 256, 512]),
         34: ("basic_block", [3, 4, 6, 3], [64, 64, 128, 256, 512]),
         50: ("bottle_neck", [3, 4, 6, 3], [64, 256, 512, 1024, 2048]),
         101: ("bottle_neck", [3, 4, 23, 3], [64, 256, 512, 1024, 2048]),
         152: ("bottle_neck", [3, 8, 36, 3], [64, 256, 512, 1024, 2048])}
_NETS = [ResNetV1, ResNetV2]
_BLOCKS = [{"basic_block": BasicBlockV1, "bottle_neck": BottleneckV1},
           {"basic_block": BasicBlockV2, "bottle_neck": BottleneckV2}]


def get_resnet(version, num_layers, pretrained=False, ctx=cpu(), root=DEFAULT_ROOT, **kwargs):
    """ResNet ``version`` (1 or 2) with ``num_layers`` (18, 34, 50, 101 or 152) layers;
    ``pretrained`` loads MXNet's ImageNet parameters from ``root`` onto ``ctx``."""
    assert num_layers in _SPEC, "Invalid number of layers: %d. Options are %s" % (num_layers, str(_SPEC.keys()))
    assert 1 <= version <= 2, "Invalid resnet version: %d. Options are 1 and 2." % version
    block_type, layers, channels = _SPEC[num_layers]
    net = _NETS[version - 1](_BLOCKS[version - 1][block_type], layers, channels, **kwargs)
    return load_pretrained(net, "resnet%d_v%d" % (num_layers, version), pretrained, ctx, root)


def _variant(version, num_layers):
    def make(**kwargs):
        return get_resnet(version, num_layers, **kwargs)
    make.__name__ = "resnet%d_v%d" % (num_layers, version)
    make.__doc__ = "ResNet-%d v%d (see get_resnet for the arguments)." % (num_layers, version)
    return make


for _v in (1, 2):
    for _n in _SPEC:
        globals()["resnet%d_v%d" % (_n, _v)] = _variant(_v, _n)
