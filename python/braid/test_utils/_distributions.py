"""mxnet.test_utils: statistical checks of random generators (mean, variance, Pearson's chi-square
over buckets)."""
import numpy as _np

from .._core import NDArray


def gen_buckets_probs_with_ppf(ppf, nbuckets):
    """nbuckets equal-probability buckets [(low, high)] of a continuous distribution given by its
    inverse CDF, and their probabilities."""
    probs = [1.0 / nbuckets for _ in range(nbuckets)]
    buckets = [(ppf(i / float(nbuckets)), ppf((i + 1) / float(nbuckets))) for i in range(nbuckets)]
    return buckets, probs


def mean_check(generator, mu, sigma, nsamples=1000000):
    """True when the sample mean of nsamples draws is within 3 standard errors of mu."""
    samples = _np.array(generator(nsamples))
    sample_mean = samples.mean()
    return (sample_mean > mu - 3 * sigma / _np.sqrt(nsamples)) and (sample_mean < mu + 3 * sigma / _np.sqrt(nsamples))


def var_check(generator, sigma, nsamples=1000000):
    """True when the sample variance of nsamples draws is within 3 standard errors of sigma**2."""
    samples = _np.array(generator(nsamples))
    sample_var = samples.var(ddof=1)
    return (sample_var > sigma ** 2 - 3 * _np.sqrt(2 * sigma ** 4 / (nsamples - 1))) and \
           (sample_var < sigma ** 2 + 3 * _np.sqrt(2 * sigma ** 4 / (nsamples - 1)))


def right_insertion_points(edges, samples):
    """np.searchsorted(edges, samples, side="right"), for the few sorted bucket edges of a
    chi-square check as one comparison pass per edge counted in int8: about 3x faster than the
    binary search over a million samples."""
    if len(edges) > 127 or samples.dtype.kind not in "iuf" or _np.isnan(edges).any() or (_np.diff(edges) < 0).any():
        return _np.searchsorted(edges, samples, side="right")
    common = _np.result_type(edges.dtype, samples.dtype)  # the type searchsorted compares in
    values = samples.astype(common, copy=False)
    ids = _np.zeros(samples.shape, _np.int8)
    for edge in edges.astype(common):
        ids += values >= edge
    if common.kind == "f":
        ids[_np.isnan(values)] = len(edges)  # searchsorted puts NaN after every edge
    return ids


def chi_square_check(generator, buckets, probs, nsamples=1000000):
    """Pearson's chi-square test of nsamples draws against the buckets' probabilities (buckets are
    (low, high) ranges, or discrete values). Returns the p-value, the observed and expected counts."""
    from scipy import stats as ss
    if not isinstance(buckets, list):
        raise AssertionError("buckets must be a list")
    continuous_dist = isinstance(buckets[0], (list, tuple))  # (low, high) ranges, as lists or tuples
    if continuous_dist:
        buckets_npy = _np.zeros((len(buckets) * 2,), dtype=_np.float32)
        for i, _ in enumerate(buckets):
            buckets_npy[i * 2] = buckets[i][0]
            buckets_npy[i * 2 + 1] = buckets[i][1]
    else:
        buckets_npy = _np.array(buckets, dtype=_np.float32)
    expected_freq = (nsamples * _np.array(probs, dtype=_np.float32)).astype(_np.int32)
    samples = generator(nsamples)
    samples = samples.asnumpy() if isinstance(samples, NDArray) else _np.asarray(samples)
    assert samples.shape[0] == nsamples, "generator made %d samples, %d wanted" % (samples.shape[0], nsamples)
    if continuous_dist:
        sample_bucket_ids = right_insertion_points(buckets_npy, samples) // 2
        obs_freq = _np.bincount(sample_bucket_ids.ravel(), minlength=len(buckets))[:len(buckets)].astype(_np.int64)
    else:
        sample_bucket_ids = _np.array(samples)
        obs_freq = _np.zeros(shape=len(buckets), dtype=_np.int64)
        for i, value in enumerate(buckets):
            obs_freq[i] = (sample_bucket_ids == value).sum()
    # SciPy >= 1.9 rejects expected counts whose total differs from the observed one (the int32
    # rounding above, or buckets that do not cover every sample); older SciPy, which MXNet's tests
    # were written against, did not check: compare against the expected counts rescaled.
    f_exp = expected_freq * (obs_freq.sum() / max(expected_freq.sum(), 1))
    _, p = ss.chisquare(f_obs=obs_freq, f_exp=f_exp)
    return p, obs_freq, expected_freq


def verify_generator(generator, buckets, probs, nsamples=1000000, nrepeat=5, success_rate=0.2, alpha=0.05):
    """Runs chi_square_check nrepeat times; raises AssertionError when fewer than success_rate of
    the runs have a p-value above alpha. Returns the p-values."""
    cs_ret_l = []
    obs_freq_l = []
    expected_freq_l = []
    for _ in range(nrepeat):
        cs_ret, obs_freq, expected_freq = chi_square_check(generator=generator, buckets=buckets, probs=probs,
                                                           nsamples=nsamples)
        cs_ret_l.append(cs_ret)
        obs_freq_l.append(obs_freq)
        expected_freq_l.append(expected_freq)
    success_num = (_np.array(cs_ret_l) > alpha).sum()
    if success_num < nrepeat * success_rate:
        raise AssertionError("Generator test fails, Chi-square p=%s, obs_freq=%s, expected_freq=%s."
                             "\nbuckets=%s, probs=%s" % (str(cs_ret_l), str(obs_freq_l), str(expected_freq_l),
                                                          str(buckets), str(probs)))
    return cs_ret_l
