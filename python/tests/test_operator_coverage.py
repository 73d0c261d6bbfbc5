"""MXNet 1.9.1's legacy operator names against Braid's registry (tests/conformance/mxnet_operators.txt):
every name the list says Braid has is registered, every name it says is missing is indeed missing
(so the list is updated when one lands), and the share covered never falls below the list's."""
import os

import numpy as np
import pytest

import braid as mx

LIST = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "conformance", "mxnet_operators.txt")


def read_list():
    names, missing = [], {}
    with open(LIST) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            name, _, reason = line.rstrip("\n").partition("  ")
            names.append(name)
            if reason:
                missing[name] = reason
    return names, missing


def test_the_list_matches_the_registry():
    names, missing = read_list()
    registered = set(mx.operator.get_all_registered_operators())
    assert len(names) > 400
    assert [n for n in names if n not in missing and n not in registered] == []
    assert [n for n in missing if n in registered] == [], "registered now: drop their reason from the list"
    assert all(reason.strip() for reason in missing.values())


def test_aliases_reach_the_same_operator():
    a = mx.nd.array([1.0, 2.0, 3.0])
    b = mx.nd.array([3.0, 2.0, 1.0])
    assert mx.nd._internal._Greater(a, b).asnumpy().tolist() == [0, 0, 1]
    assert mx.nd._internal._EqualScalar(a, scalar=2.0).asnumpy().tolist() == [0, 1, 0]


def test_the_graph_pass_operators_compute_what_mxnet_s_do():
    a = mx.nd.array([1.0, 2.0, 3.0])
    b = mx.nd.array([3.0, 2.0, 1.0])
    assert mx.nd._internal._grad_add(a, b).asnumpy().tolist() == [4, 4, 4]
    assert mx.nd._internal._CrossDeviceCopy(a).asnumpy().tolist() == [1, 2, 3]
    zeros = mx.nd._internal._zeros_without_dtype(shape=(2, 3))
    assert zeros.shape == (2, 3) and zeros.dtype == np.float32 and zeros.asnumpy().sum() == 0
    assert mx.nd._internal._zeros_without_dtype(shape=(2,), dtype=1).dtype == np.float64
    # in a graph, the dtype is left to the ops reading the output
    s = mx.sym._internal._zeros_without_dtype(shape=(2,)) + mx.sym.var("x")
    assert s.infer_type(x="float64")[1] == [np.float64]


def test_operator_arguments_are_described_as_mxnet_describes_them():
    args = mx.operator.get_operator_arguments("Activation")
    assert isinstance(args, mx.operator.OperatorArguments)
    assert args.names == ["data", "act_type"] and args.narg == 2
    assert args.types == ["NDArray-or-Symbol", "{'relu', 'sigmoid', 'softrelu', 'softsign', 'tanh'}, required"]
    concat = mx.operator.get_operator_arguments("Concat")
    assert concat.names[0] == "data" and concat.types[0] == "NDArray-or-Symbol[]"
    assert dict(zip(concat.names, concat.types))["num_args"] == "int, required"
    fc = dict(zip(*mx.operator.get_operator_arguments("FullyConnected")[1:]))
    assert [fc[n] for n in ("data", "weight", "bias")] == ["NDArray-or-Symbol"] * 3
    assert fc["num_hidden"] == "int, required" and fc["no_bias"] == "boolean, optional, default=0"
    pool = dict(zip(*mx.operator.get_operator_arguments("Pooling")[1:]))
    assert pool["pool_type"].startswith("{'avg', 'lp', 'max', 'sum'},optional, default='max'")
    assert "act_type : {'relu', 'sigmoid', 'softrelu', 'softsign', 'tanh'}, required" in mx.nd.Activation.__doc__
    assert "data : Symbol" in mx.sym.Activation.__doc__
    with pytest.raises(mx.MXNetError):
        mx.operator.get_operator_arguments("NoSuchOperator")
