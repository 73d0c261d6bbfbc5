"""nd.dot of a csr matrix and a dense one: Braid's compressed kernel against PyTorch's
(torch.sparse_csr_tensor @ dense) and against Braid's product on the dense copy of the matrix, in
one run (milliseconds per product, median of the rounds).

    PYTHONPATH=build/python python3 bench/sparse_dot.py [--rows 4096 --cols 100000 --k 64 --density 0.001]
"""
import argparse
import statistics
import time

import numpy as np
import scipy.sparse as sp

import braid as mx


def per_call_ms(fn, rounds):
    fn().wait_to_read()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn().wait_to_read()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


class _Done:
    """A finished PyTorch result, waited for like an NDArray."""

    def __init__(self, value):
        self.value = value

    def wait_to_read(self):
        return self.value


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=4096)
    parser.add_argument("--cols", type=int, default=100000)
    parser.add_argument("--k", type=int, default=64)
    parser.add_argument("--density", type=float, default=0.001)
    parser.add_argument("--rounds", type=int, default=5)
    a = parser.parse_args()
    matrix = sp.random(a.rows, a.cols, density=a.density, format="csr", dtype=np.float32, random_state=0)
    csr = mx.nd.array(matrix)
    rhs = mx.nd.array(np.random.RandomState(1).rand(a.cols, a.k).astype(np.float32))
    dense = csr.tostype("default")
    np.testing.assert_allclose(mx.nd.dot(csr, rhs).asnumpy(), mx.nd.dot(dense, rhs).asnumpy(), rtol=1e-4, atol=1e-4)
    sparse_ms = per_call_ms(lambda: mx.nd.dot(csr, rhs), a.rounds)
    import torch
    t_csr = torch.sparse_csr_tensor(torch.from_numpy(matrix.indptr.astype(np.int64)),
                                    torch.from_numpy(matrix.indices.astype(np.int64)), torch.from_numpy(matrix.data),
                                    size=matrix.shape)
    t_rhs = torch.from_numpy(rhs.asnumpy())
    torch_ms = per_call_ms(lambda: _Done(t_csr @ t_rhs), a.rounds)
    dense_ms = per_call_ms(lambda: mx.nd.dot(dense, rhs), a.rounds)
    print("csr %dx%d (%.2f%% stored, %d values) x dense %dx%d" % (a.rows, a.cols, 100 * a.density, matrix.nnz, a.cols,
                                                                   a.k))
    print("Braid %.1f ms, PyTorch (%d threads) %.1f ms: ratio %.2f" % (sparse_ms, torch.get_num_threads(), torch_ms,
                                                                     sparse_ms / torch_ms))
    print("Braid on the dense copy %.1f ms (%.1fx slower; the copy takes %.0f MB)" % (
        dense_ms, dense_ms / sparse_ms, a.rows * a.cols * 4 / 1e6))


if __name__ == "__main__":
    main()
