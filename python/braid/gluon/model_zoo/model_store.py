"""Pretrained weights of the model zoo: MXNet downloads them from its model store; Braid reads
them from a local folder (``root``) and cannot fetch them."""
import os

from ...base import MXNetError, data_dir

__all__ = ["get_model_file", "load_pretrained", "purge"]

DEFAULT_ROOT = os.path.join(data_dir(), "models")  # $MXNET_HOME/models, else ~/.mxnet/models


def get_model_file(name, root=DEFAULT_ROOT):
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


def load_pretrained(net, name, pretrained, ctx, root):
    """Loads MXNet's pretrained parameters of model ``name`` into ``net`` when ``pretrained``."""
    if pretrained:
        net.load_parameters(get_model_file(name, root=root), ctx=ctx)
    return net


def purge(root=DEFAULT_ROOT):
    """Removes the pretrained parameter files in ``root``."""
    root = os.path.expanduser(root)
    for f in os.listdir(root) if os.path.isdir(root) else []:
        if f.endswith(".params"):
            os.remove(os.path.join(root, f))
