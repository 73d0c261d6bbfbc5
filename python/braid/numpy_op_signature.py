"""mxnet.numpy_op_signature: the Python function of an operator registered under MXNet's NumPy
names (``_np_<name>`` is ``mx.np.<name>``, ``_npx_<name>`` is ``mx.npx.<name>``; submodules as
``_np_random_<name>`` → ``mx.np.random.<name>``)."""
from . import numpy as _mx_np
from . import numpy_extension as _mx_npx

_SUBMODULES = ("random", "linalg", "image")


def _get_builtin_op(op_name):
    """The function of operator op_name, or None for a name outside the NumPy families; raises
    ValueError when the family has no such function."""
    for prefix, root in (("_npx_", _mx_npx), ("_np_", _mx_np)):
        if op_name.startswith(prefix):
            break
    else:
        return None
    name, module = op_name[len(prefix):], root
    for sub in _SUBMODULES:
        if name.startswith(sub + "_"):
            module = getattr(root, sub, None)
            if module is None:
                raise ValueError("Cannot find submodule %s in module %s" % (sub, root.__name__))
            name = name[len(sub) + 1:]
            break
    op = getattr(module, name, None)
    if op is None:
        raise ValueError("Cannot find operator %s in module %s" % (name, module.__name__))
    return op
