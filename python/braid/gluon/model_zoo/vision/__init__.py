"""gluon.model_zoo.vision: image classification networks with MXNet's architectures and parameter
names (so MXNet's pretrained files load): AlexNet, VGG, ResNet v1/v2, DenseNet, SqueezeNet,
Inception v3, MobileNet and MobileNetV2. ``get_model(name, pretrained=True)`` reads the parameters
from the local model store ($MXNET_HOME/models or ``root``); nothing is downloaded."""
from .alexnet import *  # noqa: F401,F403
from .densenet import *  # noqa: F401,F403
from .inception import *  # noqa: F401,F403
from .mobilenet import *  # noqa: F401,F403
from .resnet import *  # noqa: F401,F403
from .squeezenet import *  # noqa: F401,F403
from .vgg import *  # noqa: F401,F403
from . import densenet as _densenet, inception as _inception, mobilenet as _mobilenet
from . import resnet as _resnet, squeezenet as _squeezenet, vgg as _vgg

_models = {"alexnet": alexnet, "inceptionv3": _inception.inception_v3,  # noqa: F405 (alexnet the function)
           "squeezenet1.0": _squeezenet.squeezenet1_0, "squeezenet1.1": _squeezenet.squeezenet1_1}
for _module, _start in [(_resnet, "resnet"), (_vgg, "vgg"), (_densenet, "densenet")]:
    _models.update({n: getattr(_module, n) for n in _module.__all__ if n.startswith(_start) and n[len(_start)].isdigit()})
for _m in ["1.0", "0.75", "0.5", "0.25"]:
    _models["mobilenet" + _m] = getattr(_mobilenet, "mobilenet" + _m.replace(".", "_"))
    _models["mobilenetv2_" + _m] = getattr(_mobilenet, "mobilenet_v2_" + _m.replace(".", "_"))


def get_model(name, **kwargs):
    """A model by MXNet's name ('resnet18_v1', 'vgg16_bn', 'densenet121', 'squeezenet1.1',
    'inceptionv3', 'mobilenet0.5', 'mobilenetv2_1.0', ...), with the model's keyword arguments
    (``classes``, ``pretrained``, ``ctx``, ``root``, ``prefix``...)."""
    name = name.lower()
    if name not in _models:
        raise ValueError("Model %s is not supported. Available options are\n\t%s" % (name, "\n\t".join(sorted(_models))))
    return _models[name](**kwargs)
