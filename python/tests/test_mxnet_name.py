"""`import mxnet as mx` runs Braid: the name mxnet and every mxnet.X are Braid's own modules."""
import importlib
import subprocess
import sys

import pytest

import braid


def test_mxnet_is_the_braid_package():
    import mxnet as mx
    assert mx is braid
    assert mx.nd.dot(mx.nd.ones((2, 3)), mx.nd.ones((3, 1))).sum().asscalar() == 6.0


def test_submodules_are_braids_modules_under_both_names():
    from mxnet.gluon import nn
    import mxnet.ndarray
    from mxnet.base import MXNetError
    import braid.gluon.nn
    assert nn is braid.gluon.nn and mxnet.ndarray is braid.ndarray and MXNetError is braid.base.MXNetError
    # One class per name: an array made through one name is an instance under the other.
    assert isinstance(braid.nd.ones((2,)), mxnet.ndarray.NDArray)
    # The modules keep their own identity (pickling and reloading go by it).
    assert nn.__name__ == "braid.gluon.nn" and nn.__spec__.name == "braid.gluon.nn"


def test_a_module_braid_lacks_is_named():
    with pytest.raises(ModuleNotFoundError, match=r"mxnet\.no_such_module.*braid\.no_such_module"):
        importlib.import_module("mxnet.no_such_module")


def test_a_fresh_interpreter_runs_an_mxnet_program():
    code = ("import mxnet as mx\nfrom mxnet import gluon, autograd\nnet = gluon.nn.Dense(2)\n"
            "net.initialize()\nx = mx.nd.ones((3, 4))\nwith autograd.record():\n    y = net(x)\n"
            "y.backward()\nprint(type(net) is mx.gluon.nn.Dense, y.shape, x.grad is None)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["True", "(3,", "2)", "True"]
