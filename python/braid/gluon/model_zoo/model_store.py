"""Pretrained weights of the model zoo: MXNet downloads them from its model store; Braid reads
them from a local folder (``root``) and cannot fetch them."""
import os

from ...base import MXNetError

__all__ = ["get_model_file", "purge"]


def get_model_file(name, root=os.path.join("~", ".mxnet", "models")):
    """The path of the pretrained parameters of model ``name`` (``<root>/<name>.params``, or
    MXNet's hashed file name ``<name>-<hash>.params``)."""
    root = os.path.expanduser(root)
    if os.path.isdir(root):
        for f in sorted(os.listdir(root)):
            if f == name + ".params" or (f.startswith(name + "-") and f.endswith(".params")):
                return os.path.join(root, f)
    raise MXNetError("pretrained parameters of model '%s' are not in %s; Braid does not download them: put MXNet's "
                     "%s-<hash>.params file there (from the MXNet model store) or use pretrained=False"
                     % (name, root, name))


def purge(root=os.path.join("~", ".mxnet", "models")):
    """Removes the pretrained parameter files in ``root``."""
    root = os.path.expanduser(root)
    for f in os.listdir(root) if os.path.isdir(root) else []:
        if f.endswith(".params"):
            os.remove(os.path.join(root, f))
