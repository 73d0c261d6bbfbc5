"""gluon.model_zoo.vision: image classification networks (ResNet v1 and v2 so far)."""
from .resnet import *  # noqa: F401,F403
from . import resnet

_models = {name: getattr(resnet, name) for name in resnet.__all__ if name.startswith("resnet")}


def get_model(name, **kwargs):
    """A model by name (``'resnet18_v1'``), with the model's keyword arguments (``classes``,
    ``pretrained``, ``ctx``, ``root``, ``prefix``...)."""
    name = name.lower()
    if name not in _models:
        raise ValueError("Model %s is not supported. Available options are\n\t%s"
                         % (name, "\n\t".join(sorted(_models))))
    return _models[name](**kwargs)
