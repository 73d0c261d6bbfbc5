"""DLPack and NumPy without copies: Braid arrays handed to PyTorch and back share memory, every
dtype keeps its values, and the memory a framework lent is given back once Braid is done."""
import gc
import time
import weakref

import numpy as np
import pytest
import torch
import torch.utils.dlpack

import mxnet as mx


def wait_until(condition, seconds=10.0):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not met in %s s" % seconds
        gc.collect()


def test_an_array_lent_to_torch_is_the_same_memory():
    a = mx.nd.arange(6).reshape((2, 3))
    t = torch.utils.dlpack.from_dlpack(a.to_dlpack_for_write())
    assert t.tolist() == [[0, 1, 2], [3, 4, 5]]
    t[1, 2] = 50.0
    assert a.asnumpy().tolist() == [[0, 1, 2], [3, 4, 50]]
    # The protocol of newer frameworks: torch.from_dlpack(ndarray).
    u = torch.from_dlpack(mx.nd.ones((2,), dtype="int64") * 3)
    assert u.dtype == torch.int64 and u.tolist() == [3, 3]


def test_a_torch_tensor_borrowed_by_braid_is_the_same_memory():
    t = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    a = mx.nd.from_dlpack(torch.utils.dlpack.to_dlpack(t))
    assert a.shape == (3, 4)
    np.testing.assert_array_equal(a.asnumpy(), t.numpy())
    a[0] = -1  # written through Braid's engine into torch's memory
    a.wait_to_read()
    assert t[0].tolist() == [-1, -1, -1, -1]
    b = mx.nd.from_dlpack(t[1:])  # an object with __dlpack__
    np.testing.assert_array_equal((b * 2).asnumpy(), t[1:].numpy() * 2)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64, torch.int8, torch.int32,
                                   torch.int64, torch.uint8])
def test_dtypes_travel_both_ways(dtype):
    t = (torch.arange(6) % 3).to(dtype)
    a = mx.nd.from_dlpack(torch.utils.dlpack.to_dlpack(t))
    back = torch.utils.dlpack.from_dlpack(mx.nd.to_dlpack_for_read(a))
    assert back.dtype == dtype
    assert torch.equal(back, t)


def test_bool_arrays_travel_as_dlpack_bool():  # PyTorch 1.13 exports no bool tensors
    a = mx.nd.array([1, 0, 1], dtype="bool")
    b = mx.nd.from_dlpack(a.to_dlpack_for_read())
    assert b.dtype == np.bool_ and b.asnumpy().tolist() == [True, False, True]


def test_capsules_are_taken_once_and_strided_tensors_are_refused():
    capsule = mx.nd.ones((2, 2)).to_dlpack_for_read()
    mx.nd.from_dlpack(capsule)
    with pytest.raises(mx.base.MXNetError, match="already used"):
        mx.nd.from_dlpack(capsule)
    with pytest.raises(mx.base.MXNetError, match="not compact row-major"):
        mx.nd.from_dlpack(torch.utils.dlpack.to_dlpack(torch.ones(3, 4).t()))
    with pytest.raises(mx.base.MXNetError, match="DLPack capsule"):
        mx.nd.from_dlpack([1, 2])


def test_from_numpy_shares_memory_and_keeps_the_array_alive():
    source = np.arange(6, dtype="float32").reshape(2, 3)
    a = mx.nd.from_numpy(source)
    assert not source.flags["WRITEABLE"]  # writes go through the NDArray, as in MXNet
    a[1, 2] = 100
    a.wait_to_read()
    assert source[1, 2] == 100
    alive = weakref.ref(source)
    del source
    gc.collect()
    assert alive() is not None  # held by the NDArray
    assert (a + 1).asnumpy()[1, 2] == 101
    del a
    mx.nd.waitall()
    wait_until(lambda: alive() is None)  # given back on the main thread
    with pytest.raises(ValueError, match="c-contiguous"):
        mx.nd.from_numpy(np.ones((2, 3)).T)
    copied = np.ones((2, 2), dtype="int32")
    b = mx.nd.from_numpy(copied, zero_copy=False)
    b[:] = 5
    assert copied.flags["WRITEABLE"] and copied.sum() == 4 and b.dtype == np.int32

