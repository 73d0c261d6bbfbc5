"""mxnet.test_utils: the context and dtype tests run with, environment variables, retries,
silenced standard error, downloads and MXNet's process-level switches."""
import contextlib
import functools
import os
import platform
import sys

import numpy as _np

from .. import _core
from ..context import current_context, _set_current_context


# ---------------------------------------------------------------- contexts and dtypes

def default_context():
    """The context tests run on: this thread's current context (cpu(0) unless changed)."""
    return current_context()


def set_default_context(ctx):
    """Makes ctx this thread's current context (what new arrays use)."""
    _set_current_context(ctx)


def default_dtype():
    return _np.float32


def list_gpus():
    return list(range(_core.num_gpus()))


def is_cd_run():
    return os.environ.get("CD_JOB", "0") == "1"


def is_aarch64_run():
    """Whether the tests run on an aarch64 machine."""
    return platform.machine() == "aarch64"


# ---------------------------------------------------------------- environment and process helpers

@contextlib.contextmanager
def environment(*args):
    """Sets environment variables for the block and restores them after: environment('NAME', 'v')
    or environment({'A': '1', 'B': None}) (None unsets)."""
    if len(args) == 1 and isinstance(args[0], dict):
        settings = args[0]
    elif len(args) == 2:
        settings = {args[0]: args[1]}
    else:
        raise ValueError("environment() takes a dict, or a name and a value")
    saved = {k: os.environ.get(k) for k in settings}
    try:
        for k, v in settings.items():
            _set_env(k, v)
        yield
    finally:
        for k, v in saved.items():
            _set_env(k, v)


def _set_env(name, value):
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = str(value)


def set_env_var(key, val, default_val=""):
    """Sets an environment variable and returns its previous value (default_val if unset)."""
    prev_val = os.environ.get(key, default_val)
    os.environ[key] = val
    return prev_val


def retry(n):
    """Decorator: reruns a test up to n times while it raises AssertionError."""
    assert n > 0

    def test_helper(orig_test):
        @functools.wraps(orig_test)
        def test_new(*args, **kwargs):
            for i in range(n):
                try:
                    orig_test(*args, **kwargs)
                    return
                except AssertionError as e:
                    if i == n - 1:
                        raise e
                    _np.random.seed(None)
        return test_new
    return test_helper


@contextlib.contextmanager
def discard_stderr():
    """Sends the process's standard error to /dev/null for the block (C++ messages included)."""
    stderr_fileno = sys.stderr.fileno()
    old_stderr = os.dup(stderr_fileno)
    bit_bucket = open(os.devnull, "w")
    try:
        sys.stderr.flush()
        os.dup2(bit_bucket.fileno(), stderr_fileno)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(old_stderr, stderr_fileno)
        os.close(old_stderr)
        bit_bucket.close()


def download(url, fname=None, dirname=None, overwrite=False, retries=5):
    """Downloads url to fname (or dirname/<last part of url>), unless it is there already; returns
    the file name. Raises after `retries` failed attempts."""
    import urllib.request
    if fname is None:
        fname = url.split("/")[-1]
    if dirname is not None:
        os.makedirs(dirname, exist_ok=True)
        fname = os.path.join(dirname, fname)
    if not overwrite and os.path.exists(fname):
        return fname
    last = None
    for _ in range(max(1, retries)):
        try:
            tmp = fname + ".part"
            with urllib.request.urlopen(url, timeout=30) as response, open(tmp, "wb") as out:
                out.write(response.read())
            os.replace(tmp, fname)
            return fname
        except OSError as e:
            last = e
    raise RuntimeError("download of %s failed: %s" % (url, last))


class DummyIter:
    """A data iterator that returns the first batch of real_iter forever (for speed tests)."""

    def __init__(self, real_iter):
        self.real_iter = real_iter
        self.provide_data = real_iter.provide_data
        self.provide_label = real_iter.provide_label
        self.batch_size = real_iter.batch_size
        self.the_batch = next(iter(real_iter))

    def __iter__(self):
        return self

    def next(self):
        return self.the_batch

    __next__ = next


def use_np(func):
    """MXNet's switch to its NumPy-compatible interface (mx.np), which Braid does not have: the
    function is returned unchanged."""
    return func


def is_op_runnable():
    return True
