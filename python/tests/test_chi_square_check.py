"""mx.test_utils' chi-square check: the bucket search against NumPy's searchsorted, and the check
telling a generator of the right distribution from a wrong one."""
import numpy as np
import pytest

import braid as mx
from braid.test_utils import _distributions


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "float16", "float32", "float64"])
def test_bucket_search_matches_searchsorted(dtype):
    rng = np.random.RandomState(3)
    samples = (rng.uniform(-5, 260, 100000)).astype(dtype)
    if samples.dtype.kind == "f":
        samples[::97] = np.nan
    edges = np.array([0, 10, 10, 55.5, 55.5, 70, 128, 200, 250], dtype=np.float32)  # repeated edges too
    got = _distributions.right_insertion_points(edges, samples)
    np.testing.assert_array_equal(got, np.searchsorted(edges, samples, side="right"))


def test_unsorted_edges_fall_back_to_searchsorted():
    samples = np.arange(20, dtype=np.int64)
    edges = np.array([15, 3, 9], dtype=np.float32)
    np.testing.assert_array_equal(_distributions.right_insertion_points(edges, samples),
                                  np.searchsorted(edges, samples, side="right"))


def test_the_check_accepts_the_right_distribution_and_rejects_a_wrong_one():
    mx.random.seed(5)
    buckets, probs = mx.test_utils.gen_buckets_probs_with_ppf(lambda q: -1 + 3 * q, 5)  # uniform(-1, 2)
    p_right, obs, expected = mx.test_utils.chi_square_check(
        lambda n: mx.nd.random.uniform(-1, 2, shape=n), buckets, probs, nsamples=200000)
    assert p_right > 1e-3
    assert obs.sum() == 200000 and list(expected) == [40000] * 5
    p_wrong, _, _ = mx.test_utils.chi_square_check(
        lambda n: mx.nd.random.normal(0.5, 0.8, shape=n), buckets, probs, nsamples=200000)
    assert p_wrong < 1e-6
