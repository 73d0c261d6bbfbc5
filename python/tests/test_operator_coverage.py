"""MXNet 1.9.1's legacy operator names against Braid's registry (tests/conformance/mxnet_operators.txt):
every name the list says Braid has is registered, every name it says is missing is indeed missing
(so the list is updated when one lands), and the share covered never falls below the list's."""
import os

import numpy as np

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
