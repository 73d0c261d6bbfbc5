"""mx.nd.sparse: CSRNDArray and RowSparseNDArray made every way MXNet allows, compared with SciPy
and NumPy; conversions, copies, retain, row slices, .params files and pickles; operators on
compressed inputs; and the errors for what compressed arrays cannot do."""
import pickle

import numpy as np
import pytest
import scipy.sparse as spsp

import braid as mx
from braid.ndarray.sparse import CSRNDArray, RowSparseNDArray, BaseSparseNDArray


def _random_dense(shape, density=0.3, seed=0):
    rng = np.random.RandomState(seed)
    return (rng.rand(*shape) * (rng.rand(*shape) < density)).astype(np.float32)


def test_csr_matrix_from_every_source_matches_scipy():
    dense = _random_dense((6, 5))
    ref = spsp.csr_matrix(dense)
    made = [
        mx.nd.sparse.csr_matrix((ref.data, ref.indices, ref.indptr), shape=(6, 5)),
        mx.nd.sparse.csr_matrix(ref),
        mx.nd.sparse.csr_matrix(dense),
        mx.nd.sparse.csr_matrix(mx.nd.array(dense)),
        mx.nd.array(dense).tostype("csr"),
        mx.nd.array(ref),
        mx.nd.sparse.array(ref),
    ]
    for a in made:
        assert type(a) is CSRNDArray and isinstance(a, mx.nd.NDArray) and isinstance(a, BaseSparseNDArray)
        assert a.stype == "csr" and a.shape == (6, 5) and a.dtype == np.float32
        np.testing.assert_array_equal(a.asnumpy(), dense)
        np.testing.assert_array_equal(a.indptr.asnumpy(), ref.indptr)
        np.testing.assert_array_equal(a.indices.asnumpy(), ref.indices)
        np.testing.assert_array_equal(a.data.asnumpy(), ref.data)
        assert a.indices.dtype == np.int64 and a.indptr.dtype == np.int64
    # COO with a repeated position sums it, as SciPy does.
    coo = mx.nd.sparse.csr_matrix(([1.0, 2.0, 5.0], ([0, 2, 0], [1, 0, 1])), shape=(3, 2))
    np.testing.assert_array_equal(coo.asnumpy(), [[0, 6], [0, 0], [2, 0]])
    # The shape of (data, indices, indptr) is inferred: rows from indptr, columns from the largest index.
    inferred = mx.nd.sparse.csr_matrix(([1, 2], [3, 1], [0, 1, 2]))
    assert inferred.shape == (2, 4)
    empty = mx.nd.sparse.csr_matrix((3, 4), dtype="float64")
    assert empty.dtype == np.float64 and empty.data.shape == (0,)
    np.testing.assert_array_equal(empty.asnumpy(), np.zeros((3, 4)))


def test_row_sparse_array_from_every_source():
    values = np.arange(12, dtype=np.float64).reshape(2, 3, 2) + 1
    a = mx.nd.sparse.row_sparse_array((values, [1, 4]), shape=(5, 3, 2))
    assert type(a) is RowSparseNDArray and a.stype == "row_sparse" and a.dtype == np.float64
    expected = np.zeros((5, 3, 2))
    expected[[1, 4]] = values
    np.testing.assert_array_equal(a.asnumpy(), expected)
    np.testing.assert_array_equal(a.indices.asnumpy(), [1, 4])
    assert a._num_aux == 1 and a.indices.dtype == np.int64
    assert mx.nd.sparse.row_sparse_array((values, [1, 4])).shape == (5, 3, 2)
    for b in (mx.nd.sparse.row_sparse_array(expected), mx.nd.array(expected).tostype("row_sparse"),
              mx.nd.sparse.row_sparse_array(a), mx.nd.sparse.array(a)):
        assert b.stype == "row_sparse"
        np.testing.assert_array_equal(b.indices.asnumpy(), [1, 4])
        np.testing.assert_array_equal(b.asnumpy(), expected)
    z = mx.nd.zeros((4, 2), stype="row_sparse")
    assert z.stype == "row_sparse" and z.data.shape == (0, 2)
    np.testing.assert_array_equal(mx.nd.sparse.zeros("csr", (2, 3)).asnumpy(), np.zeros((2, 3)))


