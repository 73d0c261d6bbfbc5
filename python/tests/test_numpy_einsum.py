"""mx.np.einsum against NumPy's, and its out= argument."""
import numpy as onp
import pytest

from braid import np


def test_einsum_matches_numpy_and_writes_out():
    rng = onp.random.RandomState(0)
    a, b = rng.rand(2, 3).astype("float32"), rng.rand(3, 4).astype("float32")
    for subscripts, operands in (("ij,jk->ik", (a, b)), ("ii", (a @ a.T,)), ("ij->j", (a,)), ("i,j", (a[0], b[0]))):
        got = np.einsum(subscripts, *[np.array(x) for x in operands])
        onp.testing.assert_allclose(got.asnumpy(), onp.einsum(subscripts, *operands), rtol=1e-5)
    out = np.zeros((2, 4))
    assert np.einsum("ij,jk->ik", np.array(a), np.array(b), out=out) is out
    onp.testing.assert_allclose(out.asnumpy(), a @ b, rtol=1e-5)
    with pytest.raises(TypeError, match="out has dtype int32"):
        np.einsum("ij,jk->ik", np.array(a), np.array(b), out=np.zeros((2, 4), dtype="int32"))
