"""Inception v3 ("Rethinking the Inception Architecture for Computer Vision"), without the
auxiliary classifier, with MXNet's block structure and parameter names. Takes 299 x 299 images."""
from ....context import cpu
from ...._core.gluon import model_zoo as _z
from ..model_store import DEFAULT_ROOT, load_pretrained

__all__ = ["Inception3", "inception_v3"]


Inception3 = _z.Inception3


def inception_v3(pretrained=False, ctx=cpu(), root=DEFAULT_ROOT, **kwargs):
    """Inception v3; ``pretrained`` loads MXNet's ImageNet parameters from ``root``."""
    return load_pretrained(Inception3(**kwargs), "inceptionv3", pretrained, ctx, root)