def test_conversions_keep_values_dtype_and_context():
    dense = _random_dense((5, 4), seed=1)
    csr = mx.nd.array(dense).tostype("csr")
    rsp = mx.nd.array(dense).tostype("row_sparse")
    np.testing.assert_array_equal(csr.tostype("default").asnumpy(), dense)
    assert csr.tostype("default").stype == "default"
    np.testing.assert_array_equal(rsp.tostype("default").asnumpy(), dense)
    same = csr.tostype("csr")  # a copy, as MXNet's cast_storage makes
    assert same.stype == "csr" and not same._same_as(csr)
    np.testing.assert_array_equal(same.asnumpy(), dense)
    with pytest.raises(ValueError, match="cast_storage from csr to row_sparse"):
        csr.tostype("row_sparse")
    with pytest.raises(ValueError, match="cast_storage from row_sparse to csr"):
        rsp.tostype("csr")
    half = csr.astype("float16")
    assert type(half) is CSRNDArray and half.dtype == np.float16
    np.testing.assert_allclose(half.asnumpy(), dense, rtol=1e-3)
    moved = rsp.copyto(mx.cpu(1))
    assert moved.context == mx.cpu(1) and moved.stype == "row_sparse"
    np.testing.assert_array_equal(moved.asnumpy(), dense)
    via_op = mx.nd.cast_storage(mx.nd.array(dense), stype="csr")
    assert via_op.stype == "csr"
    np.testing.assert_array_equal(via_op.asnumpy(), dense)


def test_assignment_and_copies_into_compressed_arrays():
    dense = _random_dense((4, 3), seed=2)
    for stype in ("csr", "row_sparse"):
        x = mx.nd.zeros((4, 3), stype=stype)
        alias = x
        x[:] = mx.nd.array(dense)
        np.testing.assert_array_equal(alias.asnumpy(), dense)
        assert x.stype == stype
        x[:] = np.ones((4, 3))
        np.testing.assert_array_equal(x.asnumpy(), np.ones((4, 3)))
        target = mx.nd.zeros((4, 3))
        x.copyto(target)
        np.testing.assert_array_equal(target.asnumpy(), np.ones((4, 3)))
    r = mx.nd.zeros((4, 3), stype="row_sparse")
    r[:] = 2
    np.testing.assert_array_equal(r.asnumpy(), np.full((4, 3), 2))
    np.testing.assert_array_equal(r.indices.asnumpy(), [0, 1, 2, 3])


def test_retain_and_row_slices():
    dense = np.arange(1, 13, dtype=np.float32).reshape(6, 2)
    dense[[1, 3]] = 0
    rsp = mx.nd.array(dense).tostype("row_sparse")
    kept = mx.nd.sparse.retain(rsp, mx.nd.array([0, 3, 5]))
    expected = np.zeros_like(dense)
    expected[[0, 5]] = dense[[0, 5]]
    assert kept.stype == "row_sparse"
    np.testing.assert_array_equal(kept.asnumpy(), expected)
    np.testing.assert_array_equal(rsp.retain(mx.nd.array([0, 3, 5])).asnumpy(), expected)
    csr = mx.nd.array(dense).tostype("csr")
    for key, rows in ((slice(1, 4), slice(1, 4)), (2, slice(2, 3)), (slice(None), slice(None)), (-1, slice(5, 6))):
        part = csr[key]
        assert part.stype == "csr"
        np.testing.assert_array_equal(part.asnumpy(), dense[rows])


def test_files_and_pickles_keep_compressed_arrays(tmp_path):
    dense = _random_dense((7, 3), seed=3)
    arrays = {"c": mx.nd.array(dense).tostype("csr"), "r": mx.nd.array(dense).tostype("row_sparse"),
              "d": mx.nd.array(dense)}
    path = str(tmp_path / "mixed.params")
    mx.nd.save(path, arrays)
    back = mx.nd.load(path)
    assert {k: v.stype for k, v in back.items()} == {"c": "csr", "r": "row_sparse", "d": "default"}
    for v in back.values():
        np.testing.assert_array_equal(v.asnumpy(), dense)
    for a in arrays.values():
        b = pickle.loads(pickle.dumps(a))
        assert type(b) is type(a)
        np.testing.assert_array_equal(b.asnumpy(), dense)


def test_operators_on_compressed_inputs_match_numpy():
    dense = _random_dense((5, 4), seed=4)
    other = np.random.RandomState(5).rand(5, 4).astype(np.float32)
    for stype in ("csr", "row_sparse"):
        x = mx.nd.array(dense).tostype(stype)
        np.testing.assert_allclose((x + mx.nd.array(other)).asnumpy(), dense + other, rtol=1e-6)
        np.testing.assert_allclose(mx.nd.sum(x, axis=1).asnumpy(), dense.sum(axis=1), rtol=1e-6)
        np.testing.assert_allclose(mx.nd.dot(x, mx.nd.array(other.T)).asnumpy(), dense @ other.T, rtol=1e-5)
        np.testing.assert_allclose(mx.nd.dot(x, mx.nd.array(other), transpose_a=True).asnumpy(), dense.T @ other,
                                   rtol=1e-5)
        np.testing.assert_allclose(x.exp().asnumpy(), np.exp(dense), rtol=1e-6)
        z = mx.nd.zeros_like(x)
        assert z.stype == stype and z.shape == x.shape
        np.testing.assert_array_equal(z.asnumpy(), np.zeros_like(dense))
        out = mx.nd.zeros((5, 4), stype=stype)
        mx.nd.elemwise_mul(x, mx.nd.array(other), out=out)
        assert out.stype == stype
        np.testing.assert_allclose(out.asnumpy(), dense * other, rtol=1e-6)


def test_check_format_names_the_fault():
    good = mx.nd.sparse.csr_matrix(([1, 2], [0, 2], [0, 1, 2, 2]), shape=(3, 3))
    good.check_format()
    for parts, fault in ((([1, 2], [0, 3], [0, 1, 2, 2]), "column index 3 of row 1"),
                         (([1, 2], [2, 0], [0, 2, 2, 2]), "not strictly ascending"),
                         (([1, 2], [0, 2], [0, 2, 1, 2]), "indptr decreases at row 1"),
                         (([1, 2], [0, 2], [0, 1, 2, 1]), "indptr must end at the number of values")):
        bad = mx.nd.sparse.csr_matrix(parts, shape=(3, 3))
        with pytest.raises(mx.base.MXNetError, match=fault):
            bad.check_format()
    with pytest.raises(mx.base.MXNetError, match="row index 7 is out of range"):
        mx.nd.sparse.row_sparse_array(([[1.0]], [7]), shape=(3, 1)).check_format()


def test_what_compressed_arrays_cannot_do():
    csr = mx.nd.sparse.zeros("csr", (2, 3))
    assert repr(csr) == "\n<CSRNDArray 2x3 @cpu(0)>"
    with pytest.raises(mx.base.MXNetError, match="tostype"):
        csr.reshape((3, 2))
    with pytest.raises(ValueError, match="step 1"):
        csr[::2]
    with pytest.raises(mx.base.MXNetError, match="csr array can only be set to 0"):
        csr[:] = 3
    with pytest.raises(mx.base.MXNetError, match="1 indices for 2 values"):
        mx.nd.sparse.csr_matrix(([1, 2], [0], [0, 2]), shape=(1, 3))
    with pytest.raises(mx.base.MXNetError, match="a matrix of 2 rows needs 3"):
        mx.nd.sparse.csr_matrix(([1], [0], [0, 1]), shape=(2, 3))


def test_autograd_through_compressed_arrays_matches_numpy():
    csr_np = _random_dense((3, 5), density=0.5, seed=6)
    csr = mx.nd.array(csr_np).tostype("csr")
    w_np = np.random.RandomState(7).rand(5, 2).astype(np.float32)
    for w, grad_stype in ((mx.nd.array(w_np), "row_sparse"), (mx.nd.array(w_np).tostype("row_sparse"), None)):
        w.attach_grad(stype=grad_stype)
        assert w.grad.stype == "row_sparse"  # as asked, or like the array
        head = np.random.RandomState(8).rand(3, 2).astype(np.float32)
        with mx.autograd.record():
            y = mx.nd.dot(csr, w)
        y.backward(mx.nd.array(head).tostype("row_sparse"))
        np.testing.assert_allclose(y.asnumpy(), csr_np @ w_np, rtol=1e-5)
        assert w.grad.stype == "row_sparse"
        np.testing.assert_allclose(w.grad.asnumpy(), csr_np.T @ head, rtol=1e-5)
    x = mx.nd.zeros((4, 4)).tostype("csr")
    x.attach_grad()
    with mx.autograd.record():
        z = (x * 3).sum()
    z.backward()
    assert x.grad.stype == "csr"
    np.testing.assert_array_equal(x.grad.asnumpy(), np.full((4, 4), 3))
